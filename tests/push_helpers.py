"""Web Push as far as a machine without the internet allows (tests of issue 29's push
alerts): a push service on loopback that keeps what it receives, a subscription's keys made
as a browser makes them, and the message opened as the browser does (RFC 8291 decryption,
RFC 8292's VAPID header read)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mail_helpers import arrived

__all__ = ["PushService", "b64", "browser_keys", "local_push_service", "opened", "unb64"]

Received = tuple[str, dict[str, str], bytes]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on loopback: what it received (path, headers with lowercase names,
    body); it answers 410 Gone for a path under /gone/, 201 otherwise."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {name.lower(): value for name, value in self.headers.items()}
                service.received.append((self.path, headers, body))
                self.send_response(410 if self.path.startswith("/gone/") else 201)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, seconds: float = 10) -> list[Received]:
        return arrived(self.received, count, "pushes", seconds)


@contextmanager
def local_push_service() -> Iterator[PushService]:
    service = PushService()
    try:
        yield service
    finally:
        service.server.shutdown()


def browser_keys() -> tuple[Any, dict[str, str]]:
    """A subscription's keys as a browser makes them: its P-256 key pair and auth secret."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(serialization.Encoding.X962,
                                               serialization.PublicFormat.UncompressedPoint)
    return private, {"p256dh": b64(public), "auth": b64(os.urandom(16))}


def opened(received: Received, private: Any, auth: str, public_key: str,
           audience: str) -> dict[str, Any]:  # fmt: skip
    """What a push says, checked as a push service and the browser would: encrypted with
    ``aes128gcm`` to the subscription's keys and signed with the server's VAPID key
    ``public_key`` for ``audience`` (the push service's origin)."""
    import http_ece

    _, headers, body = received
    assert headers["content-encoding"] == "aes128gcm", headers
    scheme, _, params = headers["authorization"].partition(" ")
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert scheme == "vapid" and fields["k"] == public_key, headers["authorization"]
    claims = json.loads(unb64(fields["t"].split(".")[1]))
    assert claims["aud"] == audience and claims["sub"].startswith(("mailto:", "https:")), claims
    assert claims["exp"] > time.time()
    plain = http_ece.decrypt(body, private_key=private, auth_secret=unb64(auth),
                             version="aes128gcm")  # fmt: skip
    message: dict[str, Any] = json.loads(plain)
    return message
