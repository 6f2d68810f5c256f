"""The scorekeeper on the server (docs/scorekeeper.md): score games played with real cards.

A scorecard lives in the server's database (:data:`flip7.server.store.database.scorecards`)
as the JSON of :class:`flip7.scorekeeper.scorecard.Scorecard`. Reading needs only its id;
every change needs its edit key in the ``X-Scorecard-Key`` header. :class:`Scorecards` does
the work; its routes are :mod:`flip7.server.api.routes.scorecards`.

Every write grows the database, so each is a budget per client address: scorecards created
(``scorecards_per_minute``) and changes to one (``scorecard_rounds_per_minute``: rounds
entered, edited or undone, a live round's updates), 429 ``rate_limited`` past it. A
scorecard nobody changes for ``scorecard_ttl`` seconds is deleted: writes sweep the
expired ones away (at most once a minute).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import DECKS, MAX_PLAYERS, Rules
from flip7.scorekeeper.scorecard import MAX_NAME, LineEntry, RoundInvalid, Scorecard, StaleRound
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import iso, utcnow
from flip7.server.base.limits import AddressBudget
from flip7.server.base.settings import Settings
from flip7.server.store.database import ScorecardRow, Store
from flip7.server.table.errors import spend
from flip7.server.table.seat import hash_token

__all__ = [
    "ERRORS",
    "KEY_HEADER",
    "LIST_LIMIT",
    "MAX_LIVE_BODY",
    "PREFIX",
    "CheckRound",
    "CreateScorecard",
    "EditRound",
    "LiveUpdate",
    "NewRound",
    "Scorecards",
    "ScorekeeperError",
]

PREFIX = "/api/scorecards"
KEY_HEADER = "X-Scorecard-Key"
MAX_LIVE_BODY = 64 * 1024  # a live round's events (up to MAX_EVENTS) in one body
MAX_CARDS = 60
MAX_EVENTS = 1000
LIST_LIMIT = 100
# Seconds between two sweeps of expired scorecards (or scorecard_ttl, if shorter).
SWEEP_EVERY = 60.0

_T = TypeVar("_T")

# ---------------------------------------------------------------------- request bodies

Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME)
]
# Any short string: an unknown code is the model's to report, with the seat it concerns.
CardCode = Annotated[str, StringConstraints(max_length=16)]
Seat = Annotated[int, Field(ge=0, lt=MAX_PLAYERS)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateScorecard(_Strict):
    """A new scorecard: its name, its players in seat order, rule options and decks."""

    name: Name
    players: list[Name] = Field(min_length=1, max_length=MAX_PLAYERS)
    rules: dict[str, object] = Field(default_factory=dict, max_length=20)
    decks: int | None = Field(default=None, ge=min(DECKS), le=max(DECKS))


class FinalLine(_Strict):
    """One player's final line: its cards (codes of RECORD.md) and whether it busted."""

    cards: list[CardCode] = Field(default_factory=list, max_length=MAX_CARDS)
    busted: bool = False


class Minus15Choice(_Strict):
    minus15: Seat


Flip7Choice = Literal["bonus"] | Minus15Choice


class _Round(_Strict):
    lines: list[FinalLine] = Field(max_length=MAX_PLAYERS)
    flip7_choice: Flip7Choice | None = None


class CheckRound(_Round):
    """A round to score without saving it, as round ``number`` (default: the next round;
    an earlier number checks an edit of that round)."""

    number: int | None = Field(default=None, ge=1, le=100_000)


class NewRound(_Round):
    """The next round; ``number`` must be the next round's number (1-based)."""

    number: int = Field(ge=1, le=100_000)


class EditRound(_Round):
    """A new version of a round, made from revision ``revision`` of it."""

    revision: int = Field(ge=1)


class _Event(_Strict):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CardEvent(_Event):
    type: Literal["card"]
    seat: Seat
    card: CardCode


class StayEvent(_Event):
    type: Literal["stay"]
    seat: Seat


class MoveEvent(_Event):
    type: Literal["move"]
    card: CardCode
    from_: Seat = Field(alias="from")
    to: Seat


class DiscardEvent(_Event):
    type: Literal["discard"]
    card: CardCode
    from_: Seat = Field(alias="from")


class ReshuffleEvent(_Event):
    type: Literal["reshuffle"]


class Flip4Event(_Event):
    """``from`` plays a Flip Four! on ``to`` (RULES.md §6.3), who takes the next cards."""

    type: Literal["flip4"]
    from_: Seat = Field(alias="from")
    to: Seat


class GiveEvent(_Event):
    """A Flip Four's target (``from``) gives a Modifier it set aside to ``to``."""

    type: Literal["give"]
    card: CardCode
    from_: Seat = Field(alias="from")
    to: Seat


class UseEvent(_Event):
    """A Flip Four's target (``from``) uses an Action it set aside; its effects follow."""

    type: Literal["use"]
    card: CardCode
    from_: Seat = Field(alias="from")


LiveEvent = Annotated[
    CardEvent
    | StayEvent
    | MoveEvent
    | DiscardEvent
    | ReshuffleEvent
    | Flip4Event
    | GiveEvent
    | UseEvent,
    Field(discriminator="type"),
]


class LiveUpdate(_Strict):
    """The live round's events so far, replacing live revision ``based_on`` (0: a new one)."""

    events: list[LiveEvent] = Field(max_length=MAX_EVENTS)
    based_on: int = Field(ge=0)


# ---------------------------------------------------------------------- errors


class ScorekeeperError(ServerError):
    """A request the scorekeeper refuses. Its answer may say more than the code and message:
    a round's ``problems`` (each with the seat it concerns), or the ``scorecard`` as it is
    now (a conflict: the device catches up)."""

    def __init__(
        self, code: str, message: str, status: int,
        problems: list[JSON] | None = None, scorecard: JSONObject | None = None,
    ) -> None:
        super().__init__(code, message, status)
        self.problems = problems
        self.scorecard = scorecard

    def detail(self) -> JSONObject:
        detail = super().detail()
        if self.problems is not None:
            detail["problems"] = self.problems
        if self.scorecard is not None:
            detail["scorecard"] = self.scorecard
        return detail


class _ProblemModel(_Strict):
    seat: int | None
    message: str
    code: str | None = None  # the same for a page in another language (docs/i18n.md)
    params: dict[str, object] | None = None


class _ErrorDetail(_Strict):
    code: str
    message: str
    problems: list[_ProblemModel] | None = None
    scorecard: dict[str, object] | None = None


class _ErrorAnswer(_Strict):
    detail: _ErrorDetail


# The scorekeeper's error answers, as its routes document them.
ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": _ErrorAnswer} for status in (400, 403, 404, 409, 413, 422, 429)
}


# ---------------------------------------------------------------------- the model


def _rules(data: dict[str, object]) -> Rules:
    try:
        return Rules.from_json(data)
    except Flip7Error as exc:
        raise ScorekeeperError("bad_rules", str(exc), 400) from None


def _lines(lines: list[FinalLine]) -> list[LineEntry]:
    return [LineEntry.from_json(line.model_dump()) for line in lines]


def _choice(choice: Flip7Choice | None) -> str | JSONObject | None:
    if choice is None or isinstance(choice, str):
        return choice
    return choice.model_dump()


def _model_call(action: Callable[[], _T], code: str = "bad_scorecard", status: int = 400) -> _T:
    """Run a model operation, turning its refusals into answers: a round that fails its
    checks (422 ``invalid_round`` with every problem), a stale revision (409
    ``stale_round``), anything else the model refuses (``code``, ``status``)."""
    try:
        return action()
    except RoundInvalid as exc:
        problems: list[JSON] = [p.to_json() for p in exc.problems]
        message = "; ".join(p.message for p in exc.problems) or str(exc)
        raise ScorekeeperError("invalid_round", message, 422, problems=problems) from None
    except StaleRound as exc:
        raise ScorekeeperError("stale_round", str(exc), 409) from None
    except Flip7Error as exc:  # ScorecardError, and the engine's own (a bad card...)
        raise ScorekeeperError(code, str(exc), status) from None


# ---------------------------------------------------------------------- storage


class _Summaries:
    """The model's summaries of the latest scorecard versions: a live round's advice takes
    tens of milliseconds, and pages poll. A (scorecard, version) pair never changes."""

    def __init__(self, size: int = 256) -> None:
        self._cache: OrderedDict[tuple[str, int], JSONObject] = OrderedDict()
        self._size = size

    @staticmethod
    async def compute(card: Scorecard) -> JSONObject:
        if card.live is None:
            return card.summary_json()
        # The advisor's work, off the event loop that the tables share.
        return await asyncio.to_thread(card.summary_json)

    def put(self, scorecard_id: str, version: int, summary: JSONObject) -> None:
        """Keep ``summary`` as that of the stored ``version`` (only once it is stored)."""
        self._cache[scorecard_id, version] = summary
        self._cache.move_to_end((scorecard_id, version))
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)

    async def get(self, scorecard_id: str, version: int, card: Scorecard) -> JSONObject:
        """The summary of ``card``, stored as ``version`` of the scorecard."""
        summary = self._cache.get((scorecard_id, version))
        if summary is None:
            summary = await self.compute(card)
        self.put(scorecard_id, version, summary)
        return summary


def _listing(summary: JSONObject) -> JSONObject:
    """What the list of scorecards shows, from the model's summary."""
    rounds = summary["rounds"]
    assert isinstance(rounds, list), "a summary's rounds are a list"
    return {
        "players": summary["players"],
        "rounds": len(rounds),
        "leader": summary["leader"],
        "winners": summary["winners"],
        "totals": summary["totals"],
    }


def _status(card: Scorecard) -> str:
    return card.status


def _check_key(row: ScorecardRow, key: str | None) -> None:
    if not key:
        raise ScorekeeperError(
            "bad_key", f"changing a scorecard needs its edit key in the {KEY_HEADER} header", 403
        )
    if not secrets.compare_digest(row.key_hash, hash_token(key)):
        raise ScorekeeperError("bad_key", "this is not the edit key of this scorecard", 403)


def _rounds_word(count: int) -> str:
    return f"{count} round{'' if count == 1 else 's'}"


def _filename(name: str, suffix: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-").lower()[:40] or "scorecard"
    return f"flip7-{slug}.{suffix}"


def _existing_round(card: Scorecard, number: int) -> None:
    entered = len(card.rounds)
    if not 1 <= number <= entered:
        raise ScorekeeperError(
            "stale_round" if number > entered else "unknown_round",
            f"there is no round {number}: the scorecard has {_rounds_word(entered)}",
            409 if number > entered else 404,
        )


class Scorecards:
    """The scorecards of the server's database (:data:`flip7.server.store.database.scorecards`).
    Changes to one scorecard are serialised (a lock per scorecard in this process, and an
    optimistic ``version`` check in the database for other processes), and each is committed
    before it is answered. Writes are budgeted per address, and expired scorecards swept
    away by them."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._summaries = _Summaries()
        self.creations = AddressBudget(settings.scorecards_per_minute, settings.scorecards_burst)
        self.rounds = AddressBudget(
            settings.scorecard_rounds_per_minute, settings.scorecard_rounds_burst
        )
        # Wall-clock time of changes and expiry (tests move it by hand), and when the last
        # sweep ran.
        self.now: Callable[[], datetime] = utcnow
        self._swept: datetime | None = None

    async def expire(self) -> int:
        """Delete the scorecards nobody has changed for ``scorecard_ttl`` seconds; how many."""
        now = self._swept = self.now()
        return await self.store.expire_scorecards(
            now - timedelta(seconds=self.settings.scorecard_ttl)
        )

    async def _sweep(self) -> None:
        """:meth:`expire`, if it has not run for a while: writes call it, so the expired go
        at the pace the new come."""
        every = timedelta(seconds=min(SWEEP_EVERY, self.settings.scorecard_ttl))
        if self._swept is None or abs(self.now() - self._swept) >= every:
            await self.expire()

    async def summary(self, row: ScorecardRow, card: Scorecard) -> JSONObject:
        """The model's summary with what the server knows: id, version, times."""
        return {
            "id": row.id,
            **await self._summaries.get(row.id, row.version, card),
            "name": row.name,
            "version": row.version,
            "created": iso(row.created_at),
            "updated": iso(row.updated_at),
        }

    async def load(self, scorecard_id: str) -> tuple[ScorecardRow, Scorecard]:
        row = await self.store.scorecard(scorecard_id)
        if row is None:
            raise ScorekeeperError(
                "unknown_scorecard", f"there is no scorecard {scorecard_id!r}", 404
            )
        return row, _model_call(lambda: Scorecard.from_json(row.data), "bad_stored_scorecard",
                                500)

    def _lock(self, scorecard_id: str) -> asyncio.Lock:
        lock = self._locks.get(scorecard_id)
        if lock is None:
            lock = self._locks[scorecard_id] = asyncio.Lock()
        return lock

    async def _change(
        self, scorecard_id: str, key: str | None, change: Callable[[Scorecard], Scorecard],
        address: str | None,
    ) -> JSONObject:
        """Apply ``change`` to the stored scorecard and store the result: one change at a
        time per scorecard, committed before this returns; the scorecard's summary. A
        conflict answers 409 with the scorecard as it is. ``address`` (the client's; None:
        not counted) is held to ``scorecard_rounds_per_minute``."""
        spend(self.rounds, address, "scorecard rounds written", "scorecard_rounds_per_minute")
        await self._sweep()
        store = self.store
        async with self._lock(scorecard_id):
            row, card = await self.load(scorecard_id)
            _check_key(row, key)
            try:
                new = change(card)
            except ScorekeeperError as exc:
                if exc.status == 409 and exc.scorecard is None:
                    # A conflict carries the scorecard as it is now, for the device to
                    # catch up.
                    exc.scorecard = await self.summary(row, card)
                raise
            if new is card:  # nothing changed (abandoning a live round that there is not)
                return await self.summary(row, card)
            now = self.now()
            summary = await self._summaries.compute(new)
            data, listing, status = new.to_json(), _listing(summary), _status(new)
            stored = await store.update_scorecard(
                row.id, row.version, data=data, listing=listing, status=status, updated_at=now
            )
            if not stored:  # another server process changed it between our read and write
                row, card = await self.load(scorecard_id)
                raise ScorekeeperError(
                    "stale_round",
                    "the scorecard was changed from another device meanwhile: check it and "
                    "retry",
                    409,
                    scorecard=await self.summary(row, card),
                )
            self._summaries.put(row.id, row.version + 1, summary)
        fresh = ScorecardRow(
            id=row.id, key_hash=row.key_hash, name=row.name, data=data, listing=listing,
            version=row.version + 1, status=status, created_at=row.created_at, updated_at=now,
        )  # fmt: skip
        return await self.summary(fresh, new)

    # ------------------------------------------------------------------ what routes ask

    async def create(self, body: CreateScorecard, address: str | None) -> JSONObject:
        """A new scorecard: its id, its edit key (shown only this once: only its SHA-256 is
        stored) and its summary. ``address`` (the client's; None: not counted) is held to
        ``scorecards_per_minute``."""
        spend(self.creations, address, "scorecards created", "scorecards_per_minute")
        await self._sweep()
        rules = _rules(body.rules)
        card = _model_call(
            lambda: Scorecard.new(body.players, rules=rules, decks=body.decks, name=body.name)
        )
        scorecard_id, key, now = secrets.token_urlsafe(6), secrets.token_urlsafe(18), self.now()
        await self.store.add_scorecard(ScorecardRow(
            id=scorecard_id, key_hash=hash_token(key), name=body.name, data=card.to_json(),
            listing=_listing(card.summary_json()), version=1, status=_status(card),
            created_at=now, updated_at=now,
        ))  # fmt: skip
        row = await self.store.scorecard(scorecard_id)
        assert row is not None
        return {"id": scorecard_id, "key": key, "scorecard": await self.summary(row, card)}

    async def listing(self, limit: int) -> JSONObject:
        """Saved scorecards, the most recently changed first (never their keys)."""
        rows = await self.store.scorecard_list(limit)
        return {
            "scorecards": [
                {"id": row.id, "name": row.name, **row.listing, "status": row.status,
                 "created": iso(row.created_at), "updated": iso(row.updated_at)}
                for row in rows
            ]
        }  # fmt: skip

    async def get(self, scorecard_id: str) -> JSONObject:
        row, card = await self.load(scorecard_id)
        return await self.summary(row, card)

    async def check_round(self, scorecard_id: str, body: CheckRound) -> JSONObject:
        """A round scored without saving it (422 with its problems)."""
        _row, card = await self.load(scorecard_id)
        result = _model_call(
            lambda: card.check_round(_lines(body.lines), _choice(body.flip7_choice),
                                     number=body.number)
        )
        return result.to_json()

    async def add_round(
        self, scorecard_id: str, key: str | None, body: NewRound, address: str | None
    ) -> JSONObject:
        def change(card: Scorecard) -> Scorecard:
            entered = len(card.rounds)
            if body.number <= entered:
                raise ScorekeeperError(
                    "round_exists",
                    f"round {body.number} was already entered from another device", 409,
                )  # fmt: skip
            if body.number > entered + 1:
                raise ScorekeeperError(
                    "stale_round",
                    f"round {body.number} cannot be entered: the scorecard has "
                    f"{_rounds_word(entered)}, so the next one is round {entered + 1}",
                    409,
                )
            return _model_call(
                lambda: card.add_round(_lines(body.lines), _choice(body.flip7_choice))
            )

        return await self._change(scorecard_id, key, change, address)

    async def edit_round(
        self, scorecard_id: str, number: int, key: str | None, body: EditRound,
        address: str | None,
    ) -> JSONObject:
        def change(card: Scorecard) -> Scorecard:
            _existing_round(card, number)
            return _model_call(
                lambda: card.edit_round(
                    number, revision=body.revision, lines=_lines(body.lines),
                    flip7_choice=_choice(body.flip7_choice),
                )
            )  # fmt: skip

        return await self._change(scorecard_id, key, change, address)

    async def undo_round(
        self, scorecard_id: str, number: int, revision: int, key: str | None,
        address: str | None,
    ) -> JSONObject:
        def change(card: Scorecard) -> Scorecard:
            _existing_round(card, number)
            if number != len(card.rounds):
                raise ScorekeeperError(
                    "stale_round",
                    f"only the last round can be undone, and that is round {len(card.rounds)} "
                    f"now (entered from another device?)",
                    409,
                )
            return _model_call(lambda: card.undo_round(revision=revision, number=number))

        return await self._change(scorecard_id, key, change, address)

    async def put_live(
        self, scorecard_id: str, key: str | None, body: LiveUpdate, address: str | None
    ) -> JSONObject:
        events = [event.model_dump(by_alias=True) for event in body.events]

        def change(card: Scorecard) -> Scorecard:
            return _model_call(
                lambda: card.live_round(events, based_on=body.based_on), "invalid_event", 422
            )

        return await self._change(scorecard_id, key, change, address)

    async def delete_live(
        self, scorecard_id: str, key: str | None, address: str | None
    ) -> JSONObject:
        def change(card: Scorecard) -> Scorecard:
            return _model_call(card.abandon_live)

        return await self._change(scorecard_id, key, change, address)

    async def export(self, scorecard_id: str, suffix: Literal["csv", "json"]) -> tuple[str, str]:
        """The scorecard as CSV (a row per round) or JSON (``Scorecard.from_json`` reads it
        back), and a file name for it."""
        row, card = await self.load(scorecard_id)
        if suffix == "csv":
            text = card.to_csv()
        else:
            text = json.dumps(card.to_json(), indent=2, ensure_ascii=False) + "\n"
        return text, _filename(row.name, suffix)
