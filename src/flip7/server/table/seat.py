"""A place at a table and who sits in it: a human (with a token) or a bot.

In the server's words a *seat* is a number (0, 1, ... round the table) and a
:class:`Seat` is what holds that seat: its name, who plays it, whether they are here.

>>> place = Seat(name="Ann", kind="human", token_hash=hash_token("secret"))
>>> place.played_by_bot, place.connected
(False, False)
>>> place.to_json(0)["name"], len(place.token_hash or "")
('Ann', 64)
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from flip7.core.jsontypes import JSON, JSONObject

__all__ = [
    "REMEMBERED_MOVES",
    "TOKEN_DIFFERENT_CHARACTERS",
    "RememberedMove",
    "Seat",
    "hash_token",
    "same_network",
    "token_problem",
]

# Move ids remembered per seat for idempotent retries.
REMEMBERED_MOVES = 512
# A seat token a client chooses (a join's ``token``): 22 to 64 characters of the URL-safe
# alphabet, at least this many of them different. 22 random characters of 64 have about
# 19 different ones, and fewer than 10 once in 400 million; "AAAA…" or "abababab…" is no
# secret.
TOKEN_DIFFERENT_CHARACTERS = 10
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")


def token_problem(token: str) -> str | None:
    """What is wrong with a seat token a client chose, or None for a good one.

    >>> print(token_problem("A" * 22))
    a seat token must be a random secret: 22 to 64 characters of A-Z a-z 0-9 _ -,
    at least 10 of them different (this one has 1); send none and the server picks one
    >>> token_problem("Abc_def-ghij0123456789xyz") is None
    True
    """
    different = len(set(token))
    if _TOKEN.fullmatch(token) and different >= TOKEN_DIFFERENT_CHARACTERS:
        return None
    return (
        "a seat token must be a random secret: 22 to 64 characters of A-Z a-z 0-9 _ -, "
        f"at least {TOKEN_DIFFERENT_CHARACTERS} of them different (this one has "
        f"{different}); send none and the server picks one"
    )


def hash_token(token: str) -> str:
    """What the store keeps of a seat token: its SHA-256, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class RememberedMove:
    """A human's move as its id remembers it: a retry must carry the same version and
    decision to get the same answer."""

    version: int
    decision: str
    after: int


@dataclass(eq=False)
class Seat:
    """What holds a seat at a table: a human (with a token) or a bot."""

    name: str
    kind: Literal["human", "bot"]
    bot: str | None = None
    token_hash: str | None = None
    # The identity the seat was taken with (flip7.server.services.players), or None: anonymous.
    player_id: str | None = None
    # The label of the address block the seat was taken from (changes.Join.network).
    network: str | None = None
    # A bot account's seat (the bot API): a human seat played by an outside program.
    bot_account: bool = False
    left: bool = False  # a human who left mid-game; a bot plays the seat
    connections: int = 0
    # The stand-in bot plays the seat while its player is away (handed over by another
    # player, or by the server after handover_auto), until they reconnect.
    stand_in: bool = False
    # Decisions in a row its clock ran out on (the stand-in bot made them; a move of the
    # player's own clears it): at a turn-based table the others may then hand it over.
    missed: int = 0
    # At the end screen: ready for the next game (a bot always is). Cleared at a start.
    ready: bool = False
    # On the lobby's clock: since when no socket of this seat is connected.
    away_from: float = 0.0
    # Move id -> the move made under it in the current game, for answering retries. Cleared
    # when a game starts: a client may number its moves afresh in every game.
    moves: OrderedDict[str, RememberedMove] = field(default_factory=OrderedDict)

    @property
    def played_by_bot(self) -> bool:
        return self.kind == "bot" or self.left or self.stand_in

    @property
    def connected(self) -> bool:
        return self.kind == "bot" or self.connections > 0

    def to_json(self, seat: int) -> JSONObject:
        """This place, in seat number ``seat``, as every client sees it; the table adds what
        depends on its turn and its state (flip7.server.table.presence.Presence.seat_json)."""
        return {
            "seat": seat,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot,
            "player_id": self.player_id,
            "bot_account": self.bot_account,
            "left": self.left,
            "connected": self.connected,
            "stand_in": self.stand_in,
        }

    def remember(self, move_id: str, version: int, decision: str, after: int) -> None:
        """Remember that ``move_id`` was ``decision`` made against ``version``, which led
        to version ``after``."""
        self.moves[move_id] = RememberedMove(version, decision, after)
        if len(self.moves) > REMEMBERED_MOVES:
            self.moves.popitem(last=False)


def same_network(seats: Sequence[Seat | None]) -> list[JSON]:
    """The groups of seats (two or more, each a list of seat numbers) whose identities
    joined from one address block: what a finished game's record says of its networks.

    >>> ann, bob, cy = (Seat(n, "human", player_id=n, network=w)
    ...                 for n, w in (("a", "x"), ("b", "y"), ("c", "x")))
    >>> same_network([ann, bob, None, cy, Seat("Ed", "bot", bot="threshold")])
    [[0, 3]]
    """
    groups: dict[str, list[JSON]] = {}
    for seat, place in enumerate(seats):
        if place is not None and place.player_id is not None and place.network is not None:
            groups.setdefault(place.network, []).append(seat)
    return [list(group) for group in groups.values() if len(group) > 1]
