"""The upload flood: oversize records and records just within the server's limits sent
to ``POST /api/replays``, and the pages of a finished game's replay and of an uploaded
one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from typing import Any

from flip7.client.attack.flood import Flood

PAGE_STEPS = 200  # the offsets of the pages the upload flood asks for


def record(players: int, target: int, decisions: int, draws: int, seed: int) -> dict[str, Any]:
    """A valid record of an unfinished game with up to ``decisions`` and ``draws``."""
    from flip7.core.rules import Rules
    from flip7.engine.game import Game
    from flip7.engine.record import Record

    rng = random.Random(seed)
    game = Game.new([f"p{i}" for i in range(players)], Rules(target_score=target), seed=seed,
                    events=False)  # fmt: skip
    while not game.over and len(game.decisions) < decisions and len(game.draws) < draws - 10:
        legal = game.legal_decisions()
        seat = game.to_decide
        if str(legal[0]) == "hit" and seat is not None and game.number_sum(seat) < 22:
            game.apply(legal[0])
        else:
            game.apply(rng.choice(legal))
    data: dict[str, Any] = Record.from_game(game).to_json()
    return data


# The limits of an uploaded record that the upload flood builds its at-limit record from,
# read from the server it attacks (GET /api/limits): a client does not import the server.
RECORD_LIMITS = ("max_record_bytes", "max_record_draws", "max_record_decisions",
                 "max_record_target_score")  # fmt: skip


async def server_limits(flood: Flood, address: str) -> dict[str, int] | None:
    """The server's record limits (:data:`RECORD_LIMITS`) from ``GET /api/limits``; None
    (and a note) when it does not say them."""
    response = await flood.request(address, "GET", "/api/limits", "setup")
    if response is None or response.status_code != 200:
        status = "no answer" if response is None else f"HTTP {response.status_code}"
        flood.figures.note(f"GET /api/limits: {status}")
        return None
    try:
        data = response.json()
        return {name: int(data[name]) for name in RECORD_LIMITS}
    except (ValueError, KeyError, TypeError, AttributeError):
        flood.figures.note(f"GET /api/limits: not the limits: {response.text[:160]!r}")
        return None


class Uploads(Flood):
    async def setup(self) -> None:
        self.pages: list[tuple[str, int]] = []  # a replay's path and its steps
        self.oversize = json.dumps(record(4, 10**6, 20_000, 10**6, 1)).encode()
        self.big: bytes | None = None  # the at-limit record, once the limits are known
        address = self.addresses[0]
        limits = await server_limits(self, address)
        if limits is None:
            self.figures.note(
                f"oversize record {len(self.oversize) // 1024} KiB; no at-limit record (the "
                "server's limits are unknown)"
            )
        else:
            self.big = self._at_limit(limits)
            self.figures.note(
                f"oversize record {len(self.oversize) // 1024} KiB (20,000 decisions, target "
                f"10^6); at-limit record {len(self.big) // 1024} KiB"
            )
            response = await self.request(
                address, "POST", "/api/replays", "setup", content=self.big,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            if response is not None and response.status_code == 201:
                await self._pages(address, f"/api/replays/{response.json()['id']}")
        game = await self._finished_game(address)
        if game is not None:
            await self._pages(address, f"/api/games/{game}/replay")
        else:
            self.figures.note("no finished game to page through")

    @staticmethod
    def _at_limit(limits: dict[str, int]) -> bytes:
        """A record just within the server's ``limits``: 95 % of its decisions and draws,
        fewer while it is over 95 % of the bytes."""
        target = limits["max_record_target_score"]
        big = record(18, target, int(limits["max_record_decisions"] * 0.95),
                      int(limits["max_record_draws"] * 0.95), 2)  # fmt: skip
        text = json.dumps(big).encode()
        scale = 0.8
        while len(text) > limits["max_record_bytes"] * 0.95 and scale > 0.01:
            big = record(18, target, int(limits["max_record_decisions"] * scale),
                          int(limits["max_record_draws"] * scale), 2)  # fmt: skip
            text = json.dumps(big).encode()
            scale *= 0.8
        return text

    async def _pages(self, address: str, path: str) -> None:
        """Note a replay to page through, with its step count (``total_steps``)."""
        response = await self.request(address, "GET", path, "setup")
        steps = 1
        if response is not None and response.status_code == 200:
            with contextlib.suppress(ValueError, AttributeError, TypeError):
                steps = int(response.json().get("total_steps") or 1)
        self.pages.append((path, steps))

    async def _finished_game(self, address: str) -> str | None:
        made = await self.new_table(address, 3, {"target_score": 1})
        if made is None:
            return None
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(2):
            await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                               json={"bot": "basic"}, headers=headers)  # fmt: skip
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup", headers=headers)
        # Bots think only while a seated human is connected: stay and play to the end.
        until = time.monotonic() + 30
        await self.play_seat(address, table, token, until, once=True)
        while time.monotonic() < until:
            response = await self.request(address, "GET", f"/api/tables/{table}", "setup")
            if response is not None and response.status_code == 200:
                finished = response.json()["table"].get("finished_games") or []
                if finished:
                    return str(finished[0])
            await asyncio.sleep(0.25)
        return None

    async def run(self, deadline: float) -> None:
        step = [0]

        async def work(index: int) -> None:
            address = self.addresses[index % len(self.addresses)]
            step[0] += 1
            kind = step[0] % 3
            if kind == 0 and self.pages:
                path, steps = self.pages[step[0] % len(self.pages)]
                offset = self.rng.randrange(0, steps) // PAGE_STEPS * PAGE_STEPS
                await self.request(address, "GET", f"{path}?offset={offset}", "page")
                return
            at_limit = kind != 1 and self.big is not None
            await self.request(
                address, "POST", "/api/replays", "at-limit" if at_limit else "oversize",
                content=self.big if at_limit and self.big is not None else self.oversize,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip

        await self.workers(int(self.config.get("workers", 16)), deadline, work)
