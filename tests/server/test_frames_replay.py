"""The wire format, kept: today's server replays recorded streams of frames exactly.

Each scenario of :mod:`frames_scenarios` (the lobby, a whole game, chat and a player away,
the tutorial) drives the web app in-process and captures, in order, every REST answer and
every WebSocket frame its clients receive. The captures made by the server as it was when
they were recorded are kept in ``tests/data/frames/<scenario>.jsonl``, one item a line;
this test runs each scenario against the server of this checkout and compares item by
item. A difference is a change of the wire format: the failure names the scenario and the
item, with a diff of the two.

Re-record with::

    FLIP7_RECORD_FRAMES=1 pytest tests/server/test_frames_replay.py

ONLY for a deliberate change of the wire format, documented where the change is made
(docs/protocol.md, the commit message); never to make this test pass after a refactor.

Keys added to a frame on purpose, beside the ones recorded, go in :data:`ADDED_KEYS`
instead of a new recording, so that everything recorded is still compared.
"""

from __future__ import annotations

import difflib
import json
import os
from typing import Any

import pytest

pytest.importorskip("fastapi")

from frames_scenarios import FRAMES_DIR, SCENARIOS, ScenarioStopped, capture, dump

# Keys added to the wire format after the recording, ignored where the recording lacks
# them: item type (a frame's "type", such as "update" or "welcome"; "rest" for every REST
# answer) -> key names, at any depth of the frame or answer. A key listed here is dropped
# from the live item only where the recorded item has no such key at the same place, so a
# recorded key is still compared. Empty: the wire format is the recorded one.
# Example: {"welcome": frozenset({"decisions"}), "update": frozenset({"decisions"})}.
ADDED_KEYS: dict[str, frozenset[str]] = {
    # The deciding seat's options as objects beside its legal_decisions strings (issue "One
    # server house": the browser no longer parses decision text); REST answers with a
    # spectator's view say "decisions": null, as they do for bust_risk.
    **dict.fromkeys(("welcome", "update", "error"), frozenset({"decisions"})),
    # Issue "Fair shares" (lengths, sizes and writes): GET /api/limits tells the new limits.
    "rest": frozenset({
        "decisions", "max_target_score", "welcome_history_bytes",
        "bytes_per_minute_per_address", "bytes_burst_per_address", "scorecards_per_minute",
        "scorecards_burst", "scorecard_rounds_per_minute", "scorecard_rounds_burst",
        "renames_per_minute", "renames_burst", "scorecard_ttl",
    }),
}
# Issue 28 ("Fair shares"): new limits in GET /api/limits.
ADDED_KEYS["rest"] |= {"unattended_table_ttl", "replay_jobs_per_address",
                       "coach_jobs_per_address", "spectator_chat_per_minute",
                       "spectator_chat_burst", "rated_min_target_score",
                       "rated_games_per_pair_per_day", "owner_bot_seconds_per_minute",
                       "search_bots_per_table", "search_bot_tables_per_owner",
                       "ipv4_block_prefix", "ipv6_block_prefix", "rating_network_ipv4_prefix",
                       "rating_network_ipv6_prefix", "spectator_welcome_bytes_per_minute",
                       "spectator_welcome_bytes_burst"}
# Issue "Tables that wait": how long a suspended game waits for its players, and a
# table's pace (live, or turn-based with its hours per decision).
ADDED_KEYS["rest"] |= {"suspended_table_ttl", "pace", "move_hours", "email",
                       "email_codes_per_minute", "email_codes_burst"}
for _kind in ("welcome", "update", "error"):
    ADDED_KEYS[_kind] |= {"pace", "move_hours"}
# The bot API (docs/bot-api.md): a seat says whether a bot account holds it.
for _kind in ("welcome", "update", "error", "rest"):
    ADDED_KEYS[_kind] |= {"bot_account"}
# The lobby's list says at which tables the client hosts (GET /api/tables, X-Seat-Tokens:
# docs/protocol.md, ListedTable).
ADDED_KEYS["rest"] |= {"hosting"}

# Lines of the diff shown for a difference.
DIFF_LINES = 60


def item_type(item: dict[str, Any]) -> str:
    """The type :data:`ADDED_KEYS` knows an item by."""
    if item["item"] == "rest":
        return "rest"
    frame = item.get("frame")
    return str(frame.get("type")) if isinstance(frame, dict) else str(item["item"])


def without_added(live: Any, recorded: Any, added: frozenset[str]) -> Any:
    """``live`` without the keys of ``added`` that ``recorded`` lacks at the same place.

    >>> without_added({"a": 1, "new": 2, "b": [{"new": 3}]}, {"a": 1, "b": [{}]},
    ...               frozenset({"new"}))
    {'a': 1, 'b': [{}]}
    """
    if isinstance(live, dict) and isinstance(recorded, dict):
        return {
            key: without_added(value, recorded.get(key), added)
            for key, value in live.items()
            if key in recorded or key not in added
        }
    if isinstance(live, list) and isinstance(recorded, list):
        return [
            without_added(value, recorded[i] if i < len(recorded) else None, added)
            for i, value in enumerate(live)
        ]
    return live


def difference(scenario: str, index: int, recorded: Any, live: Any) -> str:
    """The failure message of item ``index``: the scenario, the item, a unified diff."""

    def lines(value: Any) -> list[str]:
        return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False).splitlines()

    diff = list(difflib.unified_diff(lines(recorded), lines(live), "recorded", "live",
                                     lineterm=""))
    if len(diff) > DIFF_LINES:
        diff = [*diff[:DIFF_LINES], f"... ({len(diff) - DIFF_LINES} more lines)"]
    return (f"scenario {scenario!r}, item {index} (line {index + 1} of "
            f"{FRAMES_DIR.name}/{scenario}.jsonl) differs from the recording:\n"
            + "\n".join(diff))


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_server_sends_the_recorded_frames(scenario: str) -> None:
    stopped: ScenarioStopped | None = None
    try:
        live = capture(scenario)
    except ScenarioStopped as exc:
        live, stopped = exc.items, exc
    path = FRAMES_DIR / f"{scenario}.jsonl"
    if os.environ.get("FLIP7_RECORD_FRAMES") == "1":
        if stopped is not None:
            raise stopped
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(live), encoding="utf-8")
        return
    recorded = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    # The first difference says most, also when the script then could not go on.
    for index, (old, new) in enumerate(zip(recorded, live, strict=False)):
        new = without_added(new, old, ADDED_KEYS.get(item_type(new), frozenset()))
        if new != old:
            pytest.fail(difference(scenario, index, old, new), pytrace=False)
    if len(live) != len(recorded):
        index = min(len(live), len(recorded))
        more, which = (live, "live") if len(live) > len(recorded) else (recorded, "recorded")
        message = (f"scenario {scenario!r}: {len(live)} items live, {len(recorded)} recorded; "
                   f"the first {which} item beyond: {json.dumps(more[index])[:2000]}")
        raise AssertionError(message) from stopped
    if stopped is not None:
        raise stopped
