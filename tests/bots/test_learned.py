"""R6, the learned bot: ``flip7 train`` writes a network that plays, the shipped network
plays legal moves from the seat's view only, and without numpy it says what is missing."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from conftest import python_json, require
from engine_helpers import reshuffled
from test_bots import Checked, _decision_points, kinds_played, view_of_public

from flip7 import Game
from flip7.bots import LADDER, make_bot
from flip7.bots import learned as learned_module
from flip7.bots.learned import WEIGHTS, LearnedBot, LearnedBotError, ValueNet, features
from flip7.cli import main
from flip7.core.decisions import DecisionKind


def test_flip7_train_writes_a_network_that_plays(tmp_path: Path) -> None:
    require("torch")
    np = require("numpy")
    out = tmp_path / "tiny.npz"
    args = ["train", "--games", "6", "--iterations", "2", "--epochs", "2", "--players", "3,4"]
    assert main([*args, "--hidden", "4", "--seed", "3", "--out", str(out)]) == 0
    net = ValueNet.load(out)
    assert [w.shape for w, _ in net.layers] == [(8, 4), (4, 1)]
    made = "flip7 train --seed 3 --games 6 --iterations 2 --players 3,4 --hidden 4 --epochs 2"
    assert net.meta["command"] == f"{made} --out {shlex.quote(str(out))}" and net.meta["seconds"]
    # The same arguments give the same network.
    again = tmp_path / "again.npz"
    assert main([*args, "--hidden", "4", "--seed", "3", "--out", str(again)]) == 0
    for (w1, b1), (w2, b2) in zip(net.layers, ValueNet.load(again).layers, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    game = Game.new(4, seed=11, events=False)
    seats = [Checked(LearnedBot(seed=s, weights=out)) for s in range(4)]
    game.play(seats)
    assert game.over and game.winners


def test_flip7_train_says_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--players", "2", "--out", "x.npz"]) != 0
    assert "each table size must be 3 to 18" in capsys.readouterr().err


def test_the_shipped_network_is_small_and_says_how_it_was_made() -> None:
    require("numpy")
    assert WEIGHTS.stat().st_size < 200_000
    net = ValueNet.load(WEIGHTS)
    assert net.meta["command"].startswith("flip7 train ")
    assert float(net.meta["held_out_loss"]) < float(net.meta["r4_model_loss"])
    assert LADDER["learned"] is LearnedBot and LearnedBot.rung == "R6"


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
    monkeypatch.setattr(learned_module, "_NETS", {})
    with pytest.raises(LearnedBotError, match=r"numpy, which is not installed.*flip7\[learned\]"):
        make_bot("learned", seed=1)
    make_bot("winprob", seed=1)  # the other bots do not need it


def test_missing_weights_say_so(tmp_path: Path) -> None:
    with pytest.raises(LearnedBotError, match="weights are missing"):
        LearnedBot(seed=1, weights=tmp_path / "none.npz")


def test_importing_the_bots_loads_no_numpy() -> None:
    code = (
        "import json, sys\n"
        "import flip7.bots, flip7.learn.train, flip7.cli.train\n"
        "print(json.dumps(sorted(m for m in ('numpy', 'torch') if m in sys.modules)))\n"
    )
    assert python_json(code) == []
