"""Property-based tests: random legal play under random rule options.

A Hypothesis state machine plays games of 3, 4, 6 and 20 players (2 with ``allow_two_players``),
standard and Brutal, with every §13 option drawn at random, and after every step checks the
invariants of the rules: cards are conserved, no live line holds a forbidden duplicate, Flip 7 ends
the round, every round score is the scoring function of the scored line, the totals add up, and the
game written as a record replays to the same events and result. A separate test plays whole games
with a seeded random policy and checks that they end.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
)

from flip7 import (
    BONUS,
    HIT,
    STAY,
    Card,
    Decision,
    DecisionError,
    DecisionKind,
    Discard,
    Game,
    Give,
    Minus,
    Pass,
    Phase,
    Record,
    ReplayResult,
    Rules,
    Status,
    Steal,
    Swap,
    Target,
    deck_counts,
    parse_decision,
    replay,
    replay_events,
    replay_game,
)
from flip7.core.events import Drew, Event, Flip7, GameOver, RoundScored, RoundStarted, Stayed
from flip7.core.lines import has_duplicate, is_flip7
from flip7.core.scoring import busted_score, round_score
from flip7.engine.game import RoundResult

MAX_DECISIONS = 20_000


# --------------------------------------------------------------------------- strategies


@st.composite
def rules_strategy(draw: st.DrawFn) -> Rules:
    """Every option of RULES.md §13, each with a random legal value."""
    return Rules(
        brutal=draw(st.booleans()),
        target_score=draw(st.one_of(st.integers(1, 80), st.sampled_from([150, 200, 300]))),
        lucky13_pair_flip7_count=draw(st.sampled_from([1, 2])),
        unlucky7_triggers_on_transfer=draw(st.booleans()),
        can_stay_with_empty_line=draw(st.booleans()),
        deal_skips_inactive=draw(st.booleans()),
        tie_break=draw(st.sampled_from(["extra_rounds", "shared_win"])),
        brutal_busted_scoring=draw(st.sampled_from(["modifiers_only", "zero"])),
        brutal_minus15_targets=draw(st.sampled_from(["any_other_player", "non_busted_others"])),
        swap_allow_cross_type=draw(st.booleans()),
        pass_actions=draw(st.booleans()),
        no_cards_left=draw(st.just("end_round")),
        allow_two_players=draw(st.booleans()),
    )


@dataclass(frozen=True)
class Setup:
    players: int
    rules: Rules
    decks: int
    seed: int


@st.composite
def setups(draw: st.DrawFn, brutal: bool | None = None) -> Setup:
    rules = draw(rules_strategy())
    if brutal is not None:
        rules = rules.replace(brutal=brutal)
    choices = [3, 4, 6, 20] + ([2] if rules.allow_two_players else [])
    players = draw(st.sampled_from(choices))
    decks = 2 if players > 18 else draw(st.sampled_from([1, 1, 2]))
    seed = draw(st.integers(0, 2**32 - 1))
    return Setup(players, rules, decks, seed)


# --------------------------------------------------------------------------- the checks


def check_state(game: Game) -> None:
    """Invariants of a game state (any time)."""
    rules = game.rules
    # Cards are conserved: every card is in exactly one place.
    held: Counter[Card] = game.draw_pile_counts() + Counter(game.discard_pile)
    count = game.draw_pile_size + len(game.discard_pile) + len(game.set_aside())
    for seat in range(game.n):
        held += Counter(game.line(seat)) + Counter(game.modifiers(seat))
        count += len(game.line(seat)) + len(game.modifiers(seat))
    held += Counter(game.set_aside())
    assert count == 108 * game.decks
    assert held == deck_counts(game.decks)
    # Lines: only Numbers in the number row, only Modifiers above it.
    mid_round = game.phase in (Phase.DEAL, Phase.TURNS)
    for seat in range(game.n):
        line = game.line(seat)
        assert all(c.is_number for c in line)
        assert all(c.is_modifier for c in game.modifiers(seat))
        if game.status(seat) is Status.BUSTED:
            assert has_duplicate(line), (seat, line)
            continue
        assert not has_duplicate(line), (seat, line)
        assert len(line) <= (7 if rules.lucky13_pair_flip7_count == 2 else 8), line
        if mid_round:
            assert not is_flip7(line, rules.lucky13_pair_flip7_count), line
        assert game.number_sum(seat) == sum(c.value_points for c in line)
    # Totals are the round scores, less 15 for each Brutal −15.
    expected = [0] * game.n
    for rnd in game.rounds:
        for seat, score in enumerate(rnd.scores):
            expected[seat] += score
        if rnd.minus15 is not None:
            expected[rnd.minus15] -= 15
    assert list(game.totals) == expected
    # The end of the game (§9).
    if game.over:
        assert game.to_decide is None and not game.needs_card
        best = max(game.totals)
        assert best >= rules.target_score
        assert game.winners == tuple(s for s in range(game.n) if game.totals[s] == best)
        if rules.tie_break == "extra_rounds":
            assert len(game.winners) == 1
        assert len(game.rounds) == game.round
    else:
        assert game.winners == ()
        assert (game.to_decide is None) == game.needs_card
        if game.to_decide is not None:
            assert len(game.legal_decisions()) >= 2
    # Every earlier round ended with the game going on.
    for i in range(1, len(game.rounds)):
        totals = [0] * game.n
        for rnd in game.rounds[:i]:
            totals = [t + s for t, s in zip(totals, rnd.scores, strict=True)]
            if rnd.minus15 is not None:
                totals[rnd.minus15] -= 15
        top = max(totals)
        leaders = [s for s in range(game.n) if totals[s] == top]
        assert top < rules.target_score or (len(leaders) > 1 and rules.tie_break == "extra_rounds")


def expected_score(rules: Rules, event: RoundScored, seat: int) -> int:
    if seat in event.busted:
        return busted_score(
            event.modifiers[seat],
            brutal=rules.brutal,
            modifiers_only=rules.brutal_busted_scoring == "modifiers_only",
        )
    return round_score(
        event.lines[seat],
        event.modifiers[seat],
        flip7=seat == event.flip7,
        brutal=rules.brutal,
        bonus=event.minus15 is None,
    )


def _is_turn(event: Event) -> bool:
    """A Hit/Stay turn taken: a Hit's card, or a Stay by choice."""
    if isinstance(event, Drew):
        return event.cause == "hit"
    return isinstance(event, Stayed) and not event.forced


class EventChecker:
    """Checks each batch of events as it arrives, and keeps the whole stream."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.events: list[Event] = []
        self.totals = [0] * game.n
        self.round = 0
        self.last_turn = -1  # the seat whose Hit/Stay turn came last this round

    def batch(self, events: list[Event]) -> None:
        game, rules = self.game, self.game.rules
        json.dumps([e.to_json() for e in events])
        self.events.extend(events)
        for i, event in enumerate(events):
            if isinstance(event, RoundStarted):
                self.round += 1
                assert event.round == self.round
                self.last_turn = event.dealer
            elif _is_turn(event):
                self.last_turn = event.seat  # type: ignore[union-attr]
            elif isinstance(event, Flip7):
                # Flip 7 ends the round at once: scored in this batch, or the Brutal choice.
                after = [e for e in events[i + 1 :] if isinstance(e, RoundScored | Flip7)]
                if after:
                    assert isinstance(after[0], RoundScored) and after[0].flip7 == event.seat
                else:
                    assert rules.brutal
                    assert game.decision_kind is DecisionKind.FLIP7_CHOICE
                    assert game.to_decide == event.seat
                    assert game.phase is Phase.ROUND_END
            elif isinstance(event, RoundScored):
                self.scored(event)
            elif isinstance(event, GameOver):
                assert event is events[-1] and game.over
                assert event.winners == game.winners and event.totals == game.totals
        if game.decision_kind is DecisionKind.HIT_OR_STAY:
            # §3.2.1, §3.2.4: the next Active seat clockwise from the last turn (or the dealer).
            n = game.n
            seats = [(self.last_turn + k) % n for k in range(1, n + 1)]
            active = [s for s in seats if game.status(s) is Status.ACTIVE]
            assert game.to_decide == active[0], (self.last_turn, game.statuses())

    def scored(self, event: RoundScored) -> None:
        rules = self.game.rules
        n = self.game.n
        assert event.round == self.round
        assert len(event.lines) == len(event.modifiers) == len(event.scores) == n
        for seat in range(n):
            assert has_duplicate(event.lines[seat]) == (seat in event.busted)
            assert event.scores[seat] == expected_score(rules, event, seat), (seat, event)
        if event.flip7 is not None:
            assert event.flip7 not in event.busted
            assert is_flip7(event.lines[event.flip7], rules.lucky13_pair_flip7_count)
        if event.minus15 is not None:
            assert rules.brutal and event.flip7 is not None and event.minus15 != event.flip7
            if rules.brutal_minus15_targets == "non_busted_others":
                assert event.minus15 not in event.busted
        if not rules.brutal:
            assert all(s >= 0 for s in event.scores)
            assert all(event.scores[s] == 0 for s in event.busted)
        self.totals = [t + s for t, s in zip(self.totals, event.scores, strict=True)]
        if event.minus15 is not None:
            self.totals[event.minus15] -= 15
        assert list(event.totals) == self.totals
        result = self.game.rounds[event.round - 1]
        assert result == RoundResult(
            event.dealer, event.scores, event.busted, event.flip7, event.minus15
        )


def check_replay(game: Game, events: list[Event]) -> None:
    """The game, written as a record and replayed, gives the same events and result."""
    record = Record.from_game(game, meta={"test": "properties"})
    text = record.dumps()
    again = Record.loads(text)
    assert again.to_json() == record.to_json()
    assert json.loads(text) == record.to_json()
    replayed, replayed_events = replay_events(again)
    assert [e.to_json() for e in replayed_events] == [e.to_json() for e in events]
    result = replay(record)
    assert result == ReplayResult.of(game)
    assert ReplayResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    # The replayed game is in the same state (its draw pile in a different order).
    assert replayed.totals == game.totals and replayed.statuses() == game.statuses()
    assert replayed.to_decide == game.to_decide
    assert replayed.legal_decisions() == game.legal_decisions()
    assert replayed.discard_pile == game.discard_pile
    assert replayed.draw_pile_counts() == game.draw_pile_counts()
    assert Counter(replayed.set_aside()) == Counter(game.set_aside())
    for seat in range(game.n):
        assert replayed.line(seat) == game.line(seat)
        assert replayed.modifiers(seat) == game.modifiers(seat)


def check_rules_json(rules: Rules) -> None:
    assert Rules.from_json(rules.to_json()) == rules
    assert Rules.from_json(rules.to_json(full=True)) == rules
    assert Rules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    assert set(rules.to_json(full=True)) == {
        "brutal", "target_score", "lucky13_pair_flip7_count", "unlucky7_triggers_on_transfer",
        "can_stay_with_empty_line", "deal_skips_inactive", "tie_break", "brutal_busted_scoring",
        "brutal_minus15_targets", "swap_allow_cross_type", "pass_actions", "no_cards_left",
        "allow_two_players",
    }  # fmt: skip


def check_options(game: Game) -> None:
    options = game.legal_decisions()
    assert len(set(options)) == len(options)
    texts = [str(d) for d in options]
    assert len(set(texts)) == len(texts)
    for decision, text in zip(options, texts, strict=True):
        parsed = parse_decision(text)
        assert parsed == decision and str(parsed) == text
    assert set(options) == expected_options(game), (game.decision_kind, texts)


def _face_up(game: Game, seat: int) -> list[Card]:
    return list(dict.fromkeys(game.line(seat) + game.modifiers(seat)))


def _swaps(game: Game, live: list[int]) -> set[Decision]:
    cross = game.rules.swap_allow_cross_type
    return {
        Swap(s1, c1, s2, c2)
        for i, s1 in enumerate(live)
        for s2 in live[i + 1 :]
        for c1 in _face_up(game, s1)
        for c2 in _face_up(game, s2)
        if cross or c1.is_number == c2.is_number
    }


def expected_options(game: Game) -> set[Decision]:
    """The legal options of the pending decision, worked out from the rules (§3, §6, §7, §10)
    and the public state alone."""
    kind, me, card = game.decision_kind, game.to_decide, game.pending_card
    assert me is not None
    rules = game.rules
    live = [s for s in range(game.n) if game.status(s) is not Status.BUSTED]
    if kind is DecisionKind.HIT_OR_STAY:
        assert game.status(me) is Status.ACTIVE and Card.ZERO not in game.line(me)
        assert game.line(me) or game.modifiers(me) or rules.can_stay_with_empty_line
        return {HIT, STAY}
    if kind is DecisionKind.GIVE:
        assert card is not None and card.is_modifier
        return {Give(s) for s in (range(game.n) if rules.brutal else live)}
    if kind is DecisionKind.TARGET:
        assert card in (Card.JUST_ONE_MORE, Card.FLIP_FOUR)
        return {Target(s) for s in live}
    if kind is DecisionKind.FLIP7_CHOICE:
        pool = range(game.n) if rules.brutal_minus15_targets == "any_other_player" else live
        return {BONUS} | {Minus(s) for s in pool if s != me}
    if kind is DecisionKind.STEAL:
        return {Steal(s, c) for s in live if s != me for c in _face_up(game, s)}
    if kind is DecisionKind.DISCARD:
        return {Discard(s, c) for s in live for c in _face_up(game, s)}
    if kind is DecisionKind.SWAP:
        return _swaps(game, live)
    assert kind is DecisionKind.PASS and rules.pass_actions
    assert card in (Card.STEAL, Card.SWAP, Card.DISCARD)
    holders = [s for s in live if _face_up(game, s)]
    if card is Card.STEAL:
        return {Pass(s) for s in live if any(h != s for h in holders)}
    if card is Card.DISCARD:
        return {Pass(s) for s in live} if holders else set()
    return {Pass(s) for s in live} if _swaps(game, live) else set()


_LAZY_KINDS = (DecisionKind.STEAL, DecisionKind.SWAP, DecisionKind.DISCARD)


def check_lazy_legality(game: Game, rng: random.Random) -> None:
    """Steal, Swap and Discard options are listed only on demand; ``apply`` then judges a
    decision without the list. It must accept exactly the listed options."""
    if game.decision_kind not in _LAZY_KINDS:
        return
    legal = set(game.legal_decisions())
    # A replayed game stops at the same decision without having listed its options.
    fresh = replay_game(Record.from_game(game))
    assert fresh.decision_kind is game.decision_kind and fresh.to_decide == game.to_decide
    n = game.n
    held = sorted({c for s in range(n) for c in game.line(s) + game.modifiers(s)})
    held += [Card.FIVE, Card.MINUS_10, Card.STEAL]
    pool: list[Decision] = [HIT, STAY, BONUS, Target(0), Give(0), Pass(0), Minus(1)]
    pool += [Steal(s, c) for s in range(n + 1) for c in held]
    pool += [Discard(s, c) for s in range(n + 1) for c in held]
    pool += [
        Swap(rng.randrange(n + 1), rng.choice(held), rng.randrange(n + 1), rng.choice(held))
        for _ in range(40)
    ]
    candidates = rng.sample(pool, min(20, len(pool)))
    candidates += rng.sample(sorted(legal, key=str), min(3, len(legal)))
    for decision in candidates:
        probe = fresh.clone()
        if decision in legal:
            probe.apply(decision)
        else:
            try:
                probe.apply(decision)
            except DecisionError:
                continue
            raise AssertionError(f"{decision} accepted; legal: {sorted(map(str, legal))}")


# --------------------------------------------------------------------------- the state machine


class GameMachine(RuleBasedStateMachine):
    """Random legal play of one seeded game, checked after every step."""

    game: Game
    checker: EventChecker

    @initialize(setup=setups())
    def start(self, setup: Setup) -> None:
        check_rules_json(setup.rules)
        self.game = Game.new(setup.players, setup.rules, decks=setup.decks, seed=setup.seed)
        self.checker = EventChecker(self.game)
        self.checker.batch(self.game.take_events())
        self.steps = 0

    @rule(data=st.data(), as_text=st.booleans(), via_clone=st.booleans())
    def decide(self, data: st.DataObject, as_text: bool, via_clone: bool) -> None:
        game = self.game
        if game.over:
            assert game.legal_decisions() == ()
            return
        check_options(game)
        check_lazy_legality(game, random.Random(self.steps))
        decision = data.draw(st.sampled_from(game.legal_decisions()), label="decision")
        clone = game.clone() if via_clone else None
        events = game.apply(str(decision) if as_text else decision)
        if clone is not None:
            # A clone holds the random state too: the same decision has the same effect.
            assert [e.to_json() for e in clone.apply(str(decision))] == [
                e.to_json() for e in events
            ]
        self.checker.batch(events)
        self.steps += 1

    @invariant()
    def state_is_consistent(self) -> None:
        check_state(self.game)

    @invariant()
    def replays_the_same(self) -> None:
        check_replay(self.game, self.checker.events)


TestGameMachine = GameMachine.TestCase
# 30 games of up to 60 random legal decisions (text or object, on the game or a clone),
# each step checked: about 25 s on the CI machine, half of what 60 cost.
TestGameMachine.settings = settings(max_examples=30, stateful_step_count=60, deadline=None)


# --------------------------------------------------------------------------- whole games


def play_out(setup: Setup) -> tuple[Game, EventChecker, int]:
    policy = random.Random(setup.seed ^ 0x5EED)
    game = Game.new(setup.players, setup.rules, decks=setup.decks, seed=setup.seed)
    checker = EventChecker(game)
    checker.batch(game.take_events())
    decisions = 0
    while not game.over:
        assert decisions < MAX_DECISIONS, "the game does not end"
        options = game.legal_decisions()
        assert set(options) == expected_options(game)
        # Lean towards staying so that lines score and games finish like real ones.
        if game.decision_kind is DecisionKind.HIT_OR_STAY and policy.random() < 0.4:
            choice = options[1]
        else:
            choice = options[policy.randrange(len(options))]
        checker.batch(game.apply(choice))
        decisions += 1
        if decisions % 25 == 0:
            check_state(game)
    check_state(game)
    return game, checker, decisions


@settings(max_examples=60, deadline=None)
@given(setups())
def test_games_end_and_replay(setup: Setup) -> None:
    game, checker, decisions = play_out(setup)
    assert game.over and game.winners
    assert decisions < MAX_DECISIONS
    check_replay(game, checker.events)


@settings(max_examples=30, deadline=None)
@given(setups(brutal=True))
def test_brutal_games_end_and_replay(setup: Setup) -> None:
    game, checker, _ = play_out(setup)
    assert game.over
    check_replay(game, checker.events)


class Policy:
    """A seeded random player; with ``hit_below`` set it declares the threshold rule that
    ``Game.play`` runs itself ("Hit while my number sum is below it")."""

    def __init__(self, seed: int, hit_below: int | None) -> None:
        self._rng = random.Random(seed)
        if hit_below is not None:
            self.hit_below = hit_below

    def choose(self, game: Game) -> Decision:
        options = game.legal_decisions()
        return options[self._rng.randrange(len(options))]


def _policies(setup: Setup, thresholds: list[int | None]) -> list[Policy]:
    return [Policy(setup.seed + seat, thresholds[seat % len(thresholds)]) for seat in range(99)]


@settings(max_examples=30, deadline=None)
@given(setups(), st.lists(st.none() | st.integers(0, 40), min_size=1, max_size=6))
def test_play_equals_deciding_one_by_one(setup: Setup, thresholds: list[int | None]) -> None:
    """``Game.play`` (with its fast path for threshold players) makes the same decisions,
    draws and events as asking each player in turn."""
    fast = Game.new(setup.players, setup.rules, decks=setup.decks, seed=setup.seed)
    fast.play(_policies(setup, thresholds)[: setup.players])
    fast_events = fast.take_events()

    slow = Game.new(setup.players, setup.rules, decks=setup.decks, seed=setup.seed)
    players = _policies(setup, thresholds)[: setup.players]
    checker = EventChecker(slow)
    checker.batch(slow.take_events())
    steps = 0
    while not slow.over:
        steps += 1
        assert steps < MAX_DECISIONS
        seat = slow.to_decide
        assert seat is not None
        below = getattr(players[seat], "hit_below", None)
        if slow.decision_kind is DecisionKind.HIT_OR_STAY and below is not None:
            decision: Decision = HIT if slow.number_sum(seat) < below else STAY
        else:
            decision = players[seat].choose(slow)
        checker.batch(slow.apply(decision))
    assert fast.over
    assert [str(d) for d in fast.decisions] == [str(d) for d in slow.decisions]
    assert fast.draws == slow.draws
    assert [e.to_json() for e in fast_events] == [e.to_json() for e in checker.events]
    assert ReplayResult.of(fast) == ReplayResult.of(slow)
    check_state(fast)
    check_replay(fast, fast_events)
    # Without events the game is the same.
    quiet = Game.new(setup.players, setup.rules, decks=setup.decks, seed=setup.seed, events=False)
    quiet.play(_policies(setup, thresholds)[: setup.players])
    assert quiet.take_events() == []
    assert quiet.draws == fast.draws and quiet.decisions == fast.decisions
    assert ReplayResult.of(quiet) == ReplayResult.of(fast)


# --------------------------------------------------------------------------- JSON round trips


@settings(max_examples=100, deadline=None)
@given(rules_strategy())
def test_rules_json_round_trip(rules: Rules) -> None:
    check_rules_json(rules)
    assert Rules.from_json(rules.to_json()).to_json() == rules.to_json()
    assert eval(repr(rules), {"Rules": Rules}) == rules


_results = st.builds(
    ReplayResult,
    over=st.booleans(),
    rounds=st.lists(
        st.builds(
            RoundResult,
            dealer=st.integers(0, 5),
            scores=st.lists(st.integers(-200, 200), min_size=3, max_size=3).map(tuple),
            busted=st.lists(st.integers(0, 2), unique=True).map(lambda s: tuple(sorted(s))),
            flip7=st.none() | st.integers(0, 2),
            minus15=st.none() | st.integers(0, 2),
        ),
        max_size=4,
    ).map(tuple),
    totals=st.lists(st.integers(-500, 500), min_size=3, max_size=3).map(tuple),
    winners=st.lists(st.integers(0, 2), unique=True, max_size=3).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(_results)
def test_replay_result_json_round_trip(result: ReplayResult) -> None:
    data: Any = json.loads(json.dumps(result.to_json()))
    assert set(data) == {"over", "rounds", "totals", "winners"}
    for rnd in data["rounds"]:
        assert set(rnd) == {"dealer", "scores", "busted", "flip7", "minus15"}
    assert ReplayResult.from_json(data) == result
