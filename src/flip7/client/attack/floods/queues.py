"""The flood of the shared queues: from many addresses, records just within the limits
uploaded, replay pages asked for (each one worked out by the replay workers) and the
coach asked to grade every seat of finished games (each job up to minutes of CPU). A
bystander from another block asks for a replay page and for the coach meanwhile: what
the queues leave to everyone else."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

from flip7.client.attack.flood import Flood, bystander_address
from flip7.client.attack.floods.uploads import PAGE_STEPS, Uploads, server_limits
from flip7.client.table_client import TableState

COACH_SEATS = 8  # seats of the games the coach is asked to grade (a job per seat)
COACH_TARGET = 100  # their length: long enough that a job keeps a worker busy a while


class Queues(Flood):
    async def setup(self) -> None:
        self.big: bytes | None = None
        self.pages: list[tuple[str, int]] = []  # a replay's path and its steps
        self.jobs: list[tuple[str, int]] = []  # (game, seat) for the coach
        self.spare: tuple[str, int] | None = None  # the bystander's own job
        address = bystander_address(self.block or 0)
        limits = await server_limits(self, address)
        if limits is not None:
            self.big = Uploads._at_limit(limits)
            response = await self.request(
                address, "POST", "/api/replays", "setup", content=self.big,
                headers={"Content-Type": "application/json"},
            )  # fmt: skip
            if response is not None and response.status_code == 201:
                await self._replay(address, f"/api/replays/{response.json()['id']}")
        games = await self._finished_games(address, int(self.config.get("coach_games", 2)))
        for game in games:
            await self._replay(address, f"/api/games/{game}/replay")
        self.jobs = [(game, seat) for game in games for seat in range(COACH_SEATS)]
        if self.jobs:
            self.spare = self.jobs.pop()
        self.figures.note(
            f"{len(self.pages)} replays to page through, {len(self.jobs)} coach jobs to ask "
            f"for ({len(games)} finished games of {COACH_SEATS} seats to {COACH_TARGET} "
            f"points); at-limit record {len(self.big or b'') // 1024} KiB"
        )

    async def _replay(self, address: str, path: str) -> None:
        data = await self.json_of(address, path)
        steps = int(data.get("total_steps") or 1) if isinstance(data, dict) else 1
        self.pages.append((path, steps))

    async def _finished_games(self, address: str, count: int) -> list[str]:
        """Games of a table of ``COACH_SEATS`` seats (the human and cheap bots) played to
        the end, ``count`` of them or what 60 s give."""
        made = await self.new_table(address, COACH_SEATS, {"target_score": COACH_TARGET})
        if made is None:
            return []
        table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(COACH_SEATS - 1):
            await self.request(address, "POST", f"/api/tables/{table}/bots", "setup",
                               json={"bot": "basic"}, headers=headers)  # fmt: skip
        await self.request(address, "POST", f"/api/tables/{table}/start", "setup", headers=headers)
        finished: list[str] = []
        until = time.monotonic() + 60

        def over(state: TableState) -> None:
            finished[:] = [str(game) for game in state.data.get("finished_games") or []]

        async def enough() -> None:
            while len(finished) < count and time.monotonic() < until:
                await asyncio.sleep(0.2)

        player = asyncio.create_task(self.play_seat(address, table, token, until, on_over=over))
        await enough()
        player.cancel()
        await asyncio.gather(player, return_exceptions=True)
        return finished[:count]

    async def run(self, deadline: float) -> None:
        turn = itertools.count()
        jobs = itertools.cycle(self.jobs) if self.jobs else None

        async def work(index: int) -> None:
            step = next(turn)
            address = self.addresses[step % len(self.addresses)]
            kind = step // len(self.addresses) % 3
            if kind == 0 and self.big is not None:
                await self.request(address, "POST", "/api/replays", "upload", content=self.big,
                                   headers={"Content-Type": "application/json"})  # fmt: skip
            elif kind == 1 and jobs is not None:
                game, seat = next(jobs)
                await self.request(address, "POST", f"/api/games/{game}/coach", "coach",
                                   json={"seat": seat})  # fmt: skip
            elif self.pages:
                await self.request(address, "GET", self._page(step), "page")

        bystanders = []
        if self.pages:
            bystanders.append(self.bystander(
                deadline, "GET", lambda: self._page(self.rng.randrange(1000)), "bystander page"))
        if self.spare is not None:
            game, seat = self.spare
            bystanders.append(self.bystander(deadline, "POST", f"/api/games/{game}/coach",
                                             "bystander coach", every=2.0,
                                             content=json.dumps({"seat": seat}),
                                             headers={"Content-Type": "application/json"}))
        await asyncio.gather(
            self.workers(int(self.config.get("workers", 24)), deadline, work), *bystanders
        )

    def _page(self, step: int) -> str:
        path, steps = self.pages[step % len(self.pages)]
        offset = self.rng.randrange(0, steps) // PAGE_STEPS * PAGE_STEPS
        return f"{path}?offset={offset}"
