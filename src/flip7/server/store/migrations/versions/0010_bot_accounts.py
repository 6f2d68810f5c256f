"""Bot accounts (flip7.server.services.players, the bot API): an identity its owner made a
bot (``players.bot``) plays only through the bot API, with a bot token of which the server
keeps the SHA-256 (``players.bot_token_hash``; None: no token works, it was revoked), and
says whether it takes invitations now (``players.bot_available``: the lobby lists it).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "players", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column("players", sa.Column("bot_token_hash", sa.String(64), nullable=True))
    op.add_column(
        "players",
        sa.Column("bot_available", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bot_available")
        batch.drop_column("bot_token_hash")
        batch.drop_column("bot")
