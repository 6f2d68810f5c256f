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
