"""The flood of long games' welcomes: a table with the longest game the server lets a
stranger ask for (the highest ``target_score`` it takes, every seat but the human's a
cheap bot, the human playing at once so that the game grows), and many spectators, from
many addresses, each connecting, reading its welcome (the game's history so far) and
connecting again."""

from __future__ import annotations

import asyncio
import contextlib
import time

from flip7.client.attack.flood import Flood, bystander_address

# The target scores asked for, highest first: the first one the server takes is played.
TARGETS = (10**9, 10**6, 10**4, 1000, 500)
SEATS = 18


class Welcomes(Flood):
    async def setup(self) -> None:
        self.table = ""
        self.player: asyncio.Task[None] | None = None
        self.first_welcome = 0
        address = bystander_address(self.block or 0)
        for target in TARGETS:
            made = await self.new_table(address, SEATS, {"target_score": target})
            if made is not None:
                self.figures.note(f"the long table plays to {target} points")
                break
        else:
            self.figures.note("no long table: every target score was refused")
            return
        self.table, token = made
        headers = {"Authorization": f"Bearer {token}"}
        for _ in range(SEATS - 1):
            response = await self.request(address, "POST", f"/api/tables/{self.table}/bots",
                                          "setup", json={"bot": "basic"}, headers=headers)
            if response is None or response.status_code != 200:
                break
        await self.request(address, "POST", f"/api/tables/{self.table}/start", "setup",
                           headers=headers)  # fmt: skip
        growth = float(self.config.get("welcome_growth", 15.0))
        far = time.monotonic() + growth + float(self.config.get("duration", 20)) + 30
        self.player = asyncio.create_task(self.play_seat(address, self.table, token, far))
        await asyncio.sleep(growth)
        got = await self.spectate(address, self.table, time.monotonic() + 5)
        self.first_welcome = 0 if got is None else got[1]
        changes = 0 if got is None else len(got[0].data.get("history") or [])
        self.figures.note(
            f"after {growth:g} s of play a welcome is {self.first_welcome / 1024:.0f} KiB "
            f"({changes} changes)"
        )

    async def run(self, deadline: float) -> None:
        if not self.table:
            return
        count = int(self.config.get("spectators", 400))
        sizes: list[int] = []
        began = time.monotonic()

        async def spectator(index: int) -> None:
            address = self.addresses[index % len(self.addresses)]
            while time.monotonic() < deadline:
                got = await self.spectate(address, self.table, deadline)
                if got is None:
                    await asyncio.sleep(0.2)
                else:
                    sizes.append(got[1])

        try:
            await asyncio.gather(*(spectator(i) for i in range(count)))
        finally:
            if self.player is not None:
                self.player.cancel()
                with contextlib.suppress(BaseException):
                    await self.player
        took = max(1e-3, time.monotonic() - began)
        total = sum(sizes)
        self.figures.codes["welcomes read"] = len(sizes)
        self.figures.note(
            f"{len(sizes)} welcomes read by {count} spectators from {len(self.addresses)} "
            f"addresses: {total / 2**20:.1f} MiB in {took:.1f} s ({total / 2**20 / took:.1f} "
            f"MiB/s), the largest {max(sizes, default=0) / 1024:.0f} KiB"
        )
