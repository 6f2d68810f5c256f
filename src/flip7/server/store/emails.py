"""The rows behind turn alerts by e-mail (flip7.server.services.mail): an identity's
address, whether it is verified and alerts are on, and when an alert about a table last
went out. Typed calls on the store's database; the service decides, these only keep."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from flip7.server.base.formats import as_utc
from flip7.server.store.database import Store, email_alerts, player_emails, players

__all__ = [
    "EmailRow",
    "NewEmail",
    "alert_targets",
    "email_of",
    "last_alerts",
    "note_alerts",
    "remove_email",
    "set_alerts",
    "set_email",
    "unsubscribe",
    "verify_code",
]


@dataclass(frozen=True, slots=True)
class EmailRow:
    """An identity's address as stored, with the identity's name."""

    player_id: str
    name: str
    address: str
    verified: bool
    alerts: bool
    unsubscribe: str
    link_base: str


@dataclass(frozen=True, slots=True)
class NewEmail:
    """An address to verify: the SHA-256 of its link's token and when that expires."""

    player_id: str
    address: str
    code_hash: str
    code_expires: datetime
    unsubscribe: str
    link_base: str
    at: datetime


_COLUMNS = (player_emails.c.player_id, players.c.name, player_emails.c.address,
            player_emails.c.verified, player_emails.c.alerts, player_emails.c.unsubscribe,
            player_emails.c.link_base)  # fmt: skip


def _row(row: sa.Row[tuple[object, ...]]) -> EmailRow:
    return EmailRow(str(row.player_id), str(row.name), str(row.address), bool(row.verified),
                    bool(row.alerts), str(row.unsubscribe), str(row.link_base))  # fmt: skip


def _select() -> sa.Select[tuple[object, ...]]:
    return sa.select(*_COLUMNS).join(players, players.c.id == player_emails.c.player_id)


async def set_email(store: Store, new: NewEmail) -> None:
    """Keep ``new`` as the identity's address, unverified, alerts on (any older one goes)."""
    async with store.engine.begin() as conn:
        await conn.execute(player_emails.delete().where(player_emails.c.player_id == new.player_id))
        await conn.execute(player_emails.insert().values(
            player_id=new.player_id, address=new.address, verified=False,
            code_hash=new.code_hash, code_expires=new.code_expires, alerts=True,
            unsubscribe=new.unsubscribe, link_base=new.link_base, updated_at=new.at,
        ))  # fmt: skip


async def email_of(store: Store, player_id: str) -> EmailRow | None:
    """The identity's address, or None."""
    async with store.engine.connect() as conn:
        row = (await conn.execute(_select().where(player_emails.c.player_id == player_id))).first()
    return None if row is None else _row(row)


async def verify_code(store: Store, code_hash: str, now: datetime) -> EmailRow | None:
    """The address whose link's token hashes to ``code_hash``, verified now; None if there
    is none or it expired (a link works once)."""
    async with store.engine.begin() as conn:
        row = (await conn.execute(
            sa.select(player_emails.c.player_id, player_emails.c.code_expires)
            .where(player_emails.c.code_hash == code_hash)
        )).first()  # fmt: skip
        if row is None or row.code_expires is None or as_utc(row.code_expires) < now:
            return None
        await conn.execute(
            player_emails.update().where(player_emails.c.player_id == row.player_id)
            .values(verified=True, code_hash=None, code_expires=None, updated_at=now)
        )  # fmt: skip
        found = (await conn.execute(
            _select().where(player_emails.c.player_id == row.player_id))).first()  # fmt: skip
    return None if found is None else _row(found)


async def unsubscribe(store: Store, token: str, now: datetime) -> EmailRow | None:
    """Turn the alerts off for the address whose unsubscribe token is ``token``."""
    async with store.engine.begin() as conn:
        found = (await conn.execute(_select().where(player_emails.c.unsubscribe == token))).first()
        if found is None:
            return None
        await conn.execute(player_emails.update()
                           .where(player_emails.c.unsubscribe == token)
                           .values(alerts=False, updated_at=now))  # fmt: skip
    return _row(found)


async def set_alerts(store: Store, player_id: str, on: bool, now: datetime) -> bool:
    """Alerts on or off for the identity's address; False if it has none."""
    async with store.engine.begin() as conn:
        done = await conn.execute(player_emails.update()
                                  .where(player_emails.c.player_id == player_id)
                                  .values(alerts=on, updated_at=now))  # fmt: skip
    return bool(done.rowcount)


async def remove_email(store: Store, player_id: str) -> None:
    """Forget the identity's address and its alerts."""
    async with store.engine.begin() as conn:
        await conn.execute(player_emails.delete().where(player_emails.c.player_id == player_id))
        await conn.execute(email_alerts.delete().where(email_alerts.c.player_id == player_id))


async def alert_targets(store: Store, player_ids: Sequence[str]) -> dict[str, EmailRow]:
    """Of ``player_ids``, those with a verified address and alerts on."""
    if not player_ids:
        return {}
    async with store.engine.connect() as conn:
        rows = (await conn.execute(_select().where(
            player_emails.c.player_id.in_(list(player_ids)), player_emails.c.verified,
            player_emails.c.alerts))).all()  # fmt: skip
    return {str(row.player_id): _row(row) for row in rows}


async def last_alerts(store: Store, player_id: str) -> dict[str, datetime]:
    """When an alert about each table last went to ``player_id``."""
    async with store.engine.connect() as conn:
        rows = (await conn.execute(
            sa.select(email_alerts.c.table_id, email_alerts.c.sent_at)
            .where(email_alerts.c.player_id == player_id))).all()  # fmt: skip
    return {str(row.table_id): as_utc(row.sent_at) for row in rows}


async def note_alerts(store: Store, player_id: str, table_ids: Sequence[str],
                      at: datetime) -> None:  # fmt: skip
    """An alert about ``table_ids`` went to ``player_id`` at ``at``."""
    async with store.engine.begin() as conn:
        await conn.execute(email_alerts.delete().where(
            email_alerts.c.player_id == player_id,
            email_alerts.c.table_id.in_(list(table_ids))))  # fmt: skip
        await conn.execute(email_alerts.insert(), [
            {"player_id": player_id, "table_id": t, "sent_at": at} for t in table_ids])
