"""R6, the learned bot: ``flip7 train`` writes a Hit/Stay network (from R5's searches) and
the first R6's value network (by self-play) that play, the shipped networks play legal
moves from the seat's view only, and without numpy the bot says what is missing."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from conftest import python_json, require
from engine_helpers import reshuffled
from test_bots import Checked, _decision_points, kinds_played, view_of_public

from flip7 import Game
from flip7.bots import LADDER, hitnet, make_bot
from flip7.bots.hitnet import FEATURES as HIT_FEATURES
from flip7.bots.hitnet import (
    HIT_WEIGHTS,
    USE_FEATURES,
    USE_WEIGHTS,
    HitNet,
    UseNet,
    hit_features,
    use_features,
)
from flip7.bots.judge import Judge
from flip7.bots.learned import (
    WEIGHTS,
    LearnedBot,
    LearnedBotError,
    ValueNet,
    ValueNetBot,
    features,
)
from flip7.bots.public import PublicView
from flip7.bots.winprob import WinProbBot
from flip7.cli import main
from flip7.core.decisions import HIT, STAY, DecisionKind, Give


def test_flip7_train_writes_a_hit_network_that_plays(tmp_path: Path) -> None:
    require("torch")
    np = require("numpy")
    out, uses = tmp_path / "tiny.npz", tmp_path / "tiny_uses.npz"
    args = ["train", "--games", "4", "--epochs", "2", "--players", "3,4", "--iters", "100"]
    args += ["--hidden", "4", "--seed", "3", "--members", "2"]
    assert main([*args, "--jobs", "2", "--out", str(out), "--uses-out", str(uses)]) == 0
    net, use_net = HitNet.load(out), UseNet.load(uses)
    # Two networks of 4 hidden units each, averaged as one of 8.
    assert [w.shape for w, _ in net.layers] == [(HIT_FEATURES, 8), (8, 1)]
    assert [w.shape for w, _ in use_net.layers] == [(USE_FEATURES, 8), (8, 1)]
    made = "flip7 train --seed 3 --games 4 --players 3,4 --hidden 4 --epochs 2 --iters 100"
    made += " --members 2"
    made += f" --out {shlex.quote(str(out))} --uses-out {shlex.quote(str(uses))}"
    assert net.meta["command"] == use_net.meta["command"] == made and net.meta["seconds"]
    float(net.meta["held_out_gain"]), float(use_net.meta["held_out_gain"])
    # The same arguments give the same networks, whatever the processes that play; the
    # searched decisions kept (--samples) give them again without playing.
    again, again_uses = tmp_path / "again.npz", tmp_path / "again_uses.npz"
    kept = ["--samples", str(tmp_path / "samples.npz")]
    for _ in range(2):
        assert main([*args, "--out", str(again), "--uses-out", str(again_uses), *kept]) == 0
        pairs = [(net, HitNet.load(again)), (use_net, UseNet.load(again_uses))]
        for one, other in pairs:
            for (w1, b1), (w2, b2) in zip(one.layers, other.layers, strict=True):
                assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    game = Game.new(4, seed=11, events=False)
    seats = [Checked(LearnedBot(seed=s, weights=out, use_weights=uses)) for s in range(4)]
    game.play(seats)
    assert game.over and game.winners


def test_flip7_train_writes_a_value_network_that_plays(tmp_path: Path) -> None:
    require("torch")
    np = require("numpy")
    out = tmp_path / "tiny.npz"
    args = ["train", "--net", "value", "--games", "6", "--iterations", "2", "--epochs", "2"]
    args += ["--players", "3,4"]
    assert main([*args, "--hidden", "4", "--seed", "3", "--out", str(out)]) == 0
    net = ValueNet.load(out)
    assert [w.shape for w, _ in net.layers] == [(8, 4), (4, 1)]
    made = (
        "flip7 train --net value --seed 3 --games 6 --iterations 2 --players 3,4 --hidden 4 "
        "--epochs 2"
    )
    assert net.meta["command"] == f"{made} --out {shlex.quote(str(out))}" and net.meta["seconds"]
    # The same arguments give the same network.
    again = tmp_path / "again.npz"
    assert main([*args, "--hidden", "4", "--seed", "3", "--out", str(again)]) == 0
    for (w1, b1), (w2, b2) in zip(net.layers, ValueNet.load(again).layers, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    game = Game.new(4, seed=11, events=False)
    seats = [Checked(ValueNetBot(seed=s, weights=out)) for s in range(4)]
    game.play(seats)
    assert game.over and game.winners


def test_flip7_train_says_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--players", "2", "--out", "x.npz"]) != 0
    assert "each table size must be 3 to 18" in capsys.readouterr().err


def test_the_shipped_networks_are_small_and_say_how_they_were_made() -> None:
    require("numpy")
    for path in (WEIGHTS, HIT_WEIGHTS, USE_WEIGHTS):
        assert path.stat().st_size < 400_000
    net = ValueNet.load(WEIGHTS)
    assert net.meta["command"].startswith("flip7 train ")
    assert float(net.meta["held_out_loss"]) < float(net.meta["r4_model_loss"])
    hit = HitNet.load(HIT_WEIGHTS)
    data = Path("src/flip7/bots/data")
    assert hit.meta["command"] == (
        f"flip7 train --seed 1 --games 20000 --out {data / 'r6_hit.npz'} "
        f"--uses-out {data / 'r6_uses.npz'}"
    )
    # On R5's searches held out of the fit, its choices gain over R4's.
    assert float(hit.meta["held_out_gain"]) > 0
    uses = UseNet.load(USE_WEIGHTS)
    assert uses.meta["command"] == hit.meta["command"]
    assert float(uses.meta["held_out_gain"]) > 0
    assert LADDER["learned"] is LearnedBot and LearnedBot.rung == "R6"


def test_hit_features_describe_the_table_from_the_seat() -> None:
    """Ann (12) decides; Cyd (9) is the other seat with the most points, then Bob (5)."""
    game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
    for code in ["12", "5", "9"]:
        game.draw(code)
    row = [round(x, 3) for x in hit_features(PublicView(game))]
    assert len(row) == HIT_FEATURES
    # three players; 200 to go; a score of 12 from one Number card; Active; Cyd 3 behind
    assert row[:7] == [-0.5, 2.0, 0.24, 0.143, 1.0, 2.0, -0.06]
    # Cyd: there, level on totals, scores 9, Active, not busted, one card, ... 191 to go
    assert row[7:13] == [1.0, 0.0, 0.18, 1.0, 0.0, 0.143] and row[16] == 1.91
    assert row[17:20] == [1.0, 0.0, 0.1] and row[27:37] == [0.0] * 10  # Bob; no third
    # 12 points: one more card busts one time in 11 or so (the other 12s); the stay
    # score; nobody done is over the target, and staying ends nothing
    assert 0.05 < row[42] < 0.15 and row[44] == 0.24 and row[-2:] == [0.0, 0.0]


def _ann_steals() -> tuple[PublicView, Judge]:
    """Ann (12), Bob (5) and Cyd (9) are dealt; Ann hits a Steal."""
    game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
    for code in ["12", "5", "9"]:
        game.draw(code)
    game.apply(HIT)
    game.draw("STEAL")
    view = PublicView(game)
    return view, WinProbBot(seed=1).judge(view)


def test_use_features_describe_each_use_by_what_it_changes() -> None:
    """Ann (12) steals: Cyd's 9 or Bob's 5. Each row is the table, then the use."""
    view, judge = _ann_steals()
    ranked = judge.ranked(view.options)
    assert [str(d) for _, d in ranked] == ["steal 2 9", "steal 1 5"]
    rows = use_features(view, judge, ranked)
    assert [len(r) for r in rows] == [USE_FEATURES] * 2
    assert rows[0][:41] == rows[1][:41] == hit_features(view)[:41]  # the table
    nine, five = (r[41:] for r in rows)
    assert nine[:7] == five[:7] == [0, 0, 1, 0, 0, 0, 1]  # a Steal, into Ann's own line
    assert nine[7] > five[7] > 0  # Ann's expected score gains more with the 9
    assert round(nine[19], 3) == round(9 / 13, 3) and round(five[19], 3) == round(5 / 13, 3)
    assert (nine[17], nine[18], five[18]) == (0.0, 0.0, 1 / 6)  # the judge's best, first
    assert nine[21] == five[21] == 0.0  # no chance to bust anyone
    # The lines left (Ann, then Bob and Cyd, 9 numbers each, then a fourth seat's zeros):
    # each one's chance that its next card busts it (104 cards unseen: 11 more 12s, 8 9s,
    # 4 5s), its Number cards, ..., no Modifiers, Active, not stayed, and how many seats
    # after Ann it plays.
    def lines(row: list[float]) -> list[list[float]]:
        return [row[i : i + 9] for i in range(23, 59, 9)]

    ann, bob, cyd, none = lines(nine)
    assert [*ann[:2], *bob[:2], *cyd[:2]] == pytest.approx([19 / 104, 2 / 7, 4 / 104, 1 / 7, 0, 0])
    assert [*ann[4:], *bob[4:], *cyd[4:]] == pytest.approx(
        [0, 0, 1, 0, 0, 0, 0, 1, 0, 1 / 3, 0, 0, 1, 0, 2 / 3]
    )
    assert none == [0.0] * 9
    ann5, bob5, cyd5, _ = lines(five)
    assert [*ann5[:2], *bob5[:2], *cyd5[:2]] == pytest.approx(
        [15 / 104, 2 / 7, 0, 0, 8 / 104, 1 / 7]
    )
    # What a line is worth if it plays on: more with 12 and 9 than with 12 and 5.
    assert ann[2] > ann5[2] > 0 and cyd5[2] > 0 and bob5[2] > 0  # an empty line too
    # The draw pile's Modifiers and Actions, the same for both.
    assert nine[59:] == five[59:] and 0 < nine[59] < 1 and 0 < nine[60] < 1


def test_a_give_leaves_its_modifier_in_the_line_it_goes_to() -> None:
    """Ann (12) is dealt, then Bob a −4, which he gives: the line it goes to shows it."""
    game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
    game.draw("12")
    game.draw("-4")
    view = PublicView(game)
    assert view.seat == 1
    judge = WinProbBot(seed=1).judge(view)
    ranked = judge.ranked(view.options)
    rows = use_features(view, judge, ranked)
    assert sorted(str(d) for _, d in ranked) == ["give 0", "give 1", "give 2"]
    for (_, give), row in zip(ranked, rows, strict=True):
        assert isinstance(give, Give) and row[41] == 1.0  # a Give
        lines = [row[41 + i : 41 + i + 9] for i in range(23, 50, 9)]
        # Each line's −N over 10, by the seats after Bob's that it plays (5th and 9th).
        penalty = {round(line[8] * 3): line[5] for line in lines}
        assert penalty == {(s - 1) % 3: 0.4 if s == give.seat else 0.0 for s in range(3)}


def test_the_uses_network_chooses_from_the_judges_shortlist() -> None:
    """A network that only counts the card stolen (less is better) overrules the judge."""
    np = require("numpy")
    view, judge = _ann_steals()
    shortlist = judge.shortlist(view.options, 6, 20.0)
    w = np.zeros((USE_FEATURES, 1))
    w[41 + 19, 0] = -1.0  # the value of the card moved
    assert str(UseNet([(w, np.zeros(1))], {}).choose(view, judge, shortlist)) == "steal 1 5"
    assert str(UseNet([(-w, np.zeros(1))], {}).choose(view, judge, shortlist)) == "steal 2 9"
    # Equal outputs keep the judge's best.
    assert str(UseNet([(0 * w, np.zeros(1))], {}).choose(view, judge, shortlist)) == "steal 2 9"


def test_a_network_multiplies_on_one_blas_thread_then_restores_it() -> None:
    """OpenBLAS's helper threads spin after each product (R6's decisions took twice the
    CPU in a two-process tournament): the forward pass limits BLAS to one thread, and
    leaves the process's setting as it found it."""
    np = require("numpy")
    threadpoolctl = require("threadpoolctl")
    seen: list[int] = []

    def hidden(h: object) -> object:
        seen.extend(lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                    if lib["user_api"] == "blas")  # fmt: skip
        return np.maximum(h, 0.0)

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                  if lib["user_api"] == "blas"]  # fmt: skip
        layers = [(np.ones((USE_FEATURES, 8)), np.zeros(8)), (np.ones((8, 1)), np.zeros(1))]
        out = UseNet(layers, {}).output(np.ones((3, USE_FEATURES)), hidden)
        after = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                 if lib["user_api"] == "blas"]  # fmt: skip
    assert before
    assert seen and set(seen) == {1}
    assert after == before
    assert out.tolist() == [8.0 * USE_FEATURES] * 3


def test_learned_without_its_uses_network_aims_as_r4() -> None:
    require("numpy")
    seen = 0
    for game in _decision_points(30, 5):
        if game.decision_kind in (DecisionKind.HIT_OR_STAY, DecisionKind.PASS):
            continue
        view = PublicView(game)
        best = WinProbBot(seed=1).judge(view).best(view.options)
        assert make_bot("learned:uses=0", 1).choose(game) == best
        assert make_bot("learned", 1).choose(game) in view.options
        seen += 1
    assert seen >= 5


def test_the_shipped_hit_network_hits_a_small_line_and_stays_on_a_winning_one() -> None:
    require("numpy")
    net = HitNet.load(HIT_WEIGHTS)
    seen = {HIT: 0, STAY: 0}
    for game in _decision_points(40, 3):
        if game.decision_kind is not DecisionKind.HIT_OR_STAY:
            continue
        view = PublicView(game)
        row = hit_features(view)
        gain = net.gain(view)
        if view.scores[view.seat] <= 6 and row[-2] == 0.0:
            assert gain > 0, (view.lines[view.seat], gain)  # nothing to lose
            seen[HIT] += 1
        if row[-1] == 1.0:  # staying ends the game on top
            assert gain < 0
            seen[STAY] += 1
    assert seen[HIT] > 5


def test_features_and_the_end_of_a_game() -> None:
    np = require("numpy")
    row = features(np.array([[150.0, 180.0, 100.0, 120.0]]), 0, 200)
    assert row.round(3).tolist() == [[0.25, 0.1, 0.4, 0.5, -0.3, 0.3, 0.5, 0.0]]
    three = features(np.array([[150.0, 180.0, 100.0]]), 2, 200)  # a missing seat: far behind
    assert three.round(3).tolist() == [[0.5, 0.1, 0.25, 1.5, -0.8, -0.5, 2.0, 0.0]]
    net = ValueNet.load(WEIGHTS)
    finals = np.array(
        [[210.0, 150, 190, 100], [210, 210, 150, 100], [150, 100, 100, 100], [100, 150, 100, 100]]
    )
    p = net.chance(finals, 0, 200)
    assert p[0] == 1.0 and 0 < p[1] < 1  # the only highest over the target has won; a tie not
    assert p[2] > 0.5 > 0.25 > p[3]  # 50 points ahead, or behind, with 50 to go
    assert net.chance(finals, 2, 200)[0] == 0.0


def test_learned_makes_only_legal_choices() -> None:
    require("numpy")
    kinds = kinds_played("learned", seed_step=10)
    assert {DecisionKind.HIT_OR_STAY, DecisionKind.GIVE, DecisionKind.TARGET} <= kinds


def test_learned_does_not_read_the_hidden_pile() -> None:
    require("numpy")
    points = 0
    for game in _decision_points(5, 12):
        seed = 7 + points
        scrambled = reshuffled(game, seed)
        assert view_of_public(scrambled) == view_of_public(game)
        assert make_bot("learned", seed).choose(game) == make_bot("learned", seed).choose(scrambled)
        points += 1
    assert points >= 40


def test_without_numpy_learned_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now fails
    monkeypatch.setattr(hitnet, "_LOADED", {})
    with pytest.raises(LearnedBotError, match=r"numpy, which is not installed.*flip7\[learned\]"):
        make_bot("learned", seed=1)
    make_bot("winprob", seed=1)  # the other bots do not need it


def test_missing_weights_say_so(tmp_path: Path) -> None:
    with pytest.raises(LearnedBotError, match="Hit/Stay network: the weights are missing"):
        LearnedBot(seed=1, weights=tmp_path / "none.npz")
    with pytest.raises(LearnedBotError, match="weights are missing"):
        ValueNetBot(seed=1, weights=tmp_path / "none.npz")
    value = ValueNet.load(WEIGHTS)  # a value network is not a Hit/Stay network
    with pytest.raises(LearnedBotError, match="not R6's Hit/Stay network"):
        HitNet.load(WEIGHTS)
    assert value.layers


def test_importing_the_bots_loads_no_numpy() -> None:
    code = (
        "import json, sys\n"
        "import flip7.bots, flip7.learn.train, flip7.cli.train\n"
        "print(json.dumps(sorted(m for m in ('numpy', 'torch') if m in sys.modules)))\n"
    )
    assert python_json(code) == []
