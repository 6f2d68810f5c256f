"""The advisor (``flip7.analysis.advisor``, ``flip7 advise``).

The odds are checked against the engine itself (``chance_outcomes`` and what a drawn card
really does to a cloned game) and against every order of small constructed draw piles; the
advice from a game is checked to depend on public information only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from flip7.analysis.advisor import Advice, Situation, advise, bust_risk, next_card
from flip7.cli import advise as advise_cli
from flip7.core.cards import Card, deck_counts
from flip7.core.decisions import HIT, STAY, DecisionKind
from flip7.core.errors import Flip7Error, GameStateError
from flip7.core.events import Busted as BustedEvent
from flip7.core.events import Flip7 as Flip7Event
from flip7.core.lines import has_duplicate, is_flip7
from flip7.core.rules import Rules
from flip7.core.scoring import busted_score, round_score
from flip7.engine.game import Game, Status
from flip7.engine.record import Record

U7, ZERO = Card.UNLUCKY_7, Card.ZERO


# ---------------------------------------------------------------------------- driving games


def explicit_games(count: int, players: int = 3, seed: int = 0) -> list[Game]:
    """Explicit games stopped at Hit/Stay decisions, reached by random play. The test driver
    picks the cards (from the draw pile, which only the test looks at)."""
    rng = random.Random(seed)
    stops: list[Game] = []
    game = Game.new(players, explicit=True, dealer=0)
    while len(stops) < count:
        if game.over:
            game = Game.new(players, explicit=True, dealer=rng.randrange(players))
        if game.needs_card:
            game.draw(rng.choice(sorted(game.draw_pile_counts().elements())))
            continue
        if game.decision_kind is DecisionKind.HIT_OR_STAY:
            seat = game.to_decide
            assert seat is not None
            stops.append(game.clone())
            game.apply(HIT if game.number_sum(seat) < rng.choice((15, 25, 35)) else STAY)
        else:
            game.apply(rng.choice(game.legal_decisions()))
    return stops


def shuffled_games(count: int, players: int = 4, seed: int = 1) -> list[Game]:
    """Shuffled (non-explicit) games stopped at Hit/Stay decisions."""
    rng = random.Random(seed)
    stops: list[Game] = []
    game = Game.new(players, seed=seed)
    while len(stops) < count:
        if game.over:
            game = Game.new(players, seed=rng.randrange(10**6))
        if game.decision_kind is DecisionKind.HIT_OR_STAY:
            seat = game.to_decide
            assert seat is not None
            stops.append(game.clone())
            game.apply(HIT if game.number_sum(seat) < 27 else STAY)
        else:
            game.apply(rng.choice(game.legal_decisions()))
    return stops


@pytest.fixture(scope="module")
def explicit_stops() -> list[Game]:
    return explicit_games(120)


# ---------------------------------------------------------------------------- the engine agrees


def test_one_card_odds_agree_with_chance_outcomes(explicit_stops: list[Game]) -> None:
    for game in explicit_stops:
        seat = game.to_decide
        assert seat is not None
        odds = next_card(Situation.from_game(game))
        bust = flip = Fraction(0)
        outcomes = game.chance_outcomes()
        assert odds.cards == sum(
            Counter(game.draw_pile_counts() or Counter(game.discard_pile)).values()
        )
        for card, p in outcomes:
            trial = game.clone()
            trial.apply(HIT)
            events = trial.draw(card)
            # Events, not statuses: a bust can end the round, and a new one starts.
            if any(isinstance(e, BustedEvent) and e.seat == seat for e in events):
                bust += p
            if any(isinstance(e, Flip7Event) and e.seat == seat for e in events):
                flip += p
        assert odds.p_bust == bust
        assert odds.p_flip7 == flip
        advice = advise(game)
        assert advice.p_bust_next == bust and advice.p_flip7_next == flip


def test_the_bust_risk_is_next_cards_p_bust(explicit_stops: list[Game]) -> None:
    """bust_risk, sent with every state a deciding seat receives, works from the counts
    alone; it is the same figure as the full one-card odds, for the seat to decide and for
    every other seat still in the round, in explicit and shuffled games, one deck or two."""
    stops = [*explicit_stops, *shuffled_games(80), *shuffled_games(40, players=12, seed=5)]
    compared = 0
    for game in stops:
        view = game.view(None)
        for seat in range(game.n):
            if game.status(seat) is not Status.ACTIVE:
                with pytest.raises(GameStateError, match="there is no Hit or Stay"):
                    bust_risk(view, seat)
                continue
            assert bust_risk(view, seat) == next_card(Situation.from_view(view, seat)).p_bust
            compared += 1
        assert bust_risk(game) == bust_risk(view, game.to_decide)
    assert compared > 400
    with pytest.raises(GameStateError, match="seat must be from 0 to 2"):
        bust_risk(explicit_stops[0], 3)


def test_the_pile_is_worked_out_by_counting_cards(explicit_stops: list[Game]) -> None:
    for game in [*explicit_stops, *shuffled_games(60)]:
        situation = Situation.from_game(game)
        counted = Counter({Card(i): k for i, k in enumerate(situation.pile) if k})
        assert counted == +game.draw_pile_counts()


def test_advice_uses_no_hidden_information() -> None:
    rng = random.Random(4)
    for game in shuffled_games(40):
        pile = list(game.draw_pile)
        rng.shuffle(pile)
        other = game.clone(draw_pile=pile)  # the same table, another hidden order
        assert other.draw_pile != game.draw_pile or len(pile) < 2
        assert advise(game) == advise(other)
        # The record of the game so far replays to an explicit game with no order at all.
        assert advise(Situation.from_record(Record.from_game(game))) == advise(game)


def test_the_game_is_read_through_its_public_view(monkeypatch: pytest.MonkeyPatch) -> None:
    game = shuffled_games(1)[0]
    expected = advise(game)

    def hidden(*_args: object) -> object:
        raise AssertionError("the advisor looked at hidden information")

    monkeypatch.setattr(Game, "draw_pile_counts", hidden)
    monkeypatch.setattr(Game, "chance_outcomes", hidden)
    assert advise(game) == expected


# ---------------------------------------------------------------------------- every order


def take(
    numbers: tuple[Card, ...], mods: tuple[Card, ...], card: Card
) -> tuple[tuple[Card, ...], tuple[Card, ...]] | None:
    """A Number card received (RULES.md §4): the new line, or None on a bust."""
    if card is U7:
        return (U7,), ()
    new = (*numbers, card)
    return None if has_duplicate(new) else (new, mods)


def keep_hitting(line: Sequence[Card], pile: Sequence[Card], pair_count: int = 2) -> Fraction:
    """Hit until Flip 7 or a bust, over every order of the pile; non-Number cards are
    neutral draws."""
    hits = orders = 0
    for order in itertools.permutations(pile):
        orders += 1
        state: tuple[tuple[Card, ...], tuple[Card, ...]] | None = (tuple(line), ())
        for card in order:
            if not card.is_number:
                continue
            assert state is not None
            state = take(*state, card)
            if state is None:
                break
            if is_flip7(state[0], pair_count):
                hits += 1
                break
    return Fraction(hits, orders)


def model_values(
    numbers: Sequence[Card], mods: Sequence[Card], pile: Sequence[Card], rules: Rules, keep: bool
) -> tuple[Fraction, Fraction]:
    """(value of the line now, expected score of one hit then optimal play) in the model:
    Actions neutral, Modifiers kept or neutral, backward induction over every order."""
    modifiers_only = rules.brutal_busted_scoring == "modifiers_only"

    @cache
    def best(numbers: tuple[Card, ...], mods: tuple[Card, ...], left: tuple[Card, ...]) -> Fraction:
        stay = Fraction(round_score(numbers, mods, flip7=False, brutal=rules.brutal))
        hit = after(numbers, mods, left)
        if hit is None:
            return stay
        forced = ZERO in numbers or not (numbers or mods or rules.can_stay_with_empty_line)
        return hit if forced else max(stay, hit)

    def after(
        numbers: tuple[Card, ...], mods: tuple[Card, ...], left: tuple[Card, ...]
    ) -> Fraction | None:
        if not left:
            return None
        total = Fraction(0)
        for i, card in enumerate(left):
            rest = left[:i] + left[i + 1 :]
            if card.is_number:
                state = take(numbers, mods, card)
                if state is None:
                    total += busted_score(mods, brutal=rules.brutal, modifiers_only=modifiers_only)
                elif is_flip7(state[0], rules.lucky13_pair_flip7_count):
                    total += round_score(*state, flip7=True, brutal=rules.brutal)
                else:
                    total += best(tuple(sorted(state[0])), state[1], rest)
            elif card.is_modifier and keep:
                total += best(numbers, tuple(sorted((*mods, card))), rest)
            else:
                total += best(numbers, mods, rest)
        return total / len(left)

    start = (tuple(sorted(numbers)), tuple(sorted(mods)), tuple(sorted(pile)))
    now = best(*start)
    hit = after(*start)
    return now, now if hit is None else hit


SMALL = [
    # (line, modifiers, pile, alone, rules)
    ([5, 9], [], [1, 5, 9, 2, "JOM", "-4"], False, Rules()),
    ([5, 9], [], [1, 5, 9, 2, "JOM", "-4"], True, Rules()),
    ([12, 11], ["/2"], [12, 3, 4, "-6", "STEAL"], True, Rules()),
    ([0, 3], [], [3, 4, 5, 6, 8, "SWAP"], False, Rules()),
    ([1, 2, 3, 4, 5], [], [6, 6, 13, "L13", "FLIP4"], False, Rules()),
    (["L13", 1, 2, 3, 4], [], [13, 13, 5, 6, "/2"], True, Rules()),
    (["L13", 1, 2, 3, 4], [], [13, 5, 6, "JOM"], False, Rules(lucky13_pair_flip7_count=1)),
    ([10], ["-6"], [10, 10, 2, "-2", "-4"], True, Rules(brutal=True)),
    ([10], ["-6"], [10, 2, 3, "-2", "-4"], True, Rules()),
    ([10], ["-6"], [10, 10, 2, "-2"], False, Rules(brutal=True, brutal_busted_scoring="zero")),
    ([], [], [4, 4, "JOM", 9], False, Rules()),
    ([], ["-2"], [7, 8, "-4"], True, Rules()),
    ([7, 8], [], [7, 9, "U7", 11, 2], False, Rules()),
    (["U7", 9], [], [7, 9, 3, 4, 1], False, Rules()),
]


def situation(
    line: Sequence[int | str], mods: Sequence[str], pile: Sequence[int | str], alone: bool,
    rules: Rules,
) -> Situation:  # fmt: skip
    return Situation.from_fields(
        [[str(c) for c in line] + list(mods), ["1"]],
        seat=0,
        statuses=["active", "busted" if alone else "stayed"],
        pile=[str(c) for c in pile],
        rules=rules,
    )


@pytest.mark.parametrize(("line", "mods", "pile", "alone", "rules"), SMALL)
def test_figures_match_every_order_of_a_small_pile(
    line: list[int | str], mods: list[str], pile: list[int | str], alone: bool, rules: Rules
) -> None:
    s = situation(line, mods, pile, alone, rules)
    advice = advise(s)
    cards = [Card.parse(str(c)) for c in pile]
    numbers = [Card.parse(str(c)) for c in line]
    modifiers = [Card.parse(m) for m in mods]
    # One card: count the first card of every order.
    busts = sum(1 for c in cards if c.is_number and take(tuple(numbers), (), c) is None)
    assert advice.p_bust_next == Fraction(busts, len(cards))
    # Keep hitting: every order.
    assert advice.p_flip7_keep_hitting == keep_hitting(
        numbers, cards, rules.lucky13_pair_flip7_count
    )
    # The expected scores (exact while no Unlucky 7 is in the pile: the wipe shortcut).
    assert advice.ev_stay == round_score(numbers, modifiers, flip7=False, brutal=rules.brutal)
    # Alone, a Modifier must be kept; in Brutal it may go to a busted player (§7.3, §7.5).
    keep = alone and not rules.brutal
    assert advice.keeps_modifiers is keep
    if U7 not in cards:
        now, hit = model_values(numbers, modifiers, cards, rules, keep)
        assert advice.ev_hit == pytest.approx(float(hit), abs=1e-9)
        assert advice.ev_best == pytest.approx(float(now), abs=1e-9)


def test_after_a_wipe_the_model_puts_the_wiped_cards_back() -> None:
    # Line {8, 9}; the pile: Unlucky 7 and a 9. Hitting draws U7 (line {U7}, worth 7, then the
    # 9 makes 16) or the 9 (bust). After the wipe the model's pile is the starting pile less
    # the Unlucky 7: {9}, the same as the real one here.
    advice = advise(situation([8, 9], [], ["U7", 9], False, Rules()))
    assert advice.ev_hit == pytest.approx((16 + 0) / 2)
    assert advice.recommendation == "stay" and advice.ev_stay == 17


MODIFIERS = [Card.DIVIDE_2, Card.MINUS_2, Card.MINUS_4, Card.MINUS_6, Card.MINUS_8, Card.MINUS_10]


def told_apart(s: Situation) -> float:
    """``ev_hit`` in the model that tells every Modifier drawn apart (the exact one)."""
    from flip7.analysis.solver import LineModel, LineRules, line_key

    counts = s.draw_counts
    mods = s.modifiers[s.seat]
    rules = LineRules(divides=mods.count(Card.DIVIDE_2), penalty=sum(card.penalty for card in mods))
    numbers, kept = list(counts[:16]), [counts[card] for card in MODIFIERS]
    model = LineModel(numbers, rules, modifiers=kept)
    key = line_key(s.numbers[s.seat])
    size = sum(counts)
    neutral = (size - sum(numbers) - sum(kept)) / size
    return neutral * model.value(key) + (1 - neutral) * model.hit_value(key)


@pytest.mark.parametrize(
    ("line", "others", "seen", "decks"),
    [
        (["10", "3"], [["5", "5"], ["9", "9"]], [], 1),
        (["8", "4", "2", "-4"], [["5", "5"], ["9", "9"]], ["12", "12", "11"], 1),
        (["12"], [["6", "6"], ["13", "13"]], ["JOM", "FLIP4", "3"], 1),
        (["U7", "6"], [["5", "5"], ["9", "9"]], ["-10", "10", "11"], 1),
        (["11", "4", "10"], [["5", "5"], ["9", "9"]], ["12", "1", "2"], 2),
    ],
)
def test_kept_modifiers_agree_with_telling_them_apart(
    line: list[str], others: list[list[str]], seen: list[str], decks: int
) -> None:
    # Alone in standard mode the Modifiers drawn join the line (§7.3). Early in a round
    # there are too many sets of them to tell apart in time: the model counts them, up to
    # two (the module docstring), a few hundredths of a point from the exact figure at most.
    from flip7.analysis.advisor import _EXACT_STATES, _kept_states
    from flip7.analysis.solver import line_key

    s = Situation.from_fields(
        [line, *others], seat=0, statuses=["active", "busted", "busted"], seen=seen, decks=decks
    )
    assert s.keeps_modifiers
    counts = s.draw_counts
    kept = [counts[card] for card in MODIFIERS]
    assert _kept_states(line_key(s.numbers[0]), counts[:16], kept) > _EXACT_STATES
    advice = advise(s)
    assert advice.ev_hit == pytest.approx(told_apart(s), abs=0.02)
    assert advice.p_flip7_keep_hitting > 0  # the one-card and keep-hitting figures: exact


def test_late_in_a_round_kept_modifiers_are_told_apart() -> None:
    # A small pile: the model tells the Modifiers apart, the exact figure.
    pile = ["3", "4", "5", "6", "8", "12", "-2", "-6", "/2", "JOM"]
    s = Situation.from_fields(
        [["10", "9"], ["7", "7"]], seat=0, statuses=["active", "busted"], pile=pile
    )
    assert advise(s).ev_hit == pytest.approx(told_apart(s), abs=1e-12)


# ---------------------------------------------------------------------------- recommendations


def test_the_zero_forces_a_hit() -> None:
    advice = advise(Situation.from_fields([["0", "13", "12"], []], seat=0))
    assert advice.must_hit and advice.recommendation == "hit"
    assert advice.ev_stay == 0 and "The Zero" in advice.reason


def test_an_empty_line_must_hit_unless_the_rules_allow() -> None:
    assert advise(Situation.from_fields([[], ["5"]], seat=0)).must_hit
    allowed = Rules(can_stay_with_empty_line=True)
    assert not advise(Situation.from_fields([[], ["5"]], seat=0, rules=allowed)).must_hit
    assert not advise(Situation.from_fields([["-2"], ["5"]], seat=0)).must_hit


def test_high_lines_stay_and_low_lines_hit() -> None:
    high = advise(Situation.from_fields([["12", "11", "10", "9"], []], seat=0))
    assert high.recommendation == "stay" and high.ev_hit < high.ev_stay == 42
    assert high.reason.startswith("stay: ")
    low = advise(Situation.from_fields([["2", "3"], []], seat=0))
    assert low.recommendation == "hit" and low.ev_hit > low.ev_stay == 5
    assert low.reason.startswith("hit: ")


def test_nothing_left_to_draw() -> None:
    advice = advise(Situation.from_fields([["5"], []], seat=0, pile={}))
    assert advice.recommendation == "stay" and advice.cards_left == 0
    assert advice.ev_hit == 5.0 and advice.p_bust_next == 0


def test_an_empty_draw_pile_means_the_discard_pile() -> None:
    s = Situation.from_fields([["5"], []], seat=0, pile={}, discard=["5", "6"])
    odds = next_card(s)
    assert (odds.cards, odds.p_bust) == (2, Fraction(1, 2))


def test_advice_round_trips_through_json() -> None:
    advice = advise(Situation.from_fields([["5", "9", "/2"], ["13"]], seat=0))
    data = json.loads(json.dumps(advice.to_json()))
    assert data["recommendation"] in ("hit", "stay")
    assert Fraction(data["p_bust_next_exact"]) == advice.p_bust_next
    assert Fraction(data["p_flip7_keep_hitting_exact"]) == advice.p_flip7_keep_hitting
    assert isinstance(advice, Advice) and data["ev_stay"] == 7


@pytest.mark.parametrize(
    "build",
    [
        lambda: Situation.from_fields([["5"], ["7"]], seat=1, statuses=["active", "busted"]),
        lambda: Situation.from_fields([["5"], ["7"]], seat=1, statuses=["active", "stayed"]),
        lambda: Situation.from_fields([["5", "5"]], seat=0),
        lambda: Situation.from_fields([["5", "JOM"]], seat=0),
        lambda: Situation.from_fields([["5"]], seat=3),
        lambda: Situation.from_fields([["5"]], seat=0, statuses=["resting"]),
        lambda: Situation.from_fields([["1", "1"]], seat=0, statuses=["busted"]),
        lambda: Situation.from_fields([["5"]], seat=0, pile={"5": -1}),
        lambda: Situation.from_fields([["1"], ["1"]], seat=0),  # only one 1 in a deck
        lambda: Situation.from_fields([["xx"]], seat=0),
    ],
)
def test_impossible_situations_are_errors(build: object) -> None:
    with pytest.raises(Flip7Error):
        build()  # type: ignore[operator]


def test_situations_round_trip_through_json(explicit_stops: list[Game]) -> None:
    for game in explicit_stops[:30]:
        situation = Situation.from_game(game)
        again = Situation.from_json(json.loads(json.dumps(situation.to_json())))
        assert again == situation
        assert advise(again) == advise(situation)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"lines": [["5"]], "seat": 0},
        {"lines": [["5"]], "seat": 0, "pile": {}, "colour": "red"},
        {"lines": [["5"]], "seat": 0, "pile": []},
        {"lines": "5", "seat": 0, "pile": {}},
        {"lines": [["5"]], "seat": 0, "pile": {"5": "two"}},
        {"lines": [["5"]], "seat": 0, "pile": {}, "discard": {"5": -1}},
        {"lines": [["5"]], "seat": 0, "pile": {}, "rules": {"brutel": True}},
    ],
)
def test_bad_situation_json_is_an_error(data: object) -> None:
    with pytest.raises(Flip7Error):
        Situation.from_json(data)


def test_a_game_with_nobody_deciding_needs_a_seat() -> None:
    game = Game.new(3, explicit=True)
    assert game.needs_card
    with pytest.raises(GameStateError):
        Situation.from_game(game)


def test_two_decks() -> None:
    s = Situation.from_fields([["L13", "5"], []], seat=0, decks=2)
    assert sum(s.pile) == 216 - 2
    odds = next_card(s)
    # Bust: the other 5s (2·5 − 1 = 9); a second Lucky 13 or a regular 13 pairs safely.
    assert odds.p_bust == Fraction(9, 214)
    assert advise(s).recommendation == "hit"


# ---------------------------------------------------------------------------- the command


def cli_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="flip7 advise")
    advise_cli.add_arguments(parser)
    return parser.parse_args(argv)


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    game = Game.new(["Ann", "Bob", "Cyd"], explicit=True, dealer=2)
    for code in ["12", "5", "9"]:
        game.draw(code)
    game.apply("hit")
    game.draw("11")
    path = tmp_path / "game.json"
    path.write_text(Record.from_game(game).dumps(), encoding="utf-8")
    return path


def test_cli_record(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert advise_cli.run(cli_args(["--record", str(record_file)])) == 0
    out = capsys.readouterr().out
    assert out.startswith("seat 1's line: 5 (scores 5 if you stay)")
    assert "advice: hit: " in out
    assert advise_cli.run(cli_args(["--record", str(record_file), "--seat", "0", "--json"])) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seat"] == 0 and data["ev_stay"] == 23
    assert data["situation"]["lines"][0] == ["12", "11"]


def test_cli_typed_in(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--line", "8, 6 /2", "--seen", "8 8", "--seen", "JOM", "--discard", "3", "--json"]
    assert advise_cli.run(cli_args(argv)) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["situation"]["lines"][0] == ["8", "6", "/2"]
    assert sum(data["situation"]["pile"].values()) == 108 - 3 - 3 - 1
    assert data["p_bust_next_exact"] == str(Fraction(5 + 5, 101))
    assert advise_cli.run(cli_args(["--line", "3 4", "--pile", "3 9 FLIP4", "--alone"])) == 0
    out = capsys.readouterr().out
    assert "bust 33.3%" in out and "Modifiers you draw stay in your line" in out


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--line", "5", "--record", "x.json"],
        ["--line", "5", "--seat", "1"],
        ["--line", "5 Q"],
        ["--line", "5", "--rules", "{bad"],
        ["--line", "5", "--rules", '{"brutel": true}'],
        ["--line", "5 5"],
        ["--record", "does-not-exist.json"],
    ],
)
def test_cli_bad_input_is_a_flip7_error(argv: list[str], tmp_path: Path) -> None:
    with pytest.raises(Flip7Error):
        advise_cli.run(cli_args(argv))


def test_cli_bad_record(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "flip7-record/1"}', encoding="utf-8")
    with pytest.raises(Flip7Error):
        advise_cli.run(cli_args(["--record", str(path)]))


def test_cli_help_explains_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    from flip7.cli import main

    assert main(["advise", "--help"]) == 0
    text = capsys.readouterr().out
    for word in ("--record", "--seat", "--line", "--pile", "--seen", "--alone", "--json", "model"):
        assert word in text


def test_an_empty_line_at_a_fresh_deck_is_the_solitaire_optimum() -> None:
    from flip7.analysis.solver import solve

    advice = advise(Situation.from_fields([[], []], seat=0))
    # Hitting is forced and neutral cards change nothing: the solver's own figure.
    assert advice.ev_hit == pytest.approx(solve("vengeance", thresholds=[0]).optimum, abs=1e-9)


def test_full_deck_default_pile() -> None:
    s = Situation.from_fields([["5"], ["6"], ["7"]], seat=0)
    expected = deck_counts()
    expected.subtract([Card.FIVE, Card.SIX, Card.SEVEN])
    assert s.pile == tuple(expected[Card(i)] for i in range(len(Card)))
