"""Turn alerts by e-mail: an identity adds an address, verified by a link sent to it; at a
turn-based table, when its decision comes while it is away, an alert goes to that address
(gathered: one message for every game waiting, at most one an hour about a game), and every
message carries a link that turns them off.

``flip7 serve --smtp URL`` says where to send: ``smtp://host:25`` (plain), ``smtp+starttls://
host:587`` (STARTTLS) or ``smtps://host:465`` (TLS from the start); the user and password come
from ``FLIP7_SMTP_USER`` and ``FLIP7_SMTP_PASSWORD`` (never the URL, which a process list
shows), the sender from ``--smtp-from`` (else ``flip7@<host>``). Without it nothing is offered
(``GET /api/server`` says ``"email": false``) and the calls answer 404 ``no_email``.

>>> server = smtp_server("smtp+starttls://mail.example.org", None, {"FLIP7_SMTP_USER": "u"})
>>> server.port, server.security, server.user, server.sender
(587, 'starttls', 'u', 'flip7@mail.example.org')
>>> smtp_server("http://x", None, {})
Traceback (most recent call last):
...
flip7.server.services.mail.SmtpUrlError: the SMTP URL must start with smtp://, ...
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
import smtplib
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from flip7.core.jsontypes import JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import dumps, utcnow
from flip7.server.base.limits import AddressBudget
from flip7.server.base.protocol import Text
from flip7.server.base.settings import Settings
from flip7.server.store.database import Store
from flip7.server.store.emails import (
    EmailRow,
    NewEmail,
    alert_targets,
    email_of,
    last_alerts,
    note_alerts,
    remove_email,
    set_alerts,
    set_email,
    unsubscribe,
    verify_code,
)
from flip7.server.table.errors import spend

__all__ = [
    "EmailAddress",
    "EmailAlerts",
    "EmailToken",
    "Emails",
    "Mailer",
    "SmtpServer",
    "SmtpUrlError",
    "smtp_server",
]

log = logging.getLogger("flip7.server")

_SCHEMES: dict[str, tuple[Literal["plain", "starttls", "tls"], int]] = {
    "smtp": ("plain", 25), "smtp+starttls": ("starttls", 587), "smtps": ("tls", 465),
}  # fmt: skip
# An address as people type it: one @, no spaces, a dot in the domain; at most 254 characters.
_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_ADDRESS = 254
CODE_HOURS = 24  # a verification link works this long, once
ALERT_EVERY = timedelta(hours=1)  # at most one alert about a game in this time


class SmtpUrlError(ValueError):
    """The ``--smtp`` URL cannot be used: what is wrong with it."""


@dataclass(frozen=True, slots=True)
class SmtpServer:
    """Where and how mail is sent."""

    host: str
    port: int
    security: Literal["plain", "starttls", "tls"]
    user: str | None
    password: str | None
    sender: str


def smtp_server(url: str, sender: str | None, environ: Mapping[str, str]) -> SmtpServer:
    """The SMTP server ``url`` names, with the credentials of ``environ``; SmtpUrlError
    saying what is wrong."""
    parts = urlsplit(url)
    scheme = _SCHEMES.get(parts.scheme)
    if scheme is None or not parts.hostname:
        raise SmtpUrlError("the SMTP URL must start with smtp://, smtp+starttls:// or smtps://, "
                           f"not {url[:60]!r}")  # fmt: skip
    if parts.username or parts.password:
        raise SmtpUrlError("put the SMTP user and password in FLIP7_SMTP_USER and "
                           "FLIP7_SMTP_PASSWORD, not in the URL (a process list shows it)")
    try:
        port = parts.port or scheme[1]
    except ValueError:
        raise SmtpUrlError(f"the SMTP URL's port is not a port: {url[:60]!r}") from None
    return SmtpServer(parts.hostname, port, scheme[0], environ.get("FLIP7_SMTP_USER") or None,
                      environ.get("FLIP7_SMTP_PASSWORD") or None,
                      sender or f"flip7@{parts.hostname}")  # fmt: skip


class Mailer:
    """Sends one message to the SMTP server (in a thread: smtplib blocks)."""

    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def send(self, message: EmailMessage) -> None:
        await asyncio.to_thread(self._send, message)

    def _send(self, message: EmailMessage) -> None:
        server = self.server
        smtp: smtplib.SMTP
        if server.security == "tls":
            smtp = smtplib.SMTP_SSL(server.host, server.port, timeout=20,
                                    context=ssl.create_default_context())  # fmt: skip
        else:
            smtp = smtplib.SMTP(server.host, server.port, timeout=20)
        with smtp:
            if server.security == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if server.user is not None:
                smtp.login(server.user, server.password or "")
            smtp.send_message(message)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _no_email() -> ServerError:
    return ServerError("no_email", "this server sends no e-mail (it was started without "
                                   "--smtp), so it offers no e-mail alerts", 404)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Waiting:
    """A game waiting for a player's decision, to be told in the next alert."""

    table_name: str
    deadline: float


class Emails:
    """Addresses, their verification and the turn alerts (see the module)."""

    def __init__(self, settings: Settings, mailer: Mailer | None,
                 now: Callable[[], datetime] = utcnow) -> None:  # fmt: skip
        self.settings = settings
        self.mailer = mailer
        self.now = now
        self._store: Store | None = None
        self.codes = AddressBudget(settings.email_codes_per_minute, settings.email_codes_burst)
        self.codes_per_identity = AddressBudget(settings.email_codes_per_minute,
                                                settings.email_codes_burst)  # fmt: skip
        # player id -> table id -> the game waiting for them, until the next batch.
        self._waiting: dict[str, dict[str, _Waiting]] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def offered(self) -> bool:
        return self.mailer is not None

    @property
    def store(self) -> Store:
        assert self._store is not None, "the server has not started"
        return self._store

    def start(self, store: Store) -> None:
        self._store = store
        if self.mailer is not None:
            self._task = asyncio.create_task(self._batches())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _mailer(self) -> Mailer:
        if self.mailer is None:
            raise _no_email()
        return self.mailer

    # ------------------------------------------------------------------ addresses

    async def status(self, player_id: str) -> JSONObject:
        """Whether this server sends e-mail, and the identity's address (null if none)."""
        row = None if self.mailer is None else await email_of(self.store, player_id)
        return {"offered": self.offered, "email": None if row is None else {
            "address": row.address, "verified": row.verified, "alerts": row.alerts}}

    async def set_address(self, player_id: str, address: str, base: str, client: str | None
                          ) -> JSONObject:  # fmt: skip
        """Keep ``address`` for ``player_id`` and send it a verification link; 400
        ``bad_email``, 429 past ``email_codes_per_minute`` from the address or the identity."""
        mailer = self._mailer()
        address = address.strip()
        if len(address) > MAX_ADDRESS or not _ADDRESS.match(address):
            raise ServerError("bad_email", f"{address[:60]!r} is not an e-mail address; give "
                                           "one like ann@example.org (at most 254 characters)")
        spend(self.codes, client, "verification e-mails", "email_codes_per_minute")
        if not self.codes_per_identity.take(f"player:{player_id}"):
            raise ServerError("rate_limited", "too many verification e-mails for your "
                              "identity (limit email_codes_per_minute); try again later", 429,
                              retry_after=self.codes_per_identity.retry_after(
                                  f"player:{player_id}"))  # fmt: skip
        token, now = secrets.token_urlsafe(24), self.now()
        new = NewEmail(player_id, address, _hash(token), now + timedelta(hours=CODE_HOURS),
                       secrets.token_urlsafe(24), self.settings.public_url or base, now)
        await set_email(self.store, new)
        row = await email_of(self.store, player_id)
        message = self._message(address, "Confirm your e-mail address for Flip 7", [
            f"Hi {'' if row is None else row.name},", "",
            "Open this link to get an e-mail when it is your turn at a turn-based Flip 7 "
            f"table (it works for {CODE_HOURS} hours, once):",
            f"{new.link_base}/email/verify/{token}", "",
            "If you did not ask for this, ignore this message: nothing is sent unless the "
            "link is opened.",
        ], f"{new.link_base}/email/unsubscribe/{new.unsubscribe}")  # fmt: skip
        try:
            await mailer.send(message)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning(dumps({"event": "email_failed", "error": str(exc)[:200]}))
            raise ServerError("email_failed", "the verification e-mail could not be sent; "
                              "try again later", 503, retry_after=60) from None  # fmt: skip
        return await self.status(player_id)

    async def verify(self, token: str) -> JSONObject:
        """The link sent to an address was opened: it is verified (404 ``bad_link``)."""
        self._mailer()
        row = await verify_code(self.store, _hash(token), self.now()) if len(token) < 100 else None
        if row is None:
            raise ServerError("bad_link", "this link is wrong, expired or already used; add "
                                          "your address again on your profile", 404)
        return {"address": row.address, "verified": True}

    async def unsubscribe(self, token: str) -> JSONObject:
        """The unsubscribe link of a message was opened: no more alerts to that address."""
        self._mailer()
        row = await unsubscribe(self.store, token, self.now()) if len(token) < 100 else None
        if row is None:
            raise ServerError("bad_link", "this unsubscribe link is wrong (or its address "
                                          "was removed): nothing is sent to it", 404)
        return {"address": row.address, "alerts": False}

    async def set_alerts(self, player_id: str, on: bool) -> JSONObject:
        self._mailer()
        if not await set_alerts(self.store, player_id, on, self.now()):
            raise ServerError("no_address", "your identity has no e-mail address; add one "
                                            "first (PUT /api/players/me/email)", 404)
        return await self.status(player_id)

    async def remove(self, player_id: str) -> JSONObject:
        self._mailer()
        await remove_email(self.store, player_id)
        return await self.status(player_id)

    # ------------------------------------------------------------------ alerts

    def your_turn(self, player_id: str, table_id: str, table_name: str, deadline: float) -> None:
        """At a turn-based table, ``player_id``'s decision came while they are away: told in
        the next batch (if they have a verified address with alerts on)."""
        if self.mailer is not None:
            self._waiting.setdefault(player_id, {})[table_id] = _Waiting(table_name, deadline)

    async def _batches(self) -> None:
        while True:
            await asyncio.sleep(self.settings.email_batch_seconds)
            try:
                await self.send_alerts()
            except Exception as exc:
                log.warning(dumps({"event": "email_alerts_failed", "error": str(exc)[:200]}))

    async def send_alerts(self) -> int:
        """Send the alerts gathered since the last batch; how many messages went out."""
        waiting, self._waiting = self._waiting, {}
        targets = await alert_targets(self.store, list(waiting))
        sent = 0
        for player_id, games in waiting.items():
            row = targets.get(player_id)
            if row is None:
                continue
            now = self.now()
            last = await last_alerts(self.store, player_id)
            due = {t: g for t, g in games.items() if t not in last or now - last[t] >= ALERT_EVERY}
            if not due:
                continue
            await self._mailer().send(self._alert(row, due))
            await note_alerts(self.store, player_id, list(due), now)
            sent += 1
        return sent

    def _alert(self, row: EmailRow, games: dict[str, _Waiting]) -> EmailMessage:
        lines = [f"Hi {row.name},", "",
                 "It is your turn at a turn-based Flip 7 table:" if len(games) == 1 else
                 f"It is your turn in {len(games)} turn-based Flip 7 games:", ""]  # fmt: skip
        for table_id, game in games.items():
            until = datetime.fromtimestamp(game.deadline).astimezone().strftime(
                "%a %d %b %H:%M %Z")  # fmt: skip
            lines += [f"* {game.table_name}: decide by {until}", f"  {row.link_base}/t/{table_id}"]
        lines += ["", "When the time runs out, a bot makes that decision for you."]
        subject = (f"Your turn at {next(iter(games.values())).table_name}" if len(games) == 1
                   else f"Your turn in {len(games)} games")  # fmt: skip
        return self._message(row.address, subject, lines,
                             f"{row.link_base}/email/unsubscribe/{row.unsubscribe}")

    def _message(self, to: str, subject: str, lines: list[str], stop: str) -> EmailMessage:
        assert self.mailer is not None
        message = EmailMessage()
        message["From"] = self.mailer.server.sender
        message["To"] = to
        message["Subject"] = subject
        message["List-Unsubscribe"] = f"<{stop}>"
        message.set_content("\n".join([*lines, "", "-- ", "Flip 7",
                                       f"No more of these e-mails: {stop}"]) + "\n")  # fmt: skip
        return message


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EmailAddress(_Body):
    """The address to send turn alerts to (a verification link goes to it first)."""

    address: Annotated[Text, Field(max_length=300)]


class EmailAlerts(_Body):
    """Turn alerts on or off."""

    alerts: StrictBool


class EmailToken(_Body):
    """The token of a link an e-mail carried (to verify, or to unsubscribe)."""

    token: Annotated[StrictStr, Field(max_length=100)]
