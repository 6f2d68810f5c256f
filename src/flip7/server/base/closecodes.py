"""The codes a table socket is closed with, in one place (docs/protocol.md lists them).

1000-2999 are RFC 6455's (§7.4.1, and IANA's registry); 4000-4999 are this server's own,
each its HTTP twin plus 4000 (4404: not found, 4410: gone).

>>> int(CloseCode.CLOSED), CloseCode.MOVED is CloseCode.SERVICE_RESTART
(4410, True)
>>> CloseCode.gone("closed"), CloseCode.gone("no_table")
(<CloseCode.CLOSED: 4410>, <CloseCode.NO_TABLE: 4404>)
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["CloseCode"]


class CloseCode(IntEnum):
    """Why a table socket was closed, as its close frame says."""

    # Too many messages (a flooder), or too many sockets from one address.
    POLICY_VIOLATION = 1008
    # A bug: never expected (``flip7 attack`` counts them).
    INTERNAL_ERROR = 1011
    # The server stops, or the link to the process running the table broke: reconnect.
    SERVICE_RESTART = 1012
    # The table moved to another process (many processes): reconnect, to reach its owner.
    MOVED = 1012
    # The server cannot serve the socket now (its database or Redis does not answer, it
    # makes room for others, the socket does not read its frames): reconnect later.
    TRY_AGAIN_LATER = 1013
    # A bot's stream without a bot token this server knows (the bot API).
    UNAUTHORIZED = 4401
    # There is no table of that id.
    NO_TABLE = 4404
    # No hello within ``hello_timeout`` of connecting.
    HELLO_TIMEOUT = 4408
    # Another stream of the same bot account opened: it replaces this one.
    REPLACED = 4409
    # The table was closed for lack of players (flip7.server.table.expiry).
    CLOSED = 4410

    @classmethod
    def gone(cls, code: str) -> CloseCode:
        """The close of a socket whose table is not open, as ``Lobby.gone`` said why:
        ``closed`` (410), else ``no_table``."""
        return cls.CLOSED if code == "closed" else cls.NO_TABLE
