"""``flip7 scorecard``: the terminal scorekeeper, driven through piped standard input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from flip7.cli import main
from flip7.scorekeeper.scorecard import Scorecard


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answers: list[str],
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(a + "\n" for a in answers)))
    code = main(["scorecard", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err
    return code, out, err


def test_a_whole_game_to_200(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "card.json"
    answers = [
        # Round 1: Bob's bust is not marked; he types it again.
        "12 11 10 9 8 7", "5 9 5", "13 12 11 10 4", "bust 5 9 5",
        # Round 2: Bob's Flip 7 (with The Zero).
        "12 11 10 9 8 7", "1 2 3 4 5 6 0", "8",
        # Round 3 starts with an undo of round 2, which is entered again.
        "undo", "12 11 10 9 8 7", "1 2 3 4 5 6 0", "9",
        "12 11 10 9 8 7", "13 12 11 10 4", "5",
        "13 12 9", "3", "2",
    ]  # fmt: skip
    code, out, err = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd",
                          "--file", str(path))  # fmt: skip
    assert code == 0 and err == ""
    assert "  ! Bob: 5 9 5 is a bust (two 5s): mark Bob busted or correct the cards" in out
    assert "  Bob [5 9 5]: bust 5 9 5" in out
    assert "Round 1: Ann 57 · Bob 0 (bust) · Cyd 50" in out
    assert "Round 2: Ann 57 · Bob 36 (Flip 7) · Cyd 8" in out
    assert "round 2 undone" in out
    assert "Round 2: Ann 57 · Bob 36 (Flip 7) · Cyd 9" in out
    assert "Totals: Ann 171 · Bob 86 · Cyd 64" in out
    assert "Game over! Ann wins with 205." in out
    assert out.rstrip().endswith(f"saved {path}")
    card = Scorecard.from_json(json.loads(path.read_text(encoding="utf-8")))
    assert len(card.rounds) == 4 and card.over and card.winners == (0,)
    assert card.totals == (205, 89, 66)
    assert card.rounds[1].flip7_seat == 1 and card.rounds[0].lines[1].busted


def test_resume_from_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "card.json"
    args = ("--players", "Ann,Bob,Cyd", "--target", "60", "--file", str(path))
    code, out, _ = play(monkeypatch, capsys, ["10 11 12", "5", "bust", "quit"], *args)
    assert code == 0 and "Round 1: Ann 33 · Bob 5 · Cyd 0 (bust)" in out
    assert path.exists() and not path.with_name("card.json.tmp").exists()
    # Standard input ends in the middle of round 2: saved, exit 0.
    code, out, _ = play(monkeypatch, capsys, ["1"], "--file", str(path))
    assert code == 0 and f"Resumed {path}: 1 round(s) so far" in out
    assert "\nRound 2\n" in out and "target 60" in out
    code, out, _ = play(monkeypatch, capsys, ["10 11 9", "5", "6"], "--file", str(path))
    assert "Round 2: Ann 30 · Bob 5 · Cyd 6" in out
    assert "Game over! Ann wins with 63." in out
    card = Scorecard.from_json(json.loads(path.read_text(encoding="utf-8")))
    assert card.totals == (63, 10, 6) and card.rules.target_score == 60


def test_brutal_flip7_choice(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    answers = ["1 2 3 4 5 6 7", "bust 9 9 -4", "5", "Ann", "bob", "totals", "quit"]
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd", "--brutal")
    assert code == 0
    assert "Ann has Flip 7: +15 (bonus), or −15 off another player's total" in out
    assert "  ! the −15 must go to another player" in out
    assert "Round 1: Ann 28 (Flip 7) · Bob -4 (bust) · Cyd 5" in out
    assert "Bob loses 15 from the total" in out
    assert "Totals: Ann 28 · Bob -19 · Cyd 5" in out
    table = "round  Ann   Bob      Cyd\n    1   28*   -4b−15    5\ntotal   28   -19        5\n"
    assert table in out


def test_edit_and_export(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    csv_path, json_path = tmp_path / "out.csv", tmp_path / "out.json"
    answers = [
        "5", "6", "7",
        "edit 1", "", "bust 6 6", "-",  # keep Ann's line, Bob busted, Cyd's line empty
        "export csv " + str(csv_path), "export json " + str(json_path), "quit",
    ]  # fmt: skip
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd")
    assert code == 0
    assert "  Ann [5]: " in out and "round 1 corrected" in out
    assert "Totals: Ann 5 · Bob 0 · Cyd 0" in out
    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows[1] == ["1", "5", "5", "5", "bust: 6 6", "0", "0", "", "0", "0", ""]
    card = Scorecard.from_json(json.loads(json_path.read_text(encoding="utf-8")))
    assert card.rounds[0].revision == 2 and card.totals == (5, 0, 0)


def test_edit_refused_when_it_would_end_the_game_before_the_last_round(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = ["5", "6", "7", "1", "2", "3", "edit 1", "12 11 10 9 8 7 3", "", "",
               "cancel", "quit"]  # fmt: skip
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd",
                        "--target", "60")  # fmt: skip
    assert code == 0
    assert "  ! round 1 now ends the game (Ann 75): undo the rounds after it first" in out
    assert "edit abandoned" in out


def test_every_problem_is_reported_and_only_those_lines_asked_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = ["3 STEAL", "5", "14", "3", "", "4", "quit"]
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd")
    assert code == 0
    assert "  ! Ann: Steal is an Action card: Actions never stay in a line" in out
    assert '  ! Cyd: "14" is not a card' in out
    assert "  Bob [5]" not in out and "  Ann [3 STEAL]: 3" in out
    assert "Round 1: Ann 3 · Bob 5 · Cyd 4" in out


def test_round_problems_ask_every_line_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = ["0", "0", "2", "", "1", "", "quit"]
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd")
    assert "  ! there are 2 cards 0 in this round, but the deck holds only 1" in out
    assert "  Ann [0]: \n" in out and "  Cyd [2]: \n" in out
    assert "Round 1: Ann 0 · Bob 1 · Cyd 2" in out and code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give the players: --players"),
        (("--players", "Ann,Bob"), "a game needs 3 to 36 players"),
        (("--players", "Ann,,Cyd"), "a player's name must be non-empty"),
        (("--players", "Ann,Bob,Cyd", "--rules", "{bad"), "--rules is not valid JSON"),
        (("--players", "Ann,Bob,Cyd", "--rules", '{"brutel": true}'), "unknown rule option"),
        (("--players", "Ann,Bob,Cyd", "--target", "0"), "target_score must be an integer >= 1"),
        (("--players", "Ann,Bob,Cyd", "--decks", "3"), "invalid choice: 3"),
        (("--players", "A,B,C", "--file", "/nonexistent/dir/card.json"), "cannot write"),
    ],
)
def test_bad_arguments_exit_2(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    code, out, err = play(monkeypatch, capsys, [], *args)
    assert code == 2 and message in err and out == ""


def test_bad_resume_files_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "card.json"
    path.write_text("{not json", encoding="utf-8")
    code, _, err = play(monkeypatch, capsys, [], "--file", str(path))
    assert code == 2 and f"cannot read {path}" in err
    path.write_text('{"format": "x"}', encoding="utf-8")
    code, _, err = play(monkeypatch, capsys, [], "--file", str(path))
    assert code == 2 and "is not a saved scorecard: format must be" in err
    path.write_text(json.dumps(Scorecard.new(["A", "B", "C"]).to_json()), encoding="utf-8")
    code, _, err = play(monkeypatch, capsys, [], "--file", str(path), "--players", "X,Y,Z")
    assert code == 2 and "keeps the score of A, B, C" in err
    code, _, err = play(monkeypatch, capsys, [], "--file", str(path), "--brutal")
    assert code == 2 and "was started with other rules" in err


def test_end_of_input_at_once_exits_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = play(monkeypatch, capsys, [], "--players", "Ann,Bob,Cyd")
    assert code == 0 and "\nRound 1\n" in out


def test_game_over_commands_and_undo_reopens_the_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = ["12 11", "3", "4", "5 6", "undo", "1", "2", "3", "quit"]
    code, out, _ = play(monkeypatch, capsys, answers, "--players", "Ann,Bob,Cyd",
                        "--target", "20")  # fmt: skip
    assert code == 0
    assert "Game over! Ann wins with 23." in out
    assert "the game is over; commands: undo" in out
    assert "round 1 undone" in out and "Round 1: Ann 1 · Bob 2 · Cyd 3" in out


def test_help_lists_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scorecard", "--help"]) == 0
    assert "Keep the score of a game" in capsys.readouterr().out
    assert main(["--help"]) == 0
    assert "scorecard" in capsys.readouterr().out
