"""The floods of tables: ``POST /api/tables`` as fast as possible, and tables of search
bots (the strongest a stranger may ask for) playing on."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from flip7.client.attack.figures import FloodFigures
from flip7.client.attack.flood import Flood

# What a stranger asks for first, before falling back to what the server allows.
STRONG_BOT = "mcts:iters=10000000,time=0.9,horizon=1000,top=64"
FALLBACK_BOTS = ("mcts", "basic")


class Tables(Flood):
    async def run(self, deadline: float) -> None:
        most = int(self.config.get("create_max", 5000))
        body = {"name": "flood", "player": "flood", "seats": 4}

        async def work(index: int) -> None:
            if self.figures.sent >= most:
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
                return
            address = self.addresses[index % len(self.addresses)]
            await self.request(address, "POST", "/api/tables", json=body)

        await self.workers(int(self.config.get("workers", 32)), deadline, work)


class Bots(Flood):
    """Tables of one human and three search bots. On even tables the human leaves once the
    game has started (the brief's attack); on odd ones (``bot_human`` "both") the human
    stays connected and makes its own decisions at once, which is what keeps bots thinking
    on a server that pauses bots nobody is watching."""

    strongest = STRONG_BOT  # asked for first (unless the config names a bot_spec)
    fallbacks: tuple[str, ...] = FALLBACK_BOTS  # then these, once the ceilings are reached

    def __init__(self, config: dict[str, Any], figures: FloodFigures) -> None:
        super().__init__(config, figures)
        self.count = int(config.get("bot_tables", 12))
        self.mode = str(config.get("bot_human", "both"))
        self.tables: list[tuple[str, str, str, bool]] = []  # id, token, address, human plays
        self.versions: dict[str, int] = {}
        self.spec: str | None = None

    async def _bot_spec(self, address: str, table: str, headers: dict[str, str]) -> bool:
        """Seat the strongest bot the server takes: the spec asked for, lowered to each
        ceiling the server names ("iters may be at most 2000"), then the fallbacks."""
        if self.spec is not None:
            response = await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                                          json={"bot": self.spec}, headers=headers)  # fmt: skip
            return response is not None and response.status_code == 200
        candidates = [str(self.config.get("bot_spec", self.strongest)), *self.fallbacks]
        tries = 0
        while candidates and tries < 12:
            spec = candidates.pop(0)
            tries += 1
            response = await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                                          json={"bot": spec}, headers=headers)  # fmt: skip
            if response is None:
                continue
            if response.status_code == 200:
                self.spec = spec
                return True
            message = response.text[:300]
            self.figures.note(f"bot {spec!r} refused: HTTP {response.status_code} {message}")
            lowered = lower_to_ceiling(spec, message)
            if lowered is not None:
                candidates.insert(0, lowered)
        return False

    async def setup(self) -> None:
        # The first table finds the spec the server takes; the others then ask for it.
        await self._one(0)
        await asyncio.gather(*(self._one(i) for i in range(1, self.count)))
        plays = sum(1 for t in self.tables if t[3])
        self.figures.note(
            f"{len(self.tables)} of {self.count} bot tables started with "
            f"{self.spec or 'no bot'} ({plays} with the human playing, "
            f"{len(self.tables) - plays} with the human gone)"
        )
        self.versions = await self._versions()

    async def _one(self, index: int) -> None:
        address = self.addresses[index % len(self.addresses)]
        made = await self.new_table(address, 4)
        if made is None:
            return
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(3):
            await self._bot_spec(address, table, headers)
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup",
                           headers=headers)  # fmt: skip
        plays = self.mode == "play" or (self.mode == "both" and index % 2 == 1)
        if not plays:
            await self.request(address, "POST", f"/api/tables/{table}/leave", "setup",
                               headers=headers)  # fmt: skip
        self.tables.append((table, token, address, plays))

    async def _versions(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table, _token, address, _plays in self.tables:
            response = await self.request(address, "GET", f"/api/tables/{table}", "poll")
            if response is not None and response.status_code == 200:
                out[table] = int(response.json()["table"]["version"])
        return out

    async def run(self, deadline: float) -> None:
        players = [
            self.play_seat(address, table, token, deadline)
            for table, token, address, plays in self.tables
            if plays
        ]
        await asyncio.gather(asyncio.sleep(max(0.0, deadline - time.monotonic())), *players)
        after = await self._versions()
        for plays, label in ((False, "the human gone"), (True, "the human playing")):
            ids = [t[0] for t in self.tables if t[3] is plays]
            if ids:
                moved = sum(after.get(t, self.versions.get(t, 0)) - self.versions.get(t, 0)
                            for t in ids)  # fmt: skip
                self.figures.note(
                    f"tables with {label} advanced {moved} versions in the window "
                    f"({len(ids)} tables)"
                )

_CEILING = re.compile(r"(\w+) may be at most ([0-9.e+-]+)")


def lower_to_ceiling(spec: str, message: str) -> str | None:
    """``spec`` with the parameter a refusal names set to the ceiling it names; None when
    the message names none (or the spec has it at that value already).

    >>> lower_to_ceiling("mcts:iters=10000000,time=0.9", "iters may be at most 2000, got 1e7")
    'mcts:iters=2000,time=0.9'
    >>> lower_to_ceiling("mcts:iters=2000", "bot 'x' is not offered here") is None
    True
    """
    found = _CEILING.search(message)
    name, sep, params = spec.partition(":")
    if found is None or not sep:
        return None
    key, ceiling = found.group(1), found.group(2).rstrip(".")
    pairs = [p.partition("=") for p in params.split(",") if p]
    if not any(k == key for k, _, _ in pairs):
        return None
    lowered = [f"{k}={ceiling if k == key else v}" for k, _, v in pairs]
    text = f"{name}:{','.join(lowered)}"
    return None if text == spec else text
