"""The scorekeeper's model: score a game played with the physical cards (docs/scorekeeper.md).

A :class:`Scorecard` holds the players, the rule options, the number of decks and the rounds
entered so far. Each round is one :class:`LineEntry` per player (the cards of the final line
and whether the player busted) and, in Brutal, the Flip 7 player's choice. Every score comes
from the engine's own scoring (:mod:`flip7.core.scoring`, RULES.md §8–§10); the end of the game
follows §9. Scorecards are immutable: every operation returns a new one.

>>> card = Scorecard.new(["Ann", "Bob", "Cyd"])
>>> card = card.add_round([LineEntry.parse("3 11 5 /2"), LineEntry.bust(),
...                        LineEntry.parse("13 L13")])
>>> card.totals, card.rounds[0].scores
((9, 0, 26), (9, 0, 26))
>>> card.status_line()
'Cyd leads with 26; target 200'
>>> card.check_round(["5 9 5", "", "14"])
Traceback (most recent call last):
...
flip7...RoundInvalid: Ann: 5 9 5 is a bust (two 5s): mark Ann busted or correct the
cards; Cyd: "14" is not a card; cards are 0–13, U7, L13, /2, -2, -4, -6, -8, -10

A round can also be entered **live**, card by card (:class:`LiveRound`): the model replays the
events with the line rules of §4–§5, tracks the draw pile's composition across rounds and
asks the advisor (:func:`flip7.analysis.advisor.advise`) whether the player to decide should hit.

>>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).live_round(
...     [{"type": "card", "seat": 0, "card": "12"}, {"type": "card", "seat": 1, "card": "5"}],
...     based_on=0)
>>> live = card.live
>>> live.to_decide, live.draw_pile[Card.TWELVE], live.advice().recommendation
(2, 11, 'hit')
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from flip7.core.cards import Card, deck_counts
from flip7.core.errors import RulesError
from flip7.core.rules import MAX_PLAYERS, ONE_DECK_MAX_PLAYERS, Rules, decks_for, players_problem
from flip7.core.scoring import add_round, game_winners

__all__ = [
    "FORMAT",
    "MAX_NAME",
    "MAX_PLAYERS",
    "ONE_DECK_MAX_PLAYERS",
    "FlipFourState",
    "LineEntry",
    "LiveEvent",
    "LiveRound",
    "Problem",
    "Round",
    "RoundCheck",
    "RoundInvalid",
    "Scorecard",
    "ScorecardError",
    "StaleRound",
]

from flip7.scorekeeper.live import FlipFourState, LiveRound, _replay
from flip7.scorekeeper.rounds import (
    FORMAT,
    MAX_NAME,
    MAX_TITLE,
    LineEntry,
    LiveEvent,
    Problem,
    Round,
    RoundCheck,
    RoundInvalid,
    ScorecardError,
    StaleRound,
    _choice_json,
    _choice_of,
    _names_text,
    _same_lines,
    _score_round,
)

# ---------------------------------------------------------------------------- the scorecard


def _check_players(players: Any, rules: Rules, decks: Any) -> tuple[tuple[str, ...], int]:
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise ScorecardError("players are a list of names")
    names = []
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise ScorecardError(f"a player's name must be non-empty text, not {name!r}")
        name = " ".join(name.split())
        if len(name) > MAX_NAME:
            raise ScorecardError(f"a player's name has at most {MAX_NAME} characters: {name!r}")
        names.append(name)
    seen: set[str] = set()
    for name in names:
        if name.casefold() in seen:
            raise ScorecardError(f"two players are called {name!r}: names must be different")
        seen.add(name.casefold())
    n = len(names)
    problem = players_problem(n, rules, decks, option="the rule allow_two_players")
    if problem is not None:
        raise ScorecardError(problem)
    return tuple(names), decks_for(n) if decks is None else decks


@dataclass(frozen=True, slots=True)
class _Entry:
    """A round as stored, before its totals are worked out."""

    lines: tuple[LineEntry, ...]
    minus15: int | None
    revision: int
    events: tuple[LiveEvent, ...] | None


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A game's score sheet: players, rules, decks and rounds (see the module docstring).

    Build one with :meth:`new` or :meth:`from_json`; every change returns a new scorecard
    with ``version`` one higher. ``live`` is the round being entered live, if any.
    """

    players: tuple[str, ...]
    rules: Rules
    decks: int
    rounds: tuple[Round, ...] = ()
    name: str = ""
    version: int = 1
    live: LiveRound | None = None

    # ------------------------------------------------------------------ building

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        *,
        rules: Rules | None = None,
        decks: int | None = None,
        name: str = "",
    ) -> Scorecard:
        """A new scorecard: 3 or more players (2 with ``allow_two_players``), names unique
        and at most 40 characters; ``decks`` defaults to 1, and 2 from 19 players.

        >>> Scorecard.new(["Ann", "Bob"])
        Traceback (most recent call last):
        ...
        flip7...ScorecardError: a game needs 3 to 36 players (2 only with the rule ...
        """
        rules = rules if rules is not None else Rules()
        if not isinstance(rules, Rules):
            raise ScorecardError("rules must be a flip7.Rules")
        names, decks = _check_players(players, rules, decks)
        if not isinstance(name, str) or len(name) > MAX_TITLE:
            raise ScorecardError(f"a scorecard's name is text of at most {MAX_TITLE} characters")
        return cls(names, rules, decks, name=name.strip())

    def _entries(self) -> list[_Entry]:
        return [_Entry(r.lines, r.minus15, r.revision, r.events) for r in self.rounds]

    def _build(
        self, entries: Sequence[_Entry], *, first_bad: int | None = None
    ) -> tuple[Round, ...]:
        """Score ``entries`` in order; raises :class:`RoundInvalid` (prefixed with the round
        number unless it is ``first_bad``) for a round that fails, or that follows the end."""
        rounds: list[Round] = []
        totals = (0,) * len(self.players)
        for k, entry in enumerate(entries, start=1):
            if rounds and rounds[-1].over:
                done = rounds[-1]
                raise RoundInvalid(
                    [
                        Problem(
                            None,
                            f"round {done.number} now ends the game "
                            f"({self._winners_text(done.winners, done.totals)}): undo the "
                            "rounds after it first",
                        )
                    ]
                )
            choice = None if entry.minus15 is None else {"minus15": entry.minus15}
            try:
                scored = _score_round(self.players, self.rules, self.decks, entry.lines, choice)
            except RoundInvalid as exc:
                if k == first_bad:
                    raise
                raise RoundInvalid(
                    [Problem(p.seat, f"round {k}: {p.message}") for p in exc.problems]
                ) from None
            totals = add_round(totals, scored.scores, scored.minus15)
            winners = game_winners(totals, self.rules)
            over = bool(winners)
            rounds.append(
                Round(
                    number=k,
                    lines=scored.lines,
                    minus15=scored.minus15,
                    revision=entry.revision,
                    events=entry.events,
                    flip7_seat=scored.flip7_seat,
                    scores=scored.scores,
                    totals=totals,
                    over=over,
                    winners=winners,
                    flip7_choice=_choice_json(scored.minus15, scored.flip7_seat, self.rules.brutal),
                )
            )
        return tuple(rounds)

    # ------------------------------------------------------------------ the state

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's running total (the −15s of Brutal Flip 7 choices included)."""
        return self.rounds[-1].totals if self.rounds else (0,) * len(self.players)

    @property
    def over(self) -> bool:
        """Whether the game has ended (§9)."""
        return bool(self.rounds) and self.rounds[-1].over

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seat(s) once the game is over (two or more only with
        ``tie_break: "shared_win"``); ``()`` before."""
        return self.rounds[-1].winners if self.rounds else ()

    @property
    def leaders(self) -> tuple[int, ...]:
        """The seat(s) with the highest total; ``()`` before the first round."""
        if not self.rounds:
            return ()
        top = max(self.totals)
        return tuple(s for s, t in enumerate(self.totals) if t == top)

    @property
    def extra_round(self) -> bool:
        """Whether the game goes on only because of a tie at the top at or above the target
        (§9.2: an extra round decides)."""
        return (
            bool(self.rounds)
            and not self.over
            and len(self.leaders) > 1
            and max(self.totals) >= self.rules.target_score
        )

    @property
    def status(self) -> str:
        return "over" if self.over else "playing"

    def _winners_text(self, seats: Sequence[int], totals: Sequence[int]) -> str:
        names = _names_text([self.players[s] for s in seats])
        return f"{names} {totals[seats[0]]}" if seats else ""

    def status_line(self) -> str:
        """Where the game stands, in one sentence.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"], rules=Rules(target_score=20))
        >>> card.status_line()
        'No rounds yet; target 20'
        >>> card = card.add_round(["10 11", "10 11", "3"])
        >>> card.status_line()
        'Tie at the top: Ann and Bob have 21 — an extra round decides'
        >>> card.add_round(["1", "2", "3"]).status_line()
        'Bob wins with 23'
        """
        target = self.rules.target_score
        if not self.rounds:
            return f"No rounds yet; target {target}"
        totals = self.totals
        if self.over:
            seats = self.winners
            if len(seats) == 1:
                return f"{self.players[seats[0]]} wins with {totals[seats[0]]}"
            names = _names_text([self.players[s] for s in seats])
            return f"{names} share the win with {totals[seats[0]]}"
        leaders = self.leaders
        names = _names_text([self.players[s] for s in leaders])
        top = totals[leaders[0]]
        if self.extra_round:
            return f"Tie at the top: {names} have {top} — an extra round decides"
        verb = "leads" if len(leaders) == 1 else "lead"
        return f"{names} {verb} with {top}; target {target}"

    def _over_message(self) -> str:
        seats = self.winners
        totals = self.totals
        if len(seats) == 1:
            return f"the game is over: {self.players[seats[0]]} won with {totals[seats[0]]}"
        names = _names_text([self.players[s] for s in seats])
        return f"the game is over: {names} shared the win with {totals[seats[0]]}"

    # ------------------------------------------------------------------ rounds

    def check_round(
        self, lines: Sequence[Any], flip7_choice: Any = None, *, number: int | None = None
    ) -> RoundCheck:
        """Score a round without saving it: as round ``number`` (1-based; default the next
        round). ``lines`` are one per player: :class:`LineEntry`, ``{"cards", "busted"}``
        objects or typed text (``"3 11 5 /2"``, ``"bust -4"``). ``flip7_choice`` is ``None``
        or ``"bonus"`` (+15), or ``{"minus15": seat}`` (Brutal). Raises
        :class:`RoundInvalid` with every problem.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"], rules=Rules(brutal=True))
        >>> result = card.check_round(["1 2 3 4 5 6 0", "bust -4", "8 -10"], {"minus15": 2})
        >>> result.scores, result.totals, result.flip7_seat
        ((21, -4, -2), (21, -4, -17), 0)
        """
        number = len(self.rounds) + 1 if number is None else number
        if not 1 <= number <= len(self.rounds) + 1:
            raise ScorecardError(
                f"there is no round {number}: the scorecard has {len(self.rounds)} round"
                f"{'' if len(self.rounds) == 1 else 's'}"
            )
        problems: list[Problem] = []
        if number == len(self.rounds) + 1 and self.over:
            problems.append(Problem(None, self._over_message()))
        try:
            scored = _score_round(self.players, self.rules, self.decks, lines, flip7_choice)
        except RoundInvalid as exc:
            raise RoundInvalid([*problems, *exc.problems]) from None
        if problems:
            raise RoundInvalid(problems)
        previous = self.rounds[number - 2].totals if number > 1 else (0,) * len(self.players)
        totals = add_round(previous, scored.scores, scored.minus15)
        winners = game_winners(totals, self.rules)
        over = bool(winners)
        if number < len(self.rounds) and over:
            raise RoundInvalid(
                [
                    Problem(
                        None,
                        f"round {number} now ends the game "
                        f"({self._winners_text(winners, totals)}): undo the rounds after it "
                        "first",
                    )
                ]
            )
        return RoundCheck(
            number=number,
            lines=scored.lines,
            flip7_seat=scored.flip7_seat,
            minus15=scored.minus15,
            scores=scored.scores,
            totals=totals,
            over=over,
            winners=winners,
            flip7_choice=_choice_json(scored.minus15, scored.flip7_seat, self.rules.brutal),
        )

    def add_round(
        self,
        lines: Sequence[Any],
        flip7_choice: Any = None,
        *,
        events: Sequence[Any] | None = None,
    ) -> Scorecard:
        """The scorecard with the next round added (checked as :meth:`check_round`).

        ``events``: the round was entered live with these events (they must replay to these
        lines). Without ``events``, if the live round in progress is over and its final
        lines are ``lines``, the round is stored as that live round. Adding a round ends
        the live round in progress.
        """
        result = self.check_round(lines, flip7_choice)
        stored: tuple[LiveEvent, ...] | None = None
        if events is not None:
            live = self._replay_live(events, len(self.rounds) + 1, 1)
            if not live.over or not _same_lines(live.final_lines(), result.lines):
                raise ScorecardError("the live events do not end in these lines")
            stored = live.events
        elif (
            self.live is not None
            and self.live.over
            and _same_lines(self.live.final_lines(), result.lines)
        ):
            stored = self.live.events
        entry = _Entry(result.lines, result.minus15, 1, stored)
        rounds = self._build([*self._entries(), entry], first_bad=len(self.rounds) + 1)
        return replace(self, rounds=rounds, version=self.version + 1, live=None)

    def _round(self, number: int) -> Round:
        if type(number) is not int or not 1 <= number <= len(self.rounds):
            count = len(self.rounds)
            raise ScorecardError(
                f"there is no round {number}: the scorecard has {count} round"
                f"{'' if count == 1 else 's'}"
            )
        return self.rounds[number - 1]

    def _check_revision(self, current: Round, revision: int) -> None:
        if revision != current.revision:
            raise StaleRound(
                f"round {current.number} was changed meanwhile (it is at revision "
                f"{current.revision}, not {revision}): look at it again",
                current.revision,
            )

    def edit_round(
        self,
        number: int,
        *,
        revision: int,
        lines: Sequence[Any],
        flip7_choice: Any = None,
    ) -> Scorecard:
        """The scorecard with round ``number`` (1-based) replaced, made from ``revision`` of
        it (:class:`StaleRound` otherwise); the totals after it are worked out again. An edit
        that would end the game before the last round is refused. An edited live round keeps
        its events only if its lines are unchanged.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5", "6", "7"])
        >>> card = card.edit_round(1, revision=1, lines=["5", "6", "bust 7 7"])
        >>> card.totals, card.rounds[0].revision
        ((5, 6, 0), 2)
        """
        current = self._round(number)
        self._check_revision(current, revision)
        result = self.check_round(lines, flip7_choice, number=number)
        events = current.events if result.lines == current.lines else None
        entries = self._entries()
        entries[number - 1] = _Entry(result.lines, result.minus15, current.revision + 1, events)
        rounds = self._build(entries, first_bad=number)
        card = replace(self, rounds=rounds, version=self.version + 1)
        return card._refresh_live()

    def undo_round(self, *, revision: int, number: int | None = None) -> Scorecard:
        """The scorecard without its last round (``revision`` is that round's revision;
        ``number``, if given, must be the last round's). Ends the live round in progress."""
        if not self.rounds:
            raise ScorecardError("there is no round to undo")
        last = self.rounds[-1]
        if number is not None and number != last.number:
            raise ScorecardError(
                f"only the last round can be undone: that is round {last.number}, not {number}"
            )
        self._check_revision(last, revision)
        return replace(self, rounds=self.rounds[:-1], version=self.version + 1, live=None)

    # ------------------------------------------------------------------ live mode

    def _carried_out(self, before: int) -> Counter[Card]:
        """The cards out of the draw pile (in the discard pile) when round ``before``
        (1-based) starts: every round's cards since the last reshuffle. A typed-in round
        shows only its line cards; a live round all its cards."""
        out: Counter[Card] = Counter()
        deck = deck_counts(self.decks)
        for r in self.rounds[: before - 1]:
            if r.events is not None:
                try:
                    out = _replay(self.players, self.rules, self.decks, r.events, out).out
                    continue
                except ScorecardError:
                    pass  # no longer replays on this history: count its lines, as typed in
            for line in r.lines:
                out.update(line.known)
            if any(out[c] > deck[c] for c in out):
                # The pile must have run out and been reshuffled in that round.
                out = Counter(c for line in r.lines for c in line.known)
        return out

    def _replay_live(self, events: Sequence[Any], number: int, revision: int) -> LiveRound:
        previous = self.rounds[number - 2].totals if number > 1 else (0,) * len(self.players)
        return LiveRound.replay(
            self.players,
            events,
            rules=self.rules,
            decks=self.decks,
            totals=previous,
            out=self._carried_out(number),
            number=number,
            revision=revision,
        )

    def live_round(self, events: Sequence[Any], *, based_on: int) -> Scorecard:
        """The scorecard with the live round's events replaced by ``events`` (every event so
        far), made from live revision ``based_on`` (0 for a new live round;
        :class:`StaleRound` if the live round changed meanwhile). A bad event raises
        :class:`ScorecardError` naming it. When the round is over, :meth:`add_live_round`
        stores it (or :meth:`add_round` with its final lines)."""
        current = self.live.revision if self.live is not None else 0
        if based_on != current:
            raise StaleRound(
                f"the live round was changed meanwhile (it is at revision {current}, not "
                f"{based_on}): look at it again",
                current,
            )
        if self.over:
            raise ScorecardError(self._over_message())
        if isinstance(events, str | bytes) or not isinstance(events, Sequence):
            raise ScorecardError("events are a list of event objects")
        live = self._replay_live(events, len(self.rounds) + 1, current + 1)
        return replace(self, version=self.version + 1, live=live)

    def abandon_live(self) -> Scorecard:
        """The scorecard without its live round in progress."""
        if self.live is None:
            return self
        return replace(self, version=self.version + 1, live=None)

    def add_live_round(self, flip7_choice: Any = None) -> Scorecard:
        """Store the live round in progress, once it is over, as the next round."""
        if self.live is None:
            raise ScorecardError("no round is being entered live")
        lines = self.live.final_lines()
        return self.add_round(lines, flip7_choice, events=self.live.events)

    def _refresh_live(self) -> Scorecard:
        """After an edit: the live round replayed on the new history (dropped if it no
        longer replays)."""
        if self.live is None:
            return self
        if self.over:
            return replace(self, live=None)
        try:
            live = self._replay_live(self.live.events, len(self.rounds) + 1, self.live.revision)
        except ScorecardError:
            return replace(self, live=None)
        return replace(self, live=live)

    # ------------------------------------------------------------------ JSON and CSV

    def to_json(self) -> dict[str, Any]:
        """The stored form: what :meth:`from_json` reads back."""
        return {
            "format": FORMAT,
            "name": self.name,
            "players": list(self.players),
            "rules": self.rules.to_json(full=True),
            "decks": self.decks,
            "version": self.version,
            "rounds": [r.to_json() for r in self.rounds],
            "live": None
            if self.live is None
            else {
                "events": [e.to_json() for e in self.live.events],
                "revision": self.live.revision,
            },
        }

    @classmethod
    def from_json(cls, data: Any) -> Scorecard:
        """Read the stored form back, checking everything (every round is scored again);
        bad data raises :class:`ScorecardError` saying what is wrong.

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5", "bust", "13 L13"])
        >>> Scorecard.from_json(card.to_json()) == card
        True
        >>> Scorecard.from_json({"format": "flip7-scorecard/1", "players": ["A", "B", "C"],
        ...                      "rounds": [{"lines": ["5"]}]})
        Traceback (most recent call last):
        ...
        flip7...ScorecardError: rounds[0]: lines: a line is an object {"cards": ...
        """
        if not isinstance(data, Mapping):
            raise ScorecardError("a scorecard is a JSON object")
        if data.get("format") != FORMAT:
            raise ScorecardError(f"format must be {FORMAT!r}, not {data.get('format')!r}")
        known = {"format", "name", "players", "rules", "decks", "version", "rounds", "live"}
        unknown = set(data) - known
        if unknown:
            raise ScorecardError(f"unknown scorecard keys: {', '.join(sorted(map(str, unknown)))}")
        try:
            rules = Rules.from_json(data.get("rules", {}))
        except RulesError as exc:
            raise ScorecardError(f"rules: {exc}") from None
        version = data.get("version", 1)
        if type(version) is not int or version < 1:
            raise ScorecardError(f"version must be a whole number >= 1, not {version!r}")
        players = data.get("players")
        if not isinstance(players, list):
            raise ScorecardError("players is a list of names")
        card = cls.new(players, rules=rules, decks=data.get("decks"), name=data.get("name", ""))
        raw_rounds = data.get("rounds", [])
        if not isinstance(raw_rounds, list):
            raise ScorecardError("rounds is a list")
        entries = []
        for i, raw in enumerate(raw_rounds):
            where = f"rounds[{i}]"
            if not isinstance(raw, Mapping):
                raise ScorecardError(f"{where}: a round is a JSON object")
            extra = set(raw) - {"lines", "flip7_choice", "revision", "events"}
            if extra:
                raise ScorecardError(f"{where}: unknown keys {', '.join(sorted(map(str, extra)))}")
            lines = raw.get("lines")
            if not isinstance(lines, list):
                raise ScorecardError(f"{where}: lines is a list, one line per player")
            try:
                entry_lines = tuple(LineEntry.from_json(line) for line in lines)
            except ScorecardError as exc:
                raise ScorecardError(f"{where}: lines: {exc}") from None
            minus15, problem = _choice_of(raw.get("flip7_choice"))
            if problem is not None:
                raise ScorecardError(f"{where}: {problem.message}")
            revision = raw.get("revision", 1)
            if type(revision) is not int or revision < 1:
                raise ScorecardError(f"{where}: revision must be a whole number >= 1")
            events = raw.get("events")
            parsed_events = None
            if events is not None:
                if not isinstance(events, list):
                    raise ScorecardError(f"{where}: events is a list or null")
                try:
                    parsed_events = tuple(LiveEvent.from_json(e) for e in events)
                except ScorecardError as exc:
                    raise ScorecardError(f"{where}: events: {exc}") from None
            entries.append(_Entry(entry_lines, minus15, revision, parsed_events))
        try:
            rounds = card._build(entries)
        except RoundInvalid as exc:
            raise ScorecardError(f"bad stored rounds: {exc}") from None
        card = replace(card, rounds=rounds, version=version)
        live = data.get("live")
        if live is not None:
            if not isinstance(live, Mapping) or set(live) != {"events", "revision"}:
                raise ScorecardError('live is null or {"events": [...], "revision": n}')
            revision = live["revision"]
            if type(revision) is not int or revision < 1 or not isinstance(live["events"], list):
                raise ScorecardError("live: events is a list and revision a whole number >= 1")
            try:
                replayed = card._replay_live(live["events"], len(rounds) + 1, revision)
            except ScorecardError as exc:
                raise ScorecardError(f"live: {exc}") from None
            card = replace(card, live=replayed)
        return card

    def summary_json(self) -> dict[str, Any]:
        """Everything a page shows: players, rules, totals, status (``"playing"`` or
        ``"over"``), winners and leaders (seats), ``leader`` (the leader's name, or the tied
        leaders' names, ``None`` before the first round), ``extra_round``, ``message`` (the
        status line), every round (scores, running totals, Flip 7 seat...) and the live
        round (its state and advice) or ``None``."""
        leaders = self.leaders
        return {
            "name": self.name,
            "players": list(self.players),
            "rules": self.rules.to_json(full=True),
            "decks": self.decks,
            "version": self.version,
            "status": self.status,
            "over": self.over,
            "winners": list(self.winners),
            "winner_names": [self.players[s] for s in self.winners],
            "leaders": list(leaders),
            "leader": _names_text([self.players[s] for s in leaders]) if leaders else None,
            "extra_round": self.extra_round,
            "message": self.status_line(),
            "target": self.rules.target_score,
            "totals": list(self.totals),
            "rounds": [r.summary_json() for r in self.rounds],
            "live": None if self.live is None else self.live.to_json(),
        }

    def to_csv(self) -> str:
        """One row per round: the round number, then each player's cards, round score and
        running total, then a note (Flip 7, the −15).

        >>> card = Scorecard.new(["Ann", "Bob", "Cyd"]).add_round(["5 /2", "bust 5 5", "1"])
        >>> for row in card.to_csv().splitlines():
        ...     print(row)
        round,Ann cards,Ann score,Ann total,Bob cards,Bob score,Bob total,Cyd cards,...,note
        1,5 /2,2,2,bust: 5 5,0,0,1,1,1,
        """
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        header = ["round"]
        for name in self.players:
            header += [f"{name} cards", f"{name} score", f"{name} total"]
        writer.writerow([*header, "note"])
        for r in self.rounds:
            row: list[Any] = [r.number]
            for seat, line in enumerate(r.lines):
                row += [
                    line.text() if line.cards or line.busted else "",
                    r.scores[seat],
                    r.totals[seat],
                ]
            notes = []
            if r.flip7_seat is not None:
                notes.append(f"Flip 7: {self.players[r.flip7_seat]}")
            if r.minus15 is not None:
                notes.append(f"−15 on {self.players[r.minus15]}")
            writer.writerow([*row, "; ".join(notes)])
        return buffer.getvalue()
