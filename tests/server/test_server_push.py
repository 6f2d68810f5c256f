"""Turn alerts by Web Push (issue 29; flip7.server.services.push), as far as a machine
without the internet allows: a subscription made as a browser makes one (its own P-256 key
pair and auth secret), a local push service the test runs, and the message it receives
decrypted with the subscription's keys (RFC 8291, aes128gcm) and signed with the server's
VAPID key (RFC 8292). A push service that answers 410 (the browser unsubscribed) makes the
server forget the subscription."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("pywebpush")

from push_helpers import PushService, browser_keys, local_push_service, opened, unb64
from server_helpers import app_client, auth, services_of


@pytest.fixture
def push_service() -> Iterator[PushService]:
    with local_push_service() as service:
        yield service


def _turn_based_table(client: Any, key: str, name: str) -> str:
    """A turn-based table Ann made and never opened, started: her decision comes away."""
    made = client.post("/api/tables", headers={"X-Player-Key": key}, json={
        "player": "Ann", "name": name, "seats": 3, "pace": "turn_based"}).json()  # fmt: skip
    table_id, token = made["table"]["id"], made["token"]
    for _ in range(2):
        client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"}, headers=auth(token))
    client.post(f"/api/tables/{table_id}/start", headers=auth(token))
    return table_id


def test_a_turn_alert_is_pushed_encrypted_to_the_subscription(
    tmp_path: Path, push_service: PushService
) -> None:
    with app_client(tmp_path / "db.sqlite", seed=3, push_allow_local=True) as client:
        public_key = client.get("/api/push/key").json()["public_key"]
        assert len(unb64(public_key)) == 65  # an uncompressed P-256 point
        ann = client.post("/api/players", json={"name": "Ann"}).json()
        mine = {"X-Player-Key": ann["key"]}
        private, keys = browser_keys()
        endpoint = f"{push_service.url}/push/ann-phone"
        subscribed = client.post("/api/players/me/push", headers=mine,
                                 json={"endpoint": endpoint, "keys": keys,
                                       "expirationTime": None})  # fmt: skip
        assert subscribed.status_code == 201, subscribed.text
        bad = client.post("/api/players/me/push", headers=mine,
                          json={"endpoint": "ftp://x/y", "keys": keys})  # fmt: skip
        assert bad.status_code == 400 and bad.json()["detail"]["code"] == "bad_subscription"

        table_id = _turn_based_table(client, ann["key"], "Slow Sunday")
        [received] = push_service.wait(1)
        assert received[0] == "/push/ann-phone"
        message = opened(received, private, keys["auth"], public_key, push_service.url)
        assert message["title"] == "Your turn at Slow Sunday"
        assert message["table_name"] == "Slow Sunday" and message["lang"] == "en"
        assert message["url"] == f"/t/{table_id}" and message["deadline"] > time.time()

        # The push service says the browser is gone: the subscription is forgotten.
        client.request("DELETE", "/api/players/me/push", headers=mine, json={"endpoint": endpoint})
        gone = f"{push_service.url}/gone/ann-laptop"
        client.post("/api/players/me/push", headers=mine, json={"endpoint": gone, "keys": keys})
        _turn_based_table(client, ann["key"], "Another")
        pushed = push_service.wait(2)
        assert [path for path, _, _ in pushed] == ["/push/ann-phone", "/gone/ann-laptop"]
        store = services_of(client).pushes.store

        async def left() -> list[Any]:
            from flip7.server.store.pushes import subscriptions_of

            return await subscriptions_of(store, ann["id"])

        deadline = time.monotonic() + 10
        while client.portal.call(left):
            assert time.monotonic() < deadline, "the gone subscription was kept"
            time.sleep(0.05)


def test_subscriptions_are_bounded_and_never_point_inside(tmp_path: Path) -> None:
    """A stranger's input: only https to a public host (the server posts to it), each field
    bounded, at most 10 browsers an identity (the oldest go)."""
    from flip7.server.services.push import MOST_SUBSCRIPTIONS
    from flip7.server.store.pushes import subscriptions_of

    with app_client(tmp_path / "db.sqlite") as client:
        ann = client.post("/api/players", json={"name": "Ann"}).json()
        mine = {"X-Player-Key": ann["key"]}
        _, keys = browser_keys()
        for endpoint, words in (("http://push.example.org/x", "https://"),
                                ("https://127.0.0.1/x", "private or loopback"),
                                ("https://10.1.2.3/x", "private or loopback"),
                                ("https://localhost/x", "private or loopback")):
            answer = client.post("/api/players/me/push", headers=mine,
                                 json={"endpoint": endpoint, "keys": keys})  # fmt: skip
            assert answer.status_code == 400, endpoint
            assert answer.json()["detail"]["code"] == "bad_subscription"
            assert words in answer.json()["detail"]["message"], answer.json()
        too_long = client.post("/api/players/me/push", headers=mine, json={
            "endpoint": "https://push.example.org/" + "x" * 500, "keys": keys})  # fmt: skip
        assert too_long.status_code == 422
        anonymous = client.post("/api/players/me/push",
                                json={"endpoint": "https://push.example.org/a", "keys": keys})
        assert anonymous.status_code == 401
        for i in range(MOST_SUBSCRIPTIONS + 3):
            made = client.post("/api/players/me/push", headers=mine, json={
                "endpoint": f"https://push.example.org/{i}", "keys": keys})  # fmt: skip
            assert made.status_code == 201, made.text
        store = services_of(client).pushes.store

        async def kept() -> list[str]:
            return [s.endpoint for s in await subscriptions_of(store, ann["id"])]

        endpoints = client.portal.call(kept)
        assert len(endpoints) == MOST_SUBSCRIPTIONS
        assert "https://push.example.org/0" not in endpoints  # the oldest went
