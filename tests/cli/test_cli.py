"""The ``flip7`` command line: in-process through ``main`` (fast), plus a few real
subprocess runs of the installed script for the exit status / stdout / stderr contract."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flip7 import BONUS, Game, Record, Rules, replay
from flip7.cli import main
from flip7.tournament.selfplay import selfplay_game

FLIP7 = Path(sys.executable).with_name("flip7")


@pytest.fixture(autouse=True)
def _in_tmp_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Piped answers can reach play's save prompt (and save a file named after them)."""
    monkeypatch.chdir(tmp_path)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(code: int, out: str, err: str, *, empty_stdout: bool = True) -> None:
    assert code == 2
    assert err.strip(), "a message on standard error"
    assert "Traceback" not in err and "Traceback" not in out
    if empty_stdout:
        assert out == ""


@pytest.fixture(scope="module")
def record_text() -> str:
    """A finished game's record."""
    return selfplay_game(3, 1, seed=2).record.dumps(indent=2)


@pytest.fixture
def record_file(tmp_path: Path, record_text: str) -> Path:
    path = tmp_path / "game.json"
    path.write_text(record_text, encoding="utf-8")
    return path


def write(tmp_path: Path, text: str, name: str = "bad.json") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------- score


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (["3", "11", "5", "7", "10", "8", "4", "/2", "-4"], "35 (Flip 7)"),  # T2
        (["3", "11", "5", "7", "10", "8", "/2", "-4"], "18"),  # T3
        (["1", "-10"], "0"),  # T4
        (["4", "8", "11", "÷2", "−4"], "7"),  # T6, Unicode spellings
        (["0", "13"], "0"),  # T7
        (["0", "1", "2", "3", "4", "5", "6"], "36 (Flip 7)"),  # T8
        (["13", "L13"], "26"),  # T9
        (["L13", "13", "13"], "0 (bust)"),  # T10
        (["5", "9", "5"], "0 (bust)"),
        (["1", "2", "3", "4", "5", "L13", "13"], "56 (Flip 7)"),  # T12
        (["-4", "-10", "12"], "0"),  # negative codes first
        (["u7", "l13"], "20"),
        (["-2"], "0"),
    ],
)
def test_score(capsys: pytest.CaptureFixture[str], cards: list[str], expected: str) -> None:
    assert run(capsys, "score", *cards) == (0, expected + "\n", "")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["1", "-10", "--brutal"], "-9"),  # T5
        (["--brutal", "-10", "1"], "-9"),
        (["5", "--brutal", "5", "-4"], "-4 (bust)"),  # Brutal: a busted line's Modifiers
        (["-6", "--brutal", "-10"], "-16"),
    ],
)
def test_score_brutal(capsys: pytest.CaptureFixture[str], argv: list[str], expected: str) -> None:
    assert run(capsys, "score", *argv) == (0, expected + "\n", "")


def test_score_json_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "3", "11", "5", "7", "10", "8", "4", "/2", "-4", "--json")
    assert code == 0 and out == '{"score": 35, "flip7": true, "bust": false}\n'
    code, out, _ = run(capsys, "score", "--json", "5", "-10", "5", "--brutal")
    assert code == 0 and out == '{"score": -10, "flip7": false, "bust": true}\n'
    code, out, _ = run(capsys, "score", "12", "--json")
    assert json.loads(out) == {"score": 12, "flip7": False, "bust": False}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "CARD"),
        (["--json"], "CARD"),
        (["X"], "unknown card code 'X'"),
        (["3", "-3"], "unknown card code '-3'"),
        (["1", "2", "3", "4", "5", "6", "8", "9"], "at most 7 Number cards"),
        (["3", "JOM"], "Action"),
        (["STEAL"], "Action"),
        (["3", "--bogus"], "unrecognized arguments"),
        (["3", "-x"], "unrecognized arguments"),
    ],
)
def test_score_bad_input(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "score", *argv)
    assert_usage_error(code, out, err)
    assert message in err


# ---------------------------------------------------------------------- replay


def test_replay_json_is_exactly_the_replay_result(
    capsys: pytest.CaptureFixture[str], record_file: Path, record_text: str
) -> None:
    code, out, err = run(capsys, "replay", str(record_file), "--json")
    assert code == 0 and err == ""
    assert out == json.dumps(replay(record_text).to_json()) + "\n"
    data = json.loads(out)
    assert list(data) == ["over", "rounds", "totals", "winners"]
    assert data["over"] is True and data["winners"]


def test_replay_summary(
    capsys: pytest.CaptureFixture[str], record_file: Path, record_text: str
) -> None:
    code, out, err = run(capsys, "replay", str(record_file))
    assert code == 0 and err == ""
    result = replay(record_text)
    assert out.startswith("basic-1, basic-2, basic-3: 3 players, 1 deck, standard rules\n")
    assert out.count("\nRound ") == len(result.rounds)
    assert "Round 1 · dealer basic-" in out
    assert "wins with" in out
    final = out.strip().splitlines()[-1]
    assert final == "Final totals after {} rounds: {}".format(
        len(result.rounds),
        ", ".join(f"basic-{s + 1} {t}" for s, t in enumerate(result.totals)),
    )
    if any(r.busted for r in result.rounds):
        assert "bust" in out


def test_replay_summary_shows_brutal_flip7_and_minus15(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Ann reaches Flip 7 alone and takes 15 off Bob; the record stops at the next deal.
    game = Game.new(["Ann", "Bob", "Cyd"], Rules(brutal=True), explicit=True, dealer=2)
    for card in ["1", "2", "3"]:  # the deal: Ann, Bob, Cyd
        game.draw(card)
    game.apply("hit")
    game.draw("4")
    game.apply("stay")  # Bob
    game.apply("stay")  # Cyd
    for card in ["5", "6", "8", "9", "10"]:
        game.apply("hit")
        game.draw(card)
    assert game.legal_decisions()[0] == BONUS
    game.apply("minus 1")
    path = write(tmp_path, Record.from_game(game).dumps(), "brutal.json")
    code, out, err = run(capsys, "replay", path, "-v")
    assert code == 0, err
    assert "rules: brutal" in out
    assert "Flip 7, −15 to Bob" in out
    assert "Ann made FLIP 7!" in out  # --verbose lists the events
    assert "Ann took 15 points off Bob's total" in out
    assert "Unfinished game after 1 complete round. Totals: Ann 43, Bob -13, Cyd 3" in out


def test_replay_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, record_text: str
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(record_text))
    code, out, _ = run(capsys, "replay", "-", "--json")
    assert code == 0 and json.loads(out) == replay(record_text).to_json()


def test_replay_of_an_unfinished_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rec = {"format": "flip7-record/1", "players": ["A", "B", "C"], "draws": ["5", "11", "9"],
           "decisions": []}  # fmt: skip
    path = write(tmp_path, json.dumps(rec), "part.json")
    code, out, _ = run(capsys, "replay", path, "--json")
    assert code == 0
    assert json.loads(out) == {"over": False, "rounds": [], "totals": [0, 0, 0], "winners": []}
    code, out, _ = run(capsys, "replay", path)
    assert code == 0 and "unfinished" in out.lower()


def _mutated(record_text: str, **changes: Any) -> str:
    data = json.loads(record_text)
    for key, value in changes.items():
        if callable(value):
            value(data)
        else:
            data[key] = value
    return json.dumps(data)


def _illegal_decision(data: dict[str, Any]) -> None:
    data["decisions"][3] = "minus 1"


def _bad_decision_text(data: dict[str, Any]) -> None:
    data["decisions"][0] = "hold"


def _bad_draw(data: dict[str, Any]) -> None:
    data["draws"][1] = "0"
    data["draws"][0] = "0"


def _extra_decision(data: dict[str, Any]) -> None:
    data["decisions"].append("hit")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda t: t[: len(t) // 2], "not valid JSON"),  # truncated
        (lambda t: t.replace('"draws"', '"draws', 1), "not valid JSON"),  # corrupted
        (lambda t: "", "not valid JSON"),
        (lambda t: "[1, 2]", "a record must be a JSON object"),
        (lambda t: _mutated(t, format="flip7-record/2"), "record: format:"),
        (lambda t: _mutated(t, players=["Solo"]), "record: players:"),
        (lambda t: _mutated(t, dealer=7), "record: dealer:"),
        (lambda t: _mutated(t, rules={"brutel": True}), "record: rules: unknown rule option"),
        (lambda t: _mutated(t, extra=1), "record: extra: unknown key"),
        (lambda t: _mutated(t, x=_illegal_decision), "decisions[3]:"),
        (lambda t: _mutated(t, x=_bad_decision_text), "decisions[0]: unknown decision 'hold'"),
        (lambda t: _mutated(t, x=_bad_draw), "draws[1]:"),
        (lambda t: _mutated(t, x=_extra_decision), "left over after the game is over"),
    ],
)
def test_replay_invalid_records(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    record_text: str,
    make: Any,
    message: str,
) -> None:
    path = write(tmp_path, make(record_text))
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "replay", path, *extra)
        assert_usage_error(code, out, err)
        assert message in err


def test_replay_unreadable_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        code, out, err = run(capsys, "replay", str(path))
        assert_usage_error(code, out, err)
        assert "cannot read" in err
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    code, out, err = run(capsys, "replay", str(binary))
    assert_usage_error(code, out, err)
    assert "UTF-8" in err


def test_replay_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert_usage_error(*run(capsys, "replay"))
    assert_usage_error(*run(capsys, "replay", "a.json", "b.json"))
    assert_usage_error(*run(capsys, "replay", "a.json", "--jsn"))


# ---------------------------------------------------------------------- selfplay


def test_selfplay_writes_identical_records_for_the_same_seed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["selfplay", "--players", "3", "--games", "3", "--seed", "7"]
    code, out, err = run(capsys, *argv, "--out", str(tmp_path / "a" / "deep"))
    assert code == 0 and err == ""
    assert "3 games of 3 basic bots, seed 7" in out
    assert "wins per seat: seat 0 " in out and "mean rounds per game: " in out
    code, _, _ = run(capsys, *argv, "--out", str(tmp_path / "b"))
    assert code == 0
    names = sorted(p.name for p in (tmp_path / "a" / "deep").iterdir())
    assert names == ["game-0001.json", "game-0002.json", "game-0003.json"]
    for name in names:
        first = (tmp_path / "a" / "deep" / name).read_bytes()
        assert first == (tmp_path / "b" / name).read_bytes()
        record = Record.loads(first.decode())
        assert record.meta is not None
        assert record.meta["seed"] == 7 and record.meta["bot"] == "basic"
        assert record.meta["game"] == int(name[5:9])
        assert replay(record).over
    code, _, _ = run(capsys, *argv[:-1], "8", "--out", str(tmp_path / "c"))
    other = (tmp_path / "c" / names[0]).read_bytes()
    assert other != (tmp_path / "a" / "deep" / names[0]).read_bytes()


def test_selfplay_rules_bot_and_json_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(
        capsys, "selfplay", "--players", "5", "--games", "2", "--seed", "1", "--bot", "random",
        "--rules", '{"brutal": true, "target_score": 80}', "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["games"] == 2 and summary["players"] == 5 and len(summary["wins"]) == 5
    assert summary["bot"] == "random" and summary["seed"] == 1
    record = Record.loads((tmp_path / "game-0002.json").read_text())
    assert record.rules.brutal and record.rules.target_score == 80
    assert record.meta is not None and record.meta["bot"] == "random"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rules", "{brutal: true}"], "not valid JSON"),
        (["--rules", "[1]"], "rules must be a JSON object"),
        (["--rules", '{"brutel": true}'], "unknown rule option 'brutel'"),
        (["--rules", '{"target_score": "high"}'], "target_score"),
        (["--rules", '{"brutal": 1}'], "brutal must be true or false"),
        (["--players", "2"], "2 only with allow_two_players"),
        (["--players", "40"], "from 2 to 36"),
        (["--players", "three"], "not a whole number"),
        (["--games", "0"], "1 or more"),
        (["--seed", "x"], "seed"),
        (["--bot", "clever"], "invalid choice"),
        (["--frobnicate"], "unrecognized arguments"),
    ],
)
def test_selfplay_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "selfplay", "--games", "1", *argv, "--out", str(out_dir))
    assert_usage_error(code, out, err)
    assert message in err
    assert not out_dir.exists()  # nothing is written when the arguments are wrong


def test_selfplay_needs_a_writable_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert_usage_error(*run(capsys, "selfplay", "--games", "1"))  # --out is required
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = run(capsys, "selfplay", "--games", "1", "--out", str(blocker / "sub"))
    assert_usage_error(code, out, err)
    assert "cannot create" in err


# ---------------------------------------------------------------------- bench


def test_bench_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "--players", "3", "--games", "5", "--bot", "random",
                         "--json")  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    assert list(data) == [
        "games", "players", "bot", "seconds", "games_per_second", "rounds_per_second", "python",
    ]  # fmt: skip
    assert (data["games"], data["players"], data["bot"]) == (5, 3, "random")
    assert data["games_per_second"] > 0 and data["rounds_per_second"] >= data["games_per_second"]
    assert data["python"] == ".".join(map(str, sys.version_info[:3]))


def test_bench_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--games", "3")
    assert code == 0
    assert out.startswith("3 games of 4 basic bots in ") and "games/s" in out and "rounds/s" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "1 or more"),
        (["--games", "many"], "not a whole number"),
        (["--players", "1"], "from 2 to 36"),
        (["--players", "2"], "allow_two_players"),
        (["--bot", "nobody"], "invalid choice"),
        (["--rules", '{"pass_actions": "yes"}'], "pass_actions"),
        (["--json", "extra"], "unrecognized arguments"),
    ],
)
def test_bench_bad_input(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "bench", "--games", "1", *argv)
    assert_usage_error(code, out, err)
    assert message in err


# ---------------------------------------------------------------------- play


def play_main(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: Any, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", stdin)
    return run(capsys, "play", *argv)


def test_play_piped_answers_play_a_game_to_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The last "1" answers the save prompt: a file named 1 in tmp_path.
    code, out, err = play_main(
        capsys, monkeypatch, io.StringIO("1\n" * 3000), "--seed", "5", "--players", "3"
    )
    assert code == 0, err
    assert "Your turn: hit or stay?" in out and "   1. Hit" in out
    assert "Final totals" in out and "Game over" in out
    record = Record.loads((tmp_path / "1").read_text())
    assert record.players == ("You", "Ann", "Bob")
    assert record.meta is not None and record.meta["seed"] == 5
    assert replay(record).over


def test_play_shows_the_table_and_a_log(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same seed plays the same game: count the questions, then answer exactly those
    # and leave the save prompt empty. "2" (Stay, or the second option) is always legal.
    play_main(capsys, monkeypatch, io.StringIO(""), "--seed", "3")
    code, out, _ = play_main(capsys, monkeypatch, io.StringIO("2\n" * 400), "--seed", "3")
    questions = out.count("Your choice [")
    answers = "2\n" * questions + "\n"
    code, again, _ = play_main(capsys, monkeypatch, io.StringIO(answers), "--seed", "3")
    assert code == 0
    assert again.split("Save the game record")[0] == out.split("Save the game record")[0]
    for text in ("Round 1", "dealer", "draw pile", "Numbers", "Modifiers", "Status", "Total",
                 " drew ", "You stayed", "Round 1 scored", "Final totals"):  # fmt: skip
        assert text in out
    assert again.rstrip().endswith("(file name; empty: don't save):")  # empty: no save


def test_play_asks_again_after_garbage(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every question has two or more options, so "2" is always a legal answer.
    answers = "banana\n0\n99\n\nsteal 9 5\n" + "2\n" * 400
    code, out, _ = play_main(capsys, monkeypatch, io.StringIO(answers), "--seed", "5")
    assert code == 0
    assert out.count("Please answer with a number") == 4  # banana, 0, 99, empty
    assert "steal 9 5 is not a legal option now" in out
    assert "Final totals" in out


def test_play_answers_by_number_shortcut_or_record_form() -> None:
    from flip7.cli.play import TerminalGame
    from flip7.core.decisions import HIT, STAY, Give

    out = io.StringIO()
    ui = TerminalGame(Game.new(3, seed=1), [None, None, None], io.StringIO(), _console(out))
    assert ui.parse_answer("2", (HIT, STAY)) == STAY
    assert ui.parse_answer("h", (HIT, STAY)) == HIT
    assert ui.parse_answer("s", (HIT, STAY)) == STAY
    assert ui.parse_answer("HIT", (HIT, STAY)) == HIT
    assert ui.parse_answer("give  2", (Give(0), Give(2))) == Give(2)
    assert out.getvalue() == ""
    assert ui.parse_answer("s", (Give(0), Give(2))) is None
    assert ui.parse_answer("give 1", (Give(0), Give(2))) is None
    assert ui.parse_answer("3", (Give(0), Give(2))) is None
    assert "give 1 is not a legal option now" in out.getvalue()
    assert out.getvalue().count("Please answer with a number from 1 to 2") == 2


def _console(out: io.StringIO) -> Any:
    from rich.console import Console

    return Console(file=out, highlight=False)


def test_play_end_of_input_leaves_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = play_main(capsys, monkeypatch, io.StringIO("1\n"), "--seed", "1")
    assert code == 0
    assert out.rstrip().endswith("End of input: leaving the game.")
    assert "Traceback" not in out + err


def test_play_quit(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = play_main(capsys, monkeypatch, io.StringIO("q\n"), "--seed", "1")
    assert code == 0 and "You left the game." in out


class _CtrlC(io.StringIO):
    def readline(self, size: int | None = -1) -> str:
        raise KeyboardInterrupt


def test_play_ctrl_c_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = play_main(capsys, monkeypatch, _CtrlC(), "--seed", "1")
    assert code == 130
    assert "Interrupted" in out and "Traceback" not in out + err


def test_play_brutal_saves_the_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # "1" takes the first option of every question, then names the record file.
    code, out, _ = play_main(capsys, monkeypatch, io.StringIO("1\n" * 2000), "--brutal",
                             "--seed", "9", "--players", "5")  # fmt: skip
    assert code == 0 and "Brutal, first to 200" in out
    assert "Saved. Replay it with: flip7 replay 1" in out
    text = (tmp_path / "1").read_text()
    saved = Record.loads(text)
    assert saved.rules.brutal and len(saved.players) == 5
    assert text == saved.dumps(indent=2) + "\n"  # Record.from_game(game).dumps(indent=2)
    assert replay(saved).over


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "2"], "from 3 to 18"),
        (["--players", "19"], "from 3 to 18"),
        (["--seed", "one"], "seed"),
        (["--bot", "x"], "invalid choice"),
        (["--fast"], "unrecognized arguments"),
    ],
)
def test_play_bad_arguments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str],
    message: str,
) -> None:  # fmt: skip
    code, out, err = play_main(capsys, monkeypatch, io.StringIO(""), *argv)
    assert_usage_error(code, out, err)
    assert message in err


# ---------------------------------------------------------------------- the whole command


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("score", "replay", "selfplay", "bench", "play"):
        assert command in out
    for command in ("score", "replay", "selfplay", "bench", "play"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and f"usage: flip7 {command}" in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == "flip7 0.1.0\n"


def test_no_or_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert_usage_error(*run(capsys))
    code, out, err = run(capsys, "dance")
    assert_usage_error(code, out, err)
    assert "invalid choice" in err


# ---------------------------------------------------------------------- the installed script


def script(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # The current directory is the test's tmp_path (see _in_tmp_path).
    return subprocess.run(
        [str(FLIP7), *argv], input=stdin, capture_output=True, text=True, timeout=60,
        encoding="utf-8", cwd=Path.cwd(),
    )  # fmt: skip


def test_script_score_contract() -> None:
    done = script("score", "-4", "-10", "÷2", "−4".replace("4", "6"), "12", "--json")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == '{"score": 0, "flip7": false, "bust": false}\n'
    done = script("score", "1", "-10", "--brutal")
    assert (done.returncode, done.stdout) == (0, "-9\n")
    done = script("score", "Q")
    assert done.returncode == 2 and done.stdout == ""
    assert "unknown card code 'Q'" in done.stderr and "Traceback" not in done.stderr


def test_script_replay_contract(tmp_path: Path, record_text: str) -> None:
    done = script("replay", "-", "--json", stdin=record_text)
    assert done.returncode == 0 and json.loads(done.stdout) == replay(record_text).to_json()
    bad = _mutated(record_text, x=_illegal_decision)
    done = script("replay", "-", "--json", stdin=bad)
    assert done.returncode == 2 and done.stdout == ""
    assert "decisions[3]:" in done.stderr and "Traceback" not in done.stderr
    done = script("replay", str(tmp_path / "nope.json"))
    assert done.returncode == 2 and done.stdout == "" and "cannot read" in done.stderr


def test_script_play_piped_and_selfplay(tmp_path: Path) -> None:
    done = script("play", "--seed", "2", stdin="2\n" * 500 + "\n")
    assert done.returncode == 0, done.stderr
    assert "Final totals" in done.stdout and "Traceback" not in done.stderr
    done = script("selfplay", "--games", "1", "--players", "3", "--out", str(tmp_path))
    assert done.returncode == 0 and (tmp_path / "game-0001.json").exists()


def test_commands_other_than_play_work_without_rich(tmp_path: Path, record_text: str) -> None:
    path = write(tmp_path, record_text, "game.json")
    code = f"""
import sys
sys.modules["rich"] = None  # any import of Rich now fails
from flip7.cli import main
assert main(["score", "3", "-4"]) == 0
assert main(["replay", {path!r}]) == 0
assert main(["replay", {path!r}, "--json"]) == 0
assert main(["selfplay", "--games", "1", "--players", "3", "--out", {str(tmp_path / "sp")!r}]) == 0
assert main(["bench", "--games", "1"]) == 0
assert not [m for m in sys.modules if m.startswith("rich.")]
assert main(["play"]) == 1
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "needs Rich" in done.stderr


def test_play_function_refuses_more_players_than_names() -> None:
    from flip7 import GameStateError
    from flip7.cli.play import play

    with pytest.raises(GameStateError, match="at most 18"):
        play(19, stdin=io.StringIO(""), stdout=io.StringIO())


# ---------------------------------------------------------------------- start-up


def test_a_command_imports_only_its_own_module() -> None:
    """``flip7 score`` loads the core's lines and scoring, not the engine, the other
    commands, the server or any third-party package (its start-up is its CPU time)."""
    code = (
        "import sys\n"
        "from flip7.cli import main\n"
        "assert main(['score', '5', '3']) == 0\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    loaded = set(done.stdout.split("\n")[1].split())
    assert "flip7.cli.score" in loaded and "flip7.core.lines" in loaded
    heavy = {m for m in loaded if m.split(".")[0] in {
        "numpy", "rich", "httpx", "fastapi", "sqlalchemy", "pydantic", "openskill"}}
    flip7_others = {m for m in loaded if m.startswith(("flip7.engine", "flip7.bots",
        "flip7.server", "flip7.client", "flip7.analysis", "flip7.coach", "flip7.tournament"))}
    others = {m for m in loaded if m.startswith("flip7.cli.")} - {
        "flip7.cli.score", "flip7.cli.files"}
    assert not heavy and not flip7_others and not others, (heavy, flip7_others, others)


def test_the_full_help_lists_every_command() -> None:
    from flip7.cli import COMMANDS, build_parser

    text = " ".join(build_parser()[0].format_help().split())
    for command in COMMANDS:
        assert f"{command.name} {command.help}" in text, command
