"""The rows of identities (flip7.server.services.players): players, their keys and
transfer codes, and what a profile, a page of games and the leaderboard read. Typed
writes and typed rows; the SQL is kept here.

Only the SHA-256 of a key or a code reaches these functions: the key itself is the
service's, and never stored.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from flip7.core.jsontypes import JSONObject
from flip7.server.store.database import (
    Store,
    bot_invitations,
    json_object,
    player_codes,
    player_games,
    player_keys,
    players,
    rating_history,
    ratings,
    stored_state,
    table_log,
    tables,
)
from flip7.server.store.ratings import (
    RatingKey,
    RatingRow,
    Skill,
    SkillChange,
)
from flip7.server.table.changes import AddBot, Join, Leave, Remove, change_from_json
from flip7.server.table.storage import StoredState

__all__ = [
    "BotAccount",
    "BotInvitation",
    "ClaimRefused",
    "Identity",
    "LeaderboardRows",
    "NewIdentity",
    "PlayedGame",
    "PlayerGameRow",
    "PlayerGamesPage",
    "ProfileRows",
    "RatedName",
    "RatingPoint",
    "SeatedTable",
    "TransferCode",
    "add_invitation",
    "add_player",
    "available_bots",
    "bot_account",
    "claim_code",
    "games_page",
    "invitations_of",
    "key_hashes",
    "leaderboard_rows",
    "make_bot_account",
    "profile_rows",
    "rename_player",
    "replace_code",
    "seated_tables",
    "set_bot_available",
    "take_invitation",
]


@dataclass(frozen=True, slots=True)
class Identity:
    """An identity: its id and display name."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class NewIdentity:
    """A new identity with its first key (the key's SHA-256), created ``at``."""

    player_id: str
    name: str
    key_hash: str
    at: datetime


@dataclass(frozen=True, slots=True)
class TransferCode:
    """A one-time transfer code of an identity (the code's SHA-256)."""

    code_hash: str
    player_id: str
    created_at: datetime
    expires_at: datetime


class ClaimRefused(enum.Enum):
    """Why a transfer code gave no key: it is wrong, expired or used (all alike), or its
    identity has as many keys as it may."""

    BAD_CODE = "bad_code"
    TOO_MANY_KEYS = "too_many_keys"


class _Refused(Exception):
    """Rolls a claim's transaction back: the code stays as it was."""

    def __init__(self, why: ClaimRefused) -> None:
        super().__init__(why.value)
        self.why = why


async def add_player(store: Store, identity: NewIdentity) -> None:
    """Store a new identity and its first key, in one transaction."""
    async with store.engine.begin() as conn:
        await conn.execute(players.insert().values(
            id=identity.player_id, name=identity.name, created_at=identity.at,
            updated_at=identity.at))
        await conn.execute(player_keys.insert().values(
            player_id=identity.player_id, key_hash=identity.key_hash, created_at=identity.at))


async def key_hashes(store: Store, player_id: str) -> list[str]:
    """The SHA-256 of each key of ``player_id`` (none for an unknown id)."""
    async with store.engine.connect() as conn:
        return [str(row.key_hash) for row in await conn.execute(
            sa.select(player_keys.c.key_hash).where(player_keys.c.player_id == player_id))]


@dataclass(frozen=True, slots=True)
class BotAccount:
    """A bot account as the bot API reads it: its identity, the SHA-256 of its bot token
    (None: revoked) and whether it takes invitations now."""

    player_id: str
    name: str
    token_hash: str | None
    available: bool


def _bot_account(row: sa.Row[tuple[object, ...]]) -> BotAccount:
    return BotAccount(str(row.id), str(row.name),
                      None if row.bot_token_hash is None else str(row.bot_token_hash),
                      bool(row.bot_available))


async def bot_account(store: Store, player_id: str) -> BotAccount | None:
    """The bot account ``player_id``; None for an unknown id or an identity that is no bot."""
    async with store.engine.connect() as conn:
        row = (await conn.execute(
            players.select().where(players.c.id == player_id, players.c.bot.is_(True))
        )).first()
    return None if row is None else _bot_account(row)


async def make_bot_account(
    store: Store, player_id: str, token_hash: str | None, at: datetime
) -> None:
    """Make ``player_id`` a bot account (for good) with the bot token of ``token_hash``
    (None: no token works until a new one is made), replacing any older token."""
    async with store.engine.begin() as conn:
        await conn.execute(players.update().where(players.c.id == player_id)
                           .values(bot=True, bot_token_hash=token_hash, updated_at=at))


async def set_bot_available(store: Store, player_id: str, available: bool) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(players.update().where(players.c.id == player_id)
                           .values(bot_available=available))


async def available_bots(store: Store, limit: int) -> list[BotAccount]:
    """The bot accounts that take invitations now (with a token), by name."""
    async with store.engine.connect() as conn:
        rows = (await conn.execute(
            players.select()
            .where(players.c.bot.is_(True), players.c.bot_available.is_(True),
                   players.c.bot_token_hash.is_not(None))
            .order_by(players.c.name, players.c.id)
            .limit(limit)
        )).all()  # fmt: skip
    return [_bot_account(row) for row in rows]


@dataclass(frozen=True, slots=True)
class BotInvitation:
    """A host's invitation of the bot account ``bot_id`` to a seat at ``table_id``."""

    id: str
    bot_id: str
    table_id: str
    table_name: str
    host: str
    expires_at: datetime


def _invitation(row: sa.Row[tuple[object, ...]]) -> BotInvitation:
    return BotInvitation(str(row.id), str(row.bot_id), str(row.table_id), str(row.table_name),
                         str(row.host), _aware(row.expires_at))


def _aware(at: object) -> datetime:
    """A stored moment as UTC (SQLite gives it back without its zone)."""
    assert isinstance(at, datetime)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


async def add_invitation(store: Store, invitation: BotInvitation, keep: int) -> None:
    """Store ``invitation``; the bot's oldest beyond ``keep`` go."""
    async with store.engine.begin() as conn:
        await conn.execute(bot_invitations.insert().values(
            id=invitation.id, bot_id=invitation.bot_id, table_id=invitation.table_id,
            table_name=invitation.table_name, host=invitation.host,
            expires_at=invitation.expires_at))
        old = (await conn.execute(
            sa.select(bot_invitations.c.id).where(bot_invitations.c.bot_id == invitation.bot_id)
            .order_by(bot_invitations.c.expires_at.desc(), bot_invitations.c.id).offset(keep)
        )).all()  # fmt: skip
        if old:
            await conn.execute(bot_invitations.delete().where(
                bot_invitations.c.id.in_([r.id for r in old])))


async def invitations_of(store: Store, bot_id: str, now: datetime) -> list[BotInvitation]:
    """The bot's invitations still standing (the expired ones are dropped), oldest first."""
    async with store.engine.begin() as conn:
        await conn.execute(bot_invitations.delete().where(
            bot_invitations.c.bot_id == bot_id, bot_invitations.c.expires_at <= now))
        rows = (await conn.execute(
            bot_invitations.select().where(bot_invitations.c.bot_id == bot_id)
            .order_by(bot_invitations.c.expires_at, bot_invitations.c.id))).all()
    return [_invitation(r) for r in rows]


async def take_invitation(
    store: Store, bot_id: str, invitation_id: str, now: datetime
) -> BotInvitation | None:
    """The bot's standing invitation ``invitation_id``, taken (answered: gone); None when
    there is none, or it expired."""
    async with store.engine.begin() as conn:
        row = (await conn.execute(bot_invitations.select().where(
            bot_invitations.c.id == invitation_id, bot_invitations.c.bot_id == bot_id))).first()
        if row is None:
            return None
        deleted = await conn.execute(bot_invitations.delete().where(
            bot_invitations.c.id == invitation_id))
    found = _invitation(row)
    return found if deleted.rowcount == 1 and found.expires_at > now else None


async def rename_player(store: Store, player_id: str, name: str, at: datetime) -> None:
    async with store.engine.begin() as conn:
        await conn.execute(players.update().where(players.c.id == player_id)
                           .values(name=name, updated_at=at))


async def replace_code(store: Store, code: TransferCode) -> None:
    """Store ``code``, and drop every unused older code of its identity (one transaction)."""
    async with store.engine.begin() as conn:
        await conn.execute(player_codes.delete().where(
            player_codes.c.player_id == code.player_id, player_codes.c.used_at.is_(None)))
        await conn.execute(player_codes.insert().values(
            code_hash=code.code_hash, player_id=code.player_id, created_at=code.created_at,
            expires_at=code.expires_at, used_at=None))


async def claim_code(
    store: Store, code_hash: str, now: datetime, max_keys: int,
    key_hash: Callable[[str], str],
) -> Identity | ClaimRefused:
    """Use the transfer code ``code_hash`` (unused, not expired at ``now``) for a new key
    of its identity, whose SHA-256 ``key_hash(player_id)`` gives: the identity, or why not
    (and then nothing is written: a code refused for too many keys stays unused). One
    transaction."""
    try:
        async with store.engine.begin() as conn:
            # One statement marks it used: of two claims at once, one changes the row.
            used = await conn.execute(
                player_codes.update()
                .where(player_codes.c.code_hash == code_hash, player_codes.c.used_at.is_(None),
                       player_codes.c.expires_at > now)
                .values(used_at=now)
            )
            if used.rowcount != 1:
                raise _Refused(ClaimRefused.BAD_CODE)
            row = (await conn.execute(
                sa.select(players.c.id, players.c.name)
                .join(player_codes, player_codes.c.player_id == players.c.id)
                .where(player_codes.c.code_hash == code_hash)
            )).one()
            count = (await conn.execute(
                sa.select(sa.func.count()).select_from(player_keys)
                .where(player_keys.c.player_id == row.id)
            )).scalar_one()
            if count >= max_keys:
                raise _Refused(ClaimRefused.TOO_MANY_KEYS)
            await conn.execute(player_keys.insert().values(
                player_id=row.id, key_hash=key_hash(row.id), created_at=now))
    except _Refused as refused:
        return refused.why
    return Identity(row.id, row.name)


# ---------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One of an identity's games, for its profile: its seat's statistics
    (``player_games.stats``) and whether it won."""

    stats: JSONObject
    won: bool


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A row of ``rating_history``: a rating change of one game."""

    game_id: str
    at: datetime
    change: SkillChange


@dataclass(frozen=True, slots=True)
class ProfileRows:
    """What a profile reads: the identity, its rating (None before its first rated game),
    its most recent games and rating changes, each newest first."""

    player_id: str
    name: str
    created_at: datetime
    rating: RatingRow | None
    games: list[PlayedGame]
    bot: bool
    history: list[RatingPoint]


def _rating_row(row: sa.Row[tuple[object, ...]]) -> RatingRow:
    return RatingRow(
        key=RatingKey(row.kind, row.ref),
        skill=Skill(float(row.mu), float(row.sigma)),
        games=int(row.games),
        wins=int(row.wins),
    )


def _change(mu_before: float, sigma_before: float, mu_after: float, sigma_after: float
            ) -> SkillChange:
    return SkillChange(Skill(mu_before, sigma_before), Skill(mu_after, sigma_after))


async def profile_rows(
    store: Store, player_id: str, games: int, history: int
) -> ProfileRows | None:
    """The rows of ``player_id``'s profile (``games`` games and ``history`` rating changes
    at most); None for an identity that does not exist."""
    async with store.engine.connect() as conn:
        row = (await conn.execute(players.select().where(players.c.id == player_id))).first()
        if row is None:
            return None
        rated = (await conn.execute(ratings.select().where(
            ratings.c.kind == "player", ratings.c.ref == player_id))).first()
        stored = (await conn.execute(
            sa.select(player_games.c.stats, player_games.c.won)
            .where(player_games.c.player_id == player_id)
            .order_by(player_games.c.finished_at.desc())
            .limit(games)
        )).all()
        changes = (await conn.execute(
            rating_history.select()
            .where(rating_history.c.kind == "player", rating_history.c.ref == player_id)
            .order_by(rating_history.c.at.desc(), rating_history.c.game_id)
            .limit(history)
        )).all()
    return ProfileRows(
        player_id=row.id,
        name=row.name,
        created_at=row.created_at,
        rating=None if rated is None else _rating_row(rated),
        games=[PlayedGame(json_object(g.stats), bool(g.won)) for g in stored],
        bot=bool(row.bot),
        history=[
            RatingPoint(h.game_id, h.at,
                        _change(h.mu_before, h.sigma_before, h.mu_after, h.sigma_after))
            for h in changes
        ],
    )


@dataclass(frozen=True, slots=True)
class PlayerGameRow:
    """A row of ``player_games`` with the rating change the game made (None: unrated)."""

    game_id: str
    seat: int
    stats: JSONObject
    finished_at: datetime
    change: SkillChange | None


@dataclass(frozen=True, slots=True)
class PlayerGamesPage:
    """A page of an identity's games, newest first, and how many it has in all."""

    games: list[PlayerGameRow]
    total: int


async def games_page(
    store: Store, player_id: str, offset: int, limit: int
) -> PlayerGamesPage | None:
    """A page of ``player_id``'s finished games; None for an identity that does not exist."""
    async with store.engine.connect() as conn:
        if (await conn.execute(sa.select(players.c.id).where(players.c.id == player_id))
                ).first() is None:
            return None
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
    return PlayerGamesPage(
        games=[
            PlayerGameRow(
                game_id=row.game_id,
                seat=row.seat,
                stats=json_object(row.stats),
                finished_at=row.finished_at,
                change=None if row.mu_after is None else _change(
                    row.mu_before, row.sigma_before, row.mu_after, row.sigma_after),
            )
            for row in rows
        ],
        total=int(total),
    )


@dataclass(frozen=True, slots=True)
class RatedName:
    """An identity's rating with its display name."""

    rating: RatingRow
    name: str
    bot: bool = False


@dataclass(frozen=True, slots=True)
class LeaderboardRows:
    """The rated identities and bot levels with a rated game: settled ratings first, then
    provisional ones, each best first by mean (:func:`leaderboard_rows`)."""

    players: list[RatedName]
    bots: list[RatingRow]


async def leaderboard_rows(store: Store, limit: int, settled_sigma: float) -> LeaderboardRows:
    """The leaderboard: ``limit`` identities at most, and every bot level; settled ratings
    (sigma down to ``settled_sigma``) first, then provisional ones, each by mean."""
    settled = sa.case((ratings.c.sigma <= settled_sigma, 0), else_=1)
    async with store.engine.connect() as conn:
        people = (await conn.execute(
            sa.select(ratings, players.c.name, players.c.bot)
            .join(players, players.c.id == ratings.c.ref)
            .where(ratings.c.kind == "player", ratings.c.games > 0)
            .order_by(settled, ratings.c.mu.desc(), ratings.c.games.desc(), ratings.c.ref)
            .limit(limit)
        )).all()
        bots = (await conn.execute(
            ratings.select().where(ratings.c.kind == "bot", ratings.c.games > 0)
            .order_by(settled, ratings.c.mu.desc(), ratings.c.ref)
        )).all()
    return LeaderboardRows(
        players=[RatedName(_rating_row(r), r.name, bool(r.bot)) for r in people],
        bots=[_rating_row(r) for r in bots],
    )


# ---------------------------------------------------------------------- your games

# The tables a player still sits at: neither closed nor left.
_SEATED_STATES = ("waiting", "playing", "over", "suspended")
_SEAT_KINDS = (Join.kind, AddBot.kind, Remove.kind, Leave.kind)


@dataclass(frozen=True, slots=True)
class TableSeat:
    """A taken seat of a table as its log left it: its number, name and kind."""

    seat: int
    name: str
    bot: bool


@dataclass(frozen=True, slots=True)
class SeatedTable:
    """A table ``player_id`` has a seat at (``seat``): its name, state, seats, the seat its
    game waits for, when it last changed, and at a turn-based table (``move_hours``) when
    the running decision is made for its seat (``deadline``)."""

    id: str
    name: str
    state: StoredState
    seat: int
    seats: tuple[TableSeat, ...]
    to_decide: int | None
    updated_at: datetime
    move_hours: int | None
    deadline: datetime | None


def _seats_of(rows: list[tuple[str, str]], player_id: str
              ) -> tuple[int | None, tuple[TableSeat, ...]]:  # fmt: skip
    """The seat ``player_id`` still holds (None: none, or they left) and every taken seat,
    replayed from a table's seat changes, oldest first."""
    seats: dict[int, TableSeat] = {}
    mine: int | None = None
    for kind, data in rows:
        change = change_from_json(kind, json_object(data))
        match change:
            case Join():
                seats[change.seat] = TableSeat(change.seat, change.name, False)
                if change.player_id == player_id:
                    mine = change.seat
            case AddBot():
                seats[change.seat] = TableSeat(change.seat, change.name, True)
            case Remove() | Leave():
                if change.seat == mine:
                    mine = None
                if isinstance(change, Remove):
                    seats.pop(change.seat, None)
    return mine, tuple(seats[n] for n in sorted(seats))


async def seated_tables(store: Store, player_id: str, limit: int) -> list[SeatedTable]:
    """The ``limit`` most recently changed tables where ``player_id`` holds a seat (not a
    closed table, not one they left)."""
    async with store.engine.connect() as conn:
        found = (await conn.execute(
            sa.select(tables.c.id, tables.c.name, tables.c.state, tables.c.to_decide,
                      tables.c.updated_at, tables.c.move_hours, tables.c.deadline)
            .where(tables.c.id.in_(sa.select(table_log.c.table_id)
                                   .where(table_log.c.player_id == player_id)),
                   tables.c.state.in_(_SEATED_STATES))
            .order_by(tables.c.updated_at.desc(), tables.c.id)
            .limit(limit)
        )).all()  # fmt: skip
        if not found:
            return []
        logs = (await conn.execute(
            sa.select(table_log.c.table_id, table_log.c.kind, table_log.c.data)
            .where(table_log.c.table_id.in_([row.id for row in found]),
                   table_log.c.kind.in_(_SEAT_KINDS))
            .order_by(table_log.c.table_id, table_log.c.seq)
        )).all()  # fmt: skip
    by_table: dict[str, list[tuple[str, str]]] = {}
    for entry in logs:
        by_table.setdefault(str(entry.table_id), []).append((str(entry.kind), str(entry.data)))
    out: list[SeatedTable] = []
    for row in found:
        mine, seats = _seats_of(by_table.get(str(row.id), []), player_id)
        if mine is not None:
            out.append(SeatedTable(str(row.id), str(row.name), stored_state(str(row.state)), mine,
                                   seats, row.to_decide, row.updated_at, row.move_hours,
                                   row.deadline))  # fmt: skip
    return out
