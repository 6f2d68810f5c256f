"""Players without passwords: identities, their profiles, histories and the leaderboard.

An **identity** is a display name and a secret key that the browser keeps (localStorage
``flip7.player``) and sends as ``X-Player-Key: <id>.<secret>``; the server stores only the
SHA-256 of each key and compares in constant time. A wrong key is 401 ``bad_player_key``.
There is no password, e-mail or other way back: a key that is lost (the browser's storage
cleared, the device gone) is recovered by nothing but a **transfer code** made on a device
that still has it (``POST /api/players/me/transfer``: ten characters, for 15 minutes, used
once), which another device claims (``POST /api/players/claim``) for a key of its own: each
device keeps its own key, and both work.

A seat taken with a key (``POST /api/tables``, ``…/join``) counts for its identity: the
table's log records the identity with the seat (so a restart or another process keeps it),
and once the game is over its results (statistics, rating change) are written for the
identity (:mod:`flip7.server.services.ratings`). Anonymous play is unchanged: no key, no identity.

Every input has a limit: names as any player's (``player_name_chars``, 400 ``bad_name``),
keys and codes by length, pages by ``limit`` and ``offset``; identities created, codes made
and codes tried, and renames, are budgets per address (``players_per_minute``,
``transfer_codes_per_minute``, ``claims_per_minute``, ``renames_per_minute``: 429
``rate_limited``).

A **bot account** (the bot API, ``docs/bot-api.md``) is an identity its owner made a bot
(``POST /api/players/me/bot``): it plays only through the bot API, with a **bot token**
(``Authorization: Bearer bot.<id>.<secret>``, shown once, stored as its SHA-256 like the
keys; a new one replaces it, ``DELETE /api/players/me/bot/token`` revokes it). A bot token
is no player key (401 ``bot_token`` where a key is asked for) and a key is no bot token
(401 ``bad_bot_token``), so neither can act as the other.

>>> code = new_code()
>>> len(code), set(code) <= set(CODE_ALPHABET), clean_code(" ab2cd-ef3gh ")
(10, True, 'AB2CDEF3GH')
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from flip7.analysis.stats import StatsTotals, seat_stats_from_json
from flip7.bots.levels import LEVELS
from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.formats import iso, utcnow
from flip7.server.base.limits import AddressBudget
from flip7.server.base.protocol import Text
from flip7.server.base.requests import bearer
from flip7.server.base.settings import Settings
from flip7.server.services.ratings import SETTLED_SIGMA, display, entrants_of, provisional, stats_of
from flip7.server.store.database import Store
from flip7.server.store.players import (
    BotAccount,
    ClaimRefused,
    NewIdentity,
    TransferCode,
    add_player,
    available_bots,
    bot_account,
    claim_code,
    games_page,
    key_hashes,
    leaderboard_rows,
    make_bot_account,
    profile_rows,
    rename_player,
    replace_code,
    seated_tables,
    set_bot_available,
)
from flip7.server.store.ratings import RatingRow, SkillChange, results_of
from flip7.server.table.errors import clean_name, spend
from flip7.server.table.options import pace_of

__all__ = ["BOT_TOKEN_PREFIX", "CODE_ALPHABET", "CODE_SECONDS", "GAMES_PAGE", "LEADERBOARD",
           "MAX_GAMES_PAGE", "MAX_KEYS", "MAX_LEADERBOARD", "BotAvailability", "Claim",
           "NewPlayer", "PlayerError", "Players", "Rename", "clean_code", "new_code"]

# Transfer codes: ten characters of thirty (no 0/O, 1/I/L, U), about 2^49 codes; each
# lives 15 minutes and is used once. A device count per identity keeps keys bounded.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10
CODE_SECONDS = 15 * 60
MAX_KEYS = 20
# A key is "<id>.<secret>": an id of 12 characters, a secret of 43 (256 bits).
MAX_KEY_CHARS = 128
# A bot token is "bot.<id>.<secret>": never a key's shape "<id>.<secret>" (an id has no dot).
BOT_TOKEN_PREFIX = "bot."
# The lobby lists at most this many available bot accounts.
AVAILABLE_BOTS = 100
# Pages of a player's games, and the leaderboard.
GAMES_PAGE = 20
MAX_GAMES_PAGE = 50
LEADERBOARD = 50
YOUR_TABLES = 50
"""At most this many of a player's tables in "Your games" (the most recently changed)."""
MAX_LEADERBOARD = 100
# A profile's statistics cover this many of the identity's most recent games, its rating
# history as many rated games.
STATS_GAMES = 1000
HISTORY_POINTS = 500


class PlayerError(ServerError):
    """A request about identities the server refuses (a wrong key, no such player, a bad
    code...): ``code`` names why, ``status`` is the HTTP status."""


def new_code() -> str:
    """A fresh transfer code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(text: str) -> str:
    """A typed code as stored: capitals, without spaces or dashes (``"ab2cd-ef3gh"`` is
    ``"AB2CDEF3GH"``)."""
    return "".join(ch for ch in text.upper() if ch not in " -\t")


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _bad_key() -> PlayerError:
    return PlayerError(
        "bad_player_key", "the player key is not one this server knows: the identity is not "
        "on this device any more (a transfer code from a device that has it brings it back)",
        401,
    )


def _bad_bot_token() -> PlayerError:
    return PlayerError(
        "bad_bot_token", "this is not a bot token this server knows (a bot token is "
        "'bot.<id>.<secret>', from POST /api/players/me/bot; a player key is not one): "
        "make a new one with the bot account's player key", 401,
    )


def _no_player(player_id: str) -> PlayerError:
    shown = player_id if len(player_id) <= 20 else player_id[:20] + "…"
    return PlayerError("no_player", f"there is no player {shown!r}", 404)


def _rating(row: RatingRow) -> JSONObject:
    return {"mu": round(row.skill.mu, 4), "sigma": round(row.skill.sigma, 4),
            "display": display(row.skill.mu), "provisional": provisional(row.skill.sigma)}


def _delta(change: SkillChange) -> int:
    """How much a game changed the rating shown."""
    return display(change.after.mu) - display(change.before.mu)


def _why(value: JSON) -> str | None:
    """Why a rated game did not rate a player (flip7.server.services.ratings), if it did not."""
    return value if isinstance(value, str) else None


def _objects(value: JSON) -> list[JSONObject]:
    """The objects of a stored JSON list (a game's seats), or none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def bot_standings(rows: list[RatingRow]) -> list[RatingRow]:
    """The bot levels as the leaderboard lists them: those whose rating has settled by
    rating, then the provisional ones in the ladder's order (weakest first): after a few
    games a rating says little, and Easy above Expert would mislead.

    >>> from flip7.server.store.ratings import RatingKey, Skill
    >>> def row(level, mu, sigma):
    ...     return RatingRow(RatingKey("bot", level), Skill(mu, sigma), 3, 1)
    >>> [r.key.ref for r in bot_standings([row("Easy", 30, 8), row("Hard", 20, 2),
    ...                                    row("Beginner", 25, 8)])]
    ['Hard', 'Beginner', 'Easy']
    """
    ladder = {level.name: i for i, level in enumerate(LEVELS)}
    settled = [r for r in rows if not provisional(r.skill.sigma)]
    unsettled = [r for r in rows if provisional(r.skill.sigma)]
    unsettled.sort(key=lambda r: ladder.get(r.key.ref, len(ladder)))
    return settled + unsettled


class Players:
    """Identities, profiles and the leaderboard, on the store's database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None
        # Wall-clock time of transfer codes (tests move it by hand).
        self.now: Callable[[], datetime] = utcnow
        self.creations = AddressBudget(settings.players_per_minute, settings.players_burst)
        self.codes = AddressBudget(
            settings.transfer_codes_per_minute, settings.transfer_codes_burst
        )
        self.claims = AddressBudget(settings.claims_per_minute, settings.claims_burst)
        self.renames = AddressBudget(settings.renames_per_minute, settings.renames_burst)

    @property
    def store(self) -> Store:
        assert self._store is not None, "the server has not started"
        return self._store

    @store.setter
    def store(self, store: Store) -> None:
        self._store = store

    def _name(self, name: str) -> str:
        return clean_name(name, "player name", self.settings.player_name_chars)

    # ------------------------------------------------------------------ identities

    async def create(self, name: str, address: str | None) -> JSONObject:
        """A new identity; its key is in this answer only."""
        spend(self.creations, address, "identities created", "players_per_minute")
        name = self._name(name)
        player_id = secrets.token_urlsafe(9)
        key = f"{player_id}.{secrets.token_urlsafe(32)}"
        await add_player(self.store, NewIdentity(player_id, name, _hash(key), self.now()))
        return {"id": player_id, "name": name, "key": key}

    async def identify(self, key: str | None) -> str | None:
        """The identity of ``key`` (an ``X-Player-Key``), None without one; 401
        ``bad_player_key`` for a key this server does not know."""
        if key is None or not key.strip():
            return None
        key = key.strip()
        if key.startswith(BOT_TOKEN_PREFIX):
            raise PlayerError(
                "bot_token", "a bot token works only with the bot API (Authorization: Bearer "
                "on /api/bot/...), not as a player key (X-Player-Key)", 401,
            )
        player_id, dot, secret = key.partition(".")
        if not dot or not secret or not 1 <= len(player_id) <= 16 or len(key) > MAX_KEY_CHARS:
            raise _bad_key()
        digest = _hash(key)
        known = False
        for stored in await key_hashes(self.store, player_id):
            known |= secrets.compare_digest(stored, digest)  # every one, in constant time
        if not known:
            raise _bad_key()
        return player_id

    async def person(self, key: str | None) -> str | None:
        """The identity of ``key`` taking a seat as a person (:meth:`identify`); 403
        ``bot_account`` for a bot account, which plays only through the bot API, seated by
        an invitation, and is shown as a bot there."""
        player_id = await self.identify(key)
        if player_id is not None and await bot_account(self.store, player_id) is not None:
            raise PlayerError("bot_account", "a bot account takes a seat only by an invitation "
                              "and plays through the bot API (docs/bot-api.md), not as a "
                              "person", 403)
        return player_id

    async def rename(self, key: str | None, name: str, address: str | None) -> str:
        """A new display name for the identity of ``key`` (:meth:`me`), which it returns;
        ``address`` (the client's; None: not counted) is held to ``renames_per_minute``:
        every rename is a stored write. The budget goes first, so that a refused rename
        costs no look-up of the key (a flood of renames was one read each)."""
        spend(self.renames, address, "renames", "renames_per_minute")
        player_id = await self.me(key)
        await rename_player(self.store, player_id, self._name(name), self.now())
        return player_id

    async def transfer(self, player_id: str, address: str | None) -> tuple[str, datetime]:
        """A one-time code for another device (any older unused code of the identity stops
        working); the code and until when it works."""
        spend(self.codes, address, "transfer codes", "transfer_codes_per_minute")
        code = new_code()
        now = self.now()
        expires = now + timedelta(seconds=CODE_SECONDS)
        await replace_code(self.store, TransferCode(_hash(code), player_id, now, expires))
        return code, expires

    async def claim(self, code: str, address: str | None) -> JSONObject:
        """Claim a transfer code: a fresh key of its identity for this device. A code that
        is wrong, expired or used is 404 ``bad_code`` (all three alike)."""
        spend(self.claims, address, "transfer codes tried", "claims_per_minute")
        code = clean_code(code)
        bad = PlayerError("bad_code", "this code is wrong, expired or already used; make a "
                          "new one on the device that has the identity", 404)
        if len(code) != CODE_LENGTH or not set(code) <= set(CODE_ALPHABET):
            raise bad
        secret = secrets.token_urlsafe(32)
        claimed = await claim_code(self.store, _hash(code), self.now(), MAX_KEYS,
                                   lambda player_id: _hash(f"{player_id}.{secret}"))
        if claimed is ClaimRefused.BAD_CODE:
            raise bad
        if claimed is ClaimRefused.TOO_MANY_KEYS:
            raise PlayerError(
                "too_many_devices", f"an identity may be on at most {MAX_KEYS} devices", 409
            )
        return {"id": claimed.player_id, "name": claimed.name,
                "key": f"{claimed.player_id}.{secret}"}

    async def me(self, key: str | None) -> str:
        """The identity of ``key``; 401 without one (``no_player_key``) or for a wrong one."""
        player_id = await self.identify(key)
        if player_id is None:
            raise PlayerError("no_player_key", "this needs your player key (X-Player-Key)", 401)
        return player_id

    # ------------------------------------------------------------------ bot accounts

    async def make_bot(self, player_id: str) -> JSONObject:
        """Make ``player_id`` a bot account (for good), with a new bot token: shown in
        this answer only; any older token stops working."""
        spend(self.codes, player_id, "bot tokens made", "transfer_codes_per_minute")
        token = f"{BOT_TOKEN_PREFIX}{player_id}.{secrets.token_urlsafe(32)}"
        await make_bot_account(self.store, player_id, _hash(token), self.now())
        account = await bot_account(self.store, player_id)
        assert account is not None
        return {"id": player_id, "name": account.name, "bot_account": True, "token": token}

    async def revoke_bot_token(self, player_id: str) -> JSONObject:
        """No bot token of ``player_id`` works any more (404 ``not_a_bot`` for an identity
        that is no bot account); a new one can be made."""
        account = await self._bot(player_id)
        await make_bot_account(self.store, player_id, None, self.now())
        await set_bot_available(self.store, player_id, False)
        return {"id": player_id, "name": account.name, "bot_account": True, "token": None}

    async def _bot(self, player_id: str) -> BotAccount:
        account = await bot_account(self.store, player_id)
        if account is None:
            raise PlayerError("not_a_bot", "this identity is not a bot account; make it one "
                              "with POST /api/players/me/bot", 404)
        return account

    async def bot_of(self, authorization: str | None) -> BotAccount:
        """The bot account of ``authorization`` (``Bearer bot.<id>.<secret>``); 401
        ``no_bot_token`` without one, ``bad_bot_token`` for one this server does not know
        (a revoked one, a player key, a seat token)."""
        token = bearer(authorization)
        if token is None:
            raise PlayerError("no_bot_token", "this needs your bot token "
                              "(Authorization: Bearer bot.<id>.<secret>)", 401)
        player_id, dot, secret = token.removeprefix(BOT_TOKEN_PREFIX).partition(".")
        if (not token.startswith(BOT_TOKEN_PREFIX) or not dot or not secret
                or not 1 <= len(player_id) <= 16 or len(token) > MAX_KEY_CHARS):
            raise _bad_bot_token()
        account = await bot_account(self.store, player_id)
        stored = account.token_hash if account is not None else None
        if account is None or not secrets.compare_digest(stored or "", _hash(token)):
            raise _bad_bot_token()
        return account

    async def bot_named(self, player_id: str) -> BotAccount:
        """The bot account ``player_id`` a host invites; 404 ``no_bot`` for an identity
        that is none, or whose token was revoked."""
        account = await bot_account(self.store, player_id) if len(player_id) <= 16 else None
        if account is None or account.token_hash is None:
            shown = player_id if len(player_id) <= 20 else player_id[:20] + "…"
            raise PlayerError("no_bot", f"there is no bot account {shown!r} (GET /api/bot-accounts "
                              "lists those that take invitations)", 404)
        return account

    async def set_available(self, account: BotAccount, available: bool) -> JSONObject:
        """Whether the lobby lists the bot account as taking invitations."""
        await set_bot_available(self.store, account.player_id, available)
        return {"id": account.player_id, "name": account.name, "available": available}

    async def available(self) -> list[BotAccount]:
        return await available_bots(self.store, AVAILABLE_BOTS)

    # ------------------------------------------------------------------ reading

    async def profile(self, player_id: str) -> JSONObject:
        rows = await profile_rows(self.store, player_id, STATS_GAMES, HISTORY_POINTS) if len(
            player_id) <= 16 else None
        if rows is None:
            raise _no_player(player_id)
        totals = StatsTotals()
        names: dict[tuple[str, str], tuple[str, str | None]] = {}
        for entry in reversed(rows.games):  # oldest first: the latest name seen wins
            figures = entry.stats.get("seat")
            seat = seat_stats_from_json(figures if isinstance(figures, dict) else {})
            seats = _objects(entry.stats.get("players"))

            def key(victim: int, seats: list[JSONObject] = seats) -> tuple[str, str]:
                other = seats[victim] if 0 <= victim < len(seats) else {}
                other_id, name = other.get("player_id"), str(other.get("name", "?"))
                found = ("player", other_id) if isinstance(other_id, str) else ("name", name)
                names[found] = (name, other_id if isinstance(other_id, str) else None)
                return found

            totals.add(seat, won=entry.won, target_key=key)
        stats = totals.to_json()
        stats["favourite_targets"] = [
            {"name": names[k][0], "player_id": names[k][1], "count": count}
            for k, count in totals.favourite_targets(3)
            if isinstance(k, tuple) and k in names
        ]
        rating = rows.rating
        return {
            "id": rows.player_id,
            "name": rows.name,
            "bot_account": rows.bot,
            "created_at": iso(rows.created_at),
            "rating": None if rating is None else {
                **_rating(rating), "games": rating.games, "wins": rating.wins},
            "stats": stats,
            "rating_history": [
                {"game_id": point.game_id, "at": iso(point.at),
                 "display": display(point.change.after.mu),
                 "delta": _delta(point.change)}
                for point in reversed(rows.history)
            ],
        }

    async def tables(self, player_id: str) -> JSONObject:
        """The tables ``player_id`` holds a seat at ("Your games"): the game waiting for
        them first, then the most recently changed; a suspended table with the time it
        waits until (flip7.server.table.expiry), after which it is closed (a turn-based
        one is not: its clock moves it on), and a turn-based table's clock."""
        found = await seated_tables(self.store, player_id, YOUR_TABLES)
        keep = timedelta(seconds=self.settings.suspended_table_ttl)
        found.sort(key=lambda t: t.to_decide != t.seat)  # stable: newest first otherwise
        return {"tables": [
            {
                "id": t.id,
                "name": t.name,
                "state": t.state,
                "seat": t.seat,
                "seats": [{"seat": s.seat, "name": s.name, "kind": "bot" if s.bot else "human"}
                          for s in t.seats],
                "to_decide": t.to_decide,
                "updated_at": iso(t.updated_at),
                "waits_until": (iso(t.updated_at + keep)
                                if t.state == "suspended" and t.deadline is None else None),
                "pace": pace_of(t.move_hours),
                "deadline": None if t.deadline is None else iso(t.deadline),
            }
            for t in found
        ]}  # fmt: skip

    async def games(self, player_id: str, offset: int, limit: int) -> JSONObject:
        page = await games_page(self.store, player_id, offset, limit) if len(
            player_id) <= 16 else None
        if page is None:
            raise _no_player(player_id)
        out: list[JSON] = [
            {
                "game_id": row.game_id,
                "table_name": row.stats.get("table_name"),
                "finished_at": iso(row.finished_at),
                "seat": row.seat,
                "players": row.stats.get("players", []),
                "winners": row.stats.get("winners", []),
                "rated": bool(row.stats.get("rated")),
                "unrated_because": _why(row.stats.get("unrated_because")),
                "rating_delta": None if row.change is None else _delta(row.change),
            }
            for row in page.games
        ]
        return {"games": out, "total": page.total}

    async def leaderboard(self, limit: int) -> JSONObject:
        board = await leaderboard_rows(self.store, limit, SETTLED_SIGMA)
        return {
            "players": [
                {"rank": i + 1, "id": r.rating.key.ref, "name": r.name, "bot_account": r.bot,
                 **_rating(r.rating),
                 "games": r.rating.games, "wins": r.rating.wins}
                for i, r in enumerate(board.players)
            ],
            "bots": [
                {"rank": i + 1, "level": r.key.ref, **_rating(r), "games": r.games,
                 "wins": r.wins}
                for i, r in enumerate(bot_standings(board.bots))
            ],
        }

    async def summary(self, game_id: str) -> JSONObject:
        """A finished game's end screen: each seat's total, statistics and rating change."""
        row = await self.store.game(game_id) if len(game_id) <= 16 else None
        if row is None:
            raise PlayerError("no_game", f"there is no game {game_id!r}", 404)
        if row.record is None:
            raise PlayerError("not_over", "the game is still being played", 409)
        entrants = entrants_of(row.record)
        stats = await asyncio.to_thread(stats_of, game_id, row.record)
        results = await results_of(self.store, game_id)
        seats: list[JSON] = []
        for entrant in entrants:
            seat = stats.seats[entrant.seat]
            change = results.changes.get(entrant.key) if entrant.key is not None else None
            rating: JSONObject | None = None
            if change is not None:
                before, after = display(change.before.mu), display(change.after.mu)
                rating = {"before": before, "after": after, "delta": after - before,
                          "provisional": provisional(change.after.sigma)}
            figures = seat.to_json()
            seats.append({
                "seat": entrant.seat,
                "name": entrant.name,
                "player_id": entrant.ref if entrant.kind == "player" else None,
                "bot": entrant.bot_label,
                "total": seat.total,
                "winner": seat.winner,
                "rating": rating,
                "unrated_because": results.unrated.get(entrant.ref or "")
                if entrant.kind == "player" else None,
                "stats": {k: figures[k] for k in (
                    "rounds", "round_score_avg", "busts", "bust_rate", "flip7s",
                    "attacks_given", "attacks_received", "attack_points_given",
                    "attack_points_received", "favourite_target")},
            })
        return {"game_id": game_id, "rated": bool(results.rated), "rounds": stats.rounds,
                "seats": seats}


# ---------------------------------------------------------------------- REST


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewPlayer(_Body):
    """A new identity's display name (``player_name_chars`` at most)."""

    name: Annotated[Text, Field(max_length=200)]


class Rename(_Body):
    name: Annotated[Text, Field(max_length=200)]


class BotAvailability(_Body):
    """Whether a bot account takes invitations now (the lobby lists it)."""

    available: bool


class Claim(_Body):
    """A transfer code, as shown on the other device (case, spaces and dashes ignored)."""

    code: Annotated[Text, Field(max_length=64)]

