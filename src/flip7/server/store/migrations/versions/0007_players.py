"""Players, ratings and statistics (flip7.server.services: players, ratings): identities
(``players``) with the SHA-256 of each device's key (``player_keys``) and one-time transfer
codes (``player_codes``); OpenSkill ratings of identities and bot levels (``ratings``) with
a row per rated game (``rating_history``); every finished game of an identity with its
seat's statistics (``player_games``); the mark that a finished game's ratings and
statistics are written (``game_results``: once, whichever process gets there first); and the
table option ``rated``.

Games finished before this revision had no identities and are marked done (unrated), so
that nothing rates them later.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Tables opened before ratings existed stay unrated.
    op.add_column(
        "tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "player_keys",
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "player_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_player_codes_player_id", "player_codes", ["player_id"])
    op.create_table(
        "ratings",
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("ref", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("ref", sa.String(32), primary_key=True),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_history_entrant", "rating_history", ["kind", "ref", "at"])
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "player_games",
        sa.Column("player_id", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("stats", sa.Text, nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_player_games_player", "player_games", ["player_id", "finished_at"])
    op.execute(
        "INSERT INTO game_results (game_id, rated, at) "
        "SELECT id, false, finished_at FROM games WHERE finished_at IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_index("ix_player_games_player", "player_games")
    op.drop_table("player_games")
    op.drop_table("game_results")
    op.drop_index("ix_rating_history_entrant", "rating_history")
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_index("ix_player_codes_player_id", "player_codes")
    op.drop_table("player_codes")
    op.drop_table("player_keys")
    op.drop_table("players")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rated")
