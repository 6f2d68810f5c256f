"""What the server says about itself and the game: its health, the rules, the cards, the
bots, the socket's protocol, its limits, where friends reach it, and the web app's message
catalogues (``GET /api/messages/{lang}``, docs/i18n.md)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from flip7 import __version__
from flip7.bots import DEFAULT_LEVEL, LEVELS
from flip7.core.cards import Card, deck_counts
from flip7.core.errors import Flip7Error
from flip7.core.explain import card_explanations
from flip7.core.jsontypes import JSONObject
from flip7.core.lines import FLIP7_CARDS
from flip7.core.rules import (
    DECKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ONE_DECK_MAX_PLAYERS,
    TWO_PLAYERS,
    Rules,
)
from flip7.core.scoring import FLIP7_BONUS
from flip7.server.api.errors import error_response, errors
from flip7.server.api.wiring import Use
from flip7.server.base import messages as catalogues
from flip7.server.base.errors import ServerError
from flip7.server.base.protocol import (
    BotLevelModel,
    BotList,
    Health,
    Limits,
    RulesAnswer,
    ServerInfo,
    protocol_schema,
)
from flip7.server.cluster.node import of as cluster_of
from flip7.server.table.options import MAX_SEATS, NEUTRAL_OPTIONS

__all__ = ["CardText", "CardsAnswer", "router"]

router = APIRouter()

# A rules object as a table states it (only non-defaults) is far below this.
MAX_CARDS_RULES_CHARS = 1024


class CardText(BaseModel):
    """One card's explanation: its code (RECORD.md §1), name, kind and words."""

    code: str
    name: str
    kind: str
    text: str


class CardsAnswer(BaseModel):
    """``GET /api/cards``: every card, in the deck's order, explained under ``rules``
    (the options that differ from the defaults)."""

    rules: Mapping[str, object]
    cards: list[CardText]


@router.get("/api/health", response_model=Health, tags=["server"])
async def health(services: Use) -> Response:
    """Whether the server and its database answer: 503 with ``problem`` saying what is
    wrong (the database does not answer; its SQLite file was deleted or replaced, is
    read-only or its disk full; another server took the lease). While the file is gone
    or replaced or the lease lost, moves are refused, not acknowledged. ``node`` names
    the process; with many processes, ``redis`` says whether it reaches Redis, and
    without it the status is "degraded" (still 200: it runs its own tables).

    Under ``flip7 serve`` the guard answers it (flip7.server.api.guard.HealthWatch),
    before any work queued for the app: this route, run once for every request that
    comes meanwhile, answers within a quarter second or the newest answer is given (a
    flood does not hold the proxy's check up), and a run unfinished for 3 s makes the
    answer 503 saying so."""
    lobby = services.lobby
    problem = await services.store.check()
    body: JSONObject = {
        "status": "ok" if problem is None else "error",
        "database": services.store.dialect,
        "problem": problem,
        "tables": len(lobby.tables),
        "version": __version__,
        "node": lobby.node,
        "redis": None,
    }
    many = cluster_of(lobby)
    if many is not None:
        redis_problem = many.problem()
        body["redis"] = "ok" if redis_problem is None else "error"
        slot = lobby.settings.slot
        body["slot"] = None if slot is None else f"{slot.number}/{slot.count}"
        body["linked"] = len(many.links)
        if problem is None and redis_problem is not None:
            # 200 all the same: a proxy must not take every process out at once for
            # it, as each still runs its own tables (only forwarding waits for Redis).
            body["status"], body["problem"] = "degraded", redis_problem
    return JSONResponse(body, status_code=200 if problem is None else 503)


@router.get("/api/bots", response_model=BotList, tags=["lobby"])
async def bots(services: Use) -> BotList:
    """The bots a seat can be filled with: ``levels``, weakest first (Beginner to
    Expert: a name for players, the spec it plays with, what to expect), ``default``
    the level offered first; and ``bots``, the specs, weakest first: the ladder
    (random, threshold, targeting, ev, winprob, mcts, and basic), then the operator's
    own. A ladder bot may carry parameters, e.g. ``threshold:30``; a level's name is
    taken wherever a spec is."""
    return BotList(
        bots=services.lobby.bot_list(),
        levels=[BotLevelModel(**level.to_json()) for level in LEVELS],
        default=DEFAULT_LEVEL.name,
    )


@router.get(
    "/api/rules", response_model=RulesAnswer, response_model_exclude_unset=True,
    tags=["lobby"],
)  # fmt: skip
async def rules() -> JSONObject:
    """Every rule option of RULES.md §13 with its default and its allowed values, and
    the rules' numbers a page shows (players, decks, Flip 7, the deck): the browser
    keeps no copy of them."""
    return _rules_answer()


@router.get("/api/cards", response_model=CardsAnswer, tags=["lobby"], responses=errors(400))
async def cards(request: Request, response: Response, rules: str | None = None,
                lang: str | None = None) -> CardsAnswer:
    """What every card does, in a sentence or two, for a page to show when a player
    points at a card: under the default rules, or under ``rules`` (a JSON object of
    rule options, as a table's ``rules``, at most 1024 characters; 400 ``bad_rules``
    otherwise). In ``lang`` ("de"), else the web app's language (its ``flip7_lang``
    cookie), else English (docs/i18n.md)."""
    try:
        parsed = _cards_rules(rules)
    except (Flip7Error, ValueError) as exc:
        raise ServerError("bad_rules", str(exc)) from None
    response.headers["Vary"] = "Cookie"
    return _cards_answer(parsed, catalogues.choose(lang, request.cookies.get(catalogues.COOKIE)))


@router.get("/api/protocol", tags=["server"], response_model=None)
async def protocol() -> JSONObject:
    """The JSON Schema of the WebSocket messages in both directions."""
    return protocol_schema()


@router.get("/api/limits", response_model=Limits, tags=["server"])
async def limits(services: Use) -> Limits:
    """The limits a client meets, as this server runs them (``flip7 serve --limit``
    changes them): message sizes and rates, per-address budgets, the uploaded record's
    bounds, replay pages, idle times. Clients (``flip7 attack``) read them here."""
    return services.limits


@router.get("/api/server", response_model=ServerInfo, tags=["server"])
async def server(services: Use) -> ServerInfo:
    """Where friends can reach this server, for invite links: the operator's public URL
    (``flip7 serve --public-url``; links start with it when set), the addresses found
    for this machine when it listens beyond loopback (``--host 0.0.0.0``), and whether
    it listens on loopback only (then no other machine can open it)."""
    return services.server


@router.get("/api/messages/{lang}", tags=["server"])
async def messages(lang: str, request: Request) -> Response:
    """The web app's messages in ``lang`` ("en", "de"): every area's catalogue merged into
    one flat object of ``"<area>.<name>": message``; 404 ``unknown_language`` otherwise."""
    if lang not in catalogues.languages():
        # Answered here, not raised: the catalogues' route serves on its own (its tests).
        return error_response(ServerError(
            "unknown_language",
            f"no messages for language {lang[:16]!r}; known: {', '.join(catalogues.languages())}",
            404,
        ))
    body, etag = catalogues.served(lang)
    headers = {"ETag": etag, "Cache-Control": "public, no-cache", "Vary": "Accept-Encoding"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _rules_answer() -> JSONObject:
    """What ``GET /api/rules`` serves, all from :mod:`flip7.core`: every option of §13
    (:meth:`Rules.options`) with its section and help, the player counts of §1.3 (and the
    most a table here seats), the decks, Flip 7's cards and bonus (§5.1, §8), and the deck
    (§1.1: each card's code, kind, value, penalty and copies per deck)."""
    options = Rules.options()
    deck = deck_counts()
    return {
        "options": [o.to_json() for o in options],
        "about": {
            o.name: {
                "section": o.section,
                "help": o.help,
                "changes": o.changes,
                "values": {str(value): words for value, words in o.words},
            }
            for o in options
        },
        "players": {
            "min": MIN_PLAYERS,
            "min_two_players": TWO_PLAYERS,
            "max": MAX_PLAYERS,
            "one_deck_max": ONE_DECK_MAX_PLAYERS,
            "table_max": MAX_SEATS,
        },
        "decks": list(DECKS),
        "flip7": {"cards": FLIP7_CARDS, "bonus": FLIP7_BONUS},
        # A table is rated by default unless it sets an option outside these
        # (flip7.server.services.ratings.rated_by_default); the lobby's switch starts from it.
        "rated": {"neutral_options": list(sorted(NEUTRAL_OPTIONS))},
        "cards": [
            {
                "code": c.code,
                "kind": c.kind.value,
                "value": c.value_points,
                "penalty": c.penalty,
                "count": deck[c],
            }
            for c in Card
        ],
    }


@functools.lru_cache(maxsize=64)
def _cards_answer(rules: Rules, lang: str = "en") -> CardsAnswer:
    """What ``GET /api/cards`` serves for ``rules``, from :mod:`flip7.core.explain`, in
    ``lang`` (the catalogues of :mod:`flip7.server.base.messages`): worked out once per set of
    options and language (a handful are in use at once), then kept."""
    explained = card_explanations(rules, catalogues.explainer(lang))
    return CardsAnswer(
        rules=rules.to_json(),
        cards=[CardText(code=code, **about) for code, about in explained.items()],
    )


def _cards_rules(text: str | None) -> Rules:
    """The ``rules`` query of ``GET /api/cards``: a JSON object of rule options (RULES.md
    §13), or the defaults; :class:`ValueError` saying what is wrong."""
    if text is None:
        return Rules()
    if len(text) > MAX_CARDS_RULES_CHARS:
        raise ValueError(f"rules may be at most {MAX_CARDS_RULES_CHARS} characters")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to read
        raise ValueError("rules must be a JSON object of rule options") from None
    return Rules.from_json(data)
