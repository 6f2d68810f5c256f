"""The server's sentences as the browser shows them (i18n.js serverSentence), run as they
are in Node: the review of issue "Tables that wait" found raw lowercase sentences with API
paths in toasts."""

from __future__ import annotations

from js_helpers import run_js_function


def test_server_sentences_are_capitalised_without_api_paths() -> None:
    cases = [
        "your identity already has a seat at this table",
        "you cannot hand your own seat to a bot; leave the table (POST /leave) to let a bot "
        "play it for the rest of the game",
        "add one first (PUT /api/players/me/email)",
        "Already fine.",
        "",
    ]
    shown = run_js_function("i18n.js", "serverSentence(text)", cases, "serverSentence(c)")
    assert shown == [
        "Your identity already has a seat at this table",
        "You cannot hand your own seat to a bot; leave the table to let a bot play it for the "
        "rest of the game",
        "Add one first",
        "Already fine.",
        "",
    ]
