"""The floods from many addresses of one block (127.B.X.Y: one person holding a block, or
many processes behind one proxy): table creation filling the server's slots, and chat
spam from many spectators at one table. Each keeps a bystander from another block asking
for what the flood is after, so that the figures say what is left for the others."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

from flip7.client.attack.flood import Flood, bystander_address
from flip7.client.table_client import hello, table_url

TABLE = {"name": "flood", "player": "flood", "seats": 4}


class TablesMany(Flood):
    """``POST /api/tables`` round the flood's addresses as fast as the server answers (at
    most ``many_create_max``), a bystander creating a table once a second."""

    async def run(self, deadline: float) -> None:
        most = int(self.config.get("many_create_max", 12_000))
        turn = itertools.count()

        async def work(index: int) -> None:
            if self.figures.codes["create: 201"] >= most:
                await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
                return
            address = self.addresses[next(turn) % len(self.addresses)]
            await self.request(address, "POST", "/api/tables", "create", json=TABLE)

        await asyncio.gather(
            self.workers(int(self.config.get("workers", 32)), deadline, work),
            self.bystander(deadline, "POST", "/api/tables", "bystander", json=TABLE),
        )
        created = self.figures.codes["create: 201"]
        health = await self.json_of(self.addresses[0], "/api/health", "after")
        held = health.get("tables") if isinstance(health, dict) else None
        self.figures.note(
            f"{created} tables created from {len(self.addresses)} addresses "
            f"({created / max(1, len(self.addresses)):.1f} each); the server holds {held} "
            f"tables; the bystander: {_answers(self.figures.codes, 'bystander')}"
        )


class ChatMany(Flood):
    """A table of the flood's own (created from a bystander's block, nobody seated but its
    host) and a spectator from each of the flood's addresses sending chat lines as fast as
    ``chat_gap`` allows; at the end a newcomer's welcome tells how many of the chat lines
    it carries are spam."""

    async def setup(self) -> None:
        self.table = ""
        made = await self.new_table(bystander_address(self.block or 0), 3)
        if made is None:
            self.figures.note("no table to chat at")
            return
        self.table = made[0]

    async def run(self, deadline: float) -> None:
        if not self.table:
            return
        url = table_url(self.url, self.table)
        gap = float(self.config.get("chat_gap", 0.05))

        async def spammer(index: int) -> None:
            address = self.addresses[index]
            lines = [json.dumps({"v": 1, "type": "chat", "text": f"spam {index}.{n}"})
                     for n in range(8)]  # fmt: skip
            await self.ws_frames(url, address, deadline, "chat", lines, hello=hello(None),
                                 gap=gap, reconnect=0.2)  # fmt: skip

        await asyncio.gather(*(spammer(i) for i in range(len(self.addresses))))
        got = await self.spectate(bystander_address(self.block or 0), self.table,
                                  time.monotonic() + 5)  # fmt: skip
        if got is None:
            self.figures.note("the newcomer got no welcome")
            return
        chat = [entry for entry in got[0].data.get("chat") or [] if isinstance(entry, dict)]
        spam = sum(1 for entry in chat if str(entry.get("text", "")).startswith("spam "))
        stored = max((int(entry.get("n", 0)) for entry in chat), default=0)
        self.figures.codes["newcomer: chat lines"] = len(chat)
        self.figures.codes["newcomer: spam lines"] = spam
        self.figures.note(
            f"a newcomer's welcome carries {len(chat)} chat lines, {spam} of them spam; "
            f"{stored} lines stored at the table"
        )


def _answers(codes: dict[str, int], label: str) -> str:
    """The answers counted under ``label``, as "201 ×3, 429 rate_limited ×2".

    >>> _answers({"bystander: 201": 3, "create: 201": 9, "bystander: 503 full": 1}, "bystander")
    '201 ×3, 503 full ×1'
    """
    found = [(key.removeprefix(f"{label}: "), n) for key, n in codes.items()
             if key.startswith(f"{label}: ")]  # fmt: skip
    return ", ".join(f"{code} ×{n}" for code, n in found) or "none"
