"""Turn alerts by Web Push: a browser that allows notifications subscribes (its push
service's URL and the keys to encrypt to), and when a turn-based decision comes to its
player while they are away, the server sends it an encrypted message (RFC 8291,
``aes128gcm``) signed with the server's VAPID key (RFC 8292): the service worker
(``/sw.js``) shows it, and a tap opens the table. At most one an hour about a game.

The VAPID key pair is made at the first start and kept in the database (every process of
a cluster signs with it). A subscription's URL must be ``https`` to a public host: the
server posts to it, so a stranger must not point it at the server's own network
(``push_allow_local`` lets tests use a loopback push service).

>>> endpoint_problem("https://fcm.googleapis.com/fcm/send/abc", False) is None
True
>>> endpoint_problem("http://127.0.0.1:9/x", False)
'a push subscription must be an https:// URL'
>>> endpoint_problem("https://10.0.0.7/x", False)
'a push subscription may not point at a private or loopback address'
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from flip7.core.jsontypes import JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import dumps, utcnow
from flip7.server.base.settings import Settings
from flip7.server.store.database import Store
from flip7.server.store.pushes import (
    PushSubscription,
    add_subscription,
    remove_subscription,
    secret,
    subscriptions_of,
)

__all__ = ["PushKeys", "Pushes", "Subscribe", "Unsubscribe", "endpoint_problem"]

log = logging.getLogger("flip7.server")

ALERT_EVERY = 3600.0  # seconds: at most one push about a game in this time
MOST_SUBSCRIPTIONS = 10  # browsers per identity; the oldest go past it


def endpoint_problem(endpoint: str, allow_local: bool) -> str | None:
    """What is wrong with a subscription's URL (None: nothing)."""
    parts = urlsplit(endpoint)
    if parts.scheme != "https" and not (allow_local and parts.scheme == "http"):
        return "a push subscription must be an https:// URL"
    host = parts.hostname or ""
    if not host:
        return "a push subscription's URL has no host"
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_address(host)
        if not allow_local and not address.is_global:
            return "a push subscription may not point at a private or loopback address"
    if not allow_local and (host == "localhost" or host.endswith((".local", ".internal"))):
        return "a push subscription may not point at a private or loopback address"
    return None


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PushKeys(_Body):
    p256dh: Annotated[StrictStr, Field(min_length=40, max_length=200)]
    auth: Annotated[StrictStr, Field(min_length=16, max_length=100)]


class Subscribe(_Body):
    """A browser's ``PushSubscription`` as its ``toJSON()`` gives it."""

    endpoint: Annotated[StrictStr, Field(max_length=500)]
    keys: PushKeys
    expirationTime: float | None = None
    # The page's language (i18n.js): the service worker words the alert in it.
    lang: Annotated[StrictStr, Field(pattern=r"^[a-z]{2}$")] = "en"


class Unsubscribe(_Body):
    endpoint: Annotated[StrictStr, Field(max_length=500)]


class Pushes:
    """Subscriptions and the pushes (see the module)."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._store: Store | None = None
        self._vapid: Any = None
        self.public_key = ""
        # (player id, table id) -> when a push about it last went out (this process).
        self._sent: dict[tuple[str, str], float] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def store(self) -> Store:
        assert self._store is not None, "the server has not started"
        return self._store

    async def start(self, store: Store) -> None:
        """Load the server's VAPID key (made and stored at the first start)."""
        from cryptography.hazmat.primitives import serialization
        from py_vapid import Vapid02  # type: ignore[import-untyped]
        from py_vapid.utils import b64urlencode  # type: ignore[import-untyped]

        self._store = store

        def make() -> str:
            vapid = Vapid02()
            vapid.generate_keys()
            return str(vapid.private_pem().decode())

        pem = await secret(store, "vapid_private_key", make)
        self._vapid = Vapid02.from_pem(pem.encode())
        raw = self._vapid.public_key.public_bytes(serialization.Encoding.X962,
                                                  serialization.PublicFormat.UncompressedPoint)
        self.public_key = str(b64urlencode(raw))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def subscribe(self, player_id: str, body: Subscribe) -> JSONObject:
        """Keep a browser's subscription (400 ``bad_subscription`` naming the problem)."""
        problem = endpoint_problem(body.endpoint, self.settings.push_allow_local)
        if problem is not None:
            raise ServerError("bad_subscription", problem)
        kept = PushSubscription(body.endpoint, body.keys.p256dh, body.keys.auth, body.lang)
        await add_subscription(self.store, player_id, kept, utcnow(), MOST_SUBSCRIPTIONS)
        return {"subscribed": True}

    async def unsubscribe(self, player_id: str, endpoint: str) -> JSONObject:
        await remove_subscription(self.store, endpoint, player_id)
        return {"subscribed": False}

    def your_turn(self, player_id: str, table_id: str, table_name: str, deadline: float) -> None:
        """A turn-based decision came to ``player_id`` while away: push it to their
        browsers (at most one an hour about a game)."""
        if self._vapid is None:
            return
        now = self.clock()
        last = self._sent.get((player_id, table_id))
        if last is not None and now - last < ALERT_EVERY:
            return
        if len(self._sent) >= 1024:  # a server up for weeks: forget the hours gone by
            self._sent = {k: at for k, at in self._sent.items() if now - at < ALERT_EVERY}
        self._sent[(player_id, table_id)] = now
        task = asyncio.create_task(self._push(player_id, table_id, table_name, deadline))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _push(self, player_id: str, table_id: str, table_name: str, deadline: float) -> None:
        for sub in await subscriptions_of(self.store, player_id):
            # The service worker words it in the browser's language from the catalogue;
            # the English sentences are for when it cannot load it.
            payload = json.dumps({"title": f"Your turn at {table_name}",
                                  "body": "Decide in time, or a bot decides for you.",
                                  "table_name": table_name, "url": f"/t/{table_id}",
                                  "table": table_id, "deadline": deadline,
                                  "lang": sub.lang})  # fmt: skip
            try:
                if await asyncio.to_thread(self._send, sub, payload):
                    await remove_subscription(self.store, sub.endpoint)
            except Exception as exc:
                log.warning(dumps({"event": "push_failed", "error": str(exc)[:200]}))

    def _send(self, sub: PushSubscription, payload: str) -> bool:
        """Send ``payload`` to one browser; True if its push service says it is gone."""
        from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

        audience = "{0.scheme}://{0.netloc}".format(urlsplit(sub.endpoint))
        try:
            webpush({"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
                    payload, vapid_private_key=self._vapid,
                    vapid_claims={"sub": self.settings.push_contact, "aud": audience},
                    ttl=int(ALERT_EVERY), timeout=10)  # fmt: skip
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):  # the browser unsubscribed: forget it
                return True
            raise
        return False

