"""``kill -9`` in the middle of a burst of moves loses no acknowledged move (SQLite and a real
PostgreSQL): a ``result`` is sent only after its change has committed, so whatever the moment
of the kill, the restarted server holds every version a client was told about."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import ServerProcess, auth, choose, seated_game
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

TABLES = 4
BURST_SECONDS = 1.5
# Every client of this test is on 127.0.0.1: let one address move as fast as four tables can.
LOOSE = ["--limit", "frames_per_second_per_address=100000",
         "--limit", "frames_burst_per_address=100000",
         "--limit", "rate_per_second=100000", "--limit", "rate_burst=100000"]  # fmt: skip


class _Seat:
    """One seated client: the latest table it was sent, and the results it was given."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.results: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def read(self) -> None:
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                if frame.get("table") is not None and (
                    not self.state or frame["table"]["version"] >= self.state["version"]
                ):
                    self.state = frame["table"]
                if frame["type"] in ("result", "error"):
                    self.results.put_nowait(frame)
        except ConnectionClosed:
            pass
        finally:
            self.results.put_nowait({"type": "closed"})


async def _table_burst(url: str, table: dict[str, Any], acknowledged: dict[str, int],
                       stop: asyncio.Event, seed: int) -> None:
    rng = random.Random(seed)
    ws_url = url.replace("http", "ws") + f"/ws/tables/{table['id']}"
    seats: list[_Seat] = []
    for token in table["tokens"]:
        seat = _Seat(await connect(ws_url, max_size=2**22))
        await seat.ws.send(json.dumps({"v": 1, "type": "hello", "token": token}))
        seats.append(seat)
    readers = [asyncio.create_task(s.read()) for s in seats]
    try:
        number = 0
        while not stop.is_set():
            movers = [s for s in seats if s.state and s.state["game"]
                      and s.state["game"]["legal_decisions"]]  # fmt: skip
            if not movers:
                await asyncio.sleep(0.001)
                continue
            mover = max(movers, key=lambda s: s.state["version"])
            number += 1
            await mover.ws.send(json.dumps({
                "v": 1, "type": "move", "id": f"b{number}", "version": mover.state["version"],
                "decision": choose(mover.state["game"], rng),
            }))
            answer = await mover.results.get()
            if answer["type"] == "closed":
                return
            if answer["type"] == "result":
                acknowledged[table["id"]] = max(acknowledged[table["id"]], answer["version"])
                # Wait for the update that carries it, so the next mover is known.
                while mover.state["version"] < answer["version"] and not stop.is_set():
                    await asyncio.sleep(0.0005)
    except ConnectionClosed:
        pass
    finally:
        for seat in seats:
            await seat.ws.close()
        for reader in readers:
            reader.cancel()


async def _burst_then_kill(server: ServerProcess, tables: list[dict[str, Any]]) -> dict[str, int]:
    acknowledged = {t["id"]: 0 for t in tables}
    stop = asyncio.Event()
    players = [asyncio.create_task(_table_burst(server.url, t, acknowledged, stop, i))
               for i, t in enumerate(tables)]  # fmt: skip
    await asyncio.sleep(BURST_SECONDS)
    server.kill()  # SIGKILL while every table has a move in flight
    stop.set()
    await asyncio.wait_for(asyncio.gather(*players, return_exceptions=True), 30)
    return acknowledged


def test_kill_9_during_a_burst_loses_no_acknowledged_move(db_url: str) -> None:
    server = ServerProcess(db_url, seed=31, extra_args=LOOSE).start()
    try:
        with httpx.Client(base_url=server.url) as http:
            tables = [seated_game(http, humans=3, bots=0) for _ in range(TABLES)]
            for table in tables:
                started = http.post(f"/api/tables/{table['id']}/start",
                                    headers=auth(table["tokens"][0]))
                assert started.status_code == 200, started.text
        began = time.monotonic()
        acknowledged = asyncio.run(_burst_then_kill(server, tables))
        assert time.monotonic() - began < 60
        assert sum(acknowledged.values()) > 4 * TABLES, acknowledged  # it was a burst
        server.start()  # at once: the lease of a killed server on this host is taken over
        with httpx.Client(base_url=server.url) as http:
            for table in tables:
                state = http.get(f"/api/tables/{table['id']}").json()["table"]
                assert state["version"] >= acknowledged[table["id"]], (table["id"], state)
    finally:
        server.stop()
