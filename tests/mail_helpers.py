"""A local SMTP server for the tests of turn alerts by e-mail (aiosmtpd), and reading the
links of the messages it received."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def arrived(items: list[T], count: int, what: str, timeout: float = 10.0) -> list[T]:
    """``items`` once a server thread has put ``count`` in it (fails after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while len(items) < count:
        assert time.monotonic() < deadline, f"{len(items)} of {count} {what} came"
        time.sleep(0.05)
    return items


class Inbox:
    """What the local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.content, policy=default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 OK"

    def wait(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        return arrived(self.messages, count, "e-mails", timeout)


@contextmanager
def local_smtp() -> Iterator[tuple[str, Inbox]]:
    """An SMTP server on a free loopback port for the block: its URL and what it received."""
    from server_helpers import free_port

    aiosmtpd = pytest.importorskip("aiosmtpd.controller")
    inbox = Inbox()
    port = free_port()
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{port}", inbox
    finally:
        controller.stop()


def body_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def link_of(message: EmailMessage, kind: str) -> str:
    found = re.search(rf"/email/{kind}/([A-Za-z0-9_-]+)", body_of(message))
    assert found, body_of(message)
    return found.group(1)
