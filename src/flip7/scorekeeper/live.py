"""Live mode (docs/scorekeeper.md): a round at a physical table entered card by card
(:class:`~flip7.scorekeeper.rounds.LiveEvent`), replayed with the line rules of
:mod:`flip7.core.lines` into a :class:`LiveRound` that knows the draw pile's composition
and asks the advisor whether the player to decide should hit.

A Flip Four! (§6.3) is followed step by step: once it is played on a player (a ``flip4``
event) the next cards go to that player, Numbers take effect as they arrive, Modifiers and
Actions are set aside, a bust or a Flip 7 stops it, and the set-aside cards are then
resolved in the order they came (``give``, ``use``, or a ``flip4`` for a set-aside Flip
Four, which nests). The engine (:mod:`flip7.engine`) plays the same rule on a game it deals
itself; live mode cannot drive it, because the table's own order of events (who got which
card, in any order the keeper enters them) is only known as it is entered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flip7.analysis.advisor import Advice, Situation, advise
from flip7.core.cards import FLIP_FOUR_CARDS, Card, deck_counts
from flip7.core.errors import Flip7Error
from flip7.core.lines import Status, is_flip7, receive
from flip7.core.rules import Rules
from flip7.core.scoring import score_round
from flip7.scorekeeper.rounds import LineEntry, LiveEvent, ScorecardError, _names_text


@dataclass(slots=True)
class _FlipFour:
    """A Flip Four! under way while events replay: its target, the cards still due, the
    cards set aside (to resolve in order once the draws are done, §6.3.4) and whether the
    last of them was an Action being used now (its own events come before the next one)."""

    target: int
    left: int = FLIP_FOUR_CARDS
    set_aside: list[Card] = field(default_factory=list)
    using: bool = False


@dataclass(frozen=True, slots=True)
class FlipFourState:
    """A Flip Four! under way in a live round (§6.3): ``target`` takes the cards; ``drawn``
    of them have come; ``set_aside`` are the Modifiers and Actions waiting, in the order
    they came; ``using``: the last set-aside Action is being used, and its own events (a
    Steal's move, a Just One More's card and stay) come before the next set-aside card."""

    target: int
    drawn: int
    set_aside: tuple[Card, ...]
    using: bool

    @property
    def drawing(self) -> bool:
        """Whether cards are still due to the target."""
        return self.drawn < FLIP_FOUR_CARDS


class _Replay:
    """The mutable state of a live round while its events are replayed."""

    def __init__(
        self, players: Sequence[str], rules: Rules, decks: int, out: Counter[Card]
    ) -> None:
        n = len(players)
        self.players = players
        self.rules = rules
        self.decks = decks
        self.deck = deck_counts(decks)
        self.numbers: list[list[Card]] = [[] for _ in range(n)]
        self.modifiers: list[list[Card]] = [[] for _ in range(n)]
        self.status = [Status.ACTIVE] * n
        self.flip7_seat: int | None = None
        self.out = Counter(out)  # out of the draw pile since the last reshuffle
        self.last_seat: int | None = None
        self.notes: list[str] = []
        # Flip Fours under way, innermost last (a set-aside one nests, §11), and the seat
        # whose Flip Four card was just flipped, waiting to be played on someone.
        self.frames: list[_FlipFour] = []
        self.to_play: int | None = None

    # -- what the table shows

    def in_lines(self) -> Counter[Card]:
        held: Counter[Card] = Counter()
        for numbers, modifiers in zip(self.numbers, self.modifiers, strict=True):
            held.update(numbers)
            held.update(modifiers)
        return held

    def over(self) -> bool:
        # With nobody Active the round still waits for a Flip Four's set-aside cards (§3.4.1).
        return self.flip7_seat is not None or (Status.ACTIVE not in self.status and not self.frames)

    def why_over(self) -> str:
        if self.flip7_seat is not None:
            return f"{self.players[self.flip7_seat]} has Flip 7"
        return "every player has stayed or busted"

    # -- the line rules of §4–§5 (flip7.core.lines)

    def receive(self, seat: int, card: Card, transfer: bool, check_flip7: bool = True) -> None:
        # A wipe's cards go to the discard pile: they stay out of the draw pile.
        busted, _ = receive(
            self.numbers[seat], self.modifiers[seat], card, self.rules, transfer=transfer
        )
        if busted:
            self.status[seat] = Status.BUSTED
            return
        if check_flip7 and not card.is_modifier:
            self.check_flip7(seat)

    def check_flip7(self, seat: int) -> None:
        if (
            self.flip7_seat is None
            and self.status[seat] is not Status.BUSTED
            and is_flip7(self.numbers[seat], self.rules.lucky13_pair_flip7_count)
        ):
            self.flip7_seat = seat

    def reshuffle(self) -> None:
        # §3.5.1: the discard pile becomes the draw pile; the cards in lines stay out.
        self.out = self.in_lines()

    def draw(self, card: Card, where: str) -> None:
        """``card`` leaves the draw pile."""
        if self.out[card] >= self.deck[card]:
            in_lines = self.in_lines()[card]
            if in_lines >= self.deck[card]:
                holds = "the deck holds" if self.decks == 1 else f"the {self.decks} decks hold"
                raise ScorecardError(
                    f"{where}: {card.code} cannot come from the draw pile: {holds} "
                    f"{self.deck[card]} and {in_lines} {'is' if in_lines == 1 else 'are'} "
                    "already in players' lines"
                )
            # The draw pile cannot hold it: it must have run out and the discard pile been
            # shuffled (§3.5.1), or earlier rounds were entered without their whole history.
            self.reshuffle()
            self.notes.append(
                f"{where}: no {card.code} was left in the draw pile: counted as a reshuffle"
            )
        self.out[card] += 1

    def seat_ok(self, value: int | None, where: str, what: str = "seat") -> int:
        n = len(self.players)
        if value is None or not 0 <= value < n:
            raise ScorecardError(f"{where}: {what} must be a seat from 0 to {n - 1}, not {value}")
        return value

    def live_seat(self, seat: int, where: str) -> None:
        if self.status[seat] is Status.BUSTED:
            raise ScorecardError(
                f"{where}: {self.players[seat]} has busted: Actions cannot touch a busted "
                "player's cards"
            )

    def take(self, seat: int, card: Card, where: str) -> None:
        line = self.numbers[seat] if card.is_number else self.modifiers[seat]
        if card not in line:
            raise ScorecardError(f"{where}: {self.players[seat]} has no {card.code} in the line")
        line.remove(card)

    # -- the events

    # -- Flip Four! (§6.3)

    def settle(self) -> None:
        """Drop the Flip Fours that are done: all cards drawn and resolved, or the target
        busted (its set-aside cards are discarded unresolved, §6.3.2, §11); a Flip 7 ends
        them all (§3.4.1). The discarded cards are out of the draw pile and in no line, so
        the counts already put them in the discard pile."""
        if self.flip7_seat is not None:
            self.frames.clear()
            self.to_play = None
            return
        alive: list[_FlipFour] = []
        using = False
        for frame in reversed(self.frames):
            if self.status[frame.target] is Status.BUSTED or not (frame.left or frame.set_aside):
                # An Action used last may still have events to come: the Flip Four below
                # waits for them too.
                using = using or frame.using
                continue
            if using:
                frame.using, using = True, False
            alive.append(frame)
        self.frames = alive[::-1]

    def waiting(self, frame: _FlipFour) -> str:
        """What the Flip Four's target does next with its set-aside cards, in words."""
        head = frame.set_aside[0]
        codes = ", ".join(c.code for c in frame.set_aside)
        if head.is_modifier:
            what = f"give the {head.code} to a player (a give event)"
        elif head is Card.FLIP_FOUR:
            what = "play the FLIP4 on a player (a flip4 event)"
        else:
            what = f"use the {head.code} (a use event)"
        return (
            f"{self.players[frame.target]} first resolves the cards set aside in the Flip Four, "
            f"in the order they came ({codes}): {what}"
        )

    def resolving(self, where: str, user: int, card: Card) -> _FlipFour:
        """The Flip Four whose next set-aside card ``user`` resolves now, if it is ``card``."""
        frame = self.frames[-1] if self.frames else None
        if frame is None or frame.left or not frame.set_aside:
            raise ScorecardError(
                f"{where}: no card set aside in a Flip Four is waiting to be resolved"
            )
        owner = self.players[frame.target]
        if frame.target != user:
            raise ScorecardError(
                f"{where}: the cards set aside in the Flip Four on {owner} are {owner}'s to "
                f"resolve, not {self.players[user]}'s (§6.3.4)"
            )
        head = frame.set_aside[0]
        if head is not card:
            codes = ", ".join(c.code for c in frame.set_aside)
            raise ScorecardError(
                f"{where}: the next card set aside for {owner} is {head.code}, not {card.code}: "
                f"they are resolved in the order they came ({codes}, §6.3.4)"
            )
        return frame

    def not_busted(self, seat: int, where: str) -> None:
        if self.status[seat] is Status.BUSTED:
            raise ScorecardError(
                f"{where}: {self.players[seat]} has busted: an Action cannot target a busted "
                "player (§6.1.2)"
            )

    def flip_four_draw(self, frame: _FlipFour, event: LiveEvent, where: str) -> None:
        """One of a Flip Four's cards: only its target's ``card`` events (and reshuffles)."""
        target = self.players[frame.target]
        number = FLIP_FOUR_CARDS - frame.left + 1
        if event.type != "card":
            raise ScorecardError(
                f"{where}: the Flip Four on {target} is under way: card {number} of "
                f"{FLIP_FOUR_CARDS} goes to {target} before anything else (§6.3.1)"
            )
        seat = self.seat_ok(event.seat, where)
        if seat != frame.target:
            raise ScorecardError(
                f"{where}: card {number} of {FLIP_FOUR_CARDS} of the Flip Four on {target} goes "
                f"to {target}, not {self.players[seat]} (§6.3.1)"
            )
        card = event.card
        assert card is not None
        self.draw(card, where)
        frame.left -= 1
        if card.is_number:  # a Number takes effect as it arrives: bust, wipe, Flip 7
            self.receive(seat, card, transfer=False)
        else:
            frame.set_aside.append(card)

    def flip_four_event(self, event: LiveEvent, revealed: int | None, where: str) -> None:
        """A ``flip4``, ``give`` or ``use`` event."""
        source = self.seat_ok(event.source, where, "from")
        if event.type == "flip4":
            target = self.seat_ok(event.target, where, "to")
            self.not_busted(target, where)
            if revealed != source:
                if not self.frames or self.frames[-1].left or not self.frames[-1].set_aside:
                    name = self.players[source]
                    raise ScorecardError(
                        f"{where}: {name} has no Flip Four to play: a flip4 event follows the "
                        f"FLIP4 card that {name} flipped, or plays one set aside in a Flip Four "
                        f"on {name} when its turn comes"
                    )
                frame = self.resolving(where, source, Card.FLIP_FOUR)
                frame.set_aside.pop(0)
                frame.using = False
            self.frames.append(_FlipFour(target))
            return
        card = event.card
        assert card is not None
        if event.type == "give":
            if not card.is_modifier:
                raise ScorecardError(
                    f"{where}: a give event gives a set-aside Modifier, and {card.code} is not one"
                    + ("" if card.is_number else ": an Action is used (a use or flip4 event)")
                )
            target = self.seat_ok(event.target, where, "to")
            frame = self.resolving(where, source, card)
            if self.status[target] is Status.BUSTED and not self.rules.brutal:
                raise ScorecardError(
                    f"{where}: {self.players[target]} has busted: a Modifier goes to a player "
                    "who has not busted (to a busted one only in Brutal, §7.2, §10.2)"
                )
            frame.set_aside.pop(0)
            frame.using = False
            self.receive(target, card, transfer=False)
            return
        if not card.is_action or card is Card.FLIP_FOUR:
            what = (
                "a set-aside FLIP4 is played with a flip4 event"
                if card is Card.FLIP_FOUR
                else f"{card.code} is not an Action"
                + (": a set-aside Modifier is given with a give event" if card.is_modifier else "")
            )
            raise ScorecardError(f"{where}: a use event uses a set-aside Action; {what}")
        frame = self.resolving(where, source, card)
        frame.set_aside.pop(0)
        frame.using = True  # its own events (a Steal's move...) follow, as for any Action

    # -- the events

    def apply(self, index: int, event: LiveEvent, following: LiveEvent | None) -> bool:
        """Replay one event; returns True when it also used ``following`` (a Swap)."""
        where = f"event {index + 1} ({event.type})"
        if self.over():
            raise ScorecardError(
                f"{where}: the round is over ({self.why_over()}): no event can follow"
            )
        if event.type == "reshuffle":  # the draw pile ran out: at any moment
            self.reshuffle()
            return False
        # Only the event right after a flipped FLIP4 can play it (a flip4 event); any other
        # leaves it recorded only, as live rounds entered before flip4 events existed.
        revealed, self.to_play = self.to_play, None
        try:
            return self._apply(index, event, following, revealed, where)
        finally:
            self.settle()

    def _apply(
        self,
        index: int,
        event: LiveEvent,
        following: LiveEvent | None,
        revealed: int | None,
        where: str,
    ) -> bool:
        frame = self.frames[-1] if self.frames else None
        if frame is not None and frame.left:
            self.flip_four_draw(frame, event, where)
            return False
        if event.type in ("flip4", "give", "use"):
            self.flip_four_event(event, revealed, where)
            return False
        if frame is not None and not frame.using:
            raise ScorecardError(f"{where}: {self.waiting(frame)}")
        if event.type == "card":
            seat = self.seat_ok(event.seat, where)
            card = event.card
            assert card is not None
            if self.status[seat] is Status.BUSTED and not (card.is_modifier and self.rules.brutal):
                raise ScorecardError(
                    f"{where}: {self.players[seat]} has busted: a busted player receives no "
                    "more cards" + (" (only Modifiers, in Brutal)" if self.rules.brutal else "")
                )
            self.draw(card, where)
            if not self.frames:  # in a Flip Four's effects the turn stays put (§3.2.4)
                self.last_seat = seat
            if card is Card.FLIP_FOUR:
                self.to_play = seat
            if not card.is_action:  # an Action is used and goes to the discard pile
                self.receive(seat, card, transfer=False)
            return False
        if event.type == "stay":
            seat = self.seat_ok(event.seat, where)
            if self.status[seat] is not Status.ACTIVE:
                verb = "has already stayed" if self.status[seat] is Status.STAYED else "has busted"
                raise ScorecardError(f"{where}: {self.players[seat]} {verb}")
            self.status[seat] = Status.STAYED
            if not self.frames:
                self.last_seat = seat
            return False
        card = event.card
        assert card is not None
        source = self.seat_ok(event.source, where, "from")
        self.live_seat(source, where)
        if event.type == "discard":
            self.take(source, card, where)
            return False
        target = self.seat_ok(event.target, where, "to")
        if source == target:
            raise ScorecardError(f"{where}: a card cannot move within one line")
        self.live_seat(target, where)
        swap = (
            following is not None
            and following.type == "move"
            and following.source == target
            and following.target == source
            and following.card is not None
        )
        self.take(source, card, where)
        if not swap:
            self.receive(target, card, transfer=True)
            return False
        # A Swap: both cards leave first, both placements next, then the checks (§6.5.4).
        assert following is not None and following.card is not None
        back = following.card
        self.take(target, back, f"event {index + 2} (move)")
        self.receive(source, back, transfer=True, check_flip7=False)
        self.receive(target, card, transfer=True, check_flip7=False)
        self.check_flip7(source)
        self.check_flip7(target)
        return True


def _replay(
    players: Sequence[str],
    rules: Rules,
    decks: int,
    events: Sequence[LiveEvent],
    out: Counter[Card],
) -> _Replay:
    state = _Replay(players, rules, decks, out)
    i = 0
    while i < len(events):
        following = events[i + 1] if i + 1 < len(events) else None
        i += 2 if state.apply(i, events[i], following) else 1
    return state


@dataclass(frozen=True, slots=True)
class LiveRound:
    """A round entered card by card, as its events replay (RULES.md §4–§5).

    ``numbers``/``modifiers``/``statuses`` are each seat's line now; ``draw_pile`` the draw
    pile's composition (the deck(s) less every card out of it since the last reshuffle, the
    discard pile carrying over between rounds); ``totals`` the running totals before this
    round. The player **to decide** is the next active seat clockwise after the seat of the
    last ``card`` or ``stay`` event (the events follow the table's turns; after a Flip Four
    or Just One More played on someone else the table may differ, §3.2.4: ask
    :meth:`advice` for any active seat); ``None`` before the first such event, once the
    round is over, and while a Flip Four! is under way (cards that a Flip Four gives do
    not move the turn on, §3.2.4).

    ``flip_fours`` are the Flip Fours under way, innermost last (:class:`FlipFourState`);
    ``to_play`` the seat whose FLIP4 card was just flipped and waits to be played on a
    player (a ``flip4`` event). :meth:`flip_four_json` says what the keeper enters next.
    """

    players: tuple[str, ...]
    rules: Rules
    decks: int
    number: int
    revision: int
    events: tuple[LiveEvent, ...]
    totals: tuple[int, ...]
    numbers: tuple[tuple[Card, ...], ...]
    modifiers: tuple[tuple[Card, ...], ...]
    statuses: tuple[Status, ...]
    flip7_seat: int | None
    out: tuple[int, ...] = field(repr=False)
    in_lines: tuple[int, ...] = field(repr=False)
    to_decide: int | None
    notes: tuple[str, ...] = ()
    flip_fours: tuple[FlipFourState, ...] = ()
    to_play: int | None = None

    @classmethod
    def replay(
        cls,
        players: Sequence[str],
        events: Iterable[Any],
        *,
        rules: Rules | None = None,
        decks: int = 1,
        totals: Sequence[int] | None = None,
        out: Mapping[Card, int] | None = None,
        number: int = 1,
        revision: int = 1,
    ) -> LiveRound:
        """Replay ``events`` (:class:`LiveEvent` or their JSON objects); ``out`` counts the
        cards already out of the draw pile (in the discard pile) when the round starts.
        Raises :class:`ScorecardError` naming the first event that cannot happen.

        >>> live = LiveRound.replay(["Ann", "Bob", "Cyd"], [
        ...     {"type": "card", "seat": 0, "card": "7"}, {"type": "card", "seat": 0, "card": "-2"},
        ...     {"type": "card", "seat": 0, "card": "U7"}])
        >>> live.numbers[0], live.modifiers[0], live.discard_pile
        ((Card.UNLUCKY_7,), (), {Card.SEVEN: 1, Card.MINUS_2: 1})
        """
        rules = rules if rules is not None else Rules()
        parsed = []
        for i, data in enumerate(events):
            try:
                parsed.append(LiveEvent.from_json(data))
            except ScorecardError as exc:
                raise ScorecardError(f"event {i + 1}: {exc}") from None
        state = _replay(players, rules, decks, parsed, Counter(out or {}))
        n = len(players)
        to_decide = None
        if (
            state.last_seat is not None
            and not state.over()
            and not state.frames
            and state.to_play is None
        ):
            for step in range(1, n + 1):
                seat = (state.last_seat + step) % n
                if state.status[seat] is Status.ACTIVE:
                    to_decide = seat
                    break
        return cls(
            players=tuple(players),
            rules=rules,
            decks=decks,
            number=number,
            revision=revision,
            events=tuple(parsed),
            totals=tuple(totals) if totals is not None else (0,) * n,
            numbers=tuple(tuple(line) for line in state.numbers),
            modifiers=tuple(tuple(line) for line in state.modifiers),
            statuses=tuple(state.status),
            flip7_seat=state.flip7_seat,
            out=tuple(state.out[c] for c in Card),
            in_lines=tuple(state.in_lines()[c] for c in Card),
            to_decide=to_decide,
            notes=tuple(state.notes),
            flip_fours=tuple(
                FlipFourState(f.target, FLIP_FOUR_CARDS - f.left, tuple(f.set_aside), f.using)
                for f in state.frames
            ),
            to_play=state.to_play,
        )

    @property
    def over(self) -> bool:
        """Whether the round has ended: a Flip 7, or nobody is still active once every
        Flip Four's set-aside cards are resolved (§3.4.1)."""
        return self.flip7_seat is not None or (
            Status.ACTIVE not in self.statuses and not self.flip_fours
        )

    def flip_four_json(self) -> dict[str, Any] | None:
        """What a Flip Four! waits for (``None`` when none is under way): ``next`` is
        ``"play"`` (``seat`` plays its Flip Four on one of ``targets``: a ``flip4`` event),
        ``"draw"`` (card ``drawn + 1`` of ``cards`` goes to ``seat``), ``"give"`` (``seat``
        gives the set-aside Modifier ``card`` to one of ``targets``) or ``"use"`` (``seat``
        uses the set-aside Action ``card``). ``revealed``: the Flip Four to play was just
        flipped (not set aside). ``set_aside``: the cards still to resolve, in order;
        ``after_action``: a set-aside Action is being used, and its own events may come
        first; ``depth``: how many Flip Fours are under way (a set-aside one nests)."""
        frame = self.flip_fours[-1] if self.flip_fours else None
        if frame is None and self.to_play is None:
            return None
        not_busted = [s for s, st in enumerate(self.statuses) if st is not Status.BUSTED]
        out: dict[str, Any] = {
            "cards": FLIP_FOUR_CARDS,
            "depth": len(self.flip_fours),
            "drawn": frame.drawn if frame is not None else 0,
            "set_aside": [c.code for c in frame.set_aside] if frame is not None else [],
            "after_action": frame is not None and frame.using and not frame.drawing,
            "card": None,
            "targets": [],
            "revealed": False,
        }
        if self.to_play is not None:
            # §6.1.2: any player who has not busted, the player themselves and the stayed too.
            played = {"next": "play", "seat": self.to_play, "card": Card.FLIP_FOUR.code}
            return out | played | {"targets": not_busted, "revealed": True, "after_action": False}
        assert frame is not None
        if frame.drawing:
            return out | {"next": "draw", "seat": frame.target}
        head = frame.set_aside[0]
        out |= {"seat": frame.target, "card": head.code}
        if head.is_modifier:
            # §7.2, §10.2: any player who has not busted; in Brutal, the busted too.
            targets = list(range(len(self.players))) if self.rules.brutal else not_busted
            return out | {"next": "give", "targets": targets}
        if head is Card.FLIP_FOUR:
            return out | {"next": "play", "targets": not_busted}
        return out | {"next": "use"}

    @property
    def draw_pile(self) -> dict[Card, int]:
        """How many of each card the draw pile holds (cards not in it are left out)."""
        deck = deck_counts(self.decks)
        return {c: deck[c] - self.out[c] for c in Card if deck[c] - self.out[c] > 0}

    @property
    def discard_pile(self) -> dict[Card, int]:
        """The discard pile's composition: out of the draw pile and in no line."""
        return {c: self.out[c] - self.in_lines[c] for c in Card if self.out[c] > self.in_lines[c]}

    @property
    def cards_left(self) -> int:
        return sum(self.draw_pile.values())

    def lines(self) -> tuple[LineEntry, ...]:
        """Each seat's line now, as line entries (Number cards, then Modifiers)."""
        return tuple(
            LineEntry.of(numbers + modifiers, status is Status.BUSTED)
            for numbers, modifiers, status in zip(
                self.numbers, self.modifiers, self.statuses, strict=True
            )
        )

    def final_lines(self) -> tuple[LineEntry, ...]:
        """The round's line entries once it is over (raises :class:`ScorecardError` before)."""
        if not self.over:
            active = [
                p for p, st in zip(self.players, self.statuses, strict=True) if st is Status.ACTIVE
            ]
            verb = "is" if len(active) == 1 else "are"
            raise ScorecardError(
                f"the round is not over: {_names_text(active)} {verb} still playing"
            )
        return self.lines()

    def scores_now(self) -> tuple[int, ...]:
        """Each line's round score if the round ended now (a Brutal Flip 7 takes +15)."""
        return score_round(
            zip(
                self.numbers,
                self.modifiers,
                (status is Status.BUSTED for status in self.statuses),
                strict=True,
            ),
            self.rules,
            flip7=self.flip7_seat,
        )

    def situation(self, seat: int | None = None) -> Situation:
        """The advisor's :class:`~flip7.analysis.advisor.Situation` for ``seat`` (default:
        the player to decide)."""
        if seat is None:
            seat = self.to_decide
            if seat is None:
                raise ScorecardError("nobody is to decide now: name the seat to advise")
        if not 0 <= seat < len(self.players):
            raise ScorecardError(f"seat must be from 0 to {len(self.players) - 1}, not {seat}")
        if self.over:
            raise ScorecardError("the round is over: there is no Hit or Stay to advise")
        if self.statuses[seat] is not Status.ACTIVE:
            raise ScorecardError(
                f"{self.players[seat]} has {self.statuses[seat]}: there is no Hit or Stay to advise"
            )
        discard = [c for c, k in self.discard_pile.items() for _ in range(k)]
        return Situation.from_fields(
            [n + m for n, m in zip(self.numbers, self.modifiers, strict=True)],
            seat=seat,
            statuses=self.statuses,
            totals=self.totals,
            to_decide=self.to_decide,
            pile=self.draw_pile,
            discard=discard,
            rules=self.rules,
            decks=self.decks,
        )

    def advice(self, seat: int | None = None) -> Advice:
        """The advisor's figures and recommendation for ``seat`` (default: the player to
        decide): ``p_bust_next``, ``ev_hit``, ``ev_stay``, ``recommendation``, ``reason``."""
        return advise(self.situation(seat))

    def to_json(self) -> dict[str, Any]:
        """The live state for a page: events, lines, statuses, the draw pile, the player to
        decide and their advice."""
        advice = None
        if self.to_decide is not None:
            try:
                advice = self.advice().to_json()
            except Flip7Error:
                advice = None  # a line the advisor cannot model (two decks' oddities)
        return {
            "number": self.number,
            "revision": self.revision,
            "events": [e.to_json() for e in self.events],
            "lines": [line.to_json() for line in self.lines()],
            "statuses": [str(s) for s in self.statuses],
            "flip7_seat": self.flip7_seat,
            "over": self.over,
            "scores": list(self.scores_now()),
            "to_decide": self.to_decide,
            "draw_pile": {c.code: k for c, k in self.draw_pile.items()},
            "discard_pile": {c.code: k for c, k in self.discard_pile.items()},
            "cards_left": self.cards_left,
            "advice": advice,
            "notes": list(self.notes),
            "flip_four": self.flip_four_json(),
        }
