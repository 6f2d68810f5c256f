"""The host's bot invitations in the browser (botinvites.js), run as they are in Node:
the lobby offers them beside a table this browser holds a seat at that waits for players
with an empty seat, and both it and the waiting room list the bot accounts not yet seated."""

from __future__ import annotations

from js_helpers import run_js_function


def seats(*kinds: str) -> list[dict[str, str]]:
    return [{"kind": kind} for kind in kinds]


def test_the_lobby_offers_bot_invites_at_a_waiting_table_of_its_own() -> None:
    cases = [
        [{"state": "waiting", "seats": seats("human", "empty", "empty")}, True],
        [{"state": "waiting", "seats": seats("human", "empty", "empty")}, False],
        [{"state": "waiting", "seats": seats("human", "bot", "human")}, True],
        [{"state": "playing", "seats": seats("human", "empty", "bot")}, True],
        [{"state": "over", "seats": seats("human", "empty", "bot")}, True],
    ]
    offered = run_js_function("botinvites.js", "offersBotInvites(tbl, mine)", cases,
                              "offersBotInvites(c[0], c[1])")
    assert offered == [True, False, False, False, False]


def test_the_bot_accounts_seated_already_are_not_offered() -> None:
    listed = {"bots": [{"id": "a", "name": "Robo", "online": True},
                       {"id": "b", "name": "Zed", "online": False}]}
    cases = [[listed, ["a"]], [listed, []], [None, []]]
    offered = run_js_function("botinvites.js", "invitableBots(data, seated)", cases,
                              "invitableBots(c[0], new Set(c[1])).map((b) => b.id)")
    assert offered == [["b"], ["a", "b"], []]
