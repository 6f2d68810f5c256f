"""Recorded streams of frames: scenarios that drive the web app in-process and capture, in
order, every REST answer and every WebSocket frame each client receives.

A scenario is a script of what people do at tables (open one, join, add bots, play a whole
game, chat, go away and come back, learn the game...). It runs the app of
:func:`server_helpers.app_client` with a fixed ``seed`` (every shuffle, every bot's choice
the same on every run) and bots deciding at once (``bot_delay`` 0), and it reads every
client's frames itself, in an order the script fixes. Its capture is a list of items:

- ``{"item": "rest", "method", "path", "auth", "request", "status", "body"}``: one REST
  call and its answer (``auth``: the token it acted with, as a placeholder);
- ``{"item": "sent", "client", "frame"}`` (or ``"text"`` for what is no JSON object): a
  WebSocket frame a client sent;
- ``{"item": "frame", "client", "frame"}``: a frame a client received, parsed;
- ``{"item": "closed", "client", "by", "code"}``: a socket closed by the client, or by the
  server with ``code``.

Values that differ from run to run (ids, tokens, times) are replaced by placeholders in one
place, :func:`normalise`; everything else is kept exactly as it was sent.

Frame order does not depend on timing: a client's frames come in the order of the table's
changes, and the scripts change a table only when it is still, that is when no bot is
about to move (nobody at the table, a human to decide, a lesson waiting for "Got it", the
game over). A bot's turn starts only after the answer to the call that handed it the turn
is composed, as the server works today: a move's ``result``, and the REST answer to a
tutorial's "Got it" or skip (the other scripts hand bots the turn by REST only where a human
decides first, or while no human is connected and bots wait). A socket is closed, and a
REST call made after it, only once another client has been told of the disconnect, so that
the server has seen it too.

``python tests/frames_scenarios.py DIR`` writes each scenario's capture to
``DIR/<scenario>.jsonl`` and says which frames, events and REST calls it holds;
tests/server/test_frames_replay.py compares today's server with the captures kept in
tests/data/frames.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from server_helpers import WsPlayer, app_client
from starlette.websockets import WebSocketDisconnect

FRAMES_DIR = Path(__file__).parent / "data" / "frames"

# The settings every scenario runs under besides its seed: bots decide at once, and no
# limit a script could meet by going fast (rate limits, chat budgets, handshakes) or by
# going slow (the hand-over and the rematch wait long past any run; a player away may be
# handed to the stand-in bot at once, so that a script need not wait for it).
SETTINGS: dict[str, Any] = {
    "bot_delay": 0.0,
    "handover_grace": 0.0,
    "handover_auto": 3600.0,
    "rematch_wait": 3600.0,
    "lobby_hide_after": 3600.0,
    "hello_timeout": 600.0,
    "rate_per_second": 1000.0,
    "rate_burst": 1000,
    "frames_per_second_per_address": 1000.0,
    "frames_burst_per_address": 1000,
    "handshakes_per_minute": 1000.0,
    "handshakes_burst": 1000,
    "chat_per_minute": 1000.0,
    "chat_burst": 1000,
    "chat_per_minute_per_address": 1000.0,
    "chat_burst_per_address": 1000,
    "tables_burst": 1000,
    "joins_burst": 1000,
}

# Seconds a client waits for a frame before the scenario fails (a frame that never comes).
RECEIVE_TIMEOUT = 15.0

# A human player's policy: Hit below this many points of numbers, else Stay.
STAY_AT = 15

# ---------------------------------------------------------------------- normalisation

# Keys whose values differ from run to run: times and the server process's id. A value is
# replaced by "<key>"; null stays null, as whether it is set is part of the wire format.
VOLATILE_KEYS = frozenset(
    {"at", "created_at", "started_at", "finished_at", "away_since", "handover_at",
     "turn_deadline", "node"}
)
# Keys whose values are random ids or secrets, and the placeholder kind of each: every
# distinct value gets a numbered placeholder ("<game-2>"), the same wherever it occurs
# later in the scenario, whole or inside another string (a path, a message).
SECRET_KEYS = {"token": "token", "game_id": "game", "finished_games": "game"}
# Server ids (secrets.token_urlsafe) are at least this long: a shorter value (a token sent
# to be refused, "short") is kept, and cannot stand for one inside other strings.
_SHORTEST_SECRET = 8


@dataclass
class Placeholders:
    """The random values met so far in a scenario, each with its placeholder."""

    values: dict[str, str] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    _pattern: re.Pattern[str] | None = None

    def add(self, kind: str, value: str) -> None:
        if value not in self.values:
            self.counts[kind] += 1
            self.values[value] = f"<{kind}-{self.counts[kind]}>"
            longest_first = sorted(self.values, key=len, reverse=True)
            self._pattern = re.compile("|".join(map(re.escape, longest_first)))

    def replace(self, text: str) -> str:
        if self._pattern is None or len(text) < _SHORTEST_SECRET:
            return text
        return self._pattern.sub(lambda m: self.values[m.group(0)], text)


def normalise(item: Any, names: Placeholders) -> Any:
    """``item`` (parsed JSON) with the values that differ from run to run replaced, by key
    name, and nothing else changed:

    - the value of a key of :data:`VOLATILE_KEYS` (times, the process id) by ``"<key>"``;
    - a ``version`` that is a string (the package's, in ``/api/health``) by ``"<version>"``;
      a table's version, a number, is kept;
    - random ids and secrets by numbered placeholders, kept in ``names`` for the whole
      scenario: the value of a key of :data:`SECRET_KEYS` (a list's items for a list), and
      the ``id`` of a table (an object with ``seats``) as ``<table-N>``. Once met, such a
      value is replaced wherever it occurs, also inside a string (``/api/tables/<table-1>``).

    >>> names = Placeholders()
    >>> normalise({"table": {"id": "Xy3_k9Qa", "seats": [], "version": 4,
    ...                      "created_at": "2026-12-03T16:39:23.032746Z"},
    ...            "token": "s3cr3t-s3cr3t-s3cr3t"}, names)["table"]
    {'id': '<table-1>', 'seats': [], 'version': 4, 'created_at': '<created_at>'}
    >>> normalise({"path": "/api/tables/Xy3_k9Qa/join", "auth": "s3cr3t-s3cr3t-s3cr3t",
    ...            "away_since": None}, names)
    {'path': '/api/tables/<table-1>/join', 'auth': '<token-1>', 'away_since': None}
    """

    def collect(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                kind = SECRET_KEYS.get(key)
                if kind is None and key == "id" and "seats" in node:
                    kind = "table"
                if kind is not None:
                    for secret in value if isinstance(value, list) else [value]:
                        if isinstance(secret, str) and len(secret) >= _SHORTEST_SECRET:
                            names.add(kind, secret)
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: f"<{key}>" if value is not None and (
                    key in VOLATILE_KEYS or (key == "version" and isinstance(value, str))
                ) else rewrite(value)
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [rewrite(value) for value in node]
        if isinstance(node, str):
            return names.replace(node)
        return node

    collect(item)
    return rewrite(item)


# ---------------------------------------------------------------------- capture


class _TimedSocket:
    """A TestClient WebSocket whose receive gives up after ``timeout`` seconds, so that a
    frame that never comes fails the scenario instead of hanging it. The TestClient's own
    receive waits forever: this one reads the same stream (Starlette's private
    ``_send_rx``) under a deadline."""

    def __init__(self, ws: Any, timeout: float) -> None:
        self.ws = ws
        self.timeout = timeout

    def send_text(self, text: str) -> None:
        self.ws.send_text(text)

    def receive_text(self) -> str:
        async def receive() -> Any:
            with anyio.fail_after(self.timeout):
                return await self.ws._send_rx.receive()

        message = self.ws.portal.call(receive)
        self.ws._raise_on_close(message)
        return str(message["text"])

    def close(self) -> None:
        self.ws.close()


def quiet(state: dict[str, Any]) -> bool:
    """Whether a table (its state as a client sees it) is still: no game, the game over
    (or nobody to decide), a lesson waiting for "Got it", or a human to decide (not one who
    left, not a seat the stand-in bot plays). Otherwise a bot is about to move."""
    game = state.get("game")
    if game is None or game["over"] or game["to_decide"] is None:
        return True
    lesson = (state.get("tutorial") or {}).get("lesson")
    if lesson is not None and lesson["next"]:
        return True
    seat = state["seats"][game["to_decide"]]
    return bool(seat["kind"] == "human" and not seat["left"] and not seat["stand_in"])


@dataclass
class Peer(WsPlayer):
    """A recorded WebSocket client: every frame it sends and receives goes to the capture."""

    name: str = ""
    capture: Capture | None = None
    moves_made: int = 0

    def _record(self, item: dict[str, Any]) -> None:
        assert self.capture is not None
        self.capture.add({**item, "client": self.name})

    def send(self, message: dict[str, Any]) -> None:
        self._record({"item": "sent", "frame": message})
        super().send(message)

    def send_text(self, text: str) -> None:
        self._record({"item": "sent", "text": text})
        self.ws.send_text(text)

    def recv(self) -> dict[str, Any]:
        try:
            frame = super().recv()
        except WebSocketDisconnect as closed:
            self._record({"item": "closed", "by": "server", "code": closed.code})
            raise
        self._record({"item": "frame", "frame": frame})
        return frame

    def expect(self, kind: str) -> dict[str, Any]:
        """The next frame, which must be of type ``kind``."""
        frame = self.recv()
        assert frame["type"] == kind, (self.name, kind, frame)
        return frame

    def closed_by_server(self) -> int:
        """Read until the server closes the socket; its close code."""
        try:
            while True:
                self.recv()
        except WebSocketDisconnect as closed:
            return int(closed.code)

    def saw(self, event: str, seat: int | None) -> dict[str, Any]:
        """Read until an update with the event ``event`` of ``seat`` (``connected``...)."""
        return self.recv_until(lambda f: f["type"] == "update" and any(
            e["type"] == event and e.get("seat") == seat for e in f["events"]))

    def until_version(self, version: int) -> dict[str, Any]:
        """Read until the table this client sees is at ``version`` or later."""
        while not (self.state and self.state["version"] >= version):
            self.recv()
        return self.state

    def still(self, after: int) -> dict[str, Any]:
        """Read until the table is past version ``after`` and still (:func:`quiet`)."""
        while not (self.state and self.state["version"] > after and quiet(self.state)):
            self.recv()
        return self.state

    def barrier(self) -> None:
        """Ping, and read until the pong: every frame queued before it has been read."""
        self.send({"v": 1, "type": "ping"})
        self.recv_until(lambda f: f["type"] == "pong")

    def play(self, decision: str, version: int | None = None) -> dict[str, Any]:
        """Send a move with this client's next move id; the result or error frame."""
        self.moves_made += 1
        return self.move(decision, version, move_id=f"{self.name}-{self.moves_made}")

    def close(self) -> None:
        self._record({"item": "closed", "by": "client", "code": None})
        self.ws.close()


class Capture:
    """One scenario's run: the app's client, its sockets, and the items captured so far."""

    def __init__(self, client: Any, stack: ExitStack) -> None:
        self.client = client
        self.stack = stack
        self.items: list[Any] = []
        self.names = Placeholders()

    def add(self, item: dict[str, Any]) -> None:
        self.items.append(normalise(item, self.names))

    def rest(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             content: str | None = None, status: int | None = None) -> Any:
        """A REST call, captured with its answer; the answer's JSON (raw). ``status``: the
        status it must answer with."""
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        if content is not None:
            headers["Content-Type"] = "application/json"
        response = self.client.request(method, path, json=body, content=content,
                                       headers=headers)
        answer = response.json()
        self.add({"item": "rest", "method": method, "path": path, "auth": token,
                  "request": content if content is not None else body,
                  "status": response.status_code, "body": answer})
        assert status is None or response.status_code == status, (path, response.text)
        return answer

    def connect(self, name: str, table_id: str, token: str | None = None,
                last_version: int | None = None, hello: bool = True) -> Peer:
        """A client at ``table_id``; with ``hello``, said with ``token`` and its welcome read."""
        ws = self.stack.enter_context(self.client.websocket_connect(f"/ws/tables/{table_id}"))
        peer = Peer(_TimedSocket(ws, RECEIVE_TIMEOUT), None, token, name=name, capture=self)
        if hello:
            peer.seat = peer.hello(last_version)["seat"]
        return peer

    def disconnect(self, peer: Peer, *observers: Peer) -> None:
        """Close the socket of ``peer`` (seated); each observer reads the update saying it
        went, so that the server has seen it go before the script goes on."""
        assert peer.seat is not None and observers, "a disconnect nobody sees"
        peer.close()
        for observer in observers:
            observer.saw("disconnected", peer.seat)


def choose(peer: Peer) -> str:
    """A human's decision on the view ``peer`` has: Hit below :data:`STAY_AT`, else Stay;
    at any other decision the legal options in turn (this client's moves so far, modulo)."""
    game = peer.state["game"]
    legal: list[str] = game["legal_decisions"]
    assert legal, (peer.name, game)
    if game["decision_kind"] == "hit_or_stay":
        if "stay" not in legal:
            return "hit"
        return "hit" if game["players"][game["viewer"]]["number_sum"] < STAY_AT else "stay"
    return legal[peer.moves_made % len(legal)]


def settle(peers: list[Peer], after: int) -> dict[str, Any]:
    """Bring every peer to the first still table past version ``after`` (the first peer
    finds it); that table."""
    state = peers[0].still(after)
    for peer in peers[1:]:
        peer.until_version(state["version"])
    return state


def take_turns(peers: list[Peer], watchers: list[Peer], stop: Callable[[dict[str, Any]], bool],
               limit: int = 2000) -> dict[str, Any]:
    """Let the humans of ``peers`` (connected, seated) decide by :func:`choose`, the bots
    play between, until ``stop(state)`` at a still table; ``watchers`` (spectators, players
    not deciding) follow. Every peer must be at the same still table to start."""
    everyone = [*peers, *watchers]
    state = everyone[0].state
    for _ in range(limit):
        if stop(state):
            return state
        assert not state["game"]["over"], "the game ended before the stop: choose another seed"
        mover = next(p for p in peers if p.seat == state["game"]["to_decide"])
        answer = mover.play(choose(mover))
        assert answer["type"] == "result", answer
        state = settle([mover, *(p for p in everyone if p is not mover)], state["version"])
    raise AssertionError("the scenario did not reach its stop")


def to_decide(state: dict[str, Any]) -> int | None:
    """The seat to decide at a table (its state), None when there is no game in play."""
    game = state["game"]
    return None if game is None or game["over"] else game["to_decide"]


def run_version(run: Capture, base: str) -> int:
    """The table's version now, as GET answers it (captured)."""
    return int(run.rest("GET", base, status=200)["table"]["version"])


def open_table(run: Capture, name: str, rules: dict[str, Any], humans: list[str],
               bots: list[str]) -> tuple[str, list[str]]:
    """A table of ``humans`` (the first opens it) and ``bots``; its id and the tokens."""
    made = run.rest("POST", "/api/tables", {"name": name, "player": humans[0],
                                            "seats": len(humans) + len(bots), "rules": rules},
                    status=201)
    table, tokens = made["table"]["id"], [made["token"]]
    for human in humans[1:]:
        tokens.append(run.rest("POST", f"/api/tables/{table}/join", {"player": human},
                               status=200)["token"])
    for i, bot in enumerate(bots):
        run.rest("POST", f"/api/tables/{table}/bots", {"bot": bot},
                 token=tokens[i % len(tokens)], status=200)
    return table, tokens


def join_in(run: Capture, table: str, tokens: list[str], names: list[str]) -> list[Peer]:
    """Connect each seated human, then a spectator ("watcher"); those connected before
    read each newcomer's arrival."""
    peers: list[Peer] = []
    for name, token in zip(names, tokens, strict=True):
        peer = run.connect(name, table, token)
        for earlier in [*peers, peer]:
            earlier.saw("connected", peer.seat)
        peers.append(peer)
    return [*peers, run.connect("watcher", table)]


def start(run: Capture, table: str, token: str, peers: list[Peer]) -> dict[str, Any]:
    """Start the game, every peer connected and reading; the game's first still table. A
    human decides first (a seed where a bot does would let it move while the answer to
    the start is on its way)."""
    version = peers[0].state["version"]
    answer = run.rest("POST", f"/api/tables/{table}/start", token=token, status=200)
    assert quiet(answer["table"]), "a bot decides first: choose another seed"
    return settle(peers, version)


# ---------------------------------------------------------------------- scenarios


def lobby(run: Capture) -> None:
    """The lobby: the server's own answers, a table opened with options, people joining
    (one with a token of its own, twice), bots of each kind added and removed, a player
    leaving before the start, the start, the WebSocket's refusals, a first move; and the
    REST errors of each kind."""
    for path in ("/api/health", "/api/bots", "/api/rules", "/api/cards?lang=en",
                 "/api/limits", "/api/server", "/api/tables"):
        run.rest("GET", path, status=200)
    # Errors a client can cause before any table exists.
    run.rest("GET", "/api/cards?rules={nope", status=400)
    run.rest("GET", "/api/tables/nope", status=404)
    run.rest("GET", "/api/nothing", status=404)
    run.rest("DELETE", "/api/tables", status=405)
    run.rest("POST", "/api/tables", {"player": "X", "seats": 19}, status=422)
    run.rest("POST", "/api/tables", {"player": "X", "rules": {"brutel": True}}, status=400)
    run.rest("POST", "/api/tables", {"player": "  "}, status=400)
    run.rest("POST", "/api/tables", content="{nope", status=422)
    run.rest("POST", "/api/tables", {"player": "X", "turn_timer": 1}, status=400)

    made = run.rest("POST", "/api/tables", {
        "name": "Friday  night", "player": "Ann", "seats": 5,
        "rules": {"target_score": 150, "can_stay_with_empty_line": True},
        "turn_timer": 600, "bust_odds": False, "rated": False,
    }, status=201)
    table, ann_token = made["table"]["id"], made["token"]
    base = f"/api/tables/{table}"
    ann = run.connect("ann", table, ann_token)
    watcher = run.connect("watcher", table)
    ann.barrier()

    bob = run.rest("POST", f"{base}/join", {"player": "Bob"}, status=200)["token"]
    for peer in (ann, watcher):
        peer.expect("update")
    cyd_token = "cyd-chose-this-token-0123"
    for _ in range(2):  # the second join is a retry whose answer was lost: the same seat
        run.rest("POST", f"{base}/join", {"player": "Cyd", "token": cyd_token}, status=200)
    for peer in (ann, watcher):
        peer.expect("update")
    run.rest("POST", f"{base}/join", {"player": "ann"}, status=409)
    run.rest("POST", f"{base}/join", {"player": "Dan", "token": "short"}, status=422)
    run.rest("POST", f"{base}/bots", {"bot": "basic"}, token=bob, status=200)
    run.rest("POST", f"{base}/bots", {"bot": "Easy"}, token=ann_token, status=200)
    run.rest("POST", f"{base}/bots", {"bot": "nobot"}, token=bob, status=400)
    run.rest("POST", f"{base}/bots", {"bot": "mcts:iters=10000000"}, token=bob, status=400)
    run.rest("POST", f"{base}/join", {"player": "Dan"}, status=409)  # every seat taken
    run.rest("DELETE", f"{base}/seats/0", token=bob, status=403)
    run.rest("DELETE", f"{base}/seats/3", token=bob, status=200)
    run.rest("DELETE", f"{base}/seats/3", token=bob, status=404)
    run.rest("POST", f"{base}/leave", token=cyd_token, status=200)
    run.rest("POST", f"{base}/bots", {"bot": "Beginner"}, token=ann_token, status=200)
    run.rest("POST", f"{base}/start", status=401)
    run.rest("POST", f"{base}/start", token="wrong", status=401)
    run.rest("POST", f"{base}/ready", {"ready": True}, token=ann_token, status=409)
    for peer in (ann, watcher):
        peer.until_version(run_version(run, base))
    run.rest("GET", "/api/tables", status=200)

    bob_peer = run.connect("bob", table, bob)
    for peer in (ann, bob_peer, watcher):
        peer.saw("connected", bob_peer.seat)
    state = start(run, table, ann_token, [ann, bob_peer, watcher])
    run.rest("POST", f"{base}/start", token=ann_token, status=409)
    run.rest("POST", f"{base}/join", {"player": "Dan"}, status=409)

    # The WebSocket's refusals, each answered with an error frame.
    decider = ann if state["game"]["to_decide"] == ann.seat else bob_peer
    other = bob_peer if decider is ann else ann
    assert other.play("stay")["code"] == "not_your_turn"
    assert decider.play("stay", version=0)["code"] == "stale_version"
    assert decider.play("fly")["code"] == "illegal_move"
    assert decider.play("target 3")["code"] == "illegal_move"
    assert watcher.play("hit")["code"] == "spectator"
    decider.send({"v": 1, "type": "hello", "token": None})
    decider.expect("error")
    decider.send({"v": 1, "type": "dance"})
    decider.expect("error")
    decider.send({"v": 2, "type": "ping"})
    decider.expect("error")
    decider.send_text("{not json")
    decider.expect("error")
    decider.send({"v": 1, "type": "chat", "text": 7})
    decider.expect("error")
    decider.send({"v": 1, "type": "chat", "text": "x" * 5000})
    decider.expect("error")  # too large
    late = run.connect("late", table, hello=False)
    late.send({"v": 1, "type": "ping"})
    late.expect("pong")
    late.send({"v": 1, "type": "chat", "text": "hi"})
    late.expect("error")  # hello first
    late.send({"v": 1, "type": "hello", "token": "not-a-seat"})
    late.expect("error")
    nowhere = run.connect("nowhere", "nope", hello=False)
    nowhere.expect("error")
    nowhere.closed_by_server()

    # A first move, with the turn timer's deadline, then the game goes on to the next human.
    before = decider.state["version"]
    assert decider.play(choose(decider))["type"] == "result"
    settle([decider, other, watcher], before)
    run.rest("GET", base, status=200)


def game(run: Capture) -> None:
    """A whole game of two humans and two bots (Brutal, to a low target) to its end, with
    the Actions the seed deals aimed by humans and bots; a move sent again (the same id:
    the same answer) and an id used again for another move; the finished game's REST
    answers; the ready check, and the rematch started while its players are away, one
    coming back with a version of the last game (too old: the table holds only the new
    game's changes), one with the version before the rematch (the changes it missed)."""
    table, tokens = open_table(run, "Whole game", GAME_RULES, ["Ann", "Bob"],
                               ["basic", "Easy"])
    base = f"/api/tables/{table}"
    ann, bob, watcher = peers = join_in(run, table, tokens, ["ann", "bob"])
    start(run, table, tokens[0], peers)

    def aims(state: dict[str, Any]) -> bool:
        decider = next((p for p in peers if p.seat == to_decide(state)), None)
        return decider is not None and decider.state["game"]["decision_kind"] != "hit_or_stay"

    state = take_turns([ann, bob], [watcher], aims)
    mover = ann if ann.seat == to_decide(state) else bob
    version, decision = state["version"], choose(mover)
    assert mover.play(decision)["type"] == "result"
    settle([mover, *(p for p in peers if p is not mover)], version)
    move_id = f"{mover.name}-{mover.moves_made}"
    assert mover.move(decision, version, move_id=move_id)["type"] == "result"  # a retry
    assert mover.move("hit", version, move_id=move_id)["code"] == "reused_id"

    take_turns([ann, bob], [watcher], lambda s: s["game"]["over"])
    game_id = ann.state["game_id"]
    run.rest("GET", f"{base}/games", status=200)
    run.rest("GET", "/api/games", status=200)
    run.rest("GET", "/api/games?limit=99", status=400)
    run.rest("GET", f"/api/games/{game_id}/record", status=200)
    run.rest("GET", "/api/games/nope/record", status=404)

    # The ready check: Ann says ready, then not; nothing changes for a ready unchanged.
    run.rest("POST", f"{base}/ready", {"ready": False}, token=tokens[0], status=200)
    for ready in (True, False):
        version = ann.state["version"]
        run.rest("POST", f"{base}/ready", {"ready": ready}, token=tokens[0], status=200)
        settle(peers, version)
    # Both go; the rematch starts once both are ready, its bots waiting for a human.
    last = ann.state["version"]
    run.disconnect(ann, bob, watcher)
    run.disconnect(bob, watcher)
    for path, body, token in ((f"{base}/ready", {"ready": True}, tokens[0]),
                              (f"{base}/rematch", None, tokens[1])):
        started = run.rest("POST", path, body, token=token, status=200)["table"]["version"]
        watcher.until_version(started)
    again = run.connect("ann2", table, tokens[0], last_version=last)  # too old: none missed
    state = again.still(-1)
    watcher.until_version(state["version"])
    late = run.connect("bob2", table, tokens[1], last_version=started - 1)
    for peer in (again, watcher, late):
        peer.saw("connected", late.seat)


def away(run: Capture) -> None:
    """Chat, a player going away and handed to the stand-in bot, coming back, and a player
    leaving mid-game: three humans, a bot, two spectators.

    The chat: messages from a seat and a spectator, the host switching spectators' chat off
    and on (a switch to what it already is says nothing), and the refusals. Then Cyd goes;
    at her turn the others may hand her seat to the stand-in bot (after the refusals of a
    hand-over), which they do once they are gone too; Ann comes back with the changes she
    missed, the bot plays Cyd's turn, and Cyd comes back to her seat. Bob leaves: a bot
    plays his seat, and he chats as a spectator."""
    table, tokens = open_table(run, "Chat and hand-over", AWAY_RULES, ["Ann", "Bob", "Cyd"],
                               ["Easy"])
    base = f"/api/tables/{table}"
    ann, bob, cyd, watcher = peers = join_in(run, table, tokens, ["ann", "bob", "cyd"])
    start(run, table, tokens[0], peers)

    def said(peer: Peer, frame: dict[str, Any]) -> None:
        peer.send({"v": 1, **frame})
        for other in peers:
            other.expect("chat")

    said(ann, {"type": "chat", "text": "Good luck, everyone!"})
    said(watcher, {"type": "chat", "text": "  hi from the rail  "})
    bob.send({"v": 1, "type": "spectator_chat", "allowed": False})
    bob.expect("error")  # not the host
    said(ann, {"type": "spectator_chat", "allowed": False})
    for peer in peers:
        peer.expect("update")  # the table's chat settings
    watcher.send({"v": 1, "type": "chat", "text": "hello?"})
    watcher.expect("error")  # muted
    for text in ("   ", "x" * 201, "a\u0007b"):
        cyd.send({"v": 1, "type": "chat", "text": text})
        cyd.expect("error")
    ann.send({"v": 1, "type": "spectator_chat", "allowed": False})  # already off: nothing
    ann.barrier()
    said(ann, {"type": "spectator_chat", "allowed": True})
    for peer in peers:
        peer.expect("update")
    rail = run.connect("rail", table)  # a late spectator: the chat so far in its welcome
    watchers = [watcher, rail]

    # Cyd goes, not at her turn.
    state = take_turns([ann, bob, cyd], watchers, lambda s: to_decide(s) != cyd.seat)
    cyd_last = cyd.state["version"]
    run.disconnect(cyd, ann, bob, *watchers)
    state = take_turns([ann, bob], watchers, lambda s: to_decide(s) == cyd.seat)
    # Refused: her own seat, no seat, a player connected, a bot's seat.
    for seat, status in ((ann.seat, 403), (9, 404), (bob.seat, 409), (3, 409)):
        run.rest("POST", f"{base}/seats/{seat}/handover", token=tokens[0], status=status)
    ann_last = ann.state["version"]
    run.disconnect(ann, bob, *watchers)
    run.disconnect(bob, *watchers)
    run.rest("POST", f"{base}/seats/{cyd.seat}/handover", token=tokens[0], status=200)
    for peer in watchers:
        peer.expect("update")  # stand_in
    ann = run.connect("ann2", table, tokens[0], last_version=ann_last)
    state = ann.still(-1)  # the stand-in bot plays Cyd's turn
    for peer in watchers:
        peer.until_version(state["version"])
    bob = run.connect("bob2", table, tokens[1])
    for peer in (ann, bob, *watchers):
        peer.saw("connected", bob.seat)
    cyd = run.connect("cyd2", table, tokens[2], last_version=cyd_last)
    for peer in (ann, bob, cyd, *watchers):
        peer.until_version(state["version"] + 1)  # Cyd connected, her seat hers again
    players = [ann, bob, cyd]

    # Bob leaves at another's turn: a bot plays his seat from then on.
    state = take_turns(players, watchers, lambda s: to_decide(s) != bob.seat)
    version = state["version"]
    run.rest("POST", f"{base}/leave", token=tokens[1], status=200)
    run.rest("POST", f"{base}/leave", token=tokens[1], status=403)
    for peer in (*players, *watchers):
        peer.until_version(version + 1)
    bob.send({"v": 1, "type": "chat", "text": "bye, a bot plays for me now"})
    for peer in (*players, *watchers):
        peer.expect("chat")
    assert bob.play("hit")["code"] == "left"
    players = [ann, cyd]
    round_now = state["game"]["round"]
    take_turns(players, [bob, *watchers],
               lambda s: s["game"]["over"] or s["game"]["round"] > round_now)
    run.rest("GET", base, status=200)


def tutorial(run: Capture) -> None:
    """The guided first game, followed lesson by lesson to its end ("Got it", the move
    each lesson asks for) with the refusals of a wrong move and a wrong lesson; then a
    second one skipped at once and played on against its bots."""
    run.rest("POST", "/api/tutorial", {"player": ""}, status=400)
    made = run.rest("POST", "/api/tutorial", {"player": "Ann"}, status=201)
    table, token = made["table"]["id"], made["token"]
    step = f"/api/tables/{table}/tutorial"
    ann = run.connect("ann", table, token)
    ann.saw("connected", ann.seat)
    state, refused = ann.state, False
    while not (state["game"]["over"] and state["tutorial"]["lesson"] is None):
        version, guide = state["version"], state["tutorial"]
        lesson = guide["lesson"]
        if lesson is not None and lesson["next"]:
            if not refused:
                run.rest("POST", step, {"read": lesson["number"] + 1}, token=token, status=409)
                run.rest("POST", step, {"read": lesson["number"], "skip": True}, token=token,
                         status=400)
            # At a bot's step this hands it the turn: its move follows the answer.
            run.rest("POST", step, {"read": lesson["number"]}, token=token, status=200)
        else:
            if not refused:
                wrong = next(d for d in ["stay", "hit", *state["game"]["legal_decisions"]]
                             if d != guide["expect"])
                assert ann.play(wrong)["code"] == "tutorial_step"
                run.rest("POST", step, {"read": 0}, token=token, status=409)
                refused = True
            assert ann.play(guide["expect"])["type"] == "result"
        state = ann.still(version)
    run.rest("POST", step, {"skip": True}, token=token, status=409)

    made = run.rest("POST", "/api/tutorial", {"player": "Bob"}, status=201)
    table, token = made["table"]["id"], made["token"]
    step = f"/api/tables/{table}/tutorial"
    bob = run.connect("bob", table, token)
    bob.saw("connected", bob.seat)
    version = bob.state["version"]
    run.rest("POST", step, {"skip": True}, token=token, status=200)
    bob.still(version)
    run.rest("POST", step, {"read": 0}, token=token, status=409)
    take_turns([bob], [], lambda s: s["game"]["round"] > 1 or s["game"]["over"])


# The rules of the whole game: Brutal (a Flip 7's choice, Modifiers given to anyone) to a
# low target, so that the recording stays short.
GAME_RULES: dict[str, Any] = {"brutal": True, "target_score": 60}
# Actions may be passed to another player (the "pass" decision).
AWAY_RULES: dict[str, Any] = {"pass_actions": True}

SCENARIOS: dict[str, Callable[[Capture], None]] = {
    "lobby": lobby,
    "game": game,
    "away": away,
    "tutorial": tutorial,
}

# Each scenario's seed: chosen so that its games bring what it is about (a human deciding
# first, Actions aimed); a new seed needs a new recording.
SEEDS = {"lobby": 11, "game": 76, "away": 54, "tutorial": 1}


@contextmanager
def running(scenario: str) -> Iterator[Capture]:
    """A fresh server (its own database, its scenario's seed) and a capture of it."""
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        client = stack.enter_context(
            app_client(Path(folder) / "frames.sqlite", seed=SEEDS[scenario], **SETTINGS)
        )
        yield Capture(client, stack)


class ScenarioStopped(Exception):
    """A scenario that could not go on (an answer its script did not expect, a frame that
    never came); ``items``: what it captured until then, to compare with a recording."""

    def __init__(self, scenario: str, items: list[Any]) -> None:
        super().__init__(f"scenario {scenario!r} stopped after {len(items)} items")
        self.items = items


def capture(scenario: str) -> list[Any]:
    """Run ``scenario`` against the server of this checkout: its normalised items, or
    :class:`ScenarioStopped` with those captured before it could not go on."""
    with running(scenario) as run:
        try:
            SCENARIOS[scenario](run)
        except Exception as exc:
            raise ScenarioStopped(scenario, run.items) from exc
        return run.items


def dump(items: list[Any]) -> str:
    """Items as JSON Lines, one item a line, as the recordings are kept."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)


def summary(items: list[Any]) -> dict[str, list[str]]:
    """What a capture holds: frame types, event types, decision kinds, REST calls."""
    frames: Counter[str] = Counter()
    events: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for item in items:
        if item["item"] == "rest":
            path = re.sub(r"<[a-z]+-\d+>|nope", "{id}", item["path"].split("?")[0])
            calls[f"{item['method']} {path} {item['status']}"] += 1
        elif item["item"] == "frame":
            frame = item["frame"]
            code = f" {frame['code']}" if frame["type"] == "error" else ""
            frames[frame["type"] + code] += 1
            for change in [frame, *(frame.get("missed") or []), *frame.get("history", [])]:
                events.update(e["type"] for e in change.get("events", []))
            game = (frame.get("table") or {}).get("game") or {}
            if game.get("legal_decisions"):
                kinds[game["decision_kind"]] += 1
    return {name: sorted(found) for name, found in
            (("frames", frames), ("events", events), ("decision_kinds", kinds),
             ("rest", calls))}


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[2:] or SCENARIOS:
        items = capture(name)
        (out / f"{name}.jsonl").write_text(dump(items), encoding="utf-8")
        print(name, len(items), "items", json.dumps(summary(items), indent=1))
