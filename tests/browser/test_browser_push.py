"""Turn alerts by Web Push in the browser (issue "Tables that wait"), as far as a machine
without the internet allows. Chromium's own push service (Google's) cannot be reached here,
so the page's ``PushManager.subscribe`` answers with a subscription the test made (its keys
and a push service on loopback); everything else is real: on a phone, Ann switches the
alerts on on her profile (the permission asked, the service worker registered, the server's
key handed to ``subscribe``, the subscription sent to the server); a turn-based decision
comes to her while away and the server pushes it, encrypted and signed, to the loopback
push service; the test opens it with the subscription's keys and hands it to the service
worker as the browser would (DevTools' ``ServiceWorker.deliverPushMessage``), which shows
the notification in her language. Switched off, nothing more is pushed.

Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_helpers import browser_server, new_page, shot
from push_helpers import PushService, b64, browser_keys, local_push_service, opened

pytest.importorskip("pywebpush")

# The page's Push API as far as this machine allows: subscribe() keeps the key it was given
# and answers with the test's subscription (kept in localStorage, as a browser keeps its own).
STUB_PUSH = """
(subscription) => {
  const KEY = "test.push.subscription";
  const made = () => {
    const json = JSON.parse(localStorage.getItem(KEY) || "null");
    return json && { endpoint: json.endpoint, toJSON: () => json,
                     unsubscribe: async () => { localStorage.removeItem(KEY); return true; } };
  };
  PushManager.prototype.subscribe = async function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    localStorage.setItem("test.push.key", btoa(String.fromCharCode(...key)));
    localStorage.setItem(KEY, JSON.stringify(subscription));
    return made();
  };
  PushManager.prototype.getSubscription = async function () { return made(); };
}
"""


@pytest.fixture(scope="module")
def push_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, PushService]]:
    with local_push_service() as service, browser_server(
            tmp_path_factory, "push", push_allow_local=True) as url:
        yield url, service


def _turn_based_table(url: str, key: str, name: str) -> str:
    """A turn-based table Ann made and left, started: her first decision comes while away."""
    made = httpx.post(f"{url}/api/tables", headers={"X-Player-Key": key}, timeout=10, json={
        "player": "Ann", "name": name, "seats": 3, "pace": "turn_based"}).json()  # fmt: skip
    table_id, seat = made["table"]["id"], {"Authorization": f"Bearer {made['token']}"}
    for _ in range(2):
        httpx.post(f"{url}/api/tables/{table_id}/bots", json={"bot": "basic"}, headers=seat,
                   timeout=10).raise_for_status()  # fmt: skip
    httpx.post(f"{url}/api/tables/{table_id}/start", headers=seat, timeout=10).raise_for_status()
    return str(table_id)


def test_switch_on_get_the_pushed_alert_as_a_notification_switch_off(
    push_server: tuple[str, PushService], chromium_browser: Any
) -> None:
    from playwright.sync_api import expect

    url, service = push_server
    public_key = httpx.get(f"{url}/api/push/key", timeout=10).json()["public_key"]
    ann = httpx.post(f"{url}/api/players", json={"name": "Ann"}, timeout=10).json()
    private, keys = browser_keys()
    subscription = {"endpoint": f"{service.url}/push/ann-phone", "expirationTime": None,
                    "keys": keys}  # fmt: skip
    page, errors = new_page(chromium_browser, 390, 844)
    page.context.grant_permissions(["notifications"], origin=url)
    page.add_init_script(f"localStorage.setItem('flip7.player', {json.dumps(json.dumps(ann))})")
    page.add_init_script(f"({STUB_PUSH})({json.dumps(subscription)})")
    page.goto(url + "/me")
    panel = page.locator("[data-testid=push-panel]")
    state = panel.locator("[data-testid=push-state]")
    expect(state).to_have_text("This device gets no notifications.")
    panel.get_by_text("Notify this device").click()
    expect(state).to_have_text("This device gets a notification when it is your turn.")
    expect(panel.locator("[data-testid=push-alerts]")).to_be_checked()
    # subscribe() was given the server's VAPID key.
    given = page.evaluate("localStorage.getItem('test.push.key')")
    assert b64(base64.b64decode(given)) == public_key
    panel.scroll_into_view_if_needed()
    shot(page, "push-on-390.png")

    table_id = _turn_based_table(url, ann["key"], "Slow Sunday")
    [received] = service.wait(1)
    assert received[0] == "/push/ann-phone"
    message = opened(received, private, keys["auth"], public_key, service.url)
    assert message["url"] == f"/t/{table_id}" and message["lang"] == "en"
    assert message["deadline"] > time.time() + 23 * 3600  # 24 hours a move by default

    # The browser hands the message to the service worker, which shows the notification.
    cdp = page.context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: registrations.extend(event["registrations"]))  # fmt: skip
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not registrations:
        assert time.monotonic() < deadline, "no service worker registered"
        page.wait_for_timeout(100)
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": url, "registrationId": registrations[0]["registrationId"],
        "data": json.dumps(message)})  # fmt: skip
    shown: list[dict[str, Any]] = []
    deadline = time.monotonic() + 10
    while not shown:
        assert time.monotonic() < deadline, "no notification shown"
        page.wait_for_timeout(100)
        shown = page.evaluate("""async () => {
          const list = await (await navigator.serviceWorker.ready).getNotifications();
          return list.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data}));
        }""")
    assert shown == [{"title": "Your turn at Slow Sunday", "tag": f"turn-{table_id}",
                      "data": {"url": f"/t/{table_id}"}, "body": shown[0]["body"]}]  # fmt: skip
    assert shown[0]["body"].startswith("Decide by ") and "a bot decides" in shown[0]["body"]

    # Switched off (it stays off after a reload): no more pushes.
    page.reload()
    expect(panel.locator("[data-testid=push-alerts]")).to_be_checked()
    panel.get_by_text("Notify this device").click()
    expect(state).to_have_text("This device gets no notifications.")
    page.reload()
    expect(panel.locator("[data-testid=push-alerts]")).not_to_be_checked()
    _turn_based_table(url, ann["key"], "Another")
    page.wait_for_timeout(1500)
    assert len(service.received) == 1, service.received
    assert not errors, errors
    page.context.close()
