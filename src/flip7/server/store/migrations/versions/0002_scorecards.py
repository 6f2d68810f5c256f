"""The scorekeeper's scorecards.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "scorecards",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("listing", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_scorecards_updated_at", "scorecards", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_scorecards_updated_at", table_name="scorecards")
    op.drop_table("scorecards")
