"""The host's bot invitations in the browser (botinvites.js), run as they are in Node:
the lobby offers them beside a table this browser hosts that waits for players with an
empty seat, and both it and the waiting room list the bot accounts not yet seated."""

from __future__ import annotations

from js_helpers import run_js_function


def seats(*kinds: str) -> list[dict[str, str]]:
    return [{"kind": kind} for kind in kinds]


def test_the_lobby_offers_bot_invites_at_a_waiting_table_it_hosts() -> None:
    """Only where the lobby's list says ``hosting`` (a seat other than the host's, or no
    seat, is never offered them: the server would refuse it, ``not_host``)."""
    cases = [
        {"state": "waiting", "seats": seats("human", "empty", "empty"), "hosting": True},
        {"state": "waiting", "seats": seats("human", "empty", "empty"), "hosting": False},
        {"state": "waiting", "seats": seats("human", "empty", "empty")},
        {"state": "waiting", "seats": seats("human", "bot", "human"), "hosting": True},
        {"state": "playing", "seats": seats("human", "empty", "bot"), "hosting": True},
        {"state": "over", "seats": seats("human", "empty", "bot"), "hosting": True},
    ]
    offered = run_js_function("botinvites.js", "offersBotInvites(tbl)", cases,
                              "offersBotInvites(c)")
    assert offered == [True, False, False, False, False, False]


def test_the_bot_accounts_seated_already_are_not_offered() -> None:
    listed = {"bots": [{"id": "a", "name": "Robo", "online": True},
                       {"id": "b", "name": "Zed", "online": False}]}
    cases = [[listed, ["a"]], [listed, []], [None, []]]
    offered = run_js_function("botinvites.js", "invitableBots(data, seated)", cases,
                              "invitableBots(c[0], new Set(c[1])).map((b) => b.id)")
    assert offered == [["b"], ["a", "b"], []]
