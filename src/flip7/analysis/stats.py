"""Statistics of a game, seat by seat, and their sums over many games.

Worked out from a record (or a game played so far) by replaying it (RECORD.md §4):

- ``rounds``: rounds scored; ``points``: the sum of the seat's round scores (RULES.md §8,
  a busted round counted as it scored: 0, or its Modifiers in Brutal), so
  ``round_score_avg = points / rounds``;
- ``busts`` (rounds the seat busted) and ``bust_rate = busts / rounds``; ``flip7s``;
- **attacks**, and the points they cost. An *attack* is one of these, by a seat (the one
  who makes the card's choices) on another seat, the *victim*:

  ========================  =================================================================
  a Modifier given          ÷2 or −N given to another player (every Modifier of this deck
                            takes points)
  Steal                     a card taken from the victim's line
  Discard                   a card of the victim's line discarded
  Swap                      each other player whose card was swapped (a Swap between two
                            other players attacks both)
  Flip Four!, Just One      sent to another player
  More!
  −15 (Brutal)              a Flip 7's −15 taken off the victim's total
  ========================  =================================================================

  An attack's **points** are what it took off the victim's line *at that moment*: the
  score the line was worth (what it would score if the round ended there: ``round_score``
  of the table view) just before the attack, less what it was worth just after it, never
  below 0. "Just after" is the end of the decision for a Modifier, Steal, Discard or Swap,
  and for Flip Four! and Just One More! the end of the victim's forced draws (the fourth
  card, or the one card, or a bust, a Flip 7 or the round's end before). A round that ends
  with the attack is measured by its scores. A −15 costs 15. What happens to the line
  later in the round does not count: a −4 on a line worth 20 costs 4 even if its owner
  busts later; a Flip Four! that busts a line worth 25 costs 25; one that only adds cards
  costs 0 (an attack still, for ``attacks_given`` and the targets).
- ``targets``: how many attacks the seat made on each other seat; ``favourite_target``,
  the seat it attacked most (ties: the one it took more points from, then the lower seat).

Standard library only (flip7.core and flip7.engine).

>>> from flip7.engine.game import Game
>>> game = Game.new(["Ann", "Bob", "Cyd"], explicit=True)   # Ann deals: Bob first
>>> _ = game.draw("5"), game.draw("-4")               # Bob turns up a 5, Cyd the −4
>>> game.decision_kind.value, game.to_decide
('give', 2)
>>> _ = game.apply("give 1")                          # Cyd gives it to Bob: 5 - 4 = 1
>>> s = game_stats(game)
>>> s.seats[2].attacks_given, s.seats[2].attack_points_given, s.seats[2].favourite_target
(1, 4, 1)
>>> s.seats[1].attack_points_received
4
>>> totals = StatsTotals()
>>> totals.add(s.seats[2], won=False, target_key=lambda seat: s.players[seat])
>>> totals.favourite_targets()
[('Bob', 1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from flip7.core.cards import FLIP_FOUR_CARDS, Card
from flip7.core.events import (
    ActionUsed,
    Busted,
    Discarded,
    Drew,
    Event,
    Minus15,
    ModifierGiven,
    RoundScored,
    RoundStarted,
    Stolen,
    Swapped,
)
from flip7.core.jsontypes import JSONObject
from flip7.core.scoring import FLIP7_BONUS
from flip7.engine.game import Game
from flip7.engine.record import Record

__all__ = [
    "Attack",
    "AttackKind",
    "GameStats",
    "SeatStats",
    "StatsTotals",
    "game_stats",
    "seat_stats_from_json",
]

AttackKind = Literal["modifier", "steal", "discard", "swap", "flip_four", "just_one_more",
                     "minus15"]

_FORCED: dict[Card, tuple[AttackKind, int]] = {
    Card.FLIP_FOUR: ("flip_four", FLIP_FOUR_CARDS),
    Card.JUST_ONE_MORE: ("just_one_more", 1),
}


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack: by ``attacker`` on ``victim`` in ``round``, of ``kind``, costing
    ``points`` (see the module's words)."""

    round: int
    attacker: int
    victim: int
    kind: AttackKind
    points: int

    def to_json(self) -> JSONObject:
        return {"round": self.round, "attacker": self.attacker, "victim": self.victim,
                "kind": self.kind, "points": self.points}


@dataclass(slots=True)
class SeatStats:
    """One seat's figures in one game (the module's words say what each one counts)."""

    seat: int
    name: str
    rounds: int = 0
    points: int = 0
    busts: int = 0
    flip7s: int = 0
    attacks_given: int = 0
    attacks_received: int = 0
    attack_points_given: int = 0
    attack_points_received: int = 0
    total: int = 0
    winner: bool = False
    # Attacks made on each other seat, and the points they cost it.
    targets: Counter[int] = field(default_factory=Counter)
    target_points: Counter[int] = field(default_factory=Counter)

    @property
    def round_score_avg(self) -> float:
        """The mean round score (0.0 before a round is scored)."""
        return self.points / self.rounds if self.rounds else 0.0

    @property
    def bust_rate(self) -> float:
        """Rounds busted over rounds played (0.0 before a round is scored)."""
        return self.busts / self.rounds if self.rounds else 0.0

    @property
    def favourite_target(self) -> int | None:
        """The seat this seat attacked most (ties: more points taken, then the lower
        seat); None without attacks."""
        if not self.targets:
            return None
        return min(self.targets, key=lambda s: (-self.targets[s], -self.target_points[s], s))

    def to_json(self) -> JSONObject:
        """The figures as JSON (averages and rates rounded to 4 places)."""
        return {
            "seat": self.seat,
            "name": self.name,
            **_figures_json(self),
            "favourite_target": self.favourite_target,
            "targets": [
                {"seat": s, "count": self.targets[s], "points": self.target_points[s]}
                for s in sorted(self.targets)
            ],
            "total": self.total,
            "winner": self.winner,
        }


@dataclass(frozen=True, slots=True)
class GameStats:
    """Every seat's figures of one game, and every attack in order."""

    players: tuple[str, ...]
    seats: tuple[SeatStats, ...]
    attacks: tuple[Attack, ...]
    rounds: int
    over: bool

    def to_json(self) -> JSONObject:
        return {
            "players": list(self.players),
            "rounds": self.rounds,
            "over": self.over,
            "seats": [s.to_json() for s in self.seats],
            "attacks": [a.to_json() for a in self.attacks],
        }


@dataclass(slots=True)
class _Forced:
    attack: int  # its index in the attack list
    worth: int  # the victim's line's worth when it was sent
    left: int  # forced draws still to come


def _steps(record: Record) -> Iterator[tuple[list[Event], Game]]:
    """Run a record forward (RECORD.md §4): the start, then each draw and each decision,
    with the events it caused and the game afterwards (the same game, moved on)."""
    game = Game.new(list(record.players), record.rules, decks=record.decks,
                    dealer=record.dealer, explicit=True)
    yield game.take_events(), game
    draws, decisions = iter(record.draws), iter(record.decisions)
    while not game.over:
        source = draws if game.needs_card else decisions
        move = next(source, None)
        if move is None:
            return  # a game not finished: as far as it went
        yield (game.draw(move) if source is draws else game.apply(move)), game


def game_stats(source: Record | Game | JSONObject | str) -> GameStats:
    """The statistics of a game (finished or not) from its record (a :class:`Record`, its
    JSON, or its text) or from a :class:`Game` as played so far. A record that does not
    replay raises :class:`~flip7.core.errors.Flip7Error` (check it with
    :func:`flip7.engine.record.replay` first if it comes from outside)."""
    if isinstance(source, Game):
        record = Record.from_game(source)
    elif isinstance(source, Record):
        record = source
    elif isinstance(source, str):
        record = Record.loads(source)
    else:
        record = Record.from_json(source)
    players = tuple(record.players)
    n = len(players)
    seats = [SeatStats(seat, name) for seat, name in enumerate(players)]
    attacks: list[Attack] = []
    points: list[int] = []  # each attack's points, filled in as they are measured
    worth = [0] * n  # what each line is worth now (Game.round_score)
    forced: dict[int, _Forced] = {}
    round_number = 0
    rounds = 0
    game: Game | None = None

    def attack(attacker: int, victim: int, kind: AttackKind, cost: int = 0) -> int:
        attacks.append(Attack(round_number, attacker, victim, kind, 0))
        points.append(cost)
        return len(attacks) - 1

    for events, game in _steps(record):
        round_number = game.round
        scored = next((e for e in events if isinstance(e, RoundScored)), None)
        if scored is not None:
            round_number = scored.round
        # Only the lines an event names can have changed (a new round changes them all).
        if scored is not None or any(isinstance(e, RoundStarted) for e in events):
            now = [game.round_score(seat) for seat in range(n)]
        else:
            now = list(worth)
            for seat in {s for e in events for s in _named(e)}:
                now[seat] = game.round_score(seat)
        after = list(scored.scores) if scored is not None else now
        measured: dict[int, int] = {}  # victim -> the attack of this decision it is costed by
        closing: set[int] = set()
        for event in events:
            _attack_of(event, attack, measured, forced, closing, worth)
        for victim, index in measured.items():
            points[index] = max(0, worth[victim] - after[victim])
        if scored is not None:
            closing.update(forced)
        for victim in closing:
            open_attack = forced.pop(victim)
            points[open_attack.attack] = max(0, open_attack.worth - after[victim])
        if scored is not None:
            rounds += 1
            for seat in range(n):
                stats = seats[seat]
                stats.rounds += 1
                stats.points += scored.scores[seat]
                stats.busts += seat in scored.busted
                stats.flip7s += scored.flip7 == seat
        worth = now
    assert game is not None
    for seat, stats in enumerate(seats):
        stats.total = game.totals[seat]
        stats.winner = game.over and seat in game.winners
    done = tuple(
        Attack(a.round, a.attacker, a.victim, a.kind, cost)
        for a, cost in zip(attacks, points, strict=True)
    )
    for a in done:
        given, taken = seats[a.attacker], seats[a.victim]
        given.attacks_given += 1
        given.attack_points_given += a.points
        given.targets[a.victim] += 1
        given.target_points[a.victim] += a.points
        taken.attacks_received += 1
        taken.attack_points_received += a.points
    return GameStats(players, tuple(seats), done, rounds, game.over)


_SEAT_FIELDS = ("seat", "victim", "to", "target", "seat1", "seat2")


def _named(event: Event) -> Iterator[int]:
    """The seats an event names."""
    for name in _SEAT_FIELDS:
        seat = getattr(event, name, None)
        if type(seat) is int:
            yield seat


def _attack_of(
    event: Event,
    attack: Callable[..., int],
    measured: dict[int, int],
    forced: dict[int, _Forced],
    closing: set[int],
    worth: list[int],
) -> None:
    """Note the attack ``event`` makes (or the forced draws it ends)."""

    def at_once(attacker: int, victim: int, kind: AttackKind) -> None:
        index = attack(attacker, victim, kind)
        measured.setdefault(victim, index)  # a decision's loss goes to its first attack

    if isinstance(event, ModifierGiven) and event.to != event.seat:
        at_once(event.seat, event.to, "modifier")
    elif isinstance(event, Stolen):
        at_once(event.seat, event.victim, "steal")
    elif isinstance(event, Discarded) and event.victim != event.seat:
        at_once(event.seat, event.victim, "discard")
    elif isinstance(event, Swapped):
        for victim in dict.fromkeys((event.seat1, event.seat2)):
            if victim != event.seat:
                at_once(event.seat, victim, "swap")
    elif isinstance(event, ActionUsed) and event.card in _FORCED:
        victim = event.target
        if victim in forced:  # a second one before the first's draws ended
            closing.add(victim)
        if victim != event.seat:
            kind, draws = _FORCED[event.card]
            forced[victim] = _Forced(attack(event.seat, victim, kind), worth[victim], draws)
    elif isinstance(event, Drew) and event.cause != "hit" and event.seat in forced:
        forced[event.seat].left -= 1
        if forced[event.seat].left <= 0:
            closing.add(event.seat)
    elif isinstance(event, Busted) and event.seat in forced:
        closing.add(event.seat)
    elif isinstance(event, Minus15):
        attack(event.seat, event.target, "minus15", FLIP7_BONUS)


class StatsTotals:
    """Figures summed over many games (a player's profile): add each game's
    :class:`SeatStats` of the player's seat, with ``target_key`` naming each seat it
    attacked so that the same opponent counts together across games."""

    __slots__ = ("attack_points_given", "attack_points_received", "attacks_given",
                 "attacks_received", "busts", "flip7s", "games", "points", "rounds",
                 "targets", "wins")

    def __init__(self) -> None:
        self.games = self.wins = self.rounds = self.points = self.busts = self.flip7s = 0
        self.attacks_given = self.attacks_received = 0
        self.attack_points_given = self.attack_points_received = 0
        self.targets: Counter[Hashable] = Counter()

    def add(
        self,
        seat: SeatStats,
        won: bool | None = None,
        target_key: Callable[[int], Hashable] | None = None,
    ) -> None:
        """Count one game's seat (``won``: None takes ``seat.winner``); ``target_key`` maps
        the seats it attacked to keys (default: the seat number)."""
        self.games += 1
        self.wins += bool(seat.winner if won is None else won)
        self.rounds += seat.rounds
        self.points += seat.points
        self.busts += seat.busts
        self.flip7s += seat.flip7s
        self.attacks_given += seat.attacks_given
        self.attacks_received += seat.attacks_received
        self.attack_points_given += seat.attack_points_given
        self.attack_points_received += seat.attack_points_received
        for victim, count in seat.targets.items():
            self.targets[victim if target_key is None else target_key(victim)] += count

    @property
    def round_score_avg(self) -> float:
        return self.points / self.rounds if self.rounds else 0.0

    @property
    def bust_rate(self) -> float:
        return self.busts / self.rounds if self.rounds else 0.0

    def favourite_targets(self, top: int = 3) -> list[tuple[Hashable, int]]:
        """The ``top`` keys attacked most, most first (ties in the order first counted)."""
        return self.targets.most_common(top)

    def to_json(self) -> JSONObject:
        """The sums, the mean round score and the bust rate (targets left to the caller,
        whose keys are its own)."""
        return {
            "games": self.games,
            "wins": self.wins,
            **_figures_json(self),
        }


def _figures_json(f: SeatStats | StatsTotals) -> JSONObject:
    """The figures a seat's game and a player's totals share, as JSON (the mean round
    score and the bust rate rounded to 4 places)."""
    return {
        "rounds": f.rounds,
        "points": f.points,
        "round_score_avg": round(f.round_score_avg, 4),
        "busts": f.busts,
        "bust_rate": round(f.bust_rate, 4),
        "flip7s": f.flip7s,
        "attacks_given": f.attacks_given,
        "attacks_received": f.attacks_received,
        "attack_points_given": f.attack_points_given,
        "attack_points_received": f.attack_points_received,
    }


def seat_stats_from_json(data: JSONObject) -> SeatStats:
    """A :class:`SeatStats` from its :meth:`SeatStats.to_json` (as a server stores it)."""

    def number(key: str) -> int:
        value = data.get(key, 0)
        return value if isinstance(value, int) else 0

    name = data.get("name")
    stats = SeatStats(number("seat"), name if isinstance(name, str) else "")
    for key in ("rounds", "points", "busts", "flip7s", "attacks_given", "attacks_received",
                "attack_points_given", "attack_points_received", "total"):
        setattr(stats, key, number(key))
    stats.winner = data.get("winner") is True
    targets = data.get("targets")
    if isinstance(targets, list):
        for entry in targets:
            if isinstance(entry, dict):
                seat, count, cost = entry.get("seat"), entry.get("count"), entry.get("points")
                if isinstance(seat, int) and isinstance(count, int):
                    stats.targets[seat] = count
                    stats.target_points[seat] = cost if isinstance(cost, int) else 0
    return stats

