"""The bot API (docs/bot-api.md): bot accounts and their tokens' scope, invitations, the
bot's WebSocket stream and REST moves, at a table with a human seat and a built-in bot."""

from __future__ import annotations

import json
import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import (
    SERVER_MESSAGE,
    WsPlayer,
    app_client,
    auth,
    choose,
    connect,
    human_to_decide_or_over,
    join,
    new_table,
    services_of,
)


def key(player: dict[str, Any]) -> dict[str, str]:
    return {"X-Player-Key": player["key"]}


def bot_account(client: Any, name: str = "Robo") -> tuple[dict[str, Any], str]:
    """A new identity made a bot account: the identity and its bot token."""
    player = client.post("/api/players", json={"name": name}).json()
    made = client.post("/api/players/me/bot", headers=key(player))
    assert made.status_code == 201, made.text
    assert made.json()["bot_account"] is True
    return player, made.json()["token"]


class BotStream:
    """A bot's WebSocket stream through the TestClient."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.states: dict[str, dict[str, Any]] = {}

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps({"v": 1, **message}))

    def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.ws.receive_text())
        table_id = frame.pop("table_id", None)
        if frame["type"] in ("welcome", "update", "result", "error", "chat", "pong"):
            SERVER_MESSAGE.validate_python(frame)  # a seat's frame exactly
        if table_id is not None and frame["type"] in ("welcome", "update"):
            self.states[table_id] = frame["table"]
        frame["table_id"] = table_id
        return frame

    def recv_until(self, predicate: Any) -> dict[str, Any]:
        for _ in range(5000):
            frame = self.recv()
            if predicate(frame):
                return frame
        raise AssertionError("no such frame")


def bot_socket(client: Any, stack: ExitStack, token: str) -> BotStream:
    return BotStream(stack.enter_context(client.websocket_connect("/api/bot/ws",
                                                                   headers=auth(token))))


def test_bot_account_token_scope(tmp_path: Path) -> None:
    """A bot token is for the bot API only, a player key never is one, and a seat token
    is neither."""
    with app_client(tmp_path / "t.db") as client:
        player, token = bot_account(client)
        me = client.get("/api/bot/account", headers=auth(token))
        assert me.status_code == 200 and me.json()["id"] == player["id"]
        # The player key is no bot token, and the bot token no player key.
        refused = client.get("/api/bot/account", headers=auth(player["key"]))
        assert refused.status_code == 401
        assert refused.json()["detail"]["code"] == "bad_bot_token"
        as_key = client.get("/api/players/me", headers={"X-Player-Key": token})
        assert as_key.status_code == 401
        assert as_key.json()["detail"]["code"] == "bot_token"
        # A seat token is not one either, nor is a bot token a seat's.
        table_id, seat_token = new_table(client, seats=3)
        assert client.get("/api/bot/account", headers=auth(seat_token)).status_code == 401
        for path in ("start", "leave"):
            r = client.post(f"/api/tables/{table_id}/{path}", headers=auth(token))
            assert r.status_code in (401, 403, 404), r.text
        with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
            ws.send_text(json.dumps({"v": 1, "type": "hello", "token": token}))
            frame = json.loads(ws.receive_text())
            assert frame["type"] == "error"
        # The bot's stream refuses a player key.
        with client.websocket_connect("/api/bot/ws", headers=auth(player["key"])) as ws:
            frame = json.loads(ws.receive_text())
            assert frame["code"] == "bad_bot_token"
        # The bot account's player key takes no seat as a person.
        r = client.post(f"/api/tables/{table_id}/join", json={"player": "Robo"},
                        headers=key(player))
        assert r.status_code == 403 and r.json()["detail"]["code"] == "bot_account", r.text
        r = client.post("/api/tables", json={"player": "Robo", "seats": 3}, headers=key(player))
        assert r.status_code == 403, r.text
        # The profile says bot; a new token replaces the old; a revoked one works no more.
        assert client.get(f"/api/players/{player['id']}").json()["bot_account"] is True
        again = client.post("/api/players/me/bot", headers=key(player)).json()["token"]
        assert client.get("/api/bot/account", headers=auth(token)).status_code == 401
        assert client.get("/api/bot/account", headers=auth(again)).status_code == 200
        assert client.delete("/api/players/me/bot/token", headers=key(player)).status_code == 200
        assert client.get("/api/bot/account", headers=auth(again)).status_code == 401


def listed_hosting(client: Any, *tokens: str) -> dict[str, bool]:
    """The lobby's list as the holder of ``tokens`` sees it: ``hosting`` of each table."""
    headers = {"X-Seat-Tokens": ",".join(tokens)} if tokens else {}
    r = client.get("/api/tables", headers=headers)
    assert r.status_code == 200, r.text
    return {t["id"]: t["hosting"] for t in r.json()["tables"]}


def test_the_lobby_says_which_tables_the_client_hosts(tmp_path: Path) -> None:
    """``hosting`` in the lobby's list: true at a table whose host's seat token the client
    sent (``X-Seat-Tokens``), false for another seat's token, none or a made-up one; when
    the host leaves, the next person seated hosts. Never in a table's own state."""
    with app_client(tmp_path / "t.db") as client:
        table_id, host = new_table(client, seats=4)
        other_id, other_host = new_table(client, seats=3, player="Bea")
        _, zed = join(client, table_id, "Zed")
        assert listed_hosting(client) == {table_id: False, other_id: False}
        assert listed_hosting(client, host) == {table_id: True, other_id: False}
        assert listed_hosting(client, zed, "x" * 30) == {table_id: False, other_id: False}
        assert listed_hosting(client, " " + zed, host + " ", other_host) == {
            table_id: True, other_id: True}
        assert "hosting" not in client.get(f"/api/tables/{table_id}").json()["table"]
        assert client.post(f"/api/tables/{table_id}/leave", headers=auth(host)).status_code == 200
        assert listed_hosting(client, host, zed)[table_id] is True  # Zed's seat now
        assert listed_hosting(client, host)[table_id] is False


def test_invite_accept_and_play_a_game(tmp_path: Path) -> None:
    """The host invites an available bot account; it accepts on its stream and plays a
    whole game beside a human and a built-in bot, its moves judged as a human's (an illegal
    one is an error frame and the game goes on), the others seeing it as a bot account."""
    rng = random.Random(7)
    with app_client(tmp_path / "t.db", seed=11) as client, ExitStack() as stack:
        player, token = bot_account(client)
        assert client.put("/api/bot/available", json={"available": True},
                          headers=auth(token)).status_code == 200
        listed = client.get("/api/bot-accounts").json()["bots"]
        assert [b["id"] for b in listed] == [player["id"]]
        table_id, host = new_table(client, seats=3)
        bot = bot_socket(client, stack, token)
        # Only the host may invite, and only a bot account.
        _, other_token = join(client, table_id, "Zed")
        r = client.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                        headers=auth(other_token))
        assert r.status_code == 403 and r.json()["detail"]["code"] == "not_host", r.text
        assert client.post(f"/api/tables/{table_id}/leave",
                           headers=auth(other_token)).status_code == 200
        human = client.post("/api/players", json={"name": "Hum"}).json()
        r = client.post(f"/api/tables/{table_id}/invitations", json={"bot": human["id"]},
                        headers=auth(host))
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_bot"
        r = client.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                        headers=auth(host))
        assert r.status_code == 201, r.text
        invitation = bot.recv_until(lambda f: f["type"] == "invitation")
        assert invitation["table_id"] == table_id and invitation["host"] == "Ann"
        bot.send({"type": "accept", "invitation": invitation["id"]})
        welcome = bot.recv_until(lambda f: f["type"] == "welcome")
        seat = welcome["seat"]
        assert welcome["table_id"] == table_id and seat == 1
        assert welcome["table"]["seats"][1]["bot_account"] is True
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(host)).status_code == 200
        ann = connect(client, stack, table_id, host)
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(host)).status_code == 200
        illegal_sent = False
        for _ in range(3000):
            state = settle_both(bot, table_id, ann)
            game = state["game"]
            if game["over"]:
                break
            if game["to_decide"] != seat:
                assert ann.move(choose(ann.state["game"], rng))["type"] == "result"
                continue
            if not illegal_sent:
                illegal_sent = True
                bot.send({"type": "move", "table_id": table_id, "id": "bad",
                          "version": state["version"], "decision": "target 9"})
                error = bot.recv_until(lambda f: f["type"] == "error")
                assert error["id"] == "bad" and error["code"] == "illegal_move"
            bot.send({"type": "move", "table_id": table_id, "id": f"m{state['version']}",
                      "version": state["version"], "decision": choose(game, rng)})
            assert bot.recv_until(lambda f: f["type"] in ("result", "error"))["type"] == "result"
        else:
            raise AssertionError("the game did not end")
        assert illegal_sent


def settle_both(bot: BotStream, table_id: str, human: WsPlayer) -> dict[str, Any]:
    """Both read up to the newest version either has seen, where the human or the bot
    account must decide (or the game is over); the table then."""
    def version(state: dict[str, Any]) -> int:
        return int(state.get("version", -1))

    def waits(state: dict[str, Any]) -> bool:
        return state.get("game") is not None and human_to_decide_or_over(state)

    while True:
        newest = max(version(bot.states.get(table_id, {})), version(human.state))
        while version(bot.states.get(table_id, {})) < newest or not waits(bot.states[table_id]):
            bot.recv()
        while version(human.state) < newest or not waits(human.state):
            human.recv()
        if version(human.state) == version(bot.states[table_id]):
            return bot.states[table_id]


def seated_bot(client: Any, stack: ExitStack, token: str, player_id: str
               ) -> tuple[str, str, BotStream, int]:
    """A table (Ann the host, the bot account invited and seated, a built-in bot) not yet
    started: its id, Ann's token, the bot's stream and its seat."""
    table_id, host = new_table(client, seats=3)
    bot = bot_socket(client, stack, token)
    r = client.post(f"/api/tables/{table_id}/invitations", json={"bot": player_id},
                    headers=auth(host))
    assert r.status_code == 201, r.text
    invitation = bot.recv_until(lambda f: f["type"] == "invitation")
    accepted = client.post(f"/api/bot/invitations/{invitation['id']}/accept",
                           headers=auth(token))
    assert accepted.status_code == 200, accepted.text
    assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                       headers=auth(host)).status_code == 200
    welcome = bot.recv_until(lambda f: f["type"] == "welcome")
    return table_id, host, bot, welcome["seat"]


def play_human(human: WsPlayer, rng: random.Random, until: Any, limit: int = 20000) -> None:
    """The human plays their turns (reading everything else) until ``until(state)``."""
    for _ in range(limit):
        state = human.state
        game = state.get("game")
        if until(state):
            return
        assert game is None or not game["over"], "the game ended first"
        if (game is not None and not game["over"] and game["to_decide"] == human.seat
                and game["legal_decisions"]):
            human.move(choose(game, rng))
        else:
            human.recv()
    raise AssertionError("never came")


def game_over(state: dict[str, Any]) -> bool:
    return state.get("game") is not None and bool(state["game"]["over"])


def test_move_deadline_the_stand_in_moves(tmp_path: Path) -> None:
    """A bot account that does not move within ``bot_move_seconds``: the stand-in bot
    makes each of its decisions and the game finishes."""
    rng = random.Random(3)
    with app_client(tmp_path / "t.db", seed=5, bot_move_seconds=0.05) as client, \
            ExitStack() as stack:
        player, token = bot_account(client)
        table_id, host, _bot, seat = seated_bot(client, stack, token, player["id"])
        ann = connect(client, stack, table_id, host)
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(host)).status_code == 200
        seen_deadline = False

        def until(state: dict[str, Any]) -> bool:
            nonlocal seen_deadline
            game = state.get("game")
            if game is not None and not game["over"] and game["to_decide"] == seat:
                seen_deadline |= state.get("turn_deadline") is not None
            return game_over(state)

        play_human(ann, rng, until)
        assert seen_deadline


def test_a_bot_that_goes_away_is_handed_over_and_comes_back(tmp_path: Path) -> None:
    """The bot's stream closes: its seat is away, handed to the stand-in bot after
    ``handover_auto``, and the game goes on; a new stream takes the seat back."""
    rng = random.Random(5)
    with app_client(tmp_path / "t.db", seed=9, handover_grace=0.05,
                    handover_auto=0.1) as client, ExitStack() as stack:
        player, token = bot_account(client)
        inner = ExitStack()
        table_id, host, _bot, seat = seated_bot(client, inner, token, player["id"])
        ann = connect(client, stack, table_id, host)
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(host)).status_code == 200
        inner.close()  # the bot disappears
        play_human(ann, rng, lambda s: bool(s.get("seats") and s["seats"][seat]["stand_in"]))
        back = bot_socket(client, stack, token)
        welcome = back.recv_until(lambda f: f["type"] == "welcome")
        assert welcome["table_id"] == table_id and welcome["seat"] == seat
        back_state = back.recv_until(lambda f: f["type"] == "update" and not (
            back.states[table_id]["seats"][seat]["stand_in"]))
        assert back_state["table_id"] == table_id
        back.ws.close()
        play_human(ann, rng, game_over)


def test_a_flooding_bot_is_rate_limited(tmp_path: Path) -> None:
    """Moves past the budgets are refused with rate_limited frames saying the limit (the
    socket's, then the account's by REST: 429), and the game goes on."""
    with app_client(tmp_path / "t.db", seed=9, rate_per_second=5.0, rate_burst=5,
                    rate_strikes=1000) as client, ExitStack() as stack:
        player, token = bot_account(client)
        table_id, host, bot, _seat = seated_bot(client, stack, token, player["id"])
        for i in range(30):
            bot.send({"type": "move", "table_id": table_id, "id": f"f{i}", "version": 0,
                      "decision": "stay"})
        limited = bot.recv_until(lambda f: f["type"] == "error" and f["code"] == "rate_limited")
        assert "a second" in limited["message"]
        codes = [client.post(f"/api/bot/tables/{table_id}/move", headers=auth(token),
                             json={"id": f"r{i}", "version": 0, "decision": "stay"}).status_code
                 for i in range(10)]
        assert 429 in codes
        # The table goes on: the host can start it and the seat is still the bot's.
        assert client.post(f"/api/tables/{table_id}/start", headers=auth(host)).status_code == 200


def test_decline_replace_and_refusals(tmp_path: Path) -> None:
    """A declined invitation is gone; a second stream replaces the first (closed 4409) and
    its seat says hello again; moves for a table the bot holds no seat at are refused."""
    with app_client(tmp_path / "t.db") as client, ExitStack() as stack:
        player, token = bot_account(client)
        table_id, _host, first, seat = seated_bot(client, stack, token, player["id"])
        # Another invitation (a second table), declined on the WebSocket.
        other_id, other_host = new_table(client, seats=3, player="Bea")
        assert client.post(f"/api/tables/{other_id}/invitations", json={"bot": player["id"]},
                           headers=auth(other_host)).status_code == 201
        invitation = first.recv_until(lambda f: f["type"] == "invitation")
        first.send({"type": "decline", "invitation": invitation["id"]})
        first.send({"type": "ping"})
        assert first.recv_until(lambda f: f["type"] == "pong")["type"] == "pong"
        gone = client.post(f"/api/bot/invitations/{invitation['id']}/accept", headers=auth(token))
        assert gone.status_code == 404 and gone.json()["detail"]["code"] == "no_invitation"
        # No seat there: moves are refused, by REST and on the stream.
        r = client.post(f"/api/bot/tables/{other_id}/move", headers=auth(token),
                        json={"id": "a", "version": 1, "decision": "stay"})
        assert r.status_code == 404 and r.json()["detail"]["code"] == "no_seat"
        first.send({"type": "move", "table_id": other_id, "id": "b", "version": 1,
                    "decision": "stay"})
        refused = first.recv_until(lambda f: f["type"] == "error")
        assert refused["code"] == "no_seat" and refused["id"] == "b"
        # A second stream replaces the first.
        second = bot_socket(client, stack, token)
        welcome = second.recv_until(lambda f: f["type"] == "welcome")
        assert welcome["table_id"] == table_id and welcome["seat"] == seat
        from starlette.websockets import WebSocketDisconnect

        with pytest.raises(WebSocketDisconnect) as closed:
            first.recv_until(lambda f: False)
        assert closed.value.code == 4409
        # Leaving before the start empties the seat.
        left = client.post(f"/api/bot/tables/{table_id}/leave", headers=auth(token))
        assert left.status_code == 200, left.text
        seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert not any(s.get("bot_account") for s in seats)


def test_an_invitation_gone_is_told(tmp_path: Path) -> None:
    """An invitation the bot was told of and has not answered: when its table fills, its
    table starts or it expires (the hub's clock moved past its 15 minutes), the stream
    says so (``invitation_gone`` with the reason) and accepting it is 404."""
    from datetime import timedelta

    from flip7.server.base.formats import utcnow

    with app_client(tmp_path / "t.db") as client, ExitStack() as stack:
        player, token = bot_account(client)
        bot = bot_socket(client, stack, token)

        def invited(seats: int, host_name: str) -> tuple[str, str, dict[str, Any]]:
            table_id, host = new_table(client, seats=seats, player=host_name)
            r = client.post(f"/api/tables/{table_id}/invitations", json={"bot": player["id"]},
                            headers=auth(host))
            assert r.status_code == 201, r.text
            return table_id, host, bot.recv_until(lambda f: f["type"] == "invitation")

        def gone(invitation: dict[str, Any], reason: str) -> None:
            frame = bot.recv_until(lambda f: f["type"] == "invitation_gone")
            assert frame == {"v": 1, "type": "invitation_gone", "id": invitation["id"],
                             "table_id": invitation["table_id"], "reason": reason}
            r = client.post(f"/api/bot/invitations/{invitation['id']}/accept",
                            headers=auth(token))
            assert r.status_code == 404 and r.json()["detail"]["code"] == "no_invitation"

        full_id, _host, invitation = invited(3, "Ann")
        join(client, full_id, "Zed")
        join(client, full_id, "Yan")
        gone(invitation, "table_full")
        started_id, host, invitation = invited(4, "Bea")
        for _ in range(2):
            assert client.post(f"/api/tables/{started_id}/bots", json={"bot": "basic"},
                               headers=auth(host)).status_code == 200
        assert client.post(f"/api/tables/{started_id}/start", headers=auth(host)).status_code == 200
        gone(invitation, "table_started")
        _table_id, _host, invitation = invited(3, "Cid")
        services_of(client).bots.now = lambda: utcnow() + timedelta(minutes=16)
        gone(invitation, "expired")
