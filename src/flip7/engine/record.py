"""Game records (``flip7-record/1``, RECORD.md): write, read and replay.

>>> from flip7.engine.game import Game
>>> game = Game.new(["Ann", "Bob", "Cyd"], seed=1)
>>> while not game.over:
...     _ = game.apply(game.legal_decisions()[-1])
>>> record = Record.from_game(game)
>>> again = replay(Record.loads(record.dumps()))
>>> again.over, again.totals == game.totals, again.winners == game.winners
(True, True, True)
>>> replay({"format": "flip7-record/1", "players": ["A", "B", "C"], "dealer": 2,
...         "draws": ["0", "0"], "decisions": []})
Traceback (most recent call last):
...
flip7.core.errors.RecordError: draws[1]: card 0 cannot be drawn now: ...
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import cast

from flip7.core.errors import Flip7Error, GameStateError, RecordError, RulesError
from flip7.core.events import Event
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import DECKS, MAX_PLAYERS, Rules, decks_for
from flip7.engine.game import Game, RoundResult
from flip7.engine.view import GameView

__all__ = [
    "FORMAT",
    "Record",
    "ReplayResult",
    "replay",
    "replay_events",
    "replay_game",
    "replay_steps",
]

FORMAT = "flip7-record/1"
_KEYS = ("format", "players", "rules", "decks", "dealer", "draws", "decisions", "meta")


def _header(key: str, message: str) -> RecordError:
    return RecordError("record", None, f"{key}: {message}")


_JSON_TYPES = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
               (list, "a list"), (dict, "an object"))  # fmt: skip


def _what(value: object) -> str:
    """A JSON value for an error message: its type, and the value itself when short."""
    if value is None:
        return "null"
    kind = next((name for t, name in _JSON_TYPES if isinstance(value, t)), None)
    if kind is None:  # not from JSON: a Python caller's object
        return type(value).__name__
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return kind
    return f"{kind} ({shown})" if len(shown) <= 40 else kind


@dataclass(frozen=True)
class Record:
    """One game as written down: the header, every card drawn and every real choice.

    :meth:`from_json` checks the header and that ``draws`` and ``decisions`` are lists;
    their entries are checked by replay as it reaches them (RECORD.md §4), so a record
    read from JSON can hold an entry that is not a string until it is replayed."""

    players: tuple[str, ...]
    rules: Rules = field(default_factory=Rules)
    decks: int = 1
    dealer: int = 0
    draws: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    meta: JSONObject | None = None

    @classmethod
    def from_game(cls, game: Game, meta: Mapping[str, object] | None = None) -> Record:
        """The record of a game so far (finished or not). ``meta``'s values must be JSON
        values (:meth:`dumps` fails on anything else)."""
        return cls(
            players=game.players,
            rules=game.rules,
            decks=game.decks,
            dealer=game.first_dealer,
            draws=tuple(card.code for card in game.draws),
            decisions=tuple(str(d) for d in game.decisions),
            meta=None if meta is None else cast(JSONObject, dict(meta)),
        )

    @classmethod
    def from_json(cls, data: JSON) -> Record:
        """Check a record's header and shape; entries are checked by :func:`replay`."""
        if not isinstance(data, dict):
            raise RecordError("record", None, "a record must be a JSON object")
        for key in data:
            if key not in _KEYS:
                raise _header(key, f"unknown key; a record has {', '.join(_KEYS)}")
        for key in ("format", "players", "draws", "decisions"):
            if key not in data:
                raise _header(key, "missing (required)")
        if data["format"] != FORMAT:
            raise _header("format", f"must be {json.dumps(FORMAT)}, not {_what(data['format'])}")
        rules_data = data.get("rules", {})
        if not isinstance(rules_data, dict):
            raise _header(
                "rules",
                f"must be a JSON object of rule options (RULES.md §13), not {_what(rules_data)};"
                " leave the key out for all defaults",
            )
        try:
            rules = Rules.from_json(rules_data)
        except RulesError as exc:
            raise _header("rules", str(exc)) from None
        players = data["players"]
        if not isinstance(players, list):
            raise _header("players", f"must be a list of display names, not {_what(players)}")
        n = len(players)
        if not rules.min_players <= n <= MAX_PLAYERS:
            raise _header(
                "players", f"{n} players; a game has {rules.min_players} to {MAX_PLAYERS}"
            )
        names: list[str] = []
        for i, name in enumerate(players):
            if not isinstance(name, str):
                raise _header("players", f"players[{i}] must be a string, not {_what(name)}")
            if not name.strip():
                raise _header(
                    "players",
                    f"players[{i}] is blank: a display name needs a character other than"
                    " whitespace",
                )
            names.append(name)
        decks = data.get("decks", decks_for(n))
        if type(decks) is not int or decks not in DECKS:
            raise _header("decks", f"must be {' or '.join(map(str, DECKS))}, not {_what(decks)}")
        if decks < decks_for(n):
            raise _header("decks", f"{n} players need {decks_for(n)} decks")
        dealer = data.get("dealer", 0)
        if type(dealer) is not int or not 0 <= dealer < n:
            raise _header("dealer", f"must be a seat from 0 to {n - 1}, not {_what(dealer)}")
        lists: dict[str, tuple[str, ...]] = {}
        for key in ("draws", "decisions"):
            entries = data[key]
            if not isinstance(entries, list):
                raise _header(key, f"must be a list of strings, not {_what(entries)}")
            # Each entry's type is checked by replay when it reaches it: the error must name
            # the first entry, in replay order, that does not fit (RECORD.md §4). Until then
            # an entry may be any JSON value, whatever the field's type says.
            lists[key] = cast("tuple[str, ...]", tuple(entries))
        meta: JSONObject | None = None
        if "meta" in data:
            given = data["meta"]
            if not isinstance(given, dict):
                raise _header("meta", f"must be a JSON object, not {_what(given)}")
            meta = given
        return cls(tuple(names), rules, decks, dealer, lists["draws"], lists["decisions"], meta)

    @classmethod
    def loads(cls, text: str) -> Record:
        """Read a record from JSON text."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RecordError("record", None, f"not valid JSON: {exc}") from None
        return cls.from_json(data)

    def to_json(self) -> JSONObject:
        out: JSONObject = {
            "format": FORMAT,
            "players": list(self.players),
            "rules": self.rules.to_json(),
            "decks": self.decks,
            "dealer": self.dealer,
            "draws": list(self.draws),
            "decisions": list(self.decisions),
        }
        if self.meta is not None:
            out["meta"] = self.meta
        return out

    def dumps(self, indent: int | None = None) -> str:
        return json.dumps(self.to_json(), indent=indent, ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The outcome of a replay, exactly as RECORD.md §6."""

    over: bool
    rounds: tuple[RoundResult, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]

    @classmethod
    def of(cls, game: Game) -> ReplayResult:
        return cls(game.over, game.rounds, game.totals, game.winners)

    def to_json(self) -> JSONObject:
        return {
            "over": self.over,
            "rounds": [r.to_json() for r in self.rounds],
            "totals": list(self.totals),
            "winners": list(self.winners),
        }

    @classmethod
    def from_json(cls, data: JSONObject) -> ReplayResult:
        over, rounds = data["over"], data["rounds"]
        if not (isinstance(over, bool) and isinstance(rounds, list)):
            raise TypeError(f"not a replay result (RECORD.md §6): {_what(data)}")
        return cls(
            over=over,
            rounds=tuple(RoundResult.from_json(_result_object(r)) for r in rounds),
            totals=_result_ints(data["totals"]),
            winners=_result_ints(data["winners"]),
        )


def _result_object(value: JSON) -> JSONObject:
    if not isinstance(value, dict):
        raise TypeError(f"a replay result's round must be an object, not {_what(value)}")
    return value


def _result_ints(value: JSON) -> tuple[int, ...]:
    wrong = TypeError(f"a replay result holds lists of integers, not {_what(value)}")
    if not isinstance(value, list):
        raise wrong
    out: list[int] = []
    for item in value:
        if type(item) is not int:
            raise wrong
        out.append(item)
    return tuple(out)


def _as_record(record: Record | JSONObject | str) -> Record:
    if isinstance(record, Record):
        return record
    if isinstance(record, str):
        return Record.loads(record)
    return Record.from_json(record)


def replay_game(record: Record | JSONObject | str) -> Game:
    """Run a record forward (RECORD.md §4) and return the game in the state it reaches.

    Raises :class:`RecordError` naming the first entry that does not fit.
    """
    return _replay(record, None)


def replay_events(record: Record | JSONObject | str) -> tuple[Game, list[Event]]:
    """Like :func:`replay_game`, also returning every event of the game in order."""
    events: list[Event] = []
    return _replay(record, events), events


def replay_steps(record: Record | JSONObject | str) -> list[tuple[list[Event], GameView]]:
    """Replay a record one step at a time: for the start and then each draw and each
    decision, the events it caused and the table as a spectator sees it afterwards.

    >>> rec = {"format": "flip7-record/1", "players": ["A", "B", "C"],
    ...        "draws": ["5", "9", "12", "3"], "decisions": ["hit"]}
    >>> steps = replay_steps(rec)
    >>> len(steps), [e.type for e in steps[-1][0]], steps[-1][1].players[1].line
    (6, ['drew'], (Card.FIVE, Card.THREE))
    """
    steps: list[tuple[list[Event], GameView]] = []
    _replay(record, [], lambda game, events: steps.append((events, game.view())))
    return steps


def _replay(
    record: Record | JSONObject | str,
    events: list[Event] | None,
    step: Callable[[Game, list[Event]], None] | None = None,
) -> Game:
    rec = _as_record(record)
    try:
        game = Game.new(
            list(rec.players), rec.rules, decks=rec.decks, dealer=rec.dealer, explicit=True,
            events=events is not None,
        )
    except GameStateError as exc:
        raise RecordError("record", None, str(exc)) from None
    if events is not None:
        events.extend(game.take_events())
        if step is not None:
            step(game, list(events))
    draws, decisions = rec.draws, rec.decisions
    di = ci = 0
    while not game.over:
        if game.needs_card:
            if di == len(draws):
                if ci < len(decisions):
                    raise RecordError(
                        "decisions", ci, "left over: the game needs a card and draws is used up"
                    )
                break
            card = draws[di]
            if not isinstance(card, str):
                raise RecordError(
                    "draws", di, f"must be a string (a card code, RECORD.md §1), not {_what(card)}"
                )
            try:
                happened = game.draw(card)
            except Flip7Error as exc:
                raise RecordError("draws", di, _card_message(card, exc)) from None
            di += 1
        else:
            if ci == len(decisions):
                if di < len(draws):
                    raise RecordError(
                        "draws", di, "left over: the game needs a decision and decisions is used up"
                    )
                break
            decision = decisions[ci]
            if not isinstance(decision, str):
                raise RecordError(
                    "decisions", ci,
                    f"must be a string (a decision, RECORD.md §5), not {_what(decision)}",
                )  # fmt: skip
            try:
                happened = game.apply(decision)
            except Flip7Error as exc:
                raise RecordError("decisions", ci, str(exc)) from None
            ci += 1
        if events is not None:
            events.extend(happened)
            if step is not None:
                step(game, happened)
    if game.over:
        if di < len(draws):
            raise RecordError("draws", di, "left over after the game is over")
        if ci < len(decisions):
            raise RecordError("decisions", ci, "left over after the game is over")
    return game


def _card_message(code: str, exc: Flip7Error) -> str:
    text = str(exc)
    if "not in the draw pile" in text:
        return f"card {code} cannot be drawn now: {text}"
    return text


def replay(record: Record | JSONObject | str) -> ReplayResult:
    """Replay a record and report the result of RECORD.md §6."""
    return ReplayResult.of(replay_game(record))
