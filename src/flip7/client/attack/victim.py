"""The victim bot table of ``flip7 attack``: one human (from 127.0.0.1, as the control
table) and two Expert bots (the strongest level a player picks in the lobby). The human
takes its decisions at once (Stay when it may) and asks for a rematch at every end
screen, so the table's pace is its bots'. A bot's *wait* is the time from the frame that
showed its turn (the human's move, the previous bot's, a new round or game) to the frame
that carries its decision; a turn still open when a window closes counts as a wait that
long, even one that came before the window began, so a table that gets no turn at all
shows it (a slow bot's one turn can span a whole window).

>>> victim = Victim("http://127.0.0.1:1", None, 1.0)
>>> victim.waits = [BotWait(1.0, 0.2), BotWait(2.0, 0.4), BotWait(9.0, 0.1)]
>>> victim.turn = (40, 2.5)
>>> figures = victim.figures(0.0, 3.0)  # the turn open since 2.5 s counts 0.5 s
>>> figures.moves, figures.p50_ms, figures.max_ms
(3, 400.0, 500.0)
>>> victim.figures(2.6, 3.0).max_ms  # open since before the window: 0.5 s, not nothing
500.0
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Hashable
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed

from flip7.client.attack.figures import MAX_NOTES, WaitFigures
from flip7.client.attack.flood import stay_at_once
from flip7.client.measure import percentile
from flip7.client.table_client import Frame, Move, TableClient

VICTIM_LEVEL = "Expert"  # GET /api/bots names it; the spec of the level when it does not
VICTIM_FALLBACK = "mcts"
VICTIM_BOTS = 2
# The victim's game: the Expert level searches every decision once a total is within its
# horizon (150) of the target, so in a game to 150 each of its moves costs a search, and
# a quiet window and a flood window compare like with like whatever the phase of the game
# (to 200 the first rounds' moves are a hundred times cheaper than the last ones').
VICTIM_TARGET = 150

__all__ = ["VICTIM_BOTS", "VICTIM_LEVEL", "VICTIM_TARGET", "BotWait", "Victim"]


@dataclass(frozen=True, slots=True)
class BotWait:
    """A bot's move: when its turn was seen (``time.perf_counter()``) and how long it took."""

    started: float
    seconds: float


class Victim:
    """The victim table's human, and the waits of its bots."""

    def __init__(self, url: str, http: httpx.AsyncClient, timeout: float) -> None:
        self.url = url
        self.http = http
        self.timeout = timeout
        self.id = ""
        self.token = ""
        self.bot = ""  # what its bot seats were given
        self.bot_seats: frozenset[int] = frozenset()
        self.waits: list[BotWait] = []
        self.turn: tuple[int, float] | None = None  # a bot's open turn: version, seen at
        self.errors = 0
        self.messages: list[str] = []
        self.games = 0
        self._decided = -1
        self._over: set[Hashable] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def error(self, message: str) -> None:
        self.errors += 1
        if len(self.messages) < MAX_NOTES:
            self.messages.append(message)

    async def _post(self, path: str, body: object | None = None, *,
                    token: str | None = None) -> httpx.Response | None:  # fmt: skip
        headers = {"Authorization": f"Bearer {token}"} if token else None
        try:
            response = await self.http.post(path, json=body, headers=headers)
        except httpx.HTTPError as exc:
            self.error(f"POST {path}: {type(exc).__name__}: {exc}")
            return None
        if response.status_code >= 400:
            self.error(f"POST {path}: HTTP {response.status_code}: {response.text[:200]}")
        return response

    async def setup(self) -> bool:
        """Create the table (unrated: the attack moves no level's rating) and seat the
        bots; False (an error counted) when it cannot."""
        response = await self._post("/api/tables", {
            "name": "victim", "player": "victim", "seats": 1 + VICTIM_BOTS, "rated": False,
            "rules": {"target_score": VICTIM_TARGET}})
        if response is None or response.status_code != 201:
            return False
        data = response.json()
        self.id, self.token = str(data["table"]["id"]), str(data["token"])
        for bot in (VICTIM_LEVEL, VICTIM_FALLBACK):
            response = await self._post(f"/api/tables/{self.id}/bots", {"bot": bot},
                                        token=self.token)  # fmt: skip
            if response is not None and response.status_code == 200:
                self.bot = bot
                break
        else:
            return False
        for _ in range(VICTIM_BOTS - 1):
            await self._post(f"/api/tables/{self.id}/bots", {"bot": self.bot}, token=self.token)
        return True

    async def play(self, stop: asyncio.Event) -> None:
        """Connect (again, after a close), start the game and play until ``stop``."""
        client = TableClient(self.url, self.id, self.token, open_timeout=self.timeout)
        started = False
        while not stop.is_set():
            closer: asyncio.Task[None] | None = None
            try:
                await client.connect()
                # At the stop the socket is closed, which ends the frames: waiting for the
                # next frame instead took as long as a bot's think (many seconds with the
                # Expert bots on a busy machine), and every row waited for it.
                closer = asyncio.create_task(self._close_at(stop, client))
                await client.hello(client.version)
                if not started:
                    started = True
                    await self._post(f"/api/tables/{self.id}/start", token=self.token)
                async for frame in client.frames():
                    self.on_frame(client, frame)
                    if stop.is_set():
                        break
            except (ConnectionClosed, OSError, TimeoutError, ValueError) as exc:
                if not stop.is_set():
                    self.error(f"victim socket: {type(exc).__name__}: {exc}")
            except Exception as exc:  # a rejected handshake, a bug here: counted, not hidden
                self.error(f"victim: {type(exc).__name__}: {exc}")
            finally:
                if closer is not None:
                    closer.cancel()
                with contextlib.suppress(Exception):
                    await client.close()
            if not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.2)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    async def _close_at(stop: asyncio.Event, client: TableClient) -> None:
        await stop.wait()
        with contextlib.suppress(Exception):
            await client.close()

    def on_frame(self, client: TableClient, frame: Frame) -> None:
        state = frame.table
        if frame.type == "error":
            self.error(f"victim: error {frame.code}: {frame.data.get('message')}")
        if frame.type not in ("welcome", "update", "error") or state is None:
            return
        version = state.version
        if self.turn is not None and version > self.turn[0]:
            self.waits.append(BotWait(self.turn[1], frame.arrival - self.turn[1]))
            self.turn = None
        seats = state.data.get("seats") or []
        self.bot_seats = frozenset(
            int(seat["seat"]) for seat in seats
            if isinstance(seat, dict) and seat.get("kind") == "bot"
        )  # fmt: skip
        game = state.game
        if state.over:
            if state.finished_game not in self._over:
                self._over.add(state.finished_game)
                self.games += 1
                self._spawn(self._rematch())
            return
        if game is None:
            return
        if self.turn is None and game.get("to_decide") in self.bot_seats:
            self.turn = (version, frame.arrival)
        if state.legal_decisions and version > self._decided:
            self._decided = version
            self._spawn(self._move(client, Move(f"v{version}", version, stay_at_once(state))))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _move(self, client: TableClient, move: Move) -> None:
        with contextlib.suppress(ConnectionClosed, ConnectionError):
            await client.send(move)

    async def leave(self) -> None:
        """Leave the table at the end of a row: its bots think no more, and a server that
        caps the tables seating search bots per owner does not count it against the next
        row's victim (with ``--url`` every row's victim comes from 127.0.0.1)."""
        if self.id:
            with contextlib.suppress(httpx.HTTPError):
                await self.http.post(f"/api/tables/{self.id}/leave",
                                     headers={"Authorization": f"Bearer {self.token}"})

    async def _rematch(self) -> None:
        await self._post(f"/api/tables/{self.id}/rematch", token=self.token)

    def figures(self, start: float, end: float) -> WaitFigures:
        """The waits of the bot moves whose turn came in ``[start, end)``, and a turn still
        open at ``end`` (whenever it came) counted as waiting until then."""
        waits = [w.seconds for w in self.waits if start <= w.started < end]
        if self.turn is not None and self.turn[1] < end:
            waits.append(end - self.turn[1])
        if not waits:
            return WaitFigures(0, None, None, None)
        ms = [1000 * s for s in waits]
        return WaitFigures(len(ms), percentile(ms, 50), percentile(ms, 95), max(ms))


