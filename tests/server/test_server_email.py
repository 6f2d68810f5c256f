"""Turn alerts by e-mail (issue 29; flip7.server.services.mail), against a real SMTP server
the test starts (aiosmtpd): an address is verified by following the link mailed to it;
a turn-based decision that comes to an away player is mailed (with the table's link and an
unsubscribe link), at most once an hour about a game; the unsubscribe link stops them; a
server without ``--smtp`` offers nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from mail_helpers import Inbox, body_of, link_of, local_smtp
from server_helpers import app_client, auth, services_of
from test_server_turn_based import _run_out

from flip7.server.services.mail import SmtpUrlError, smtp_server


@pytest.fixture
def smtp() -> Iterator[tuple[str, Inbox]]:
    with local_smtp() as server:
        yield server


def test_the_smtp_url() -> None:
    server = smtp_server("smtps://mail.example.org", "Flip 7 <games@example.org>",
                         {"FLIP7_SMTP_USER": "ann", "FLIP7_SMTP_PASSWORD": "pw"})  # fmt: skip
    assert (server.port, server.security, server.password) == (465, "tls", "pw")
    assert smtp_server("smtp://localhost:2525", None, {}).port == 2525
    with pytest.raises(SmtpUrlError, match="FLIP7_SMTP_PASSWORD"):
        smtp_server("smtp://ann:pw@localhost", None, {})


def test_verify_an_address_then_a_turn_alert_once_an_hour_and_unsubscribe(
    tmp_path: Path, smtp: tuple[str, Inbox]
) -> None:
    url, inbox = smtp
    with app_client(tmp_path / "db.sqlite", seed=3, smtp_url=url, smtp_from="games@flip7.test",
                    email_batch_seconds=0.1) as client:  # fmt: skip
        assert client.get("/api/server").json()["email"] is True
        ann = client.post("/api/players", json={"name": "Ann"}).json()
        mine = {"X-Player-Key": ann["key"]}
        assert client.get("/api/players/me/email", headers=mine).json() == {
            "offered": True, "email": None}
        bad = client.put("/api/players/me/email", json={"address": "ann at home"}, headers=mine)
        assert bad.status_code == 400 and bad.json()["detail"]["code"] == "bad_email"
        r = client.put("/api/players/me/email", json={"address": "ann@example.org"},
                       headers=mine)  # fmt: skip
        assert r.status_code == 200, r.text
        assert r.json()["email"] == {"address": "ann@example.org", "verified": False,
                                     "alerts": True}  # fmt: skip
        [verification] = inbox.wait(1)
        assert verification["To"] == "ann@example.org"
        assert verification["From"] == "games@flip7.test"
        assert "Hi Ann" in body_of(verification) and verification["List-Unsubscribe"]
        token = link_of(verification, "verify")
        assert client.post("/api/email/verify", json={"token": token}).json()["verified"]
        again = client.post("/api/email/verify", json={"token": token})
        assert again.status_code == 404 and again.json()["detail"]["code"] == "bad_link"
        assert client.get("/api/players/me/email", headers=mine).json()["email"]["verified"]

        # A turn-based table Ann made and never opened: her first decision is mailed.
        made = client.post("/api/tables", headers=mine, json={
            "player": "Ann", "name": "Slow Sunday", "seats": 3, "pace": "turn_based",
            "move_hours": 12})  # fmt: skip
        table_id, token = made.json()["table"]["id"], made.json()["token"]
        for _ in range(2):
            client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                        headers=auth(token))  # fmt: skip
        client.post(f"/api/tables/{table_id}/start", headers=auth(token))
        alert = inbox.wait(2)[1]
        assert alert["Subject"] == "Your turn at Slow Sunday"
        body = body_of(alert)
        assert f"/t/{table_id}" in body and "decide by" in body and "a bot makes" in body
        # Her clock runs out, the game comes back to her: no second e-mail within the hour.
        lobby = services_of(client).lobby
        version = lobby.tables[table_id].version
        _run_out(client, table_id)
        deadline = time.monotonic() + 10
        while not (lobby.tables[table_id].version > version
                   and lobby.tables[table_id].to_decide == 0):  # fmt: skip
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # several batches
        assert len(inbox.messages) == 2
        # One link turns them off.
        off = client.post("/api/email/unsubscribe", json={"token": link_of(alert, "unsubscribe")})
        assert off.status_code == 200 and off.json()["alerts"] is False
        assert client.get("/api/players/me/email", headers=mine).json()["email"]["alerts"] is False
        on = client.patch("/api/players/me/email", json={"alerts": True}, headers=mine)
        assert on.json()["email"]["alerts"] is True
        gone = client.delete("/api/players/me/email", headers=mine)
        assert gone.json()["email"] is None


def test_limits_and_a_server_without_smtp(tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    url, inbox = smtp
    with app_client(tmp_path / "a.sqlite", smtp_url=url, email_codes_burst=2) as client:
        mine = {"X-Player-Key": client.post("/api/players", json={"name": "Ann"}).json()["key"]}
        codes = [client.put("/api/players/me/email", json={"address": f"a{i}@example.org"},
                            headers=mine).status_code for i in range(3)]  # fmt: skip
        assert codes == [200, 200, 429]
        assert len(inbox.wait(2)) == 2
        assert client.put("/api/players/me/email", json={"address": "a@example.org"}
                          ).status_code == 401  # fmt: skip
    with app_client(tmp_path / "b.sqlite") as client:
        assert client.get("/api/server").json()["email"] is False
        mine = {"X-Player-Key": client.post("/api/players", json={"name": "Bo"}).json()["key"]}
        assert client.get("/api/players/me/email", headers=mine).json() == {
            "offered": False, "email": None}
        r = client.put("/api/players/me/email", json={"address": "bo@example.org"}, headers=mine)
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_email"
