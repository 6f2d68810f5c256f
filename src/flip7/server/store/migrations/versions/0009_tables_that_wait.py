"""Your games and turn-based tables.

A player's unfinished tables are found by identity, with whose turn it is:
``table_log.player_id`` repeats a ``join`` change's identity (its JSON has it as
``player``) so that the tables an identity sat down at are one indexed lookup;
``tables.to_decide`` is the seat whose decision the game waits for (None between games),
kept with every update so that a suspended table, or one another process owns, says whose
turn it is without being rebuilt. The index on ``(state, updated_at)`` serves the sweep
that closes long-suspended tables.

A turn-based table has ``move_hours`` per decision (None: a live table) and keeps the
running decision's ``deadline`` with every update, so that a restart or a takeover
restores the clock rather than starting a fresh one, and a suspended table is woken when
its deadline passes.

An identity may add an e-mail address for turn alerts (``player_emails``: verified by a
link, alerts on or off, an unsubscribe token) and ``email_alerts`` keeps when an alert
about a table last went to it. Its browsers may take Web Push alerts
(``push_subscriptions``), signed with the server's VAPID key (``server_secrets``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("table_log", sa.Column("player_id", sa.String(16), nullable=True))
    op.create_index("ix_table_log_player", "table_log", ["player_id"])
    op.add_column("tables", sa.Column("to_decide", sa.Integer, nullable=True))
    op.add_column("tables", sa.Column("move_hours", sa.Integer, nullable=True))
    op.add_column("tables", sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_tables_state_updated", "tables", ["state", "updated_at"])
    op.create_table(
        "player_emails",
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("verified", sa.Boolean, nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=True, index=True),
        sa.Column("code_expires", sa.DateTime(timezone=True), nullable=True),
        sa.Column("alerts", sa.Boolean, nullable=False),
        sa.Column("unsubscribe", sa.String(64), nullable=False, unique=True),
        sa.Column("link_base", sa.String(300), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "email_alerts",
        sa.Column("player_id", sa.String(16), primary_key=True),
        sa.Column("table_id", sa.String(16), primary_key=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint", sa.String(500), primary_key=True),
        sa.Column("player_id", sa.String(16), sa.ForeignKey("players.id"), nullable=False,
                  index=True),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    # The joins stored before: their identity out of the change's JSON.
    log = sa.table("table_log", sa.column("table_id", sa.String), sa.column("seq", sa.Integer),
                   sa.column("kind", sa.String), sa.column("data", sa.Text),
                   sa.column("player_id", sa.String))  # fmt: skip
    bind = op.get_bind()
    joins = bind.execute(sa.select(log.c.table_id, log.c.seq, log.c.data)
                         .where(log.c.kind == "join")).all()  # fmt: skip
    for table_id, seq, data in joins:
        player = json.loads(data).get("player")
        if isinstance(player, str):
            bind.execute(log.update()
                         .where(log.c.table_id == table_id, log.c.seq == seq)
                         .values(player_id=player))  # fmt: skip


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_table("push_subscriptions")
    op.drop_table("email_alerts")
    op.drop_table("player_emails")
    op.drop_index("ix_tables_state_updated", "tables")
    op.drop_index("ix_table_log_player", "table_log")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("to_decide")
        batch.drop_column("move_hours")
        batch.drop_column("deadline")
    with op.batch_alter_table("table_log") as batch:
        batch.drop_column("player_id")
