"""Table chat and the whole history on join (issue 14) over real WebSockets against a real
``flip7 serve`` process (tests/server_helpers.py: ``ServerProcess``, ``SyncSocket``).

Checked: a late spectator, a reload and a reconnect mid-game get every change of the
current game since its ``game_started``, in order, exactly as the players were sent them;
chat reaches two players and a spectator with a ``<script>`` payload byte-identical; every
limit of a message (code points, empty, control, line-separator and bidi characters, the
frame size, a wrong type) and the per-socket and per-address rate limits answer with their
error frames; spectators muted by the host; spectators from many addresses held to the
table's one spectator budget (issue 28); and chat, the spectator switch and the history
survive a ``kill -9`` and a restart on the same SQLite file.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import httpx
from server_helpers import ServerProcess, SyncSocket, WsPlayer, auth, choose

# Every client of these tests is on 127.0.0.1: its handshakes and its chat share one
# address's budgets, which the module's server widens (the per-address chat budget has a
# test of its own, on a server with its default-like narrow budget).
WIDE = ["--limit", "handshakes_burst=1000", "--limit", "handshakes_per_minute=10000",
        "--limit", "chat_burst_per_address=1000", "--limit", "chat_per_minute_per_address=10000",
        "--limit", "tables_burst=100", "--limit", "joins_burst=100"]  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("chat-live") / "flip7.db"
    proc = ServerProcess(f"sqlite:///{db}", seed=5, extra_args=WIDE).start()
    try:
        yield proc
    finally:
        proc.stop()


def _ws_url(server: ServerProcess, table_id: str) -> str:
    return server.url.replace("http", "ws") + f"/ws/tables/{table_id}"


def _connect(server: ServerProcess, table_id: str, token: str | None,
             last_version: int | None = None) -> tuple[WsPlayer, dict[str, Any]]:
    player = WsPlayer(SyncSocket(_ws_url(server, table_id)), None, token)
    welcome = player.hello(last_version)
    player.seat = welcome["seat"]
    return player, welcome


def _table(http: httpx.Client, humans: int, **body: Any) -> tuple[str, list[str]]:
    """A waiting table of ``humans`` seated players: its id and their tokens."""
    r = http.post("/api/tables", json={"player": "Ann", "seats": max(3, humans), **body})
    assert r.status_code == 201, r.text
    table_id = r.json()["table"]["id"]
    tokens = [r.json()["token"]]
    for name in ["Bob", "Cyd", "Dee"][: humans - 1]:
        joined = http.post(f"/api/tables/{table_id}/join", json={"player": name})
        assert joined.status_code == 200, joined.text
        tokens.append(joined.json()["token"])
    return table_id, tokens


def _start(http: httpx.Client, table_id: str, token: str) -> None:
    r = http.post(f"/api/tables/{table_id}/start", headers=auth(token))
    assert r.status_code == 200, r.text


def _changes(player: WsPlayer) -> list[dict[str, Any]]:
    """The versioned changes a client was sent as updates, in order (presence updates and
    the chat switch's update repeat a version and change nothing: left out)."""
    out: list[dict[str, Any]] = []
    for frame in player.frames:
        if frame["type"] == "update" and (not out or frame["version"] > out[-1]["version"]):
            out.append({"version": frame["version"], "events": frame["events"]})
    return out


def _from_start(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    starts = [i for i, c in enumerate(changes)
              if any(e["type"] == "game_started" for e in c["events"])]  # fmt: skip
    assert starts, "no game_started among the changes"
    return changes[starts[-1]:]


def _play(players: list[WsPlayer], rng: random.Random, moves: int) -> None:
    """``moves`` decisions by whoever must decide (every seat is a human here)."""
    for p in players:
        p.settle()
    for _ in range(moves):
        state = players[0].state
        if state["game"]["over"]:
            return
        mover = next(p for p in players if p.seat == state["game"]["to_decide"])
        answer = mover.move(choose(mover.state["game"], rng))
        assert answer["type"] == "result", answer
        for p in players:
            p.settle(after=state["version"])


def _say(client: WsPlayer, text: Any) -> dict[str, Any]:
    """Send a chat message; its answer: the chat frame that carries it, or the error frame
    (other people's chat frames read meanwhile are skipped)."""
    client.send({"v": 1, "type": "chat", "text": text})
    mine = text.strip() if isinstance(text, str) else None

    def answer(f: dict[str, Any]) -> bool:
        return f["type"] == "error" or (
            f["type"] == "chat" and f["chat"]["kind"] == "message" and f["chat"]["text"] == mine)

    frame: dict[str, Any] = client.recv_until(answer)
    return frame


def _switched(client: WsPlayer) -> dict[str, Any]:
    """The next chat entry of the spectator switch (messages read meanwhile are skipped)."""
    frame = client.recv_until(lambda f: f["type"] == "chat" and f["chat"]["kind"] != "message")
    entry: dict[str, Any] = frame["chat"]
    return entry


def _close(*clients: WsPlayer) -> None:
    for c in clients:
        c.ws.close()


# ---------------------------------------------------------------------- the whole history


def test_a_late_spectator_a_reload_and_a_reconnect_get_the_whole_game(
    server: ServerProcess,
) -> None:
    rng = random.Random(3)
    with httpx.Client(base_url=server.url) as http:
        table_id, tokens = _table(http, 3)
        players = [_connect(server, table_id, t)[0] for t in tokens]
        _start(http, table_id, tokens[0])
        _play(players, rng, 8)
        sent = _from_start(_changes(players[0]))
        assert sent[0]["events"][0]["type"] == "game_started" and len(sent) >= 8
        versions = [c["version"] for c in sent]
        assert versions == list(range(versions[0], players[0].state["version"] + 1))

        # A late spectator: every change since game_started, exactly as the players had it.
        watcher, welcome = _connect(server, table_id, None)
        assert welcome["seat"] is None and welcome["history"] == sent
        assert welcome["table"]["version"] == versions[-1]

        # Bob drops out; the game goes on without his socket reading (a bot does not take
        # over: he did not leave). He is to reconnect with the last version he saw.
        bob = players[1]
        seen = bob.state["version"]
        _close(bob)
        others = [players[0], players[2]]
        for _ in range(6):
            state = others[0].state
            if state["game"]["over"] or state["game"]["to_decide"] == bob.seat:
                break
            mover = next(p for p in others if p.seat == state["game"]["to_decide"])
            assert mover.move(choose(mover.state["game"], rng))["type"] == "result"
            for p in others:
                while p.state["version"] <= state["version"]:
                    p.recv()
        now = _from_start(_changes(others[0]))
        again, welcome = _connect(server, table_id, tokens[1], last_version=seen)
        assert welcome["seat"] == bob.seat
        assert welcome["history"] == now
        assert welcome["missed"] == [c for c in now if c["version"] > seen]

        # A reload: the same token, no version known.
        reloaded, welcome = _connect(server, table_id, tokens[0])
        assert welcome["missed"] is None and welcome["history"] == now
        _close(players[0], players[2], watcher, again, reloaded)


def test_before_the_first_game_the_history_is_the_tables(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as http:
        table_id, _tokens = _table(http, 2)
        watcher, welcome = _connect(server, table_id, None)
        events = [e for c in welcome["history"] for e in c["events"]]
        assert [(e["type"], e["name"]) for e in events] == [
            ("seat_taken", "Ann"), ("seat_taken", "Bob")]
        assert [c["version"] for c in welcome["history"]] == [1, welcome["table"]["version"]]
        _close(watcher)


# ---------------------------------------------------------------------- chat


PAYLOAD = '<script>alert("x")</script><img src=x onerror=alert(1)> &amp; \\ 👍🏽 é'


def test_chat_reaches_two_players_and_a_spectator_byte_identical(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as http:
        table_id, tokens = _table(http, 2)
        ann, _ = _connect(server, table_id, tokens[0])
        bob, _ = _connect(server, table_id, tokens[1])
        watcher, _ = _connect(server, table_id, None)
        everyone = [ann, bob, watcher]

        said = _say(ann, f"  {PAYLOAD}\t")
        assert said["type"] == "chat", said
        entry = said["chat"]
        assert entry["text"] == PAYLOAD  # trimmed, nothing else changed
        assert entry["text"].encode() == PAYLOAD.encode()
        assert (entry["kind"], entry["name"], entry["seat"], entry["spectator"]) == (
            "message", "Ann", 0, False)
        for other in (bob, watcher):
            assert other.recv_until(lambda f: f["type"] == "chat")["chat"] == entry

        from_bob = _say(bob, "GG")["chat"]
        assert (from_bob["name"], from_bob["seat"], from_bob["n"]) == ("Bob", 1, entry["n"] + 1)
        from_watcher = _say(watcher, "😮")["chat"]
        assert from_watcher["spectator"] and from_watcher["seat"] is None
        assert from_watcher["name"].startswith("Spectator")
        for client in everyone:
            got = [f["chat"] for f in client.frames if f["type"] == "chat"]
            while len(got) < 3:
                got.append(client.recv_until(lambda f: f["type"] == "chat")["chat"])
            assert got == [entry, from_bob, from_watcher]

        # Chat never moves the table's version (a move made meanwhile stays valid).
        assert ann.state["version"] == watcher.state["version"]
        late, welcome = _connect(server, table_id, None)
        assert welcome["chat"] == [entry, from_bob, from_watcher]
        assert welcome["table"]["version"] == ann.state["version"]
        _close(*everyone, late)


def test_chat_limits_answer_with_error_frames(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as http:
        limits = http.get("/api/limits").json()
        most = limits["chat_max_chars"]
        table_id, tokens = _table(http, 2)
        ann, _ = _connect(server, table_id, tokens[0])
        # Code points, not bytes or UTF-16 units: an emoji is one, two code points are two.
        at_limit = _say(ann, "🙂" * most)
        assert at_limit["type"] == "chat" and len(at_limit["chat"]["text"]) == most
        over = _say(ann, "🙂" * (most + 1))
        assert over["code"] == "bad_chat"
        assert f"at most {most} characters, this one has {most + 1}" in over["message"]
        assert _say(ann, "e\u0301" * (most // 2 + 1))["code"] == "bad_chat"
        bob, _ = _connect(server, table_id, tokens[1])  # a fresh socket: a fresh chat budget
        for text in ["", "   ", "a\x07b", "a\nb", "a\u2028b", "a\u202eb", "a\u2066b", "a\u200fb"]:
            refused = _say(bob, text)
            assert refused["type"] == "error" and refused["code"] == "bad_chat", (text, refused)
            assert refused["message"].startswith("a chat message must not")
            # Refusals cost chat tokens too: a fresh socket for every two.
            if text in ("   ", "a\nb", "a\u202eb"):
                _close(bob)
                bob, _ = _connect(server, table_id, tokens[1])
        for text in [7, None, ["hi"]]:
            assert _say(bob, text)["code"] == "bad_message"
        too_big = _say(bob, "x" * (limits["max_message_bytes"] + 1))
        assert too_big["code"] == "too_large"
        _close(ann, bob)


def test_chat_is_rate_limited_per_socket(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as http:
        burst = http.get("/api/limits").json()["chat_burst"]
        table_id, tokens = _table(http, 2)
        ann, _ = _connect(server, table_id, tokens[0])
        answers = [_say(ann, f"message {i}") for i in range(burst + 1)]
        assert [a["type"] for a in answers] == ["chat"] * burst + ["error"]
        assert answers[-1]["code"] == "chat_rate_limited"
        assert "chat_per_minute" in answers[-1]["message"]
        assert "try again in" in answers[-1]["message"]
        # Another socket has its own budget.
        bob, _ = _connect(server, table_id, tokens[1])
        assert _say(bob, "still here")["type"] == "chat"
        _close(ann, bob)


def test_the_host_mutes_spectators(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url) as http:
        table_id, tokens = _table(http, 2)
        ann, welcome = _connect(server, table_id, tokens[0])
        assert welcome["table"]["chat"] == {"host": 0, "spectators": True}
        bob, _ = _connect(server, table_id, tokens[1])
        watcher, _ = _connect(server, table_id, None)
        bob.send({"v": 1, "type": "spectator_chat", "allowed": False})
        refused = bob.recv_until(lambda f: f["type"] == "error")
        assert refused["code"] == "not_host" and "(Ann)" in refused["message"]
        ann.send({"v": 1, "type": "spectator_chat", "allowed": False})
        off = _switched(ann)
        assert (off["kind"], off["name"], off["text"]) == ("spectators_off", "Ann", "")
        for client in (bob, watcher):
            assert _switched(client) == off
            update = client.recv_until(lambda f: f["type"] == "update")
            assert update["table"]["chat"]["spectators"] is False
        muted = _say(watcher, "let me talk")
        assert muted["code"] == "chat_muted"
        assert _say(bob, "players still can")["type"] == "chat"
        ann.send({"v": 1, "type": "spectator_chat", "allowed": True})
        assert _switched(ann)["kind"] == "spectators_on"
        assert _say(watcher, "thanks")["type"] == "chat"
        _close(ann, bob, watcher)


def test_chat_is_rate_limited_per_address(tmp_path: Path) -> None:
    narrow = ["--limit", "chat_burst_per_address=3", "--limit", "chat_per_minute_per_address=1"]
    server = ServerProcess(f"sqlite:///{tmp_path / 'flip7.db'}", extra_args=narrow).start()
    try:
        with httpx.Client(base_url=server.url) as http:
            table_id, tokens = _table(http, 2)
            ann, _ = _connect(server, table_id, tokens[0])
            bob, _ = _connect(server, table_id, tokens[1])
            watcher, _ = _connect(server, table_id, None)
            answers = [_say(c, "hi") for c in (ann, bob, watcher)]
            assert [a["type"] for a in answers] == ["chat"] * 3
            refused = _say(ann, "one more")
            assert refused["code"] == "chat_rate_limited"
            assert "from your address" in refused["message"]
            assert "chat_per_minute_per_address" in refused["message"]
            _close(ann, bob, watcher)
    finally:
        server.stop()


def test_spectators_from_many_addresses_cannot_fill_the_history(server: ServerProcess) -> None:
    """Issue 28, finding 8: 30 spectator addresses stored 150 spam lines in 3 s, and the
    50 lines a newcomer is sent were all spam. The table's spectators share one budget
    (``spectator_chat_per_minute``, ``spectator_chat_burst``) whatever their addresses;
    seated players are not held to it."""
    with httpx.Client(base_url=server.url) as http:
        limits = http.get("/api/limits").json()
        burst, per_minute = limits["spectator_chat_burst"], limits["spectator_chat_per_minute"]
        table_id, tokens = _table(http, 2)
        ann, _ = _connect(server, table_id, tokens[0])
        bob, _ = _connect(server, table_id, tokens[1])
        said = [f"players' line {i}" for i in range(4)]
        assert [_say(ann, text)["type"] for text in said] == ["chat"] * 4
        spectators = []
        for i in range(30):
            watcher = WsPlayer(SyncSocket(_ws_url(server, table_id), source=f"127.0.0.{2 + i}"),
                               None, None)
            watcher.hello()
            spectators.append(watcher)
        started = time.monotonic()
        answers = [_say(w, f"spam {i}.{k}") for k in range(5) for i, w in enumerate(spectators)]
        elapsed = time.monotonic() - started
        stored = [a for a in answers if a["type"] == "chat"]
        refused = [a for a in answers if a["type"] == "error"]
        # The table's spectators got their burst and what the rate gave back meanwhile.
        assert burst <= len(stored) <= burst + 1 + per_minute * elapsed / 60, len(stored)
        assert {a["code"] for a in refused} == {"chat_rate_limited"}
        assert all("limit spectator_chat_per_minute" in a["message"] for a in refused)
        # A seated player is not held to the spectators' budget.
        assert _say(bob, "players still talk")["type"] == "chat"
        # A newcomer's history still holds the players' lines.
        late, welcome = _connect(server, table_id, None)
        texts = [c["text"] for c in welcome["chat"]]
        assert [t for t in texts if not t.startswith("spam")] == [*said, "players still talk"]
        _close(ann, bob, late, *spectators)


# ---------------------------------------------------------------------- a restart


def test_chat_the_switch_and_the_history_survive_kill_9(tmp_path: Path) -> None:
    rng = random.Random(4)
    server = ServerProcess(f"sqlite:///{tmp_path / 'flip7.db'}", seed=9,
                           extra_args=[*WIDE, "--limit", "chat_history=4"]).start()
    try:
        with httpx.Client(base_url=server.url) as http:
            table_id, tokens = _table(http, 3)
            players = [_connect(server, table_id, t)[0] for t in tokens]
            _start(http, table_id, tokens[0])
            _play(players, rng, 5)
            watcher, _ = _connect(server, table_id, None)
            entries = [_say(watcher, "hello from the rail")["chat"]]
            entries.append(_say(players[1], PAYLOAD)["chat"])
            players[0].send({"v": 1, "type": "spectator_chat", "allowed": False})
            entries.append(_switched(players[0]))
            entries += [_say(players[2], "👍")["chat"], _say(players[0], "GG")["chat"]]
            assert [e["n"] for e in entries] == list(range(1, 6))
            history = _from_start(_changes(players[0]))
            version = players[0].state["version"]
        server.kill()  # SIGKILL: nothing is flushed at shutdown
        server.start()  # the same SQLite file
        with httpx.Client(base_url=server.url) as http:
            late, welcome = _connect(server, table_id, None)
            assert welcome["chat"] == entries[-4:]  # chat_history: the last 4, oldest first
            assert welcome["history"] == history
            assert welcome["table"]["version"] == version
            assert welcome["table"]["chat"] == {"host": 0, "spectators": False}
            assert _say(late, "am I muted?")["code"] == "chat_muted"
            ann, welcome = _connect(server, table_id, tokens[0], last_version=version)
            assert welcome["missed"] == [] and welcome["history"] == history
            after = _say(ann, "back again")["chat"]
            assert after["n"] == entries[-1]["n"] + 1
            heard = late.recv_until(lambda f: f["type"] == "chat")["chat"]
            assert json.dumps(heard) == json.dumps(after)
            _close(late, ann)
    finally:
        server.stop()
