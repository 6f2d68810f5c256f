"""The server's parts, wired in one place: :func:`wire` builds them from the settings when
the app is made, and :class:`Services` adds what the start opens (the lobby on its
database). A route gets them all through one dependency, :data:`Use`.

>>> from flip7.server.base.settings import Settings
>>> wiring = wire(Settings(connections_per_address=3))
>>> wiring.sockets.open_per_address.limit, wiring.sockets.open
(3, set())
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, WebSocket
from starlette.requests import HTTPConnection

from flip7.server.api.guard import HandshakeGate
from flip7.server.base.limits import AddressBudget, AddressCounter
from flip7.server.base.settings import Settings
from flip7.server.table.lobby import Lobby

__all__ = ["Services", "Sockets", "Use", "Wiring", "services", "wire"]


@dataclass(frozen=True, slots=True)
class Sockets:
    """What every table socket shares, per client address, so that reconnecting resets
    nothing: frames (every kind, before anything else is done with them), refused frames
    (an address refused ``rate_strikes`` times within a minute is disconnected), open
    sockets, handshakes (and the cool-off of flooders), chat messages; and the sockets open
    now, closed when the server stops."""

    frames: AddressBudget
    strikes: AddressBudget
    open_per_address: AddressCounter
    # Under ``flip7 serve`` the guard's HTTP protocol asks it before the WebSocket even
    # exists (server_config finds it in the wiring); without the guard (the test client),
    # the socket route does.
    handshakes: HandshakeGate
    chats: AddressBudget
    open: set[WebSocket] = field(default_factory=set)

    @classmethod
    def of(cls, settings: Settings) -> Sockets:
        return cls(
            frames=AddressBudget(
                settings.frames_per_second_per_address * 60, settings.frames_burst_per_address
            ),
            strikes=AddressBudget(settings.rate_strikes, settings.rate_strikes),
            open_per_address=AddressCounter(settings.connections_per_address),
            handshakes=HandshakeGate(settings),
            chats=AddressBudget(
                settings.chat_per_minute_per_address, settings.chat_burst_per_address
            ),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Wiring:
    """The server's parts that need no database: built once per app, from its settings."""

    settings: Settings
    sockets: Sockets


@dataclass(frozen=True, slots=True, kw_only=True)
class Services(Wiring):
    """Everything a route uses: the wiring, and the lobby the start opened."""

    lobby: Lobby

    @classmethod
    def started(cls, wiring: Wiring, lobby: Lobby) -> Services:
        return cls(settings=wiring.settings, sockets=wiring.sockets, lobby=lobby)


def wire(settings: Settings) -> Wiring:
    """The parts of a server with ``settings``."""
    return Wiring(settings=settings, sockets=Sockets.of(settings))


def services(connection: HTTPConnection) -> Services:
    """The running server's services: the lifespan hands them to every request and socket
    (its state, ``{"services": ...}``)."""
    found = connection.state.services
    assert isinstance(found, Services), "the server has not started"
    return found


# A route's parameter ``services: Use`` gets them.
Use = Annotated[Services, Depends(services)]
