"""The scorekeeper's REST API (docs/scorekeeper.md): score games played with real cards.

A scorecard lives in the server's database (:data:`flip7.server.store.database.scorecards`) as the
JSON of :class:`flip7.scorekeeper.scorecard.Scorecard`. Reading needs only its id; every
change needs its edit key in the ``X-Scorecard-Key`` header. Changes to one scorecard are
serialised (a lock per scorecard in this process, and an optimistic ``version`` check in the
database for other processes), and each is committed before it is answered.
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
from typing import Annotated, Literal, TypeVar

from fastapi import APIRouter, FastAPI, Header, Query, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from flip7.core.errors import Flip7Error
from flip7.core.jsontypes import JSON, JSONObject
from flip7.core.rules import DECKS, MAX_PLAYERS, Rules
from flip7.scorekeeper.scorecard import MAX_NAME, LineEntry, RoundInvalid, Scorecard, StaleRound
from flip7.server.base.formats import iso, utcnow
from flip7.server.store.database import ScorecardRow, Store
from flip7.server.table.seat import hash_token

__all__ = ["PREFIX", "ScorekeeperError", "install", "router"]

PREFIX = "/api/scorecards"
KEY_HEADER = "X-Scorecard-Key"
MAX_LIVE_BODY = 64 * 1024  # a live round's events (up to MAX_EVENTS) in one body
MAX_CARDS = 60
MAX_EVENTS = 1000
LIST_LIMIT = 100

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


class ScorekeeperError(Exception):
    """A request the scorekeeper refuses: ``{"detail": {"code", "message", **extra}}``."""

    def __init__(self, code: str, message: str, status: int, **extra: JSON) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.extra = extra

    def response(self) -> JSONResponse:
        detail = {"code": self.code, "message": self.message, **self.extra}
        return JSONResponse({"detail": detail}, status_code=self.status)


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


_ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": _ErrorAnswer} for status in (400, 403, 404, 409, 413, 422)
}


def _validation_message(exc: RequestValidationError) -> str:
    problems = []
    for error in exc.errors():
        if error.get("type") == "json_invalid":
            return "the body is not valid JSON"
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        problems.append(f"{where}: {error.get('msg')}" if where else str(error.get("msg")))
    return "; ".join(problems) or "the request is not valid"


def install(app: FastAPI) -> None:
    """Add the scorekeeper's routes and error answers to ``app``."""
    app.state.scorecard_locks = weakref.WeakValueDictionary()
    app.state.scorecard_summaries = _Summaries()
    # The routes themselves, not ``include_router``: app.routes stays a flat list of routes.
    app.router.routes.extend(router.routes)

    @app.exception_handler(ScorekeeperError)
    async def _scorekeeper_error(_request: Request, exc: ScorekeeperError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> Response:
        if not request.url.path.startswith(PREFIX):
            return await request_validation_exception_handler(request, exc)
        return ScorekeeperError("bad_request", _validation_message(exc), 422).response()


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


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


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


async def _summary(request: Request, row: ScorecardRow, card: Scorecard) -> JSONObject:
    """The model's summary with what the server knows: id, version, times."""
    summaries: _Summaries = request.app.state.scorecard_summaries
    return {
        "id": row.id,
        **await summaries.get(row.id, row.version, card),
        "name": row.name,
        "version": row.version,
        "created": iso(row.created_at),
        "updated": iso(row.updated_at),
    }


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


async def _load(request: Request, scorecard_id: str) -> tuple[ScorecardRow, Scorecard]:
    row = await _store(request).scorecard(scorecard_id)
    if row is None:
        raise ScorekeeperError("unknown_scorecard", f"there is no scorecard {scorecard_id!r}", 404)
    return row, _model_call(lambda: Scorecard.from_json(row.data), "bad_stored_scorecard", 500)


def _check_key(row: ScorecardRow, key: str | None) -> None:
    if not key:
        raise ScorekeeperError(
            "bad_key", f"changing a scorecard needs its edit key in the {KEY_HEADER} header", 403
        )
    if not secrets.compare_digest(row.key_hash, hash_token(key)):
        raise ScorekeeperError("bad_key", "this is not the edit key of this scorecard", 403)


def _lock(request: Request, scorecard_id: str) -> asyncio.Lock:
    locks: weakref.WeakValueDictionary[str, asyncio.Lock] = request.app.state.scorecard_locks
    lock = locks.get(scorecard_id)
    if lock is None:
        lock = locks[scorecard_id] = asyncio.Lock()
    return lock


async def _change(
    request: Request,
    scorecard_id: str,
    key: str | None,
    change: Callable[[Scorecard], Scorecard],
) -> tuple[ScorecardRow, Scorecard]:
    """Apply ``change`` to the stored scorecard and store the result: one change at a time
    per scorecard, committed before this returns. A conflict answers 409 with the
    scorecard as it is."""
    store = _store(request)
    async with _lock(request, scorecard_id):
        row, card = await _load(request, scorecard_id)
        _check_key(row, key)
        try:
            new = change(card)
        except ScorekeeperError as exc:
            if exc.status == 409 and "scorecard" not in exc.extra:
                # A conflict carries the scorecard as it is now, for the device to catch up.
                exc.extra["scorecard"] = await _summary(request, row, card)
            raise
        if new is card:  # nothing changed (abandoning a live round that there is not)
            return row, card
        now = utcnow()
        summaries: _Summaries = request.app.state.scorecard_summaries
        summary = await summaries.compute(new)
        data, listing, status = new.to_json(), _listing(summary), _status(new)
        stored = await store.update_scorecard(
            row.id, row.version, data=data, listing=listing, status=status, updated_at=now
        )
        if not stored:  # another server process changed it between our read and our write
            row, card = await _load(request, scorecard_id)
            raise ScorekeeperError(
                "stale_round",
                "the scorecard was changed from another device meanwhile: check it and retry",
                409,
                scorecard=await _summary(request, row, card),
            )
        summaries.put(row.id, row.version + 1, summary)
    fresh = ScorecardRow(
        id=row.id, key_hash=row.key_hash, name=row.name, data=data, listing=listing,
        version=row.version + 1, status=status, created_at=row.created_at, updated_at=now,
    )  # fmt: skip
    return fresh, new


def _rounds_word(count: int) -> str:
    return f"{count} round{'' if count == 1 else 's'}"


def _filename(name: str, suffix: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_name).strip("-").lower()[:40] or "scorecard"
    return f"flip7-{slug}.{suffix}"


# ---------------------------------------------------------------------- routes

router = APIRouter(prefix=PREFIX, tags=["scorekeeper"])

KeyHeader = Annotated[
    str | None,
    Header(alias=KEY_HEADER, description="the scorecard's edit key (changes only)"),
]


@router.post("", status_code=201, responses=_ERRORS)
async def create_scorecard(body: CreateScorecard, request: Request) -> JSONResponse:
    """Start a scorecard. The answer holds its edit key (``key``), shown only this once:
    only its SHA-256 is stored."""
    rules = _rules(body.rules)
    card = _model_call(
        lambda: Scorecard.new(body.players, rules=rules, decks=body.decks, name=body.name)
    )
    scorecard_id, key, now = secrets.token_urlsafe(6), secrets.token_urlsafe(18), utcnow()
    await _store(request).add_scorecard(ScorecardRow(
        id=scorecard_id, key_hash=hash_token(key), name=body.name, data=card.to_json(),
        listing=_listing(card.summary_json()), version=1, status=_status(card),
        created_at=now, updated_at=now,
    ))  # fmt: skip
    row = await _store(request).scorecard(scorecard_id)
    assert row is not None
    return JSONResponse(
        {"id": scorecard_id, "key": key, "scorecard": await _summary(request, row, card)},
        status_code=201,
    )


@router.get("", response_model=None, responses=_ERRORS)
async def list_scorecards(
    request: Request, limit: int = Query(default=LIST_LIMIT, ge=1, le=LIST_LIMIT)
) -> JSONObject:
    """Saved scorecards, the most recently changed first (never their keys)."""
    rows = await _store(request).scorecard_list(limit)
    return {
        "scorecards": [
            {"id": row.id, "name": row.name, **row.listing, "status": row.status,
             "created": iso(row.created_at), "updated": iso(row.updated_at)}
            for row in rows
        ]
    }  # fmt: skip


@router.get("/{scorecard_id}", response_model=None, responses=_ERRORS)
async def get_scorecard(scorecard_id: str, request: Request) -> JSONObject:
    """A scorecard: players, rules, every round with its scores, totals, winner."""
    row, card = await _load(request, scorecard_id)
    return await _summary(request, row, card)


@router.post("/{scorecard_id}/check", response_model=None, responses=_ERRORS)
async def check_round(scorecard_id: str, body: CheckRound, request: Request) -> JSONObject:
    """Score a round without saving it: 200 with its scores, or 422 with its problems."""
    _row, card = await _load(request, scorecard_id)
    result = _model_call(
        lambda: card.check_round(_lines(body.lines), _choice(body.flip7_choice), number=body.number)
    )
    return result.to_json()


@router.post("/{scorecard_id}/rounds", status_code=201, responses=_ERRORS)
async def add_round(
    scorecard_id: str, body: NewRound, request: Request, key: KeyHeader = None
) -> JSONResponse:
    """Enter the next round (``number``: its 1-based number). 409 if that round is already
    entered (from another device): the answer holds the scorecard as it is."""

    def change(card: Scorecard) -> Scorecard:
        entered = len(card.rounds)
        if body.number <= entered:
            raise ScorekeeperError(
                "round_exists", f"round {body.number} was already entered from another device",
                409,
            )  # fmt: skip
        if body.number > entered + 1:
            raise ScorekeeperError(
                "stale_round",
                f"round {body.number} cannot be entered: the scorecard has "
                f"{_rounds_word(entered)}, so the next one is round {entered + 1}",
                409,
            )
        return _model_call(lambda: card.add_round(_lines(body.lines), _choice(body.flip7_choice)))

    row, card = await _change(request, scorecard_id, key, change)
    return JSONResponse(await _summary(request, row, card), status_code=201)


def _existing_round(card: Scorecard, number: int) -> None:
    entered = len(card.rounds)
    if not 1 <= number <= entered:
        raise ScorekeeperError(
            "stale_round" if number > entered else "unknown_round",
            f"there is no round {number}: the scorecard has {_rounds_word(entered)}",
            409 if number > entered else 404,
        )


@router.put("/{scorecard_id}/rounds/{number}", response_model=None, responses=_ERRORS)
async def edit_round(
    scorecard_id: str, number: int, body: EditRound, request: Request, key: KeyHeader = None
) -> JSONObject:
    """Correct round ``number``, made from revision ``revision`` of it: 409 if it changed
    meanwhile (from another device), with the scorecard as it is."""

    def change(card: Scorecard) -> Scorecard:
        _existing_round(card, number)
        return _model_call(
            lambda: card.edit_round(
                number, revision=body.revision, lines=_lines(body.lines),
                flip7_choice=_choice(body.flip7_choice),
            )
        )  # fmt: skip

    row, card = await _change(request, scorecard_id, key, change)
    return await _summary(request, row, card)


@router.delete("/{scorecard_id}/rounds/{number}", response_model=None, responses=_ERRORS)
async def undo_round(
    scorecard_id: str,
    number: int,
    request: Request,
    revision: int = Query(ge=1, description="the revision of the round being undone"),
    key: KeyHeader = None,
) -> JSONObject:
    """Undo the last round (``number`` must be the last one, at ``revision``)."""

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

    row, card = await _change(request, scorecard_id, key, change)
    return await _summary(request, row, card)


@router.put("/{scorecard_id}/live", response_model=None, responses=_ERRORS)
async def put_live(
    scorecard_id: str, body: LiveUpdate, request: Request, key: KeyHeader = None
) -> JSONObject:
    """Enter the round live: every event so far, replacing live revision ``based_on`` (0
    for a new live round). The answer is the scorecard with the live round's state and
    the advice for the player whose turn it is."""
    events = [event.model_dump(by_alias=True) for event in body.events]

    def change(card: Scorecard) -> Scorecard:
        return _model_call(
            lambda: card.live_round(events, based_on=body.based_on), "invalid_event", 422
        )

    row, card = await _change(request, scorecard_id, key, change)
    return await _summary(request, row, card)


@router.delete("/{scorecard_id}/live", response_model=None, responses=_ERRORS)
async def delete_live(scorecard_id: str, request: Request, key: KeyHeader = None) -> JSONObject:
    """Abandon the live round (the rounds entered stay)."""

    def change(card: Scorecard) -> Scorecard:
        return _model_call(card.abandon_live)

    row, card = await _change(request, scorecard_id, key, change)
    return await _summary(request, row, card)


@router.get("/{scorecard_id}/export.csv", responses=_ERRORS)
async def export_csv(scorecard_id: str, request: Request) -> Response:
    """The scorecard as CSV: one row per round, with every score and running total."""
    row, card = await _load(request, scorecard_id)
    return Response(
        card.to_csv(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{_filename(row.name, "csv")}"'},
    )


@router.get("/{scorecard_id}/export.json", responses=_ERRORS)
async def export_json(scorecard_id: str, request: Request) -> Response:
    """The scorecard as JSON (``Scorecard.from_json`` reads it back)."""
    row, card = await _load(request, scorecard_id)
    return Response(
        json.dumps(card.to_json(), indent=2, ensure_ascii=False) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{_filename(row.name, "json")}"'},
    )
