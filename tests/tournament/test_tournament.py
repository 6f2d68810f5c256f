"""The tournament runner and the ladder: schedule, determinism across executors (a process
pool and a Dask LocalCluster), fairness, attack points, output files and the commands."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from flip7 import Flip7Error, Game, Rules
from flip7.bots import make_bot
from flip7.cli import tournament as cli
from flip7.core.cards import Card
from flip7.core.events import (
    ActionUsed,
    Busted,
    Drew,
    Event,
    Minus15,
    ModifierGiven,
    RoundScored,
    Stolen,
    Swapped,
    Wiped,
)
from flip7.core.events import Discarded as DiscardedEvent
from flip7.core.seeds import bot_seed, game_seed
from flip7.tournament import (
    TournamentError,
    TournamentResult,
    attack_points,
    run_tournament,
    scheduled_game,
    wilson,
)
from flip7.tournament.ladder import final_ranks, ladder_lineups, run_ladder
from flip7.tournament.output import write_outputs

LINEUP = ["basic", "random", "basic", "random"]


def _comparable(result: TournamentResult) -> dict[str, Any]:
    """results.json without the ``run`` section (timing, executor): what must not change."""
    data = result.to_json()
    del data["run"]
    return data


@pytest.fixture(scope="module")
def reference() -> TournamentResult:
    return run_tournament(LINEUP, games=40, seed=11)


# ---------------------------------------------------------------------- schedule and games


def test_schedule_rotates_seats_and_derives_seeds() -> None:
    games = [scheduled_game(["ev", "t1", "t2", "t3"], i, seed=5) for i in range(1, 6)]
    assert [g.rotation for g in games] == [0, 1, 2, 3, 0]
    assert [g.deal for g in games] == [1, 2, 3, 4, 5]
    assert [g.deal_seed for g in games] == [game_seed(5, i) for i in range(1, 6)]
    # Entry p sits at seat (p + rotation) % players: "ev" walks round the table.
    assert [g.seats.index("ev") for g in games] == [0, 1, 2, 3, 0]
    assert games[1].seats == ("t3", "ev", "t1", "t2")


def test_paired_schedule_plays_each_deal_in_every_rotation() -> None:
    games = [scheduled_game(["a", "b", "c"], i, seed=5, paired=True) for i in range(1, 7)]
    assert [(g.deal, g.rotation) for g in games] == [(1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)]
    assert {g.deal_seed for g in games[:3]} == {game_seed(5, 1)}


def test_rows_are_the_games_played_by_hand(reference: TournamentResult) -> None:
    for row in reference.rows[:6]:
        game = Game.new(4, Rules(), seed=game_seed(11, row.index), events=False)
        game.play([make_bot(spec, bot_seed(11, row.index, s)) for s, spec in enumerate(row.seats)])
        assert row.totals == game.totals
        assert row.winners == game.winners
        assert row.rounds == len(game.rounds)
        assert row.round_points == tuple(sum(r.scores[s] for r in game.rounds) for s in range(4))
        assert row.busts == tuple(sum(s in r.busted for r in game.rounds) for s in range(4))


def test_aggregates_add_up(reference: TournamentResult) -> None:
    assert [r.index for r in reference.rows] == list(range(1, 41))
    assert sum(s.wins for s in reference.specs) == pytest.approx(40)
    basic = reference.spec("basic")
    assert basic.seats == 2 and basic.fair_share == 0.5
    assert basic.edge == pytest.approx(basic.win_rate - 0.5)
    assert (basic.win_low, basic.win_high) == wilson(basic.wins, 40)
    seats = [(row, s) for row in reference.rows for s in range(4) if row.seats[s] == "basic"]
    assert basic.mean_game_score == pytest.approx(sum(r.totals[s] for r, s in seats) / 80)
    rounds = sum(r.rounds for r, _ in seats)
    assert basic.rounds == rounds
    assert basic.bust_rate == pytest.approx(sum(r.busts[s] for r, s in seats) / rounds)
    assert sum(reference.round_scores["basic"].values()) == rounds
    assert [p.spec for p in reference.positions] == LINEUP
    assert sum(p.wins for p in reference.positions) == pytest.approx(40)
    assert reference.latency["random"].count > 0


def test_attacks_and_timing_options_do_not_change_the_games(reference: TournamentResult) -> None:
    plain = run_tournament(LINEUP, games=12, seed=11, attacks=False, time_all_decisions=True)
    assert all(row.attacks is None for row in plain.rows)
    assert plain.spec("basic").attack_points is None
    assert [r.totals for r in plain.rows] == [r.totals for r in reference.rows[:12]]
    # Timing every decision asks the threshold bot for its Hit/Stay decisions as well.
    timed = run_tournament(LINEUP, games=12, seed=11)
    assert plain.latency["basic"].count > timed.latency["basic"].count


# ---------------------------------------------------------------------- determinism


def test_the_same_results_for_any_jobs_and_chunking(reference: TournamentResult) -> None:
    pooled = run_tournament(LINEUP, games=40, seed=11, jobs=2, chunk_size=3)
    assert pooled.executor == "processes (2)"
    assert pooled.rows == reference.rows
    assert _comparable(pooled) == _comparable(reference)
    other_seed = run_tournament(LINEUP, games=40, seed=12)
    assert other_seed.rows != reference.rows


def test_the_same_results_on_a_dask_local_cluster(reference: TournamentResult) -> None:
    pytest.importorskip("distributed")
    from flip7.tournament.cluster import dask_executor

    with dask_executor("local", workers=2) as dask:
        assert dask.workers == 2
        result = run_tournament(
            LINEUP, games=40, seed=11, executor=dask.executor, executor_name=dask.name
        )
        ladder = run_ladder(["random", "basic"], games=12, seed=3, players=3,
                            executor=dask.executor)  # fmt: skip
    assert result.executor == "dask local (2 workers)"
    assert result.rows == reference.rows
    assert _comparable(result) == _comparable(reference)
    assert ladder.rows == run_ladder(["random", "basic"], games=12, seed=3, players=3).rows


# ---------------------------------------------------------------------- fairness


def test_four_identical_bots_each_win_a_quarter_within_the_interval() -> None:
    result = run_tournament(["basic"] * 4, games=400, seed=1, attacks=False)
    assert [s.spec for s in result.specs] == ["basic"]
    assert result.specs[0].win_rate == 1.0 and result.specs[0].fair_share == 1.0
    for entry in result.positions:
        assert entry.fair_share == 0.25
        assert entry.win_low <= 0.25 <= entry.win_high, entry
    assert sum(p.wins for p in result.positions) == pytest.approx(400)


def test_paired_deals_give_a_deterministic_bot_exactly_its_share() -> None:
    # basic ignores its seed: a deal played in every rotation is the same game each time,
    # won by the same seat, so each lineup entry wins it exactly once.
    result = run_tournament(["basic"] * 4, games=40, seed=3, paired=True, attacks=False)
    assert [p.wins for p in result.positions] == [10.0] * 4
    assert {row.deal_seed for row in result.rows[:4]} == {game_seed(3, 1)}


def test_lineups_compared_with_one_seed_share_their_deals() -> None:
    a = run_tournament(["basic", "basic", "random"], games=9, seed=4, attacks=False)
    b = run_tournament(["random", "random", "random"], games=9, seed=4, attacks=False)
    assert [r.deal_seed for r in a.rows] == [r.deal_seed for r in b.rows]


def test_wilson_interval() -> None:
    low, high = wilson(25, 100)
    assert (round(low, 4), round(high, 4)) == (0.1755, 0.343)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------------- attack points


def _scored(
    lines: Sequence[Sequence[Card]],
    modifiers: Sequence[Sequence[Card]] = ((), (), ()),
    busted: tuple[int, ...] = (),
) -> RoundScored:
    n = len(lines)
    return RoundScored(
        1, 0, (0,) * n, busted, None, None, (0,) * n,
        tuple(tuple(x) for x in lines), tuple(tuple(m) for m in modifiers),
    )  # fmt: skip


def test_attack_points_card_moves() -> None:
    events: list[Event] = [
        Stolen(0, 1, Card.LUCKY_13),  # 13 from seat 1
        Stolen(0, 2, Card.MINUS_4),  # took a penalty away: -4
        DiscardedEvent(1, 2, Card.NINE),  # 9 from seat 2
        DiscardedEvent(1, 1, Card.FIVE),  # its own card: not an attack
        Swapped(2, 2, Card.ONE, 0, Card.TWELVE),  # seat 0 gives 12, gets 1: 11
    ]
    assert attack_points(events, 3) == [9, 9, 11]


def test_attack_points_busts_caused_by_flip_four_and_swap() -> None:
    five, eight, ten = Card.FIVE, Card.EIGHT, Card.TEN
    events: list[Event] = [
        ActionUsed(0, Card.FLIP_FOUR, 1),
        Drew(1, eight, "flip_four"),
        Busted(1, eight),  # seat 1 had 5 + 8 = 13 before the second 8
        Drew(2, ten, "hit"),
        Busted(2, ten),  # its own Hit: nobody's attack
        _scored([[], [five, eight, eight], [ten, ten]], busted=(1, 2)),
    ]
    assert attack_points(events, 3) == [13, 0, 0]
    events = [
        Swapped(0, 0, Card.THREE, 1, Card.SIX),  # seat 1 gives 6, gets 3: +3
        Busted(1, Card.THREE),  # ... a duplicate 3: it loses its 3 + 9
        _scored([[Card.SIX], [Card.NINE, Card.THREE, Card.THREE], []], busted=(1,)),
    ]
    assert attack_points(events, 3) == [3 + 12, 0, 0]


def test_attack_points_wipes_modifiers_and_minus15() -> None:
    events: list[Event] = [
        ActionUsed(2, Card.JUST_ONE_MORE, 0),
        Drew(0, Card.UNLUCKY_7, "just_one_more"),
        Wiped(0, (Card.TEN, Card.FOUR, Card.MINUS_2)),  # 10 + 4 - 2
        ModifierGiven(1, 0, Card.DIVIDE_2),  # halves seat 0's 7 + 9 = 16
        ModifierGiven(1, 2, Card.MINUS_6),  # seat 2 busts: costs nothing
        ModifierGiven(1, 1, Card.MINUS_2),  # to itself
        _scored(
            [[Card.UNLUCKY_7, Card.NINE], [Card.ONE], [Card.TWO, Card.TWO]],
            [[Card.DIVIDE_2], [Card.MINUS_2], [Card.MINUS_6]],
            busted=(2,),
        ),
        Minus15(1, 0),
    ]
    assert attack_points(events, 3) == [0, 8 + 15, 12]
    # In Brutal a busted line's Modifiers count: the -6 costs seat 2 its 6 points.
    assert attack_points(events, 3, Rules(brutal=True)) == [0, 8 + 6 + 15, 12]


def test_attack_points_of_real_games_are_counted_for_attackers() -> None:
    result = run_tournament(["basic", "basic", "basic"], games=10, seed=2)
    assert all(row.attacks is not None and sum(row.attacks) > 0 for row in result.rows)


# ---------------------------------------------------------------------- outputs


def test_output_files(tmp_path: Path, reference: TournamentResult) -> None:
    paths = write_outputs(reference, tmp_path / "out")
    assert [p.name for p in paths] == [
        "results.json", "games.csv", "win_rates.png", "round_scores.png",
    ]  # fmt: skip
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["format"] == "flip7-tournament/1"
    assert data["games"] == 40 and data["seats"] == LINEUP
    assert [s["spec"] for s in data["specs"]] == ["basic", "random"]
    assert set(data["run"]["latency"]) == {"basic", "random"}
    with (tmp_path / "out" / "games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 40
    first = reference.rows[0]
    assert rows[0]["deal_seed"] == str(first.deal_seed)
    assert rows[0]["seat1_bot"] == first.seats[1]
    assert rows[0]["seat1_total"] == str(first.totals[1])
    assert rows[0]["winners"] == " ".join(map(str, first.winners))
    for name in ("win_rates.png", "round_scores.png"):
        assert (tmp_path / "out" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seats": ["basic", "nosuchbot", "basic"]}, "nosuchbot"),
        ({"seats": ["basic", "basic"]}, "3 to 36 players"),
        ({"players": 4}, "4 players need 4 seats"),
        ({"games": 0}, "1 or more"),
        ({"paired": True, "games": 10}, "multiple of 3"),
        ({"jobs": 0}, "jobs must be 1 or more"),
        ({"chunk_size": 0}, "chunk size"),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"seats": ["basic", "random", "random"], "games": 6, "seed": 0}
    args.update(kwargs)
    with pytest.raises(Flip7Error, match=message):
        run_tournament(**args)


def test_a_dask_address_nobody_answers() -> None:
    pytest.importorskip("distributed")
    from flip7.tournament.cluster import dask_executor

    with (
        pytest.raises(TournamentError, match="cannot reach"),
        dask_executor("tcp://127.0.0.1:9", timeout=1),
    ):
        pass  # pragma: no cover


# ---------------------------------------------------------------------- the commands


def _main(argv: list[str]) -> int:
    """The two commands as ``flip7.cli.main`` runs them: Flip7Error -> 2, argparse's own."""
    parser = argparse.ArgumentParser(prog="flip7")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in (("tournament", cli), ("ladder", cli.ladder)):
        part = sub.add_parser(name)
        command.add_arguments(part)
        part.set_defaults(func=command.run)
    try:
        args = parser.parse_args(argv)
        code: int = args.func(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except Flip7Error as exc:
        print(f"flip7 {argv[0]}: error: {exc}", file=sys.stderr)
        return 2
    return code


def test_tournament_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["tournament", "--seats", "basic,random,random", "--games", "9", "--seed", "1"]
    assert _main([*argv, "--no-progress", "--out", str(tmp_path), "--no-plots"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("9 games of 3 players (basic, random, random), seed 1: ")
    assert "win rate (95% CI)" in out and "entry" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "results.json"]
    assert _main([*argv, "--json", "--progress"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["seats"] == ["basic", "random", "random"]
    assert data["run"]["executor"] == "inline"
    assert "9/9" in err  # the progress bar, on standard error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "basic,nosuchbot,basic"], "nosuchbot"),
        (["--seats", "basic,basic,basic", "--players", "4"], "4 players need 4 seats"),
        (["--seats", "basic,basic,basic", "--paired", "--games", "10"], "multiple of 3"),
        (["--seats", "basic,basic,basic", "--rules", "{bad"], "not valid JSON"),
        (["--seats", "basic,basic,basic", "--games", "0"], "must be 1 or more"),
        (["--seats", "basic,,basic"], "empty bot spec"),
    ],
)
def test_tournament_command_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert _main(["tournament", *argv, "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err


def test_wired_into_flip7_main(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7.cli import build_parser, main

    if "tournament" not in build_parser()[0].format_help():
        pytest.skip("flip7 tournament is not wired into flip7.cli yet")
    assert main(["tournament", "--seats", "basic,basic,nosuchbot", "--no-progress"]) == 2
    assert "nosuchbot" in capsys.readouterr().err
    assert main(["ladder", "--bots", "random,basic", "--players", "3", "--games", "6"]) == 0
    assert "ordinal" in capsys.readouterr().out


# ---------------------------------------------------------------------- the ladder


def test_ladder_tables_and_ranks() -> None:
    assert ladder_lineups(["a", "b", "c"], 3) == [("a", "b", "c")]
    assert len(ladder_lineups(["a", "b", "c"], 4)) == 12  # 15 multisets, 3 of one bot
    assert final_ranks((200, 150, 200)) == [1, 3, 1]


def test_ladder_rates_the_stronger_bot_higher() -> None:
    result = run_ladder(["random", "basic"], games=60, seed=3, players=3)
    assert [r.bot for r in result.ratings] == ["basic", "random"]
    best = result.ratings[0]
    assert best.mu > 25 > result.ratings[1].mu
    assert best.ordinal == pytest.approx(best.mu - 3 * best.sigma)
    assert best.games == 60 and best.seat_games == 90 and best.fair_share == 0.5
    pooled = run_ladder(["random", "basic"], games=60, seed=3, players=3, jobs=2)
    assert pooled.ratings == result.ratings


def test_ladder_command(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ladder", "--bots", "random,basic", "--players", "3", "--games", "12", "--seed", "1"]
    assert _main([*argv, "--no-progress"]) == 0
    out, _ = capsys.readouterr()
    assert "12 games of 3 players, 2 tables of random, basic, seed 1" in out
    assert "ordinal" in out and "basic" in out
    assert _main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["bot"] for r in data["ratings"]] == ["basic", "random"]
    assert {"mu", "sigma", "ordinal", "games"} <= set(data["ratings"][0])
    assert _main(["ladder", "--bots", "random,random,basic"]) == 2
    assert "listed once" in capsys.readouterr().err


# ---------------------------------------------------------------------- paired comparisons


def test_compare_entries_pairs_games_on_the_same_deals() -> None:
    from flip7.tournament.compare import compare_entries

    a = run_tournament(["basic", "random", "random"], games=30, seed=4, attacks=False)
    b = run_tournament(["random", "random", "random"], games=30, seed=4, attacks=False)
    diffs = compare_entries(a, b)
    assert [(d.entry, d.a, d.b) for d in diffs] == [
        (0, "basic", "random"), (1, "random", "random"), (2, "random", "random"),
    ]  # fmt: skip
    first = diffs[0]
    wins_a = sum(r.win_share(r.rotation % 3) for r in a.rows)
    wins_b = sum(r.win_share(r.rotation % 3) for r in b.rows)
    assert first.win_diff == pytest.approx((wins_a - wins_b) / 30)
    assert first.win_low < first.win_diff < first.win_high
    with pytest.raises(TournamentError, match="same players, games, seed"):
        compare_entries(a, run_tournament(["random"] * 3, games=30, seed=5, attacks=False))


def test_tournament_command_compare(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["tournament", "--seats", "basic,random,random", "--compare", "random,random,random"]
    argv += ["--games", "6", "--seed", "1", "--no-progress"]
    assert _main([*argv, "--out", str(tmp_path), "--no-plots"]) == 0
    out, _ = capsys.readouterr()
    assert "paired on the same deals" in out
    assert (tmp_path / "compare" / "results.json").exists()
    comparison = json.loads((tmp_path / "comparison.json").read_text())
    assert [d["a"] for d in comparison] == ["basic", "random", "random"]
    assert _main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"tournament", "compare", "comparison"}
    assert _main([*argv[:4], "basic,nosuchbot,basic", *argv[5:]]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "nosuchbot" in err
