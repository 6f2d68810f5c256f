"""The compiled simulator's ``learned`` policy (flip7.fast): R6's value network in the kernel.

The compiled network must give R6's own chance to win (ValueNet.chance) on any totals; the
games it plays must replay exactly through the engine (as every policy's, tests/fast/test_fast.py);
each Hit or Stay it makes by the network must be the one-card rule of its docstring, worked
out here again in Python with R6's own pieces (the public view, the line keys, the network);
and a bad spec or a bad network file is a typed error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import require

from flip7.core.decisions import DecisionKind
from flip7.core.rules import Rules
from flip7.engine.game import Game
from flip7.engine.record import replay

require("numba")
require("numpy")

import numpy as np  # noqa: E402
from test_fast import _random_rules  # noqa: E402

import flip7.fast as fast  # noqa: E402
from flip7.analysis.solver import flip7_reached  # noqa: E402
from flip7.bots.ladder import keeps_modifiers  # noqa: E402
from flip7.bots.learned import WEIGHTS, ValueNet  # noqa: E402
from flip7.bots.lines import BUST, NUMBER_SLOTS, key_count, key_sum, receive, score  # noqa: E402
from flip7.bots.public import PublicView  # noqa: E402
from flip7.bots.winprob import endgame, own_line  # noqa: E402

_U7 = 14


@pytest.fixture(scope="module", autouse=True)
def warmed() -> None:
    fast.warm()


def _save_net(path: Path, shapes: list[tuple[int, int]], seed: int) -> Path:
    """A network file as flip7 train writes one (random weights of the given shapes)."""
    rng = np.random.default_rng(seed)
    arrays: dict[str, Any] = {"layers": np.array(len(shapes))}
    for i, (a, b) in enumerate(shapes):
        arrays[f"w{i}"] = rng.normal(0.0, 0.6, (a, b)).astype(np.float32)
        arrays[f"b{i}"] = rng.normal(0.0, 0.3, (b,)).astype(np.float32)
    np.savez(path, **arrays)
    return path


def _random_totals(rng: random.Random, n: int, target: int) -> list[int]:
    totals = [rng.randint(-40, target + 45) for _ in range(n)]
    if rng.random() < 0.3:  # ties at the top, over the target or not
        totals[rng.randrange(n)] = max(totals)
    return totals


@pytest.mark.parametrize("players", range(2, 9))
def test_compiled_chance_is_r6s(players: int) -> None:
    """The kernel's network and game-over rule give ValueNet.chance on random totals."""
    net = ValueNet.load(WEIGHTS)
    rng = random.Random(players)
    for _ in range(400):
        target = rng.choice((1, 40, 100, 200, 200, 300))
        totals = _random_totals(rng, players, target)
        seat = rng.randrange(players)
        want = float(net.chance(np.array([totals], dtype=np.float64), seat, target)[0])
        assert fast.learned_chance(totals, seat, target) == pytest.approx(want, abs=1e-9)


def test_compiled_chance_of_another_network(tmp_path: Path) -> None:
    """A network of other widths and depth, read from its file, is the kernel's too."""
    path = _save_net(tmp_path / "other.npz", [(8, 5), (5, 11), (11, 3), (3, 1)], seed=4)
    net = ValueNet.load(path)
    rng = random.Random(8)
    for _ in range(300):
        n = rng.randint(2, 8)
        target = rng.choice((50, 200))
        totals = _random_totals(rng, n, target)
        seat = rng.randrange(n)
        want = float(net.chance(np.array([totals], dtype=np.float64), seat, target)[0])
        got = fast.learned_chance(totals, seat, target, weights=str(path))
        assert got == pytest.approx(want, abs=1e-9)
    assert fast.learned_chance([10, 20, 30], 0, 200, str(path)) != fast.learned_chance(
        [10, 20, 30], 0, 200
    )


def _reference(view: PublicView, net: ValueNet, reach: int) -> bool | None:
    """The learned policy's Hit (True) or Stay by the network, worked out with R6's pieces;
    ``None`` where it plays as ``ev`` (before the end, a Modifier it would keep, a tie) or
    the two chances are too close to tell apart across float rounding."""
    if not endgame(view, reach) or keeps_modifiers(view):
        return None
    line = own_line(view)
    if line is None:
        return False
    me = view.seat
    # The line as the kernel scores it, an Unlucky 7 that came by a Swap or Steal without
    # its wipe (unlucky7_triggers_on_transfer false) included.
    assert key_sum(line.key) == view.sums[me] and key_count(line.key) == len(view.lines[me])
    target, brutal = view.target_score, line.brutal
    finals = [view.totals[s] + view.scores[s] for s in range(view.n)]

    def chance(x: int) -> float:
        row = list(finals)
        row[me] = view.totals[me] + x
        return float(net.chance(np.array([row], dtype=np.float64), me, target)[0])

    d, p = line.divides, line.penalty
    stay = chance(score(line.key, divides=d, penalty=p, brutal=brutal))
    bust = -p if view.rules.busted_modifiers_count else 0
    acc = 0.0
    for slot in range(NUMBER_SLOTS):
        count = line.counts[slot]
        if not count:
            continue
        new = receive(line.key, slot)
        if new == BUST:
            x = bust
        elif slot == _U7:
            x = 7
        elif flip7_reached(new, distinct=line.distinct):
            x = score(new, divides=d, penalty=p, brutal=brutal, flip7=True)
        else:
            x = score(new, divides=d, penalty=p, brutal=brutal)
        acc += count * chance(x)
    hit = acc / sum(line.counts)
    gap = hit - stay
    if abs(gap - 1e-9) < 1e-8 or abs(abs(gap) - 1e-6) < 1e-8:
        return None
    if gap > 1e-9:
        return True
    return None if abs(gap) < 1e-6 else False


def _check(result: fast.FastResult, learned: dict[int, tuple[ValueNet, int]]) -> int:
    """Each record replays to the simulator's result; each Hit or Stay of a learned seat
    that the network decides is the reference's. Returns how many such were checked."""
    assert result.records is not None and result.results is not None
    checked = 0
    for record, expected in zip(result.records, result.results, strict=True):
        assert replay(record).to_json() == expected, json.dumps(record)
        game = Game.new(len(record["players"]), Rules.from_json(record["rules"]),
                        decks=record["decks"], dealer=record["dealer"], explicit=True,
                        events=False)  # fmt: skip
        draws, decisions = iter(record["draws"]), iter(record["decisions"])
        while not game.over:
            if game.needs_card:
                game.draw(next(draws))
                continue
            decision = next(decisions)
            seat = game.to_decide
            if seat in learned and game.decision_kind is DecisionKind.HIT_OR_STAY:
                net, reach = learned[seat]
                want = _reference(PublicView(game, seat), net, reach)
                if want is not None:
                    assert decision == ("hit" if want else "stay"), json.dumps(record)
                    checked += 1
            game.apply(decision)
    return checked


def test_learned_games_replay_and_follow_the_network(tmp_path: Path) -> None:
    """300 games over 30 random rule sets (Brutal and every other option, 2-8 players, 1 or
    2 decks), learned seats beside every other policy, R6's network and another, several
    reaches: every record replays exactly, every network decision is the reference's."""
    other = _save_net(tmp_path / "other.npz", [(8, 6), (6, 1)], seed=2)
    nets = {None: ValueNet.load(WEIGHTS), str(other): ValueNet.load(other)}
    rng = random.Random(26)
    checked = 0
    for batch in range(30):
        rules = _random_rules(rng, targets=(40, 100, 200, 200))
        players = rng.choice((3, 4, 4, 5, 6, 8))
        if rules.allow_two_players and rng.random() < 0.3:
            players = 2
        specs, learned = [], {}
        for s in range(players):
            if s == 0 or rng.random() < 0.4:
                weights = rng.choice((None, None, str(other)))
                reach = rng.choice((70, 70, 30, 1000))
                spec = f"learned:reach={reach}" + ("" if weights is None else f",weights={weights}")
                learned[s] = (nets[weights], reach)
            else:
                spec = rng.choice(("random", "threshold", "targeting", "ev"))
            specs.append(spec)
        decks = rng.choice((1, 2))
        result = fast.simulate(10, players, rules, specs, seed=batch, records=True, decks=decks)
        assert result.records is not None
        named = {"random": "random", "threshold": "threshold:t=27", "targeting": "targeting:t=27",
                 "ev": "ev:t=27"}  # fmt: skip
        assert result.records[0]["meta"]["policies"] == [named.get(x, x) for x in specs]
        checked += _check(result, learned)
    assert checked > 3000  # about 7,000


def test_scripted_mode_reproduces_learned_games() -> None:
    result = fast.simulate(30, 4, Rules(brutal=True), ("learned", "ev", "learned", "targeting"),
                           seed=3, records=True)  # fmt: skip
    assert result.records is not None and result.results is not None
    for record, expected in zip(result.records, result.results, strict=True):
        assert fast.play_record(record) == expected


def test_learned_is_ev_before_its_reach() -> None:
    """With a reach of 0 and shared wins (so that no round starts with a total at the
    target), the end of the game never comes before it is over: ``learned`` plays exactly
    as ``ev``; with R6's reach it plays otherwise."""
    rules = Rules(tie_break="shared_win")
    others = ("targeting", "targeting", "targeting")

    def decisions(spec: str) -> list[list[str]]:
        result = fast.simulate(300, 4, rules, (spec, *others), seed=5, records=True)
        assert result.records is not None
        return [record["decisions"] for record in result.records]

    assert decisions("learned:reach=0") == decisions("ev")
    assert decisions("learned") != decisions("ev")


def test_parse_learned_specs(tmp_path: Path) -> None:
    path = _save_net(tmp_path / "net.npz", [(8, 4), (4, 1)], seed=1)
    assert fast.parse_policy("learned") == ("learned", 70)
    assert fast.parse_policy("Learned:reach=40") == ("learned", 40)
    assert fast.parse_policy("learned:55") == ("learned", 55)
    assert fast.parse_policy(f"learned:reach=20,weights={path}") == ("learned", 20)
    assert fast.parse_policy(f"learned:weights={path}") == ("learned", 70)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("learned:t=5", "learned takes reach"),
        ("learned:depth=3", "learned takes reach"),
        ("learned:weights=", "learned takes reach"),
        ("learned:reach=-1", "reach must be an integer 0-1000"),
        ("learned:reach=1001", "reach must be an integer 0-1000"),
        ("learned:reach=far", "reach must be an integer 0-1000"),
        ("learned:weights=/nonexistent/r6.npz", "weights are missing"),
    ],
)
def test_bad_learned_specs_are_typed_errors(spec: str, words: str) -> None:
    with pytest.raises(fast.FastError, match=words):
        fast.parse_policy(spec)
    with pytest.raises(fast.FastError, match=words):
        fast.simulate(1, 3, policies=("random", "random", spec))


def test_bad_network_files_are_typed_errors(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not a network", encoding="utf-8")
    wrong_in = _save_net(tmp_path / "seven.npz", [(7, 4), (4, 1)], seed=1)
    two_out = _save_net(tmp_path / "two.npz", [(8, 4), (4, 2)], seed=1)
    unchained = tmp_path / "unchained.npz"
    rng = np.random.default_rng(0)
    np.savez(unchained, layers=np.array(2), w0=rng.normal(size=(8, 4)), b0=np.zeros(4),
             w1=rng.normal(size=(5, 1)), b1=np.zeros(1))  # fmt: skip
    bad_bias = tmp_path / "bias.npz"
    np.savez(bad_bias, layers=np.array(1), w0=rng.normal(size=(8, 1)), b0=np.zeros(3))
    nan = tmp_path / "nan.npz"
    np.savez(nan, layers=np.array(1), w0=np.full((8, 1), np.nan), b0=np.zeros(1))
    cases = [
        (text, "cannot read R6's value network"),
        (wrong_in, "not R6's value network"),
        (two_out, "not R6's value network"),
        (unchained, "layer 1 is"),
        (bad_bias, "layer 0 is"),
        (nan, "not finite"),
    ]
    for path, words in cases:
        with pytest.raises(fast.FastError, match=words):
            fast.parse_policy(f"learned:weights={path}")
        with pytest.raises(fast.FastError, match=words):
            fast.learned_chance([1, 2, 3], 0, weights=str(path))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (([5], 0), "totals must be"),
        (([5, 6.5], 0), "totals must be"),
        (([5, 6], 2), "seat must be"),
        (([5, 6], 0, 0), "target must be"),
    ],
)
def test_bad_chance_arguments_are_typed_errors(args: tuple[Any, ...], words: str) -> None:
    with pytest.raises(fast.FastError, match=words):
        fast.learned_chance(*args)
