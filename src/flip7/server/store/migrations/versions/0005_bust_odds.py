"""The bust-odds table option (whether the seat to Hit or Stay is told its bust risk), the
private flag (a tutorial's table: neither its table nor its games are listed), and an index
of finished games by when they finished (the lobby's recent games).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Tables created before the option had the odds shown: they keep them.
    op.add_column(
        "tables", sa.Column("bust_odds", sa.Boolean, nullable=False, server_default=sa.true())
    )
    op.add_column(
        "tables", sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.create_index("ix_games_finished_at", "games", ["finished_at"])


def downgrade() -> None:
    op.drop_index("ix_games_finished_at", "games")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("bust_odds")
        batch.drop_column("private")
