"""The compiled batch simulator (flip7.fast): exact against the engine, reproducible, fast.

Exactness is checked by replay: every record the simulator writes must replay through
:func:`flip7.engine.record.replay` to the very rounds, totals and winners it scored, over
thousands of games with random §13 options, player counts, decks and policies; and the
conformance scenarios (tests/conformance) played through its scripted mode must give
their expected results.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import require

from flip7.core.rules import Rules
from flip7.engine.game import Game
from flip7.engine.record import replay

require("numba")
require("numpy")

import flip7.fast as fast  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
SRC = HERE.parent / "src"
# The valid scenarios: an invalid record is the engine's replay's to refuse, not the simulator's.
CASES = [
    path
    for path in sorted((HERE / "conformance").glob("*.json"))
    if "error_kind" not in json.loads(path.read_text(encoding="utf-8"))["expect"]
]
# A compile from nothing on a busy 2-core machine; a cached load takes well under a second.
COMPILE_BUDGET_S = 300.0


@pytest.fixture(scope="module", autouse=True)
def warmed() -> float:
    """Compile (or load from the cache) once for the module, within the budget."""
    seconds = fast.warm()
    assert seconds < COMPILE_BUDGET_S, f"compiling flip7.fast took {seconds:.0f} s"
    return seconds


def _random_rules(
    rng: random.Random, targets: tuple[int, ...] = (1, 40, 100, 200, 200)
) -> Rules:
    return Rules(
        brutal=rng.random() < 0.5,
        target_score=rng.choice(targets),
        lucky13_pair_flip7_count=rng.choice((1, 2)),
        unlucky7_triggers_on_transfer=rng.random() < 0.5,
        can_stay_with_empty_line=rng.random() < 0.5,
        deal_skips_inactive=rng.random() < 0.5,
        tie_break=rng.choice(("extra_rounds", "shared_win")),
        brutal_busted_scoring=rng.choice(("modifiers_only", "zero")),
        brutal_minus15_targets=rng.choice(("any_other_player", "non_busted_others")),
        swap_allow_cross_type=rng.random() < 0.5,
        pass_actions=rng.random() < 0.5,
        allow_two_players=rng.random() < 0.3,
    )


def _random_setup(rng: random.Random) -> tuple[Rules, int, int, list[str]]:
    rules = _random_rules(rng)
    players = rng.choice((3, 3, 4, 4, 5, 6, 7, 8))
    if rules.allow_two_players and rng.random() < 0.3:
        players = 2
    decks = rng.choice((1, 2))
    specs = [
        rng.choice(("random", "threshold", "threshold:t=18", "targeting:t=30", "ev"))
        for _ in range(players)
    ]
    return rules, players, decks, specs


def _check_replays(result: fast.FastResult) -> int:
    assert result.records is not None and result.results is not None
    assert len(result.records) == result.games
    for record, expected in zip(result.records, result.results, strict=True):
        got = replay(record).to_json()
        assert got == expected, json.dumps(record)
    return result.games


def test_records_replay_exactly_across_random_options() -> None:
    """8,000 games, 80 random setups: every §13 option, 2-8 players, 1 or 2 decks, every
    policy; each record replays through the engine to the simulator's own result. (About
    15 CPU-seconds; how fast is `flip7 bench --fast`'s to show, never a test's.)"""
    rng = random.Random(17)
    checked = 0
    for batch in range(80):
        rules, players, decks, specs = _random_setup(rng)
        result = fast.simulate(100, players, rules, specs, seed=batch, records=True, decks=decks)
        checked += _check_replays(result)
    assert checked == 8000


def test_big_tables_replay_exactly() -> None:
    """19 to 36 players on two decks: reshuffles and, under pass_actions, long chains."""
    rng = random.Random(5)
    for players in (19, 27, 36):
        rules = _random_rules(rng).replace(target_score=rng.choice((60, 200)))
        result = fast.simulate(20, players, rules, "random", seed=players, records=True)
        _check_replays(result)
        result = fast.simulate(20, players, rules, "targeting", seed=players, records=True)
        _check_replays(result)


def test_decisions_are_exactly_the_engines_choices() -> None:
    """Stepping the engine through the records: each decision written is asked by the
    engine (two or more legal options) and is one of them, and every decision the engine
    asks for is written (no forced one, none missing)."""
    rng = random.Random(3)
    for batch in range(8):
        rules, players, decks, specs = _random_setup(rng)
        result = fast.simulate(25, players, rules, specs, seed=100 + batch, records=True,
                               decks=decks)  # fmt: skip
        assert result.records is not None
        for record in result.records:
            game = Game.new(players, rules, decks=decks, dealer=record["dealer"],
                            explicit=True, events=False)  # fmt: skip
            draws, decisions = iter(record["draws"]), iter(record["decisions"])
            while not game.over:
                if game.needs_card:
                    game.draw(next(draws))
                    continue
                legal = [str(d) for d in game.legal_decisions()]
                assert len(legal) >= 2
                decision = next(decisions)
                assert decision in legal, (decision, legal)
                game.apply(decision)
            assert next(draws, None) is None and next(decisions, None) is None


def test_every_valid_conformance_case_is_played() -> None:
    assert len(CASES) >= 31  # the 38 cases of 2026-12 less the 7 invalid records


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_conformance_case_in_scripted_mode(path: Path) -> None:
    """Each valid conformance scenario played through the compiled loop (its draws as the
    card order, its decisions as the choices) gives the expected replay result."""
    case = json.loads(path.read_text(encoding="utf-8"))
    assert fast.play_record(case["record"]) == case["expect"]


def test_scripted_mode_reproduces_simulated_games() -> None:
    result = fast.simulate(50, 5, Rules(brutal=True), "ev", seed=9, records=True)
    assert result.records is not None and result.results is not None
    for record, expected in zip(result.records, result.results, strict=True):
        assert fast.play_record(record) == expected


def test_seeds_reproduce_games_whatever_the_batching() -> None:
    a = fast.simulate(30, 4, seed=11, records=True)
    b = fast.simulate(10, 4, seed=11, records=True)
    assert a.records is not None and b.records is not None
    assert a.records[:10] == b.records
    assert fast.simulate(30, 4, seed=11).wins == a.wins
    assert fast.simulate(30, 4, seed=12, records=True).records != a.records


def test_result_figures() -> None:
    result = fast.simulate(2000, 4, policies="threshold:t=27", seed=1)
    assert result.games == 2000 and result.players == 4
    assert sum(result.wins) == result.games + result.shared  # extra_rounds: never shared
    assert result.shared == 0
    assert 5 < result.mean_rounds < 20
    assert result.games_per_second > 0
    shared = fast.simulate(2000, 4, Rules(tie_break="shared_win", target_score=20), seed=1)
    assert shared.shared > 0 and sum(shared.wins) > shared.games
    assert fast.simulate(0).games == 0


def test_policies_differ_in_strength() -> None:
    """The targeting policy beats random play, seat for seat."""
    result = fast.simulate(3000, 4, policies=("targeting", "random", "random", "random"),
                           seed=2)  # fmt: skip
    assert result.wins[0] > 0.5 * result.games


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"policies": "nobody"}, "unknown policy"),
        ({"policies": "threshold:t=500"}, "t must be"),
        ({"policies": "threshold:x=5"}, "only t"),
        ({"policies": "random:t=5"}, "no parameter"),
        ({"policies": ("random",) * 3}, "4 players need 4 policies"),
        ({"players": 2}, "3 to 36 players"),
        ({"players": 37}, "3 to 36 players"),
        ({"players": 20, "decks": 1}, "need 2 decks"),
        ({"dealer": 4}, "dealer must be"),
        ({"seed": -1}, "seed must be"),
    ],
)
def test_bad_arguments_are_typed_errors(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(fast.FastError, match=words):
        fast.simulate(1, **kwargs)


def test_missing_numba_says_how_to_install() -> None:
    code = "import sys; sys.modules['numba'] = None\nimport flip7.fast\n"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode != 0
    assert "pip install flip7[fast]" in out.stderr


def test_second_start_loads_from_the_cache() -> None:
    """A fresh process imports, warms (numba's on-disk cache) and simulates quickly."""
    code = (
        "import time; t = time.perf_counter()\n"
        "import flip7.fast as f; f.warm(); f.simulate(100)\n"
        "print(time.perf_counter() - t)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert float(out.stdout.strip()) < 10.0
