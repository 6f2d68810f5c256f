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
from flip7.bots.hitnet import HIT_WEIGHTS, HitNet, hit_features
from flip7.bots.learned import (
    WEIGHTS,
    LearnedBot,
    LearnedBotError,
    ValueNet,
    ValueNetBot,
    features,
)
from flip7.bots.public import PublicView
from flip7.cli import main
from flip7.core.decisions import HIT, STAY, DecisionKind


def test_flip7_train_writes_a_hit_network_that_plays(tmp_path: Path) -> None:
    require("torch")
    np = require("numpy")
    out = tmp_path / "tiny.npz"
    args = ["train", "--games", "4", "--epochs", "2", "--players", "3,4", "--iters", "100"]
    assert main([*args, "--hidden", "4", "--seed", "3", "--jobs", "2", "--out", str(out)]) == 0
    net = HitNet.load(out)
    assert [w.shape for w, _ in net.layers] == [(HIT_FEATURES, 4), (4, 1)]
    made = "flip7 train --seed 3 --games 4 --players 3,4 --hidden 4 --epochs 2 --iters 100"
    assert net.meta["command"] == f"{made} --out {shlex.quote(str(out))}" and net.meta["seconds"]
    float(net.meta["held_out_gain"])
    # The same arguments give the same network, whatever the processes that play.
    again = tmp_path / "again.npz"
    assert main([*args, "--hidden", "4", "--seed", "3", "--out", str(again)]) == 0
    for (w1, b1), (w2, b2) in zip(net.layers, HitNet.load(again).layers, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    game = Game.new(4, seed=11, events=False)
    seats = [Checked(LearnedBot(seed=s, weights=out)) for s in range(4)]
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
    assert WEIGHTS.stat().st_size < 200_000 and HIT_WEIGHTS.stat().st_size < 200_000
    net = ValueNet.load(WEIGHTS)
    assert net.meta["command"].startswith("flip7 train ")
    assert float(net.meta["held_out_loss"]) < float(net.meta["r4_model_loss"])
    hit = HitNet.load(HIT_WEIGHTS)
    assert hit.meta["command"] == "flip7 train --seed 1 --games 10000 --out " + str(
        Path("src/flip7/bots/data/r6_hit.npz")
    )
    # On R5's searches held out of the fit, its choices gain over R4's.
    assert float(hit.meta["held_out_gain"]) > 0
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
