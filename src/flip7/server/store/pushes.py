"""The rows behind Web Push turn alerts (flip7.server.services.push): each browser's
subscription of an identity, and the server's VAPID key, made once and shared by every
process. Typed calls on the store's database."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from flip7.server.store.database import Store, push_subscriptions, server_secrets

__all__ = [
    "PushSubscription",
    "add_subscription",
    "remove_subscription",
    "secret",
    "subscriptions_of",
]


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """Where a browser takes pushes (its push service's URL) and the keys to encrypt to."""

    endpoint: str
    p256dh: str
    auth: str
    lang: str


async def add_subscription(store: Store, player_id: str, subscription: PushSubscription,
                           at: datetime, most: int) -> None:  # fmt: skip
    """Keep ``subscription`` for ``player_id`` (the same endpoint again replaces it); past
    ``most`` of theirs the oldest go."""
    async with store.engine.begin() as conn:
        await conn.execute(push_subscriptions.delete().where(
            push_subscriptions.c.endpoint == subscription.endpoint))  # fmt: skip
        await conn.execute(push_subscriptions.insert().values(
            endpoint=subscription.endpoint, player_id=player_id, p256dh=subscription.p256dh,
            auth=subscription.auth, lang=subscription.lang, created_at=at))  # fmt: skip
        rows = (await conn.execute(
            sa.select(push_subscriptions.c.endpoint)
            .where(push_subscriptions.c.player_id == player_id)
            .order_by(push_subscriptions.c.created_at.desc())
        )).all()  # fmt: skip
        old = [str(row.endpoint) for row in rows[most:]]
        if old:
            await conn.execute(push_subscriptions.delete().where(
                push_subscriptions.c.endpoint.in_(old)))  # fmt: skip


async def remove_subscription(store: Store, endpoint: str, player_id: str | None = None) -> None:
    """Forget a browser's subscription (only ``player_id``'s, when given)."""
    where = push_subscriptions.c.endpoint == endpoint
    if player_id is not None:
        where = sa.and_(where, push_subscriptions.c.player_id == player_id)
    async with store.engine.begin() as conn:
        await conn.execute(push_subscriptions.delete().where(where))


async def subscriptions_of(store: Store, player_id: str) -> list[PushSubscription]:
    """Every browser of ``player_id`` that takes pushes."""
    async with store.engine.connect() as conn:
        rows = (await conn.execute(
            sa.select(push_subscriptions.c.endpoint, push_subscriptions.c.p256dh,
                      push_subscriptions.c.auth, push_subscriptions.c.lang)
            .where(push_subscriptions.c.player_id == player_id))).all()  # fmt: skip
    return [PushSubscription(str(r.endpoint), str(r.p256dh), str(r.auth), str(r.lang))
            for r in rows]


async def secret(store: Store, name: str, make: Callable[[], str]) -> str:
    """The server's secret ``name``: made by ``make`` on the first start and stored; a
    process starting at the same time as another gets the one stored first."""
    async with store.engine.begin() as conn:
        row = (await conn.execute(
            sa.select(server_secrets.c.value).where(server_secrets.c.name == name))).first()
        if row is not None:
            return str(row.value)
    value = make()
    try:
        async with store.engine.begin() as conn:
            await conn.execute(server_secrets.insert().values(name=name, value=value))
        return value
    except sa.exc.IntegrityError:  # another process stored its own first: that one
        async with store.engine.connect() as conn:
            row = (await conn.execute(
                sa.select(server_secrets.c.value).where(server_secrets.c.name == name))).one()
        return str(row.value)
