"""Identities, profiles, histories, the leaderboard and game summaries, ``/api/players``
(:mod:`flip7.server.services.players` does the work)."""

from __future__ import annotations

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response

from flip7.core.jsontypes import JSONObject
from flip7.server.api.errors import errors
from flip7.server.api.wiring import Use
from flip7.server.base.formats import iso
from flip7.server.base.limits import client_address
from flip7.server.base.queries import page_number
from flip7.server.services.mail import EmailAddress, EmailAlerts, EmailToken
from flip7.server.services.players import (
    GAMES_PAGE,
    LEADERBOARD,
    MAX_GAMES_PAGE,
    MAX_LEADERBOARD,
    Claim,
    NewPlayer,
    Rename,
)
from flip7.server.services.push import Subscribe, Unsubscribe

__all__ = ["router"]

router = APIRouter(tags=["players"], responses=errors(400, 401, 404, 409, 429))


@router.post("/api/players", status_code=201, response_model=None)
async def create_player(body: NewPlayer, request: Request, services: Use) -> Response:
    """A new identity: ``{id, name, key}``. The key is shown here only; keep it (the
    browser does, in localStorage): nothing else can recover it but a transfer code
    from a device that has it."""
    answer = await services.players.create(body.name, client_address(request.client))
    return JSONResponse(answer, status_code=201)


@router.get("/api/players/me", response_model=None)
async def get_me(services: Use, x_player_key: str | None = Header(None)) -> JSONObject:
    """Your profile (as ``GET /api/players/{id}``) with ``"self": true``."""
    return {**await services.players.profile(await services.players.me(x_player_key)),
            "self": True}


@router.post("/api/players/me/bot", status_code=201, response_model=None)
async def make_bot_account(services: Use, x_player_key: str | None = Header(None)) -> Response:
    """Make your identity a **bot account** (for good: it then plays only through the bot
    API, ``docs/bot-api.md``) and give it a new bot token, ``{id, name, bot_account, token}``:
    shown here only; any older token stops working."""
    player_id = await services.players.me(x_player_key)
    return JSONResponse(await services.players.make_bot(player_id), status_code=201)


@router.delete("/api/players/me/bot/token", response_model=None)
async def revoke_bot_token(services: Use, x_player_key: str | None = Header(None)) -> JSONObject:
    """No token of your bot account works any more (it is no longer listed as available);
    ``POST /api/players/me/bot`` makes a new one."""
    return await services.players.revoke_bot_token(await services.players.me(x_player_key))


@router.get("/api/players/me/tables", response_model=None)
async def get_my_tables(services: Use, x_player_key: str | None = Header(None)) -> JSONObject:
    """Your games: the tables you hold a seat at and have not left (waiting, playing,
    over, or suspended while everyone is away), the one waiting for your decision first.
    ``to_decide`` is the seat the game waits for; ``waits_until``, for a suspended table,
    when it is closed unless someone comes back."""
    return await services.players.tables(await services.players.me(x_player_key))


@router.get("/api/players/me/email", response_model=None)
async def get_my_email(services: Use, x_player_key: str | None = Header(None)) -> JSONObject:
    """Whether this server sends e-mail (``offered``) and your address for turn alerts:
    ``{"address", "verified", "alerts"}`` or null."""
    return await services.emails.status(await services.players.me(x_player_key))


@router.put("/api/players/me/email", response_model=None)
async def put_my_email(
    body: EmailAddress, request: Request, services: Use,
    x_player_key: str | None = Header(None),
) -> JSONObject:
    """Your address for turn alerts: a link to verify it is sent to it (valid 24 hours,
    once); until then nothing else is. 400 ``bad_email``, 404 ``no_email`` (no SMTP server),
    429 past ``email_codes_per_minute`` (per address and per identity), 503
    ``email_failed`` if the mail server refused."""
    player_id = await services.players.me(x_player_key)
    base = services.settings.public_url or str(request.base_url).rstrip("/")
    return await services.emails.set_address(player_id, body.address, base,
                                             client_address(request.client))  # fmt: skip


@router.patch("/api/players/me/email", response_model=None)
async def patch_my_email(
    body: EmailAlerts, services: Use, x_player_key: str | None = Header(None)
) -> JSONObject:
    """Turn alerts on or off (404 ``no_address`` without an address)."""
    return await services.emails.set_alerts(await services.players.me(x_player_key), body.alerts)


@router.delete("/api/players/me/email", response_model=None)
async def delete_my_email(services: Use, x_player_key: str | None = Header(None)) -> JSONObject:
    """Forget your address."""
    return await services.emails.remove(await services.players.me(x_player_key))


@router.get("/api/push/key", response_model=None)
async def push_key(services: Use) -> JSONObject:
    """The server's VAPID public key (base64url), the ``applicationServerKey`` a browser
    subscribes to Web Push with."""
    return {"public_key": services.pushes.public_key}


@router.post("/api/players/me/push", status_code=201, response_model=None)
async def push_subscribe(
    body: Subscribe, services: Use, x_player_key: str | None = Header(None)
) -> JSONObject:
    """This browser takes turn alerts by Web Push: its ``PushSubscription`` (``toJSON()``).
    400 ``bad_subscription`` for a URL that is not https to a public host; at most 10
    browsers an identity (the oldest go)."""
    return await services.pushes.subscribe(await services.players.me(x_player_key), body)


@router.delete("/api/players/me/push", response_model=None)
async def push_unsubscribe(
    body: Unsubscribe, services: Use, x_player_key: str | None = Header(None)
) -> JSONObject:
    """This browser takes no more pushes."""
    return await services.pushes.unsubscribe(await services.players.me(x_player_key),
                                             body.endpoint)


@router.post("/api/email/verify", response_model=None)
async def verify_email(body: EmailToken, services: Use) -> JSONObject:
    """The verification link was opened (``/email/verify/{token}``): the address is
    verified; 404 ``bad_link`` for a wrong, expired or used one."""
    return await services.emails.verify(body.token)


@router.post("/api/email/unsubscribe", response_model=None)
async def unsubscribe_email(body: EmailToken, services: Use) -> JSONObject:
    """The unsubscribe link of an e-mail was opened (``/email/unsubscribe/{token}``): no
    more alerts go to its address; 404 ``bad_link``."""
    return await services.emails.unsubscribe(body.token)


@router.patch("/api/players/me", response_model=None)
async def rename(
    body: Rename, request: Request, services: Use, x_player_key: str | None = Header(None)
) -> JSONObject:
    """Change your display name (past games keep the names they were played under); 429
    past ``renames_per_minute`` from one address."""
    player_id = await services.players.rename(x_player_key, body.name,
                                              client_address(request.client))
    return {**await services.players.profile(player_id), "self": True}


@router.post("/api/players/me/transfer", status_code=201, response_model=None)
async def transfer(
    request: Request, services: Use, x_player_key: str | None = Header(None)
) -> Response:
    """A one-time code (and link) that brings your identity to another device: it
    works for 15 minutes, once; a new code replaces any older one."""
    player_id = await services.players.me(x_player_key)
    code, expires = await services.players.transfer(player_id, client_address(request.client))
    base = services.settings.public_url or str(request.base_url).rstrip("/")
    return JSONResponse(
        {"code": code, "expires_at": iso(expires), "url": f"{base}/link/{code}"},
        status_code=201,
    )


@router.post("/api/players/claim", response_model=None)
async def claim(body: Claim, request: Request, services: Use) -> JSONObject:
    """Claim a transfer code on this device: ``{id, name, key}`` with a key of this
    device's own (the other device keeps its key). 404 ``bad_code`` for a code that is
    wrong, expired or used."""
    return await services.players.claim(body.code, client_address(request.client))


@router.get("/api/players/{player_id}", response_model=None)
async def profile(player_id: str, services: Use) -> JSONObject:
    """A player's profile: name, rating, statistics over their games, rating history."""
    return await services.players.profile(player_id)


@router.get("/api/players/{player_id}/games", response_model=None)
async def player_games_page(
    player_id: str, services: Use, offset: str | None = None, limit: str | None = None
) -> JSONObject:
    """A player's finished games, newest first, a page at a time (``limit`` at most
    50, default 20); each game's replay is ``/api/games/{game_id}/replay``."""
    return await services.players.games(
        player_id,
        page_number(offset, "offset", 0, 0, 10**9),
        page_number(limit, "limit", GAMES_PAGE, 1, MAX_GAMES_PAGE),
    )


@router.get("/api/leaderboard", response_model=None)
async def leaderboard(services: Use, limit: str | None = None) -> JSONObject:
    """The rated identities with a rated game and every bot level's rating: settled
    ratings first, then provisional ones (``provisional``: sigma above
    flip7.server.services.ratings.SETTLED_SIGMA), each best first by mean (``display``)."""
    return await services.players.leaderboard(
        page_number(limit, "limit", LEADERBOARD, 1, MAX_LEADERBOARD))


@router.get("/api/games/{game_id}/summary", response_model=None)
async def game_summary(game_id: str, services: Use) -> JSONObject:
    """A finished game at a glance, for its end screen: each seat's total, whether it
    won, its statistics and (a rated game) its rating before and after."""
    return await services.players.summary(game_id)
