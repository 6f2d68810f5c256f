"""What replays read of the tables behind stored games (flip7.server.services.replays)."""

from __future__ import annotations

import sqlalchemy as sa

from flip7.server.store.database import Store, games, tables

__all__ = ["bust_odds_of_game"]


async def bust_odds_of_game(store: Store, game_id: str) -> bool | None:
    """Whether the table that played ``game_id`` told a seat its bust risk (its
    ``bust_odds``); None for a game the store does not have."""
    query = (
        sa.select(tables.c.bust_odds)
        .join(games, games.c.table_id == tables.c.id)
        .where(games.c.id == game_id)
    )
    async with store.engine.connect() as conn:
        found = (await conn.execute(query)).scalar_one_or_none()
    return None if found is None else bool(found)
