"""The coach (``flip7.coach``, ``flip7 analyse``): planted blunders are flagged and the best
moves are not, the flip7-coach/1 JSON, only public information is read, the same report
from one process or two, progress, and the command line's exit codes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from engine_helpers import play, reshuffled

from flip7 import Card, Game, Record, replay_game
from flip7.bots import make_bot
from flip7.cli import main
from flip7.cli.analyse import format_bench
from flip7.coach import (
    FORMAT,
    GRADES,
    THRESHOLDS,
    CoachError,
    analyse,
    decision_count,
    grade_position,
    positions,
)
from flip7.coach.bench import BenchResult, BenchRun
from flip7.core.decisions import DecisionKind
from flip7.core.errors import RecordError

NAMES = ("Ann", "Bob", "Cyd", "Dan")
FLAGGED = ("mistake", "blunder")


def _record(game: Game) -> Record:
    return Record.from_game(game)


def _explicit(*moves: str) -> Game:
    """A four-player game dealt from seat 0 (the dealer is seat 3), moves as engine_helpers."""
    game = Game.new(list(NAMES), explicit=True, dealer=3)
    play(game, *moves)
    return game


# ---------------------------------------------------------------------------- planted positions

# Round 1: seat 0 is dealt a 3 and decides first. Two 3s are left among 104 cards: a 1.9%
# bust risk, and a line worth 3 points.
STAY_AT_3 = ("3", "12", "11", "10")

# Round 1: seat 0 holds 12 11 10 9 8 6 (56 points) and draws Flip Four!; seat 1 has stayed
# on 13 7 9 4, seat 2 is active on 2 3 5 6 1 8, seat 3 stayed on 4. Giving it to itself
# risks its 56 points on cards of which more than half bust it.
FLIP_FOUR_AT_6 = (
    "12", "13", "2", "4",
    "hit", "11", "hit", "7", "hit", "3", "stay",
    "hit", "10", "hit", "9", "hit", "5",
    "hit", "9", "hit", "4", "hit", "6",
    "hit", "8", "stay", "hit", "1",
    "hit", "6", "hit", "8",
    "hit", "FLIP4",
)  # fmt: skip


def _graded_at(moves: tuple[str, ...], made: str) -> dict[str, object]:
    game = _explicit(*moves)
    assert game.to_decide == 0
    game.apply(made)
    record = _record(game)
    report = analyse(record, 0)
    assert report.decisions[-1].index == len(record.decisions) - 1
    return report.decisions[-1].to_json()


def test_the_planted_position_is_what_it_says() -> None:
    game = _explicit(*STAY_AT_3)
    assert game.decision_kind is DecisionKind.HIT_OR_STAY and game.round == 1
    assert game.line(0) == (Card.THREE,) and game.totals == (0, 0, 0, 0)
    game = _explicit(*FLIP_FOUR_AT_6)
    assert game.to_decide == 0 and game.decision_kind is DecisionKind.TARGET
    assert game.pending_card is Card.FLIP_FOUR and len(game.line(0)) == 6
    assert [str(d) for d in game.legal_decisions()] == [f"target {s}" for s in range(4)]


def test_a_stay_at_3_points_early_is_flagged() -> None:
    graded = _graded_at(STAY_AT_3, "stay")
    assert graded["grade"] in FLAGGED
    assert graded["made"] == "stay" and graded["best"] == "hit"
    assert graded["kind"] == "hit_or_stay" and graded["measure"] == "win"
    assert isinstance(graded["loss"], float) and graded["loss"] >= THRESHOLDS.mistake
    assert "bust risk 1.9%" in str(graded["note"])
    # The figures of the web app's reason: the score and bust risk, the leader and lead.
    assert graded["score"] == 3 and graded["bust_risk"] == 1.9 and graded["card"] is None
    assert graded["leader"] == 0 and graded["lead"] == 0  # no totals yet: the seat itself


def test_hitting_at_3_points_is_best() -> None:
    graded = _graded_at(STAY_AT_3, "hit")
    assert graded["grade"] == "best" and graded["best"] == "hit" and graded["loss"] == 0.0


def test_a_flip_four_given_to_yourself_at_6_cards_is_flagged() -> None:
    graded = _graded_at(FLIP_FOUR_AT_6, "target 0")
    assert graded["grade"] in FLAGGED
    assert graded["best"] != "target 0" and graded["kind"] == "target"
    assert "(Flip Four!)" in str(graded["note"])
    assert graded["card"] == "FLIP4" and graded["score"] is None and graded["bust_risk"] is None


def test_the_flip_four_on_the_leader_of_the_round_is_best() -> None:
    graded = _graded_at(FLIP_FOUR_AT_6, "target 1")
    assert graded["grade"] == "best" and graded["best"] == "target 1"


# ---------------------------------------------------------------------------- a whole game


@pytest.fixture(scope="module")
def game_record() -> Record:
    """A finished four-player game of R4 bots, cut to target 60 to keep the tests fast."""
    from flip7 import Rules

    game = Game.new(list(NAMES), Rules(target_score=60), seed=5)
    game.play([make_bot("winprob", seed=s) for s in range(4)])
    assert game.over
    return _record(game)


@pytest.fixture(scope="module")
def game_report(game_record: Record) -> dict[str, object]:
    return analyse(game_record, 1, seed=3).to_json()


def test_the_json_of_a_whole_game(game_record: Record, game_report: dict[str, object]) -> None:
    data = game_report
    assert data["format"] == FORMAT == "flip7-coach/1"
    assert data["seat"] == 1 and data["name"] == "Bob" and data["over"] is True
    assert data["thresholds"] == {"inaccuracy": 1.5, "mistake": 4.0, "blunder": 8.0, "z": 2.0}
    decisions = data["decisions"]
    assert isinstance(decisions, list) and decisions
    summary = data["summary"]
    assert isinstance(summary, dict)
    assert summary["decisions"] == len(decisions) == decision_count(game_record, 1)
    assert sum(summary[g] for g in GRADES) == len(decisions)  # type: ignore[misc]
    assert 0 <= summary["accuracy"] <= 100  # type: ignore[operator]
    assert summary["accuracy"] >= 80  # type: ignore[operator]  # R4 plays well
    record_decisions = game_record.decisions
    steps = 1 + len(game_record.draws) + len(record_decisions)
    last = -1
    for d in decisions:
        assert set(d) == {
            "index", "round", "draw", "step", "kind", "made", "best", "grade", "measure",
            "value_made", "value_best", "loss", "error", "options", "note",
            "card", "score", "bust_risk", "leader", "lead",
        }  # fmt: skip
        assert d["index"] > last
        last = d["index"]
        assert d["made"] == record_decisions[d["index"]]
        assert d["step"] == d["draw"] + d["index"] < steps
        assert d["grade"] in GRADES and d["measure"] == "win"
        assert d["kind"] in {k.value for k in DecisionKind}
        options = {o["decision"]: o for o in d["options"]}
        assert len(options) >= 2 and d["made"] in options and d["best"] in options
        assert all(0 <= o["value"] <= 100 and o["samples"] > 0 for o in options.values())
        assert d["loss"] == pytest.approx(d["value_best"] - d["value_made"], abs=0.011)
        if d["grade"] == "best":
            assert d["best"] == d["made"] and d["loss"] == 0
        else:
            assert d["best"] != d["made"] and d["loss"] >= THRESHOLDS.inaccuracy
    json.dumps(data)  # plain JSON


def test_the_step_shows_the_table_the_seat_decided_at(game_record: Record) -> None:
    from flip7.engine.record import replay_steps

    steps = replay_steps(game_record)
    for pos in positions(game_record, 2):
        view = steps[pos.step][1]
        assert view.to_decide == 2 and view.round == pos.round
        assert pos.game is not None and view == pos.game.view()


def test_forced_choices_are_not_graded() -> None:
    # Seat 0 is dealt The Zero: it must hit, so its turn is no decision.
    game = _explicit("0", "12", "11", "10")
    assert game.needs_card and game.line(0) == (Card.ZERO,)
    play(game, "5", "stay", "stay", "hit", "9", "6")  # seat 0 hits by force twice
    assert game.line(0) == (Card.ZERO, Card.FIVE, Card.SIX) and game.to_decide == 3
    record = _record(game)
    assert record.decisions == ("stay", "stay", "hit")
    assert decision_count(record, 0) == 0 and analyse(record, 0).decisions == ()
    assert [decision_count(record, s) for s in (1, 2, 3)] == [1, 1, 1]


# ---------------------------------------------------------------------------- public only


def test_grades_do_not_read_the_hidden_pile() -> None:
    kinds: set[str] = set()
    for g in range(4):
        game = Game.new(4, seed=70 + g, events=False)
        rng = random.Random(g)
        bots = [make_bot("targeting", seed=s) for s in range(4)]
        graded = 0
        while not game.over and graded < 2:
            options = game.legal_decisions()
            kind = game.decision_kind
            assert kind is not None
            if kind.value not in kinds or rng.random() < 0.05:
                kinds.add(kind.value)
                made = options[rng.randrange(len(options))]
                scrambled = reshuffled(game, g)
                assert scrambled.view(game.to_decide) == game.view(game.to_decide)
                one = grade_position(game, made, seed=11).to_json()
                two = grade_position(scrambled, made, seed=11).to_json()
                assert one == two
                graded += 1
            seat = game.to_decide
            assert seat is not None
            game.apply(bots[seat].choose(game))
    assert {"hit_or_stay", "target", "give"} <= kinds


def test_a_different_future_does_not_change_the_grades(game_record: Record) -> None:
    """Two records that agree up to a decision of seat 0 and then go on differently (other
    cards from the same public pile): every decision up to there is graded the same."""
    pos = positions(game_record, 0)[2]
    prefix = Record(
        game_record.players, game_record.rules, game_record.decks, game_record.dealer,
        game_record.draws[: pos.draw], game_record.decisions[: pos.index + 1],
    )  # fmt: skip
    reports = []
    for seed in (1, 2):
        game = replay_game(prefix)
        future = game.fork(draw_pile=_shuffled_pile(game, seed), rng=random.Random(seed))
        bots = [make_bot("threshold", seed=s) for s in range(4)]
        for _ in range(12):
            if future.over:
                break
            seat = future.to_decide
            assert seat is not None
            future.apply(bots[seat].choose(future))
        record = Record(
            prefix.players, prefix.rules, prefix.decks, prefix.dealer,
            prefix.draws + tuple(c.code for c in future.draws),
            prefix.decisions + tuple(str(d) for d in future.decisions),
        )  # fmt: skip
        replay_game(record)
        reports.append(analyse(record, 0, seed=4))
    one, two = ([d.to_json() for d in r.decisions if d.index <= pos.index] for r in reports)
    assert len(one) == 3 and one == two
    assert reports[0].to_json()["decisions"] != reports[1].to_json()["decisions"]


def _shuffled_pile(game: Game, seed: int) -> list[Card]:
    pile = [card for card, k in sorted(game.draw_pile_counts().items()) for _ in range(k)]
    random.Random(seed).shuffle(pile)
    return pile


# ---------------------------------------------------------------------------- processes, progress


def test_two_processes_give_the_same_report_and_progress(game_record: Record) -> None:
    seen: list[tuple[int, int]] = []
    short = _cut(game_record, 16)
    one = analyse(short, 1, seed=3, progress=lambda d, t: seen.append((d, t)))
    total = len(one.decisions)
    assert total >= 3 and seen == [(i, total) for i in range(1, total + 1)]
    seen.clear()
    two = analyse(short, 1, seed=3, jobs=2, progress=lambda d, t: seen.append((d, t)))
    assert two.to_json() == one.to_json()
    assert sorted(seen) == [(i, total) for i in range(1, total + 1)]


def _cut(record: Record, decisions: int) -> Record:
    """The record of the game as it stood when its ``decisions``-th decision was due."""
    game = Game.new(
        list(record.players), record.rules, decks=record.decks, dealer=record.dealer,
        explicit=True,
    )  # fmt: skip
    draws = iter(record.draws)
    made = iter(record.decisions[:decisions])
    for decision in made:
        while game.needs_card:
            game.draw(next(draws))
        game.apply(decision)
    return _record(game)


def test_bad_arguments() -> None:
    record = _record(_explicit(*STAY_AT_3))
    with pytest.raises(CoachError, match="seat must be a seat of the record, 0 to 3"):
        analyse(record, 4)
    with pytest.raises(CoachError, match="jobs"):
        analyse(record, 0, jobs=0)
    with pytest.raises(RecordError):
        analyse({"format": "flip7-record/1", "players": list(NAMES), "draws": ["0", "0"],
                 "decisions": []}, 0)  # fmt: skip


# ---------------------------------------------------------------------------- the command line


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def stay_file(tmp_path: Path) -> str:
    game = _explicit(*STAY_AT_3)
    game.apply("stay")
    path = tmp_path / "stay.json"
    path.write_text(_record(game).dumps(), encoding="utf-8")
    return str(path)


def test_cli_json(capsys: pytest.CaptureFixture[str], stay_file: str) -> None:
    code, out, err = _run(capsys, "analyse", stay_file, "--seat", "0", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["format"] == "flip7-coach/1" and data["summary"]["decisions"] == 1
    [decision] = data["decisions"]
    assert decision["made"] == "stay" and decision["grade"] in FLAGGED
    assert decision["best"] == "hit"


def test_cli_table(capsys: pytest.CaptureFixture[str], stay_file: str) -> None:
    code, out, err = _run(capsys, "analyse", stay_file, "--seat", "0", "--seed", "1")
    assert code == 0 and err == ""
    assert "Coach: seat 0 (Ann), 1 graded decision, seed 1" in out
    assert "win chance lost" in out and "hit was better" in out
    code, out, _ = _run(capsys, "analyse", stay_file, "--seat", "2")
    assert code == 0 and "0 graded decisions" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["analyse", "{file}", "--seat", "4"], "seat must be a seat of the record"),
        (["analyse", "{file}", "--seat", "-1"], "seat must be a seat of the record"),
        (["analyse", "{file}"], "--seat"),
        (["analyse", "--seat", "0"], "RECORD"),
        (["analyse", "{missing}", "--seat", "0"], "cannot read"),
        (["analyse", "{bad}", "--seat", "0"], "not valid JSON"),
        (["analyse", "{illegal}", "--seat", "0"], "draws[1]"),
        (["analyse", "{file}", "--seat", "0", "--jobs", "0"], "must be 1 or more"),
        (["analyse", "{file}", "--seat", "x"], "invalid int"),
        (["analyse", "{file}", "--seat", "0", "--bench"], "--bench takes no RECORD"),
    ],
)
def test_cli_errors_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stay_file: str, argv: list[str],
    message: str,
) -> None:  # fmt: skip
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps({"format": "flip7-record/1", "players": list(NAMES),
                                   "draws": ["0", "0"], "decisions": []}))  # fmt: skip
    files = {"file": stay_file, "missing": str(tmp_path / "nope.json"), "bad": str(bad),
             "illegal": str(illegal)}  # fmt: skip
    code, out, err = _run(capsys, *(a.format(**files) for a in argv))
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_cli_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stay_file: str
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(Path(stay_file).read_text(encoding="utf-8")))
    code, out, _ = _run(capsys, "analyse", "-", "--seat", "0", "--json")
    assert code == 0 and json.loads(out)["decisions"][0]["made"] == "stay"


def test_cli_bench(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "analyse", "--bench", "--target", "10", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"] == 4 and data["target"] == 10 and data["jobs"] == 1
    assert [r["seat"] for r in data["runs"]] == [0, 1, 2, 3]
    assert all(r["seconds"] >= 0 and r["cpu_seconds"] > 0 for r in data["runs"])
    result = BenchResult(
        tuple(BenchRun(1, s, 10 + s, 2.0 + s, 3.0 + s) for s in range(4)), 2, 4, 0, "a CPU, 2 cores"
    )
    text = format_bench(result)
    assert "game 1 seat 3: 13 decisions graded in 5.0 s (CPU 6.0 s)" in text
    assert (
        "per seat: mean 3.5 s, longest 5.0 s (CPU: mean 4.5 s, longest 6.0 s); "
        "whole games (all seats): 14.0 s each"
    ) in text
