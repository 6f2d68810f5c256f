"""Alembic environment: migrations run on the server's own connection at start-up
(``flip7.server.store.database.run_migrations``) or from the command line with ``alembic``
(``alembic.ini`` at the repository root, URL from ``FLIP7_DATABASE_URL``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from flip7.server.store.database import metadata


def _migrate(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _migrate(connection)
        return
    from flip7.server.base.settings import database_url

    # The command line uses a synchronous driver: sqlite3, or psycopg for PostgreSQL.
    url = database_url().replace("+aiosqlite", "").replace("+asyncpg", "+psycopg")
    engine = create_engine(url)
    with engine.begin() as conn:
        _migrate(conn)
    engine.dispose()


_run()
