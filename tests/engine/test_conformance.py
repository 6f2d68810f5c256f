"""The shared conformance scenarios (tests/conformance, a byte-exact copy of ../shared/conformance).

Each case replays its ``record`` and must give exactly ``expect``: the replay result of
RECORD.md §6, or a :class:`RecordError` of the expected kind at the expected entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flip7 import Record, RecordError, ReplayResult, replay, replay_events, replay_game
from flip7.core.events import RoundScored

HERE = Path(__file__).resolve().parents[1]
CASES_DIR = HERE / "conformance"
SHARED_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
CASE_FILES = sorted(CASES_DIR.glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


VALID_FILES = [p for p in CASE_FILES if "error_kind" not in _load(p)["expect"]]


def test_in_repo_copy_has_all_cases() -> None:
    assert (CASES_DIR / "README.md").is_file()
    assert len(CASE_FILES) >= 38


@pytest.mark.skipif(not SHARED_DIR.is_dir(), reason="no ../shared/conformance next to this clone")
def test_copy_is_byte_identical_to_shared() -> None:
    ours = sorted(p.name for p in CASES_DIR.iterdir() if p.is_file())
    theirs = sorted(p.name for p in SHARED_DIR.iterdir() if p.is_file())
    assert ours == theirs
    for name in theirs:
        assert (CASES_DIR / name).read_bytes() == (SHARED_DIR / name).read_bytes(), name


def test_case_files_are_well_formed() -> None:
    for path in CASE_FILES:
        case = _load(path)
        assert {"name", "description", "rules_refs", "record", "expect"} <= set(case), path.name
        expect = case["expect"]
        if "error_kind" in expect:
            assert expect["error_kind"] in ("draws", "decisions", "record"), path.name
            if expect["error_kind"] != "record":
                assert isinstance(expect["index"], int), path.name
        else:
            assert set(expect) == {"over", "rounds", "totals", "winners"}, path.name


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_conformance_case(path: Path) -> None:
    case = _load(path)
    record, expect = case["record"], case["expect"]
    if "error_kind" in expect:
        with pytest.raises(RecordError) as info:
            replay(record)
        assert info.value.kind == expect["error_kind"], str(info.value)
        if expect["error_kind"] == "record":
            assert info.value.index is None
        else:
            assert info.value.index == expect["index"], str(info.value)
        return
    result = replay(record)
    assert result.to_json() == expect
    # The same record read from its JSON text, and the library's other entry points.
    assert replay(json.dumps(record)) == result
    assert replay(Record.from_json(record)) == result
    game, events = replay_events(record)
    assert ReplayResult.of(game) == result
    scored = [e for e in events if isinstance(e, RoundScored)]
    assert len(scored) == len(result.rounds)
    for i, (event, rnd, totals) in enumerate(
        zip(scored, result.rounds, _running_totals(result), strict=True)
    ):
        assert event.round == i + 1
        assert (event.dealer, event.scores, event.busted, event.flip7, event.minus15) == (
            rnd.dealer,
            rnd.scores,
            rnd.busted,
            rnd.flip7,
            rnd.minus15,
        )
        assert list(event.totals) == totals


def _running_totals(result: ReplayResult) -> list[list[int]]:
    totals = [0] * len(result.totals)
    out = []
    for r in result.rounds:
        totals = [t + s for t, s in zip(totals, r.scores, strict=True)]
        if r.minus15 is not None:
            totals[r.minus15] -= 15
        out.append(list(totals))
    return out


@pytest.mark.parametrize("path", VALID_FILES, ids=[p.stem for p in VALID_FILES])
def test_conformance_record_round_trip(path: Path) -> None:
    """A valid case, written back from the replayed game, replays to the same result."""
    case = _load(path)
    game = replay_game(case["record"])
    again = Record.from_game(game)
    assert len(again.draws) == len(case["record"]["draws"])
    assert len(again.decisions) == len(case["record"]["decisions"])
    assert replay(Record.loads(again.dumps())).to_json() == case["expect"]
