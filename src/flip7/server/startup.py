"""What ``flip7 serve`` does with its database before it starts the web server.

It opens the database (creating and migrating it if need be) and takes the lease, so that a
refusal is one clear line and exit status 2 rather than a traceback from inside uvicorn; the
app then adopts the lease (:func:`flip7.server.lease.reserve`). It also says which database
it uses, and loudly when it has just created it.
"""

from __future__ import annotations

import asyncio

from flip7.core.errors import Flip7Error
from flip7.server.lease import DatabaseInUse, reserve
from flip7.server.settings import Settings
from flip7.server.store import Store, describe_database

__all__ = ["DatabaseUnavailable", "prepare_database"]


class DatabaseUnavailable(Flip7Error):
    """The database cannot be opened (unreachable, a bad path, not a database...)."""


def prepare_database(settings: Settings) -> list[str]:
    """Open the database ``settings`` name and take its lease for this process; the lines
    to tell the operator. Raises :class:`~flip7.server.lease.DatabaseInUse` when another
    server holds it, :class:`DatabaseUnavailable` when it cannot be opened."""
    return asyncio.run(_prepare(settings))


async def _prepare(settings: Settings) -> list[str]:
    try:
        store = await Store.open(settings.database_url, lease_seconds=settings.lease_seconds)
    except DatabaseInUse:
        raise
    except Exception as exc:
        reason = getattr(exc, "orig", None) or exc
        raise DatabaseUnavailable(
            f"cannot open the database {describe_database(settings.database_url)}: {reason}"
        ) from None
    assert store.lease is not None
    reserve(settings.database_url, store.lease.holder)
    # The app takes the lease over within a second or two, well before it expires.
    await store.close(release=False)
    if store.created and store.file is not None:
        return [f"flip7: creating a new database at {store.file.path}"]
    return [f"flip7: using the database {store.description}"]
