"""Bot accounts (flip7.server.services.players, the bot API): an identity its owner made a
bot (``players.bot``) plays only through the bot API, with a bot token of which the server
keeps the SHA-256 (``players.bot_token_hash``; None: no token works, it was revoked), and
says whether it takes invitations now (``players.bot_available``: the lobby lists it).
A host's invitations of a bot account wait in ``bot_invitations`` until answered or
expired, whichever process the bot's stream is on.

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
    op.create_table(
        "bot_invitations",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("bot_id", sa.String(16), nullable=False, index=True),
        sa.Column("table_id", sa.String(16), nullable=False),
        sa.Column("table_name", sa.String(80), nullable=False),
        sa.Column("host", sa.String(80), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bot_invitations")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("bot_available")
        batch.drop_column("bot_token_hash")
        batch.drop_column("bot")
