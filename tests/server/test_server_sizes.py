"""Lengths and sizes (issue "Fair shares", finding 5: tables took ``target_score`` 10^9, a long
table's welcome reached 810 KB, and 400 spectator welcomes, 324 MB in 6.8 s, slowed every
other table).

Against a real server (uvicorn on a loopback port, one process, real WebSockets): a table's
target score is capped; a long game's welcome carries at most ``welcome_history_bytes`` of its
history, says so, and the game goes on after it; a crowd of spectators welcomed at one table
version costs one encoding of its history; and the bytes sent to an address are a budget.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import SyncSocket, WsPlayer, choose, human_turn, threaded_server
from websockets.exceptions import ConnectionClosed

from flip7.server.base.settings import Settings, database_url
from flip7.server.table import table as table_module

# Enough handshakes and sockets from loopback for the crowds below.
CROWD = {"handshakes_per_minute": 600.0, "handshakes_burst": 200, "tables_burst": 100,
         "rate_per_second": 1000.0, "rate_burst": 1000,
         "frames_per_second_per_address": 1000.0, "frames_burst_per_address": 1000}


class Socket(SyncSocket):
    """A real WebSocket to a table that can also wait for the server to close it."""

    def until_closed(self, quiet: float = 5) -> tuple[list[dict[str, Any]], int | None]:
        """The frames that come before the server closes the socket, and its close code
        (None: still open after ``quiet`` seconds without a frame)."""
        frames: list[dict[str, Any]] = []
        try:
            while True:
                message = self._ws.recv(timeout=quiet)
                assert isinstance(message, str)
                frames.append(json.loads(message))
        except ConnectionClosed as closed:
            return frames, None if closed.rcvd is None else closed.rcvd.code
        except TimeoutError:
            return frames, None


@contextmanager
def server(tmp_path: Path, **limits: Any) -> Iterator[tuple[httpx.Client, str]]:
    """A real server with ``limits`` (and :data:`CROWD`); an HTTP client and the ws:// base."""
    settings = Settings(database_url=database_url(str(tmp_path / "db.sqlite")), bot_delay=0.0,
                        **{**CROWD, **limits})
    with threaded_server(settings) as base, httpx.Client(base_url=base, timeout=20) as client:
        yield client, base.replace("http://", "ws://")


def two_humans(client: httpx.Client, **rules: Any) -> tuple[str, list[str]]:
    """A table of two humans; its id and their tokens (not started)."""
    r = client.post("/api/tables", json={"player": "Ann", "seats": 2,
                                         "rules": {"allow_two_players": True, **rules}})
    assert r.status_code == 201, r.text
    table_id, tokens = r.json()["table"]["id"], [r.json()["token"]]
    joined = client.post(f"/api/tables/{table_id}/join", json={"player": "Bob"})
    assert joined.status_code == 200, joined.text
    return table_id, [*tokens, joined.json()["token"]]


def start(client: httpx.Client, table_id: str, token: str) -> None:
    r = client.post(f"/api/tables/{table_id}/start",
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text


def socket_to(stack: ExitStack, ws_base: str, table_id: str) -> Socket:
    sock = Socket(f"{ws_base}/ws/tables/{table_id}")
    stack.callback(sock.close)
    return sock


def player(stack: ExitStack, ws_base: str, table_id: str, token: str | None,
           last_version: int | None = None) -> tuple[WsPlayer, dict[str, Any]]:
    """A socket that said hello (with ``token``: a seat's); its player and its welcome."""
    p = WsPlayer(socket_to(stack, ws_base, table_id), None, token)
    welcome = p.hello(last_version)
    p.seat = welcome["seat"]
    return p, welcome


def spectators_until_refused(
    stack: ExitStack, ws_base: str, table_id: str, most: int
) -> tuple[list[tuple[Socket, dict[str, Any]]], tuple[list[dict[str, Any]], int | None] | None]:
    """Spectators saying hello at ``table_id`` one after another until one is refused (at
    most ``most``): the sockets welcomed with their welcomes, and the refused one's frames
    and close code (None if none was refused)."""
    welcomed: list[tuple[Socket, dict[str, Any]]] = []
    for _ in range(most):
        sock = socket_to(stack, ws_base, table_id)
        sock.send_text(compact({"v": 1, "type": "hello", "token": None, "last_version": None}))
        first = json.loads(sock.receive_text())
        if first["type"] == "error":
            rest, code = sock.until_closed()
            return welcomed, ([first, *rest], code)
        assert first["type"] == "welcome" and first["seat"] is None, first
        welcomed.append((sock, first))
    return welcomed, None


def settle(players: Sequence[WsPlayer], version: int) -> None:
    """Every player has read up to ``version`` and a human's turn (or the end)."""
    for p in players:
        while p.state.get("version", -1) < version or not human_turn(p.state):
            p.recv()


def play(players: Sequence[WsPlayer], rng: random.Random, until: Callable[[int], bool]
         ) -> int:
    """Moves by whoever must decide until ``until(version)``; the table's version then."""
    by_seat = {p.seat: p for p in players}
    settle(players, -1)
    while True:
        state = players[0].state
        assert not state["game"]["over"], "the game ended first"
        if until(state["version"]):
            return int(state["version"])
        mover = by_seat[state["game"]["to_decide"]]
        answer = mover.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        settle(players, answer["version"])


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------------- target_score


def test_a_tables_target_score_is_capped(tmp_path: Path) -> None:
    """A game to 10^9 points never ends: the table is refused, naming the rule option and
    the limit; up to the limit a table may ask for a longer game, as the operator allows."""
    with server(tmp_path, max_target_score=500) as (client, _):
        for target in (10**9, 501):
            r = client.post("/api/tables", json={"player": "Ann",
                                                 "rules": {"target_score": target}})
            assert r.status_code == 400, r.text
            detail = r.json()["detail"]
            assert detail["code"] == "bad_rules"
            assert "target_score" in detail["message"], detail
            assert "limit max_target_score" in detail["message"], detail
        r = client.post("/api/tables", json={"player": "Ann", "rules": {"target_score": 500}})
        assert r.status_code == 201, r.text
        assert client.get("/api/limits").json()["max_target_score"] == 500
    (tmp_path / "defaults").mkdir()
    with server(tmp_path / "defaults") as (client, _):
        r = client.post("/api/tables", json={"player": "Ann", "rules": {"target_score": 10**9}})
        assert r.status_code == 400 and "at most 1000" in r.json()["detail"]["message"]


# ---------------------------------------------------------------------- the welcome's size


def test_a_long_games_welcome_is_capped_and_the_game_goes_on(tmp_path: Path) -> None:
    cap = 3000
    rng = random.Random(7)
    with server(tmp_path, welcome_history_bytes=cap) as (client, ws), ExitStack() as stack:
        table_id, tokens = two_humans(client, target_score=1000)
        seated = [player(stack, ws, table_id, t)[0] for t in tokens]
        start(client, table_id, tokens[0])
        settle(seated, -1)
        # Early in the game the whole history fits: the welcome is as it always was.
        _, early = player(stack, ws, table_id, None)
        assert "history_cut" not in early and early["history"][0]["events"][0]["type"] == (
            "game_started")
        # Play until the game's changes are several times the cap.
        version = play(seated, rng, lambda v: v >= 120)
        _, watcher = player(stack, ws, table_id, None)
        assert watcher["history_cut"] is True
        history = watcher["history"]
        assert len(compact(history)) <= cap
        assert history and history[-1]["version"] == version == watcher["table"]["version"]
        assert history[0]["version"] > 1  # the game_started and the oldest moves are left out
        assert [h["version"] for h in history] == list(range(history[0]["version"], version + 1))
        # Ann reloads her page: the same cut welcome, her seat and her options whole.
        seated[0].ws.close()
        ann, welcome = player(stack, ws, table_id, tokens[0])
        assert welcome["seat"] == 0 and welcome["history_cut"] is True
        assert welcome["history"] == history and welcome["missed"] is None
        # A reconnect that missed one change gets it; one that missed more than the
        # history carries gets none (the history is what it shows).
        _, one_behind = player(stack, ws, table_id, tokens[1], last_version=version - 1)
        assert one_behind["missed"] == history[-1:]
        _, far_behind = player(stack, ws, table_id, tokens[1], last_version=1)
        assert far_behind["missed"] is None
        # ... and the game goes on: Ann (after the cut welcome) and Bob make their moves.
        after = play([ann, seated[1]], rng,
                     lambda v: v >= version + 6 and any(
                         f["type"] == "result" for f in ann.frames))
        assert after > version
        assert any(f["type"] == "result" and f["ok"] for f in ann.frames)


def test_spectators_welcomed_at_one_version_share_one_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty spectators joining a table between two moves cost one encoding of its history
    (counted, not timed); the next version costs one more."""
    encodings: list[int] = []
    real = table_module.capped_history

    def counted(history: Sequence[tuple[int, str]], most_bytes: int
                ) -> tuple[str, int | None, bool]:
        encodings.append(len(history))
        return real(history, most_bytes)

    monkeypatch.setattr(table_module, "capped_history", counted)
    # The table's own view for spectators is shared too: the last broadcast's, or the
    # first newcomer's (kept here for the whole test, not the 0.5 s of a running server).
    views: list[int] = []
    real_texts = table_module.Table._state_texts

    def counted_texts(self: table_module.Table, viewers: Iterable[Any]) -> dict[Any, str]:
        viewers = list(viewers)
        if viewers == [None]:
            views.append(self.version)
        return real_texts(self, viewers)

    monkeypatch.setattr(table_module.Table, "_state_texts", counted_texts)
    monkeypatch.setattr(table_module, "SPECTATOR_TEXT_SECONDS", 600.0)
    rng = random.Random(3)
    with server(tmp_path) as (client, ws), ExitStack() as stack:
        table_id, tokens = two_humans(client)
        seated = [player(stack, ws, table_id, t)[0] for t in tokens]
        start(client, table_id, tokens[0])
        version = play(seated, rng, lambda v: v >= 8)
        encodings.clear()
        views.clear()
        welcomes = [player(stack, ws, table_id, None)[1] for _ in range(40)]
        assert len(encodings) == 1, encodings
        assert views == [version] and all(w["table"] == welcomes[0]["table"] for w in welcomes)
        assert all(w["table"]["version"] == version for w in welcomes)
        assert all(w["history"] == welcomes[0]["history"] for w in welcomes)
        assert welcomes[0]["history"][-1]["version"] == version
        after = play(seated, rng, lambda v: v > version)
        more = [player(stack, ws, table_id, None)[1] for _ in range(5)]
        assert len(encodings) == 2, encodings
        assert views == [version]  # the move's broadcast made the spectators' view
        assert all(w["table"]["version"] == after for w in more)
        assert all(w["history"][-1]["version"] == after for w in more)


# ---------------------------------------------------------------------- bytes per address


def test_bytes_sent_to_an_address_are_a_budget(tmp_path: Path) -> None:
    """Spectator welcomes past the address's bytes budget are refused (an error frame that
    names the limit, then 1013); a spectator's updates past it too; the seated players'
    updates are counted but never cut: their game goes on."""
    limits = {"bytes_per_minute_per_address": 60, "bytes_burst_per_address": 40_000}
    rng = random.Random(5)
    with server(tmp_path, **limits) as (client, ws), ExitStack() as stack:
        table_id, tokens = two_humans(client)
        seated = [player(stack, ws, table_id, t)[0] for t in tokens]
        start(client, table_id, tokens[0])
        settle(seated, -1)
        welcomed, refused = spectators_until_refused(stack, ws, table_id, 60)
        watchers: list[WsPlayer] = []
        for sock, welcome in welcomed:
            watcher = WsPlayer(sock, None, None)
            watcher.state = welcome["table"]
            watchers.append(watcher)
        assert refused is not None, "60 welcomes passed a 40 KB budget"
        frames, code = refused
        assert code == 1013
        assert frames[0]["code"] == "rate_limited"
        assert "limit bytes_per_minute_per_address" in frames[0]["message"]
        assert len(watchers) >= 3
        # The seated players play on: every update reaches them, the budget spent or not.
        version = seated[0].state["version"]
        after = play(seated, rng, lambda v: v >= version + 4)
        assert all(p.state["version"] == after for p in seated)
        # The spectators admitted before are cut off as their updates pass the budget.
        cut_off = [w.ws.until_closed() for w in watchers]
        closed = [(fs, c) for fs, c in cut_off if c == 1013]
        assert closed, [c for _, c in cut_off]
        for fs, _ in closed:
            assert fs[-1]["type"] == "error" and "bytes_per_minute_per_address" in (
                fs[-1]["message"])


# ---------------------------------------------------------------------- welcomes per table


def test_spectators_welcomes_at_one_table_are_a_budget(tmp_path: Path) -> None:
    """Strangers from any number of addresses reading one table's welcome again and again
    share one budget (bytes of welcomes to its spectators): past it a spectator's hello is
    refused before its welcome is made (error frame naming the limit, then 1013), while a
    seated player is still welcomed, and another table's spectators too."""
    limits = {"spectator_welcome_bytes_per_minute": 60, "spectator_welcome_bytes_burst": 30_000}
    with server(tmp_path, **limits) as (client, ws), ExitStack() as stack:
        table_id, tokens = two_humans(client)
        other_id, _ = two_humans(client)
        welcomed, refused = spectators_until_refused(stack, ws, table_id, 20)
        assert refused is not None, "20 spectator welcomes passed a 30 KB budget"
        frames, code = refused
        assert code == 1013 and frames[0]["code"] == "rate_limited", frames
        assert "limit spectator_welcome_bytes_per_minute" in frames[0]["message"]
        assert len(welcomed) >= 3  # about 30,000 / (4,096 + a short history)
        _, seated = player(stack, ws, table_id, tokens[0])
        assert seated["seat"] == 0
        _, elsewhere = player(stack, ws, other_id, None)
        assert elsewhere["type"] == "welcome" and elsewhere["seat"] is None
