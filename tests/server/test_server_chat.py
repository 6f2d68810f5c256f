"""Table chat and the full history on join (issue 14), through the app's WebSocket (the
same over a real ``flip7 serve`` process: tests/server/test_server_chat_live.py; in the browser:
tests/browser/test_browser_chat.py)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from server_helpers import app_client, connect
from test_server_tables import _solo as _table


def _chat(player: Any, text: str) -> dict[str, Any]:
    player.send({"v": 1, "type": "chat", "text": text})
    frame: dict[str, Any] = player.recv_until(lambda f: f["type"] in ("chat", "error"))
    return frame


def test_chat_reaches_players_and_spectators_verbatim_and_is_kept(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    payload = "<script>alert(1)</script> 👍🏽"
    with app_client(db) as client, ExitStack() as stack:
        table_id, _token, player = _table(client, stack)
        watcher = connect(client, stack, table_id, None)
        frame = _chat(player, f"  {payload}  ")
        assert frame["type"] == "chat" and frame["chat"]["text"] == payload
        assert frame["chat"]["seat"] == 0 and not frame["chat"]["spectator"]
        seen = watcher.recv_until(lambda f: f["type"] == "chat")
        assert seen["chat"] == frame["chat"]
        spoken = _chat(watcher, "hi all")
        assert spoken["type"] == "chat" and spoken["chat"]["spectator"]
    with app_client(db) as client, ExitStack() as stack:  # after a restart
        late = connect(client, stack, table_id, None)
        welcome = late.frames[0]
        assert [c["text"] for c in welcome["chat"]] == [payload, "hi all"]
        assert welcome["history"] and welcome["history"][0]["events"][0]["type"] == "game_started"


def test_chat_limits_answer_with_error_frames(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", chat_max_chars=10) as client, ExitStack() as stack:
        _table_id, _token, player = _table(client, stack)
        assert _chat(player, "x" * 11)["code"] == "bad_chat"
        assert _chat(player, "🙂" * 10)["type"] == "chat"  # characters, not UTF-16 units
        assert _chat(player, "   ")["code"] == "bad_chat"
        assert _chat(player, "a\u202eb")["code"] == "bad_chat"
        assert _chat(player, "a\x07b")["code"] == "bad_chat"
        codes = [_chat(player, f"m{i}").get("code") for i in range(30)]
        assert "chat_rate_limited" in codes


def test_the_host_can_mute_spectators(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client, ExitStack() as stack:
        table_id, _token, player = _table(client, stack)
        watcher = connect(client, stack, table_id, None)
        watcher.send({"v": 1, "type": "spectator_chat", "allowed": False})
        assert watcher.recv_until(lambda f: f["type"] == "error")["code"] == "not_host"
        player.send({"v": 1, "type": "spectator_chat", "allowed": False})
        assert player.recv_until(lambda f: f["type"] == "chat")["chat"]["kind"] == "spectators_off"
        assert watcher.recv_until(lambda f: f["type"] == "chat")["chat"]["kind"] == "spectators_off"
        assert _chat(watcher, "let me talk")["code"] == "chat_muted"
        assert _chat(player, "players still can")["type"] == "chat"


def test_a_reconnect_gets_the_whole_game_history(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client, ExitStack() as stack:
        table_id, token, player = _table(client, stack)
        player.settle()
        assert player.frames[0]["history"][0]["version"] == 1  # before the game: the table's
        again = connect(client, stack, table_id, token)
        history = again.frames[0]["history"]
        assert history[0]["events"][0]["type"] == "game_started"
        assert [h["version"] for h in history] == list(
            range(history[0]["version"], player.state["version"] + 1))


def test_a_player_whose_seat_was_removed_chats_as_a_spectator(tmp_path: Path) -> None:
    """Before a game, a player who leaves their seat may stay connected: their chat is a
    spectator's, under a spectator's own name (never a bare "Spectator" shared by all)."""
    from server_helpers import auth

    with app_client(tmp_path / "db.sqlite") as client, ExitStack() as stack:
        created = client.post(
            "/api/tables", json={"name": "Chat", "player": "Ann", "seats": 4}
        ).json()
        table_id = created["table"]["id"]
        joined = client.post(f"/api/tables/{table_id}/join", json={"player": "Bob"}).json()
        bob = connect(client, stack, table_id, joined["token"])
        assert bob.seat == 1
        left = client.post(f"/api/tables/{table_id}/leave", headers=auth(joined["token"]))
        assert left.status_code == 200, left.text
        frame = _chat(bob, "still here")
        assert frame["type"] == "chat", frame
        assert frame["chat"]["spectator"] and frame["chat"]["seat"] is None
        assert frame["chat"]["name"].startswith("Spectator ")
