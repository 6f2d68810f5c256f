"""Per-seat statistics (flip7.analysis.stats) against a short game checked by hand."""

from __future__ import annotations

from engine_helpers import play

from flip7 import Game, Rules
from flip7.analysis.stats import StatsTotals, game_stats, seat_stats_from_json
from flip7.engine.record import Record

# Ann (0), Bob (1), Cyd (2) to 25 points; Ann deals round 1, so the deal goes Bob, Cyd, Ann.
MOVES = [
    # Round 1. Deal: Bob 10, Cyd 9, Ann 8 (lines worth 8, 10, 9).
    "10", "9", "8",
    # Bob hits a Flip Four! and sends it to Cyd (attack 1: Bob -> Cyd, Cyd's line worth 9).
    "hit", "FLIP4", "target 2",
    # Cyd's forced draws: 3 (worth 12), then a second 9: busted (worth 0). Attack 1 is
    # measured from the worth when it was sent: 9 - 0 = 9 points.
    "3", "9",
    # Ann hits -4 and gives it to Bob (attack 2, a Modifier: Bob's 10 is worth 6): 4 points.
    "hit", "-4", "give 1",
    # Bob stays. Ann hits a Steal and takes Bob's 10 (attack 3: Bob keeps only the -4,
    # worth 0): 6 points. Ann's line 8 + 10 = 18. Ann stays: round 1 scores 18, 0, 0
    # (Cyd busted).
    "stay", "hit", "STEAL", "steal 1 10", "stay",
    # Round 2, Bob deals: Cyd 12, Ann 11, Bob a Just One More!, which he sends to Ann
    # (attack 4, Ann's line worth 11): she draws a 2 (worth 13) and must stay: 0 points.
    "12", "11", "JOM", "target 0", "2",
    # Cyd hits a Swap: Ann's 11 for Cyd's 12 (attack 5, Cyd -> Ann: Ann 13 -> 14): 0 points.
    "hit", "SWAP", "swap 0 11 2 12",
    # Bob, with no card, must hit: 5. Cyd stays (11), Bob stays (5): round 2 scores 14, 5,
    # 11. Totals 32, 5, 11: Ann passes 25 and wins.
    "5", "stay", "stay",
]


def hand_checked_game() -> Game:
    game = Game.new(["Ann", "Bob", "Cyd"], Rules(target_score=25), explicit=True)
    play(game, *MOVES)
    assert game.over and game.totals == (32, 5, 11) and game.winners == (0,)
    return game


def test_every_figure_of_the_hand_checked_game() -> None:
    stats = game_stats(hand_checked_game())
    assert stats.rounds == 2 and stats.over
    assert [(a.round, a.attacker, a.victim, a.kind, a.points) for a in stats.attacks] == [
        (1, 1, 2, "flip_four", 9),
        (1, 0, 1, "modifier", 4),
        (1, 0, 1, "steal", 6),
        (2, 1, 0, "just_one_more", 0),
        (2, 2, 0, "swap", 0),
    ]
    ann, bob, cyd = stats.seats
    # Ann: rounds 18 + 14 = 32, average 16; no bust; attacks 2 and 3 given (4 + 6 = 10
    # points, both on Bob), attacks 4 and 5 received (0 points).
    assert (ann.rounds, ann.points, ann.round_score_avg, ann.busts, ann.bust_rate) == (
        2, 32, 16.0, 0, 0.0)
    assert (ann.attacks_given, ann.attack_points_given) == (2, 10)
    assert (ann.attacks_received, ann.attack_points_received) == (2, 0)
    assert ann.favourite_target == 1 and ann.total == 32 and ann.winner and ann.flip7s == 0
    # Bob: rounds 0 + 5, average 2.5; gave attacks 1 (9 points, on Cyd) and 4 (0, on Ann):
    # one each, so the favourite is the one that cost more, Cyd; received 2 and 3 (10).
    assert (bob.points, bob.round_score_avg, bob.busts) == (5, 2.5, 0)
    assert (bob.attacks_given, bob.attack_points_given) == (2, 9)
    assert (bob.attacks_received, bob.attack_points_received) == (2, 10)
    assert bob.favourite_target == 2 and not bob.winner
    # Cyd: rounds 0 (busted) + 11, average 5.5, one bust in two rounds; gave attack 5
    # (0 points, on Ann), received attack 1 (9).
    assert (cyd.points, cyd.round_score_avg, cyd.busts, cyd.bust_rate) == (11, 5.5, 1, 0.5)
    assert (cyd.attacks_given, cyd.attack_points_given, cyd.favourite_target) == (1, 0, 0)
    assert (cyd.attacks_received, cyd.attack_points_received) == (1, 9)


def test_a_record_gives_the_same_figures_as_the_game() -> None:
    game = hand_checked_game()
    record = Record.from_game(game)
    assert game_stats(record).to_json() == game_stats(game).to_json()
    assert game_stats(record.dumps()).to_json() == game_stats(record.to_json()).to_json()


def test_stored_figures_read_back() -> None:
    for seat in game_stats(hand_checked_game()).seats:
        again = seat_stats_from_json(seat.to_json())
        assert again.to_json() == seat.to_json()


def test_totals_over_games() -> None:
    stats = game_stats(hand_checked_game())
    totals = StatsTotals()
    names = stats.players
    # Bob's seat in two games: the same opponents count together by name.
    for _ in range(2):
        totals.add(stats.seats[1], target_key=lambda seat: names[seat])
    totals.add(stats.seats[0], won=True, target_key=lambda seat: names[seat])
    assert (totals.games, totals.wins, totals.rounds, totals.points) == (3, 1, 6, 42)
    assert totals.round_score_avg == 7.0 and totals.bust_rate == 0.0
    assert totals.attack_points_given == 2 * 9 + 10
    # Ties keep the order first counted: Bob attacked Cyd, then Ann; Ann attacked Bob.
    assert totals.favourite_targets() == [("Cyd", 2), ("Ann", 2), ("Bob", 2)]
    assert totals.to_json()["attacks_received"] == 2 + 2 + 2


def test_a_game_not_started_has_no_figures() -> None:
    game = Game.new(3, explicit=True)
    stats = game_stats(game)
    assert stats.rounds == 0 and not stats.over
    assert all(s.round_score_avg == 0.0 and s.favourite_target is None for s in stats.seats)


# Brutal, to 40: a Discard, a Flip 7 and its -15. Ann deals; the deal goes Bob, Cyd, Ann.
BRUTAL_MOVES = [
    # Deal: Bob 1, Cyd 2, Ann 3. Bob hits 4 (line 1 4, worth 5).
    "1", "2", "3", "hit", "4",
    # Cyd hits a Discard and discards Bob's 4 (attack 1: Bob's line worth 5 -> 1): 4 points.
    "hit", "DISCARD", "discard 1 4",
    # Ann stays at 3. Bob and Cyd hit in turn: Bob 4 6 9 11, Cyd 5 8 10 (Cyd: 2 5 8 10 = 25).
    "stay", "hit", "4", "hit", "5", "hit", "6", "hit", "8", "hit", "9", "hit", "10", "hit", "11",
    # Cyd stays; Bob hits 12 and 13: seven Number cards, a Flip 7 (1 4 6 9 11 12 13 = 56).
    "stay", "hit", "12", "hit", "13",
    # Bob takes 15 off Cyd's total instead of the bonus (attack 2, a -15: 15 points). Round
    # scores 3, 56, 25; totals 3, 56, 10: Bob passes 40 and wins.
    "minus 2",
]


def test_a_discard_a_flip7_and_a_minus15_checked_by_hand() -> None:
    game = Game.new(["Ann", "Bob", "Cyd"], Rules(brutal=True, target_score=40), explicit=True)
    play(game, *BRUTAL_MOVES)
    assert game.over and game.totals == (3, 56, 10) and game.winners == (1,)
    stats = game_stats(game)
    assert [(a.attacker, a.victim, a.kind, a.points) for a in stats.attacks] == [
        (2, 1, "discard", 4), (1, 2, "minus15", 15)]
    ann, bob, cyd = stats.seats
    assert (ann.rounds, ann.points, ann.attacks_given, ann.attacks_received) == (1, 3, 0, 0)
    assert ann.favourite_target is None
    assert (bob.points, bob.flip7s, bob.total, bob.winner) == (56, 1, 56, True)
    assert (bob.attack_points_given, bob.attack_points_received, bob.favourite_target) == (
        15, 4, 2)
    # Cyd's round scored 25 (the average counts round scores); the -15 came off the total.
    assert (cyd.points, cyd.round_score_avg, cyd.total, cyd.flip7s) == (25, 25.0, 10, 0)
    assert (cyd.attack_points_given, cyd.attack_points_received, cyd.favourite_target) == (
        4, 15, 1)
