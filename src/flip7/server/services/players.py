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
and codes tried are budgets per address (``players_per_minute``,
``transfer_codes_per_minute``, ``claims_per_minute``: 429 ``rate_limited``).

>>> code = new_code()
>>> len(code), set(code) <= set(CODE_ALPHABET), clean_code(" ab2cd-ef3gh ")
(10, True, 'AB2CDEF3GH')
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Annotated, Any

import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, Field

from flip7.analysis.stats import StatsTotals, seat_stats_from_json
from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.errors import ServerError
from flip7.server.base.limits import AddressBudget
from flip7.server.base.protocol import Text
from flip7.server.base.settings import Settings
from flip7.server.services.ratings import display, entrants_of, stats_of
from flip7.server.store.database import (
    Store,
    game_results,
    iso,
    player_codes,
    player_games,
    player_keys,
    players,
    rating_history,
    ratings,
    utcnow,
)
from flip7.server.table.lobby import clean_name, spend

__all__ = ["CODE_ALPHABET", "CODE_SECONDS", "GAMES_PAGE", "LEADERBOARD", "MAX_GAMES_PAGE",
           "MAX_KEYS", "MAX_LEADERBOARD", "Claim", "NewPlayer", "PlayerError", "Players",
           "Rename", "clean_code", "new_code"]

# Transfer codes: ten characters of thirty (no 0/O, 1/I/L, U), about 2^49 codes; each
# lives 15 minutes and is used once. A device count per identity keeps keys bounded.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10
CODE_SECONDS = 15 * 60
MAX_KEYS = 20
# A key is "<id>.<secret>": an id of 12 characters, a secret of 43 (256 bits).
MAX_KEY_CHARS = 128
# Pages of a player's games, and the leaderboard.
GAMES_PAGE = 20
MAX_GAMES_PAGE = 50
LEADERBOARD = 50
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


def _no_player(player_id: str) -> PlayerError:
    shown = player_id if len(player_id) <= 20 else player_id[:20] + "…"
    return PlayerError("no_player", f"there is no player {shown!r}", 404)


def _rating(mu: float, sigma: float) -> JSONObject:
    return {"mu": round(mu, 4), "sigma": round(sigma, 4), "display": display(mu, sigma)}


class Players:
    """Identities, profiles and the leaderboard, on the store's database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store: Store | None = None
        # Wall-clock time of transfer codes (tests move it by hand).
        self.now: Callable[[], datetime] = utcnow
        self.creations = AddressBudget(settings.players_per_minute, settings.players_burst)
        self.codes = AddressBudget(
            settings.transfer_codes_per_minute, settings.transfer_codes_burst
        )
        self.claims = AddressBudget(settings.claims_per_minute, settings.claims_burst)

    @property
    def engine(self) -> Any:
        assert self.store is not None, "the server has not started"
        return self.store.engine

    def _name(self, name: str) -> str:
        return clean_name(name, "player name", self.settings.player_name_chars)

    async def _new_key(self, conn: Any, player_id: str, now: datetime) -> str:
        key = f"{player_id}.{secrets.token_urlsafe(32)}"
        await conn.execute(player_keys.insert().values(
            player_id=player_id, key_hash=_hash(key), created_at=now))
        return key

    # ------------------------------------------------------------------ identities

    async def create(self, name: str, address: str | None) -> JSONObject:
        """A new identity; its key is in this answer only."""
        spend(self.creations, address, "identities created", "players_per_minute")
        name = self._name(name)
        player_id = secrets.token_urlsafe(9)
        now = self.now()
        async with self.engine.begin() as conn:
            await conn.execute(players.insert().values(
                id=player_id, name=name, created_at=now, updated_at=now))
            key = await self._new_key(conn, player_id, now)
        return {"id": player_id, "name": name, "key": key}

    async def identify(self, key: str | None) -> str | None:
        """The identity of ``key`` (an ``X-Player-Key``), None without one; 401
        ``bad_player_key`` for a key this server does not know."""
        if key is None or not key.strip():
            return None
        key = key.strip()
        player_id, dot, secret = key.partition(".")
        if not dot or not secret or not 1 <= len(player_id) <= 16 or len(key) > MAX_KEY_CHARS:
            raise _bad_key()
        digest = _hash(key)
        async with self.engine.connect() as conn:
            hashes = [row.key_hash for row in await conn.execute(
                sa.select(player_keys.c.key_hash).where(player_keys.c.player_id == player_id))]
        known = False
        for stored in hashes:  # every one compared, in constant time
            known |= secrets.compare_digest(stored, digest)
        if not known:
            raise _bad_key()
        return player_id

    async def rename(self, player_id: str, name: str) -> None:
        name = self._name(name)
        async with self.engine.begin() as conn:
            await conn.execute(players.update().where(players.c.id == player_id)
                               .values(name=name, updated_at=self.now()))

    async def transfer(self, player_id: str, address: str | None) -> tuple[str, datetime]:
        """A one-time code for another device (any older unused code of the identity stops
        working); the code and until when it works."""
        spend(self.codes, address, "transfer codes", "transfer_codes_per_minute")
        code = new_code()
        now = self.now()
        expires = now + timedelta(seconds=CODE_SECONDS)
        async with self.engine.begin() as conn:
            await conn.execute(player_codes.delete().where(
                player_codes.c.player_id == player_id, player_codes.c.used_at.is_(None)))
            await conn.execute(player_codes.insert().values(
                code_hash=_hash(code), player_id=player_id, created_at=now,
                expires_at=expires, used_at=None))
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
        now = self.now()
        digest = _hash(code)
        async with self.engine.begin() as conn:
            # One statement marks it used: of two claims at once, one changes the row.
            used = await conn.execute(
                player_codes.update()
                .where(player_codes.c.code_hash == digest, player_codes.c.used_at.is_(None),
                       player_codes.c.expires_at > now)
                .values(used_at=now)
            )
            if used.rowcount != 1:
                raise bad
            row = (await conn.execute(
                sa.select(players.c.id, players.c.name)
                .join(player_codes, player_codes.c.player_id == players.c.id)
                .where(player_codes.c.code_hash == digest)
            )).one()
            count = (await conn.execute(
                sa.select(sa.func.count()).select_from(player_keys)
                .where(player_keys.c.player_id == row.id)
            )).scalar_one()
            if count >= MAX_KEYS:
                raise PlayerError(
                    "too_many_devices", f"an identity may be on at most {MAX_KEYS} devices", 409
                )
            key = await self._new_key(conn, row.id, now)
        return {"id": row.id, "name": row.name, "key": key}

    async def me(self, key: str | None) -> str:
        """The identity of ``key``; 401 without one (``no_player_key``) or for a wrong one."""
        player_id = await self.identify(key)
        if player_id is None:
            raise PlayerError("no_player_key", "this needs your player key (X-Player-Key)", 401)
        return player_id

    # ------------------------------------------------------------------ reading

    async def profile(self, player_id: str) -> JSONObject:
        if len(player_id) > 16:
            raise _no_player(player_id)
        async with self.engine.connect() as conn:
            row = (await conn.execute(players.select().where(players.c.id == player_id))).first()
            if row is None:
                raise _no_player(player_id)
            rated = (await conn.execute(ratings.select().where(
                ratings.c.kind == "player", ratings.c.ref == player_id))).first()
            stored = (await conn.execute(
                sa.select(player_games.c.stats, player_games.c.won)
                .where(player_games.c.player_id == player_id)
                .order_by(player_games.c.finished_at.desc())
                .limit(STATS_GAMES)
            )).all()
            history = (await conn.execute(
                rating_history.select()
                .where(rating_history.c.kind == "player", rating_history.c.ref == player_id)
                .order_by(rating_history.c.at.desc(), rating_history.c.game_id)
                .limit(HISTORY_POINTS)
            )).all()
        totals = StatsTotals()
        names: dict[tuple[str, str], tuple[str, str | None]] = {}
        for entry in reversed(stored):  # oldest first: the latest name seen wins
            data = json.loads(entry.stats)
            seat = seat_stats_from_json(data.get("seat", {}))
            seats = data.get("players", [])

            def key(victim: int, seats: list[dict[str, Any]] = seats) -> tuple[str, str]:
                other = seats[victim] if 0 <= victim < len(seats) else {}
                pid, name = other.get("player_id"), str(other.get("name", "?"))
                found = ("player", pid) if isinstance(pid, str) else ("name", name)
                names[found] = (name, pid if isinstance(pid, str) else None)
                return found

            totals.add(seat, won=bool(entry.won), target_key=key)
        stats = totals.to_json()
        stats["favourite_targets"] = [
            {"name": names[k][0], "player_id": names[k][1], "count": count}
            for k, count in totals.favourite_targets(3)
            if isinstance(k, tuple) and k in names
        ]
        return {
            "id": row.id,
            "name": row.name,
            "created_at": iso(row.created_at),
            "rating": None if rated is None else {
                **_rating(rated.mu, rated.sigma), "games": rated.games, "wins": rated.wins},
            "stats": stats,
            "rating_history": [
                {"game_id": h.game_id, "at": iso(h.at),
                 "display": display(h.mu_after, h.sigma_after),
                 "delta": display(h.mu_after, h.sigma_after)
                 - display(h.mu_before, h.sigma_before)}
                for h in reversed(history)
            ],
        }

    async def games(self, player_id: str, offset: int, limit: int) -> JSONObject:
        if len(player_id) > 16:
            raise _no_player(player_id)
        async with self.engine.connect() as conn:
            if (await conn.execute(sa.select(players.c.id).where(players.c.id == player_id))
                    ).first() is None:
                raise _no_player(player_id)
            total = (await conn.execute(
                sa.select(sa.func.count()).select_from(player_games)
                .where(player_games.c.player_id == player_id)
            )).scalar_one()
            rows = (await conn.execute(
                sa.select(player_games, rating_history.c.mu_before, rating_history.c.sigma_before,
                          rating_history.c.mu_after, rating_history.c.sigma_after)
                .outerjoin(rating_history, sa.and_(
                    rating_history.c.game_id == player_games.c.game_id,
                    rating_history.c.kind == "player",
                    rating_history.c.ref == player_games.c.player_id))
                .where(player_games.c.player_id == player_id)
                .order_by(player_games.c.finished_at.desc(), player_games.c.game_id)
                .offset(offset).limit(limit)
            )).all()
        out: list[JSON] = []
        for row in rows:
            data = json.loads(row.stats)
            delta = None
            if row.mu_after is not None:
                delta = (display(row.mu_after, row.sigma_after)
                         - display(row.mu_before, row.sigma_before))
            out.append({
                "game_id": row.game_id,
                "table_name": data.get("table_name"),
                "finished_at": iso(row.finished_at),
                "seat": row.seat,
                "players": data.get("players", []),
                "winners": data.get("winners", []),
                "rated": bool(data.get("rated")),
                "rating_delta": delta,
            })
        return {"games": out, "total": int(total)}

    async def leaderboard(self, limit: int) -> JSONObject:
        order = (ratings.c.mu - 3 * ratings.c.sigma).desc()
        async with self.engine.connect() as conn:
            people = (await conn.execute(
                sa.select(ratings, players.c.name)
                .join(players, players.c.id == ratings.c.ref)
                .where(ratings.c.kind == "player", ratings.c.games > 0)
                .order_by(order, ratings.c.games.desc(), ratings.c.ref)
                .limit(limit)
            )).all()
            bots = (await conn.execute(
                ratings.select().where(ratings.c.kind == "bot", ratings.c.games > 0)
                .order_by(order, ratings.c.ref)
            )).all()
        return {
            "players": [
                {"rank": i + 1, "id": r.ref, "name": r.name, **_rating(r.mu, r.sigma),
                 "games": r.games, "wins": r.wins}
                for i, r in enumerate(people)
            ],
            "bots": [
                {"rank": i + 1, "level": r.ref, **_rating(r.mu, r.sigma), "games": r.games,
                 "wins": r.wins}
                for i, r in enumerate(bots)
            ],
        }

    async def summary(self, game_id: str) -> JSONObject:
        """A finished game's end screen: each seat's total, statistics and rating change."""
        assert self.store is not None
        row = await self.store.game(game_id) if len(game_id) <= 16 else None
        if row is None:
            raise PlayerError("no_game", f"there is no game {game_id!r}", 404)
        if row.record is None:
            raise PlayerError("not_over", "the game is still being played", 409)
        entrants = entrants_of(row.record)
        stats = await asyncio.to_thread(stats_of, game_id, row.record)
        async with self.engine.connect() as conn:
            done = (await conn.execute(sa.select(game_results.c.rated).where(
                game_results.c.game_id == game_id))).scalar_one_or_none()
            changes = {
                (h.kind, h.ref): h for h in await conn.execute(
                    rating_history.select().where(rating_history.c.game_id == game_id))
            }
        seats: list[JSON] = []
        for entrant in entrants:
            seat = stats.seats[entrant.seat]
            change = changes.get(entrant.key) if entrant.key is not None else None
            rating: JSONObject | None = None
            if change is not None:
                before = display(change.mu_before, change.sigma_before)
                after = display(change.mu_after, change.sigma_after)
                rating = {"before": before, "after": after, "delta": after - before}
            figures = seat.to_json()
            seats.append({
                "seat": entrant.seat,
                "name": entrant.name,
                "player_id": entrant.ref if entrant.kind == "player" else None,
                "bot": entrant.bot_label,
                "total": seat.total,
                "winner": seat.winner,
                "rating": rating,
                "stats": {k: figures[k] for k in (
                    "rounds", "round_score_avg", "busts", "bust_rate", "flip7s",
                    "attacks_given", "attacks_received", "attack_points_given",
                    "attack_points_received", "favourite_target")},
            })
        return {"game_id": game_id, "rated": bool(done), "rounds": stats.rounds,
                "seats": seats}


# ---------------------------------------------------------------------- REST


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewPlayer(_Body):
    """A new identity's display name (``player_name_chars`` at most)."""

    name: Annotated[Text, Field(max_length=200)]


class Rename(_Body):
    name: Annotated[Text, Field(max_length=200)]


class Claim(_Body):
    """A transfer code, as shown on the other device (case, spaces and dashes ignored)."""

    code: Annotated[Text, Field(max_length=64)]
