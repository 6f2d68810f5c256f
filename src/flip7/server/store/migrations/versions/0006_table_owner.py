"""Many processes on one database (flip7.server.cluster.node): the processes and until when each
is alive (``cluster_node``), who runs each table under which fencing token (``table_owner``),
and the token on every write to a table, which PostgreSQL checks itself, so that a process
that lost a table can no longer change it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Refuses a write to a table that carries another token than the table's owner row (a table
# with no owner row, one process's, takes any). FOR SHARE: a takeover (which updates the row)
# waits for a write in flight, and a write waits for a takeover in flight.
FENCE_FUNCTION = """
CREATE OR REPLACE FUNCTION flip7_fence() RETURNS trigger AS $$
DECLARE
    tid text;
    owned bigint;
BEGIN
    IF TG_TABLE_NAME = 'tables' THEN
        tid := NEW.id;
    ELSE
        tid := NEW.table_id;
    END IF;
    SELECT token INTO owned FROM table_owner WHERE table_id = tid FOR SHARE;
    IF FOUND AND NEW.fence IS DISTINCT FROM owned THEN
        RAISE EXCEPTION 'flip7_fenced: table % is run under token %, this write carries %',
            tid, owned, NEW.fence;
    END IF;
    RETURN NEW;
END
$$ LANGUAGE plpgsql
"""

TRIGGERS = {
    "table_log": "BEFORE INSERT",
    "table_chat": "BEFORE INSERT",
    "tables": "BEFORE UPDATE",
}


def upgrade() -> None:
    op.create_table(
        "cluster_node",
        sa.Column("node", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "table_owner",
        sa.Column("table_id", sa.String(16), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False, index=True),
        sa.Column("token", sa.BigInteger, nullable=False),
    )
    for name in TRIGGERS:
        op.add_column(name, sa.Column("fence", sa.BigInteger, nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FENCE_FUNCTION)
        for name, when in TRIGGERS.items():
            op.execute(
                f"CREATE TRIGGER {name}_fence {when} ON {name} "
                "FOR EACH ROW EXECUTE FUNCTION flip7_fence()"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}_fence ON {name}")
        op.execute("DROP FUNCTION IF EXISTS flip7_fence()")
    for name in TRIGGERS:
        with op.batch_alter_table(name) as batch:
            batch.drop_column("fence")
    op.drop_table("table_owner")
    op.drop_table("cluster_node")
