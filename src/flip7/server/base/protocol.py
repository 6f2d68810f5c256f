"""The typed messages of the server: REST bodies and answers, WebSocket frames.

Incoming WebSocket frames are parsed with :func:`parse_client_message`, which turns every
kind of bad input into a :class:`ProtocolError` with a code for the error frame. A move's
decision is parsed here, once (:func:`flip7.core.decisions.parse_decision`): from here on it
travels as a typed :data:`~flip7.core.decisions.Decision` to the engine, which alone judges
whether it is legal.
Outgoing frames are built as plain JSON for speed; the models below describe them (the
JSON Schema is served at ``/api/protocol``) and the tests check every frame of a game
against them.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError, PydanticKnownError

from flip7.bots.levels import DEFAULT_LEVEL
from flip7.core.decisions import Decision, parse_decision
from flip7.core.errors import DecisionError
from flip7.core.rules import ONE_DECK_MAX_PLAYERS, TWO_PLAYERS
from flip7.server.base.errors import ServerError

__all__ = [
    "PROTOCOL_VERSION",
    "AddBot",
    "BotAccept",
    "BotChat",
    "BotDecline",
    "BotMove",
    "BotReady",
    "CardDecisionModel",
    "Chat",
    "ChatEntryModel",
    "ChatFrame",
    "ClientMessage",
    "CoachAnswer",
    "CoachProgress",
    "CoachRequest",
    "CreateTable",
    "DecisionModel",
    "ErrorFrame",
    "GameViewModel",
    "Hello",
    "JoinTable",
    "Limits",
    "Move",
    "Ping",
    "ProtocolError",
    "Ready",
    "SeatDecisionModel",
    "ServerInfo",
    "ServerMessage",
    "SpectatorChat",
    "StartTutorial",
    "SwapDecisionModel",
    "TableStateModel",
    "TutorialModel",
    "TutorialStep",
    "parse_bot_message",
    "parse_client_message",
    "protocol_schema",
]

PROTOCOL_VERSION = 1
# Versions and counters a client sends back: beyond this nothing is real (JavaScript's
# largest safe integer), so bigger numbers are refused rather than compared.
MAX_COUNTER = 2**53 - 1


class _Strict(BaseModel):
    # strict: "6" is not 6 and true is not 1; a client that sends the wrong type is told so.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


def _unicode(value: str) -> str:
    """Refuse lone surrogates (``"\\ud800"`` is valid JSON, but no text): they cannot be
    stored or sent back as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the text is not valid Unicode (a lone surrogate)") from None
    return value


# A string from a client: of type string (no coercion) and valid Unicode.
Text = Annotated[StrictStr, AfterValidator(_unicode)]
Counter = Annotated[StrictInt, Field(ge=0, le=MAX_COUNTER)]

# The longest decision string a client may send (the longest real one, a Swap, is ~20).
MAX_DECISION = 64
# The pydantic error type of a decision string that does not parse: the client is told
# ``illegal_move`` with the parser's message, not ``bad_message``.
_BAD_DECISION = "bad_decision"


def _decision(value: object) -> Decision:
    """A move's decision: a RECORD.md §5 string from the client, parsed (this is the only
    place a client's decision is parsed); an unknown verb, seat or card is ``bad_decision``."""
    if not isinstance(value, str):
        raise PydanticKnownError("string_type")
    if not value:
        raise PydanticKnownError("string_too_short", {"min_length": 1})
    if len(value) > MAX_DECISION:
        raise PydanticKnownError("string_too_long", {"max_length": MAX_DECISION})
    _unicode(value)
    try:
        return parse_decision(value)
    except DecisionError as exc:
        raise PydanticCustomError(_BAD_DECISION, "{reason}", {"reason": str(exc)}) from None


# A decision: a string on the wire (and in the schema), a typed Decision once parsed.
DecisionText = Annotated[
    Decision,
    PlainValidator(_decision, json_schema_input_type=str),
    PlainSerializer(str, return_type=str),
    WithJsonSchema(
        {"type": "string", "minLength": 1, "maxLength": MAX_DECISION,
         "description": "a decision of RECORD.md §5, e.g. \"hit\" or \"target 2\""}
    ),
]


# ---------------------------------------------------------------------- client -> server


class Hello(_Strict):
    """The first frame: who is connecting (a seat token, or none for a spectator)."""

    v: Literal[1]
    type: Literal["hello"]
    token: Annotated[Text, Field(max_length=128)] | None = None
    last_version: Counter | None = None


class Move(_Strict):
    """A decision for the sender's seat, made against table version ``version``."""

    v: Literal[1]
    type: Literal["move"]
    id: Annotated[Text, Field(min_length=1, max_length=64)]
    version: Counter
    decision: DecisionText


class Ping(_Strict):
    v: Literal[1]
    type: Literal["ping"]


class Chat(_Strict):
    """A chat message to everyone at the table, from a seat or a spectator. Its length (in
    characters) and what it may hold are the table's to judge (``chat_max_chars`` of
    ``/api/limits``, :func:`flip7.server.table.chat.clean_chat`): ``bad_chat`` if not."""

    v: Literal[1]
    type: Literal["chat"]
    text: Text


class SpectatorChat(_Strict):
    """The table's host switches spectators' chat off (``allowed: false``) or on."""

    v: Literal[1]
    type: Literal["spectator_chat"]
    allowed: StrictBool


ClientMessage = Annotated[
    Hello | Move | Ping | Chat | SpectatorChat, Field(discriminator="type")
]
_CLIENT = TypeAdapter(ClientMessage)
_CLIENT_TYPES = ("hello", "move", "ping", "chat", "spectator_chat")


class ProtocolError(ServerError):
    """A frame the server cannot take; ``code`` goes in the error frame, with ``move_id``
    (the move's ``id``) when the frame is a well-formed move whose decision does not parse."""

    def __init__(self, code: str, message: str, move_id: str | None = None) -> None:
        super().__init__(code, message)
        self.move_id = move_id


def parse_client_message(text: str) -> Hello | Move | Ping | Chat | SpectatorChat:
    """Parse one client frame.

    >>> parse_client_message('{"v":1, "type":"move", "id":"a1", "version":3, "decision":"hit"}')
    Move(v=1, type='move', id='a1', version=3, decision=Hit())
    >>> parse_client_message('{"v":1, "type":"move", "id":"a1", "version":3, "decision":"fly"}')
    Traceback (most recent call last):
    ...
    flip7.server.base.protocol.ProtocolError: unknown decision 'fly'; decisions are hit, stay, ...
    >>> parse_client_message('{"v": 1, "type": "dance"}')
    Traceback (most recent call last):
    ...
    flip7.server.base.protocol.ProtocolError: unknown message type 'dance'; ...
    """
    return _parse(text, _CLIENT, _CLIENT_TYPES)


_Frame = TypeVar("_Frame")


def _parse(text: str, adapter: TypeAdapter[_Frame], types: tuple[str, ...]) -> _Frame:
    """One frame of a client (a seat's socket, or a bot's stream) by ``adapter``, whose
    message types are ``types``; every refusal a ProtocolError saying what was wrong."""
    try:
        data = json.loads(text)
    except ValueError:
        raise ProtocolError("bad_message", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object")
    # ``True == 1`` and ``1.0 == 1`` in Python: only the integer 1 is protocol version 1.
    if type(data.get("v")) is not int or data.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(
            "bad_message", f"unsupported protocol version {data.get('v')!r}; this server speaks 1"
        )
    kind = data.get("type")
    if kind not in types:
        raise ProtocolError(
            "unknown_type", f"unknown message type {kind!r}; types are {', '.join(types)}"
        )
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        errors = exc.errors()
        if all(e["type"] == _BAD_DECISION for e in errors):
            # A well-formed move whose decision does not parse: its id is valid.
            raise ProtocolError("illegal_move", errors[0]["msg"], move_id=data["id"]) from None
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'message'}: {e['msg']}"
            for e in errors
        )
        raise ProtocolError("bad_message", f"bad {kind} message: {problems}") from None


# ---------------------------------------------------------------------- bot -> server
# A bot account's stream (the bot API, flip7.server.api.bots) carries the seat messages of
# all its games, each naming its table (``table_id``), and its answers to invitations.

TableId = Annotated[Text, Field(min_length=1, max_length=32)]
InvitationId = Annotated[Text, Field(min_length=1, max_length=32)]


class BotAccept(_Strict):
    """Take the seat an invitation offers."""

    v: Literal[1]
    type: Literal["accept"]
    invitation: InvitationId


class BotDecline(_Strict):
    v: Literal[1]
    type: Literal["decline"]
    invitation: InvitationId


class BotMove(Move):
    """A seat's ``move`` at the bot's table ``table_id``: judged as a human seat's."""

    table_id: TableId


class BotChat(Chat):
    table_id: TableId


class BotReady(_Strict):
    """At the end screen of the bot's table ``table_id``: whether its seat is ready for
    the next game (a human seat's ``POST /api/tables/{id}/ready``, the same rule)."""

    v: Literal[1]
    type: Literal["ready"]
    table_id: TableId
    ready: StrictBool = True


BotMessage = Annotated[
    BotAccept | BotDecline | BotMove | BotChat | BotReady | Ping, Field(discriminator="type")
]
_BOT = TypeAdapter(BotMessage)
_BOT_TYPES = ("accept", "decline", "move", "chat", "ready", "ping")


def parse_bot_message(
    text: str,
) -> BotAccept | BotDecline | BotMove | BotChat | BotReady | Ping:
    """Parse one frame of a bot's stream: a seat's move or chat with its ``table_id``, an
    answer to an invitation, a ping; refused as a seat's frame would be.

    >>> parse_bot_message('{"v":1,"type":"move","table_id":"t1","id":"a","version":3,'
    ...                   '"decision":"stay"}')
    BotMove(v=1, type='move', id='a', version=3, decision=Stay(), table_id='t1')
    >>> parse_bot_message('{"v":1,"type":"hello"}')
    Traceback (most recent call last):
    ...
    flip7.server.base.protocol.ProtocolError: unknown message type 'hello'; types are accept, ...
    """
    return _parse(text, _BOT, _BOT_TYPES)


# ---------------------------------------------------------------------- the table


class SeatModel(_Strict):
    """A seat. ``stand_in``: the stand-in bot plays it while its player is away (until they
    reconnect). ``away_since`` (epoch seconds): set while it is the seat's turn and its
    player is disconnected; from ``handover_at`` on the other players may hand the seat
    to the stand-in bot (the server does after ``handover_auto``). At the end screen
    (state ``over``): ``ready`` for the next game (bots always are; None before), and
    ``gone`` for a player who left or was away past ``rematch_wait``: the next game starts
    without them."""

    seat: int
    name: str | None
    kind: Literal["human", "bot", "empty"]
    bot: str | None
    # The identity the seat was taken with (flip7.server.services.players); None: anonymous.
    player_id: str | None = None
    # A bot account's seat (the bot API: an outside program plays it).
    bot_account: bool = False
    left: bool
    connected: bool
    stand_in: bool = False
    away_since: float | None = None
    handover_at: float | None = None
    ready: bool | None = None
    gone: bool = False


class SeatViewModel(_Strict):
    seat: int
    name: str
    status: Literal["active", "stayed", "busted"]
    line: list[str]
    modifiers: list[str]
    number_sum: int
    round_score: int
    total: int


class RoundModel(_Strict):
    dealer: int
    scores: list[int]
    busted: list[int]
    flip7: int | None
    minus15: int | None


class DecisionModel(_Strict):
    """One legal option as an object (``flip7.core.decisions``' ``to_json``): ``text`` is
    the decision string of ``legal_decisions``, ``verb`` its first word (RECORD.md §5).
    Hit, stay and bonus name nothing more; the others are the models below."""

    text: str
    verb: str


class SeatDecisionModel(DecisionModel):
    """Target, give, pass and minus: the seat they name."""

    seat: int


class CardDecisionModel(SeatDecisionModel):
    """Steal and discard: the card of seat ``seat``'s line."""

    card: str


class SwapDecisionModel(DecisionModel):
    """Swap: card ``card1`` of seat ``seat1`` for ``card2`` of ``seat2`` (lower seat first)."""

    seat1: int
    card1: str
    seat2: int
    card2: str


class GameViewModel(_Strict):
    """``flip7.GameView.to_json()``: what one viewer sees of the game."""

    viewer: int | None
    players: list[SeatViewModel]
    rules: dict[str, Any]
    decks: int
    round: int
    dealer: int
    phase: Literal["deal", "turns", "round_end", "over"]
    draw_pile_size: int
    discard_pile: list[str]
    set_aside: list[str]
    to_decide: int | None
    decision_kind: str | None
    pending_card: str | None
    legal_decisions: list[str]
    # Only in the view of the seat that must decide (flip7.server.table.views.seat_view): the
    # same options in the same order, as objects, so that clients never read the strings.
    decisions: (
        list[SwapDecisionModel | CardDecisionModel | SeatDecisionModel | DecisionModel] | None
    ) = None
    needs_card: bool
    rounds: list[RoundModel]
    over: bool
    winners: list[int]
    # Only in the view of the seat that must Hit or Stay: the chance its next card busts it
    # (flip7.analysis.advisor.bust_risk), which the browser shows and never works out.
    bust_risk: float | None = None


class TableSummaryModel(_Strict):
    id: str
    name: str
    state: Literal["waiting", "playing", "over"]
    seats: list[SeatModel]
    rules: dict[str, Any]
    turn_timer: int | None
    # Whether the seat to Hit or Stay is told its bust risk (the table option).
    bust_odds: bool
    # Whether its finished games change ratings (flip7.server.services.ratings).
    rated: bool = False
    created_at: str
    game_number: int
    # Live, or turn-based with move_hours per decision (flip7.server.table.options).
    pace: Literal["live", "turn_based"] = "live"
    move_hours: int | None = None


class TableChatModel(_Strict):
    """The table's chat settings: ``host``, the seat that may switch spectators' chat off
    and on (the first seat of a human who has not left; None when there is none), and
    whether spectators may chat now."""

    host: int | None
    spectators: bool


class TutorialLessonModel(_Strict):
    """The lesson on screen: ``number`` counts the script's lessons from 0 (what "Got it"
    sends back); ``next``: it waits for "Got it" (otherwise it asks for ``expect``).
    ``text`` is in English; ``params`` are the names and numbers it names, for clients that
    say lesson ``id`` in the reader's language."""

    id: str
    text: str
    number: int
    next: bool
    params: dict[str, str | int] = {}


class TutorialModel(_Strict):
    """Where a guided first game stands: the learner's ``seat``, the lesson on screen (None
    between lessons), the decision the lesson asks of the learner (None when none),
    ``step`` of ``steps`` scripted decisions made, ``lessons_done`` of ``lessons`` behind
    the reader (what a progress counter shows: a step may bring several lessons or none),
    and whether the learner skipped it."""

    seat: int
    lesson: TutorialLessonModel | None
    expect: str | None
    step: int
    steps: int
    lessons: int
    lessons_done: int
    skipped: bool


class TableStateModel(TableSummaryModel):
    version: int
    game: GameViewModel | None
    game_id: str | None
    turn_deadline: float | None
    finished_games: list[str]
    chat: TableChatModel
    # At the end screen: why the seats staying could not start the next game (too few
    # once those gone are dropped), or None.
    rematch_problem: str | None = None
    # A guided first game's lessons (flip7.server.table.tutorial); None at any other game.
    tutorial: TutorialModel | None = None


# ---------------------------------------------------------------------- server -> client


class VersionedEvents(_Strict):
    version: int
    events: list[dict[str, Any]]


class ChatEntryModel(_Strict):
    """One line of a table's chat (:class:`flip7.server.table.chat.ChatEntry`): ``n`` numbers a
    table's chat 1, 2, … apart from the table's versions; ``seat`` is None for a spectator
    (``spectator`` is also true for a player who left the game); ``kind`` is a message or
    the host switching spectators' chat off or on (``text`` is then empty). ``text`` is as
    the sender wrote it, trimmed: a client shows it as text, never as markup."""

    n: int
    at: str
    kind: Literal["message", "spectators_off", "spectators_on"]
    name: str
    seat: int | None
    spectator: bool
    text: str


class Welcome(_Strict):
    """The answer to ``hello``: the table as this client sees it; ``history``, every
    versioned change of the current game from its ``game_started`` on (of the table since
    it opened before its first game), at most the last ``HISTORY`` changes
    (:data:`flip7.server.table.table.HISTORY`) and ``welcome_history_bytes`` of them
    (``history_cut`` true when it holds only the newest); ``missed``, the changes since
    ``last_version``
    (None without one, or if they are no longer held); ``chat``, the most recent
    ``chat_history`` chat entries, oldest first."""

    v: Literal[1]
    type: Literal["welcome"]
    seat: int | None
    table: TableStateModel
    missed: list[VersionedEvents] | None
    history: list[VersionedEvents]
    chat: list[ChatEntryModel]
    # Sent (true) only when the current game's changes pass welcome_history_bytes: then
    # ``history`` holds the newest of them (the table's state is whole, as always).
    history_cut: bool = False


class Update(_Strict):
    v: Literal[1]
    type: Literal["update"]
    version: int
    events: list[dict[str, Any]]
    table: TableStateModel


class Result(_Strict):
    v: Literal[1]
    type: Literal["result"]
    id: str
    ok: Literal[True]
    version: int


class ErrorFrame(_Strict):
    v: Literal[1]
    type: Literal["error"]
    code: str
    message: str
    id: str | None
    table: TableStateModel | None


class Pong(_Strict):
    v: Literal[1]
    type: Literal["pong"]


class ChatFrame(_Strict):
    """A chat entry, sent to every client of the table once it is stored. It carries no
    version: chat never changes the table's version."""

    v: Literal[1]
    type: Literal["chat"]
    chat: ChatEntryModel


ServerMessage = Annotated[
    Welcome | Update | Result | ErrorFrame | Pong | ChatFrame, Field(discriminator="type")
]
SERVER_MESSAGE = TypeAdapter(ServerMessage)


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of both directions of the WebSocket protocol."""
    return {
        "version": PROTOCOL_VERSION,
        "client_to_server": _CLIENT.json_schema(),
        "server_to_client": SERVER_MESSAGE.json_schema(),
    }


# ---------------------------------------------------------------------- REST


class CreateTable(_Strict):
    """A new table; the creator (``player``) takes seat 0."""

    name: Annotated[Text, Field(max_length=200)] = "Flip 7 table"
    player: Annotated[Text, Field(max_length=200)]
    seats: Annotated[StrictInt, Field(ge=TWO_PLAYERS, le=ONE_DECK_MAX_PLAYERS)] = 4
    rules: dict[Text, Any] = Field(default_factory=dict)
    turn_timer: Annotated[StrictInt, Field(ge=1, le=600)] | None = None
    # False: a table played without the bust-odds helper (no bust_risk is ever sent).
    bust_odds: StrictBool = True
    # Whether its games change ratings; null: rated unless the rules change the game
    # (flip7.server.services.ratings.rated_by_default).
    rated: StrictBool | None = None
    # "turn_based": each decision has move_hours (1 to 168; 24 if left out) to be made,
    # then the stand-in bot makes it; its players come and go over days.
    pace: Literal["live", "turn_based"] = "live"
    move_hours: Annotated[StrictInt, Field(ge=1, le=168)] | None = None


class JoinTable(_Strict):
    """Take a seat as ``player``. ``token``: the seat's secret, chosen by the client (22 to
    64 characters of ``A-Z a-z 0-9 _ -``, random: it is the seat's password; at least 10
    of them different, else 400 ``weak_token``; one that is already another seat's at the
    table is 409 ``token_taken``). With it the join may be sent again when its answer was
    lost: the same name and token get the same seat back instead of 409 ``name_taken``.
    Without it the server picks the token."""

    player: Annotated[Text, Field(max_length=200)]
    token: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_-]{22,64}$")] | None = None


class StartTutorial(_Strict):
    """A guided first game for ``player`` against bots, on a private table."""

    player: Annotated[Text, Field(max_length=200)]


class TutorialStep(_Strict):
    """At a guided game: ``read`` the lesson on screen (its number: "Got it"), or ``skip``
    the lessons and play on as a normal game."""

    skip: StrictBool = False
    read: Counter | None = None


class AddBot(_Strict):
    """A bot for a seat: a level's name (any case) or a bot spec; the default level if
    none is given."""

    bot: Annotated[Text, Field(max_length=100)] = DEFAULT_LEVEL.name


class Ready(_Strict):
    """At the end screen: whether the sender is ready for the next game."""

    ready: StrictBool = True


class SeatGranted(_Strict):
    table: TableStateModel
    seat: int
    token: str


class TableAnswer(_Strict):
    table: TableStateModel


class ListedTableModel(TableSummaryModel):
    """A table of the lobby's list (``GET /api/tables``), and whether the client that asked
    hosts it: one of the seat tokens it sent (``X-Seat-Tokens``) is the host's (the seat
    that may invite bot accounts and switch spectators' chat off, ``chat.host``)."""

    hosting: bool = False


class TableList(_Strict):
    tables: list[ListedTableModel]


class GameSummaryModel(_Strict):
    id: str
    number: int
    players: list[str]
    over: bool
    winners: list[int] | None
    totals: list[int] | None
    started_at: str
    finished_at: str | None


class GameList(_Strict):
    games: list[GameSummaryModel]


class RecentGameModel(_Strict):
    """A finished game in the lobby's list: its table (``table`` its id), when it finished,
    its players, winners (seats) and final totals."""

    id: str
    table: str
    table_name: str
    finished_at: str
    players: list[str]
    winners: list[int] | None
    totals: list[int] | None


class RecentGames(_Strict):
    """``GET /api/games``: the most recently finished games of every table, newest first."""

    games: list[RecentGameModel]


class ReplayStep(_Strict):
    """One step of a replay: the events of a draw or decision (or of the start), and the
    table as a spectator sees it afterwards."""

    events: list[dict[str, Any]]
    game: GameViewModel


class ReplayAnswer(_Strict):
    """One page of a replay: steps ``offset`` to ``offset + len(steps) - 1`` of
    ``total_steps`` (the next page starts at ``offset + len(steps)``)."""

    record: dict[str, Any]
    total_steps: int
    offset: int
    steps: list[ReplayStep]
    # The step of each round's round_started event, round 1 first (step 0): where a
    # viewer jumps to a round's start.
    round_starts: list[int] = Field(default_factory=list)


class ReplayCreated(_Strict):
    id: str


class Health(_Strict):
    """``GET /api/health``: ``status`` "error" (HTTP 503) when ``problem`` says what is wrong
    with the database; "degraded" (HTTP 200) when one of many processes cannot reach Redis:
    it runs its own tables, but cannot forward to the others."""

    status: Literal["ok", "degraded", "error"]
    database: str
    # Why the status is "error", e.g. "the database file /srv/flip7.db was deleted".
    problem: str | None = None
    tables: int
    version: str
    # Which process answered (a fresh id at every start): with many processes behind a
    # proxy, tells them apart. ``redis``: "ok" or "error" with many processes, else null.
    node: str
    redis: Literal["ok", "error"] | None = None
    # With many processes: this process's --slot ("2/3"; null without one), and how many
    # of its WebSockets are linked over Redis to a table another process runs (behind the
    # recipe's routing by table, none but for moments: a takeover, a restart).
    slot: str | None = None
    linked: int | None = None


class ServerInfo(_Strict):
    """``GET /api/server``: where friends can reach this server, for the invite panel.
    ``public_url`` is the operator's ``--public-url`` (invite links start with it when set);
    ``addresses`` the URLs found for this machine when it listens beyond loopback;
    ``loopback_only`` whether it listens on a loopback address only (then no other machine
    can open it). Nothing here comes from the request's Host header."""

    public_url: str | None
    addresses: list[str]
    loopback_only: bool
    # Whether it sends turn alerts by e-mail (flip7 serve --smtp; flip7.server.services.mail).
    email: bool = False


class BotLevelModel(_Strict):
    """A bot level (``flip7.bots.levels``): its name for players, the spec it plays with,
    and what to expect of it."""

    name: str
    spec: str
    blurb: str


class BotList(_Strict):
    """``GET /api/bots``: the specs a seat can be filled with (``bots``), and the levels,
    weakest first, with the one offered first (``default``, a level's name)."""

    bots: list[str]
    levels: list[BotLevelModel]
    default: str


class Limits(_Strict):
    """``GET /api/limits``: the limits a client meets, as this server runs them (its
    ``Settings``, which the operator changes with ``flip7 serve --limit NAME=VALUE``; the
    README's "Limits" says what each one is). The server-wide capacity and the workers'
    own budgets are not told. Every field is a field of ``Settings`` of the same name."""

    # WebSocket frames: size, per connection and per address, refusals before 1008.
    max_message_bytes: int
    rate_per_second: float
    rate_burst: int
    rate_strikes: int
    send_queue_limit: int
    frames_per_second_per_address: float
    frames_burst_per_address: int
    # Bytes sent over WebSockets per address (all its sockets).
    bytes_per_minute_per_address: int
    bytes_burst_per_address: int
    # Connections and handshakes per address, and how long before hello / headers.
    connections_per_address: int
    open_connections_per_address: int
    handshakes_per_minute: float
    handshakes_burst: int
    flood_cooloff: float
    hello_timeout: float
    header_timeout: float
    # Tables: creation and joins per address, the shortest turn timer, idle times.
    tables_per_minute: float
    tables_burst: int
    joins_per_minute: float
    joins_burst: int
    min_turn_timer: int
    waiting_table_ttl: float
    idle_table_ttl: float
    suspended_table_ttl: float
    email_codes_per_minute: float
    email_codes_burst: int
    unattended_table_ttl: float
    # Players who go away: the hand-over's waits, the rematch's wait, the lobby's list.
    handover_grace: float
    handover_auto: float
    rematch_wait: float
    lobby_hide_after: float
    bot_seconds_per_minute: float
    # Bots per owner of tables (their creating address and identity): CPU seconds a
    # minute shared by all their tables, worker bots at one table, tables seating them.
    owner_bot_seconds_per_minute: float
    search_bots_per_table: int
    search_bot_tables_per_owner: int
    # Uploaded records (POST /api/replays) and replay pages.
    uploads_per_minute: float
    uploads_burst: int
    max_record_bytes: int
    max_record_draws: int
    max_record_decisions: int
    max_record_target_score: int
    # A table's target_score, and the bytes of history a welcome carries.
    max_target_score: int
    welcome_history_bytes: int
    spectator_welcome_bytes_per_minute: int
    spectator_welcome_bytes_burst: int
    replay_pages_per_minute: float
    replay_pages_burst: int
    replay_page_steps: int
    # The coach's analyses asked for per address (POST /api/games/{game_id}/coach).
    coach_per_minute: float
    coach_burst: int
    # Jobs one address may hold in the replay worker's queue and in the coach's.
    replay_jobs_per_address: int
    coach_jobs_per_address: int
    # Identities created, transfer codes made and codes tried, per address (/api/players).
    players_per_minute: float
    players_burst: int
    transfer_codes_per_minute: float
    transfer_codes_burst: int
    claims_per_minute: float
    claims_burst: int
    # Writes per address: scorecards created, their rounds written, renames; and how long
    # a scorecard nobody changes is kept (seconds).
    scorecards_per_minute: float
    scorecards_burst: int
    scorecard_rounds_per_minute: float
    scorecard_rounds_burst: int
    renames_per_minute: float
    renames_burst: int
    scorecard_ttl: float
    # Names: a player's and a table's most characters (code points, not UTF-16 units).
    player_name_chars: int
    table_name_chars: int
    # Table chat: a message's most characters, messages per socket and per address, and
    # the recent messages a welcome carries.
    chat_max_chars: int
    chat_per_minute: float
    chat_burst: int
    chat_per_minute_per_address: float
    chat_burst_per_address: int
    chat_history: int
    # Spectators' chat at one table, all their addresses together.
    spectator_chat_per_minute: float
    spectator_chat_burst: int
    # Ratings: a rated table's least target score; rated games of one pair of entrants
    # (two identities, or an identity and a bot level) in 24 hours.
    rated_min_target_score: int
    rated_games_per_pair_per_day: int
    # How addresses are grouped: every per-address budget is kept per block of these
    # prefixes (an IPv6 /64), and identities from one network of the ratings' prefixes
    # do not rate each other.
    ipv4_block_prefix: int
    ipv6_block_prefix: int
    rating_network_ipv4_prefix: int
    rating_network_ipv6_prefix: int


class RuleOptionModel(_Strict):
    """One rule option (:meth:`flip7.core.rules.RuleOption.to_json`): ``min`` for integers."""

    name: str
    type: Literal["bool", "int", "choice"]
    default: bool | int | str
    choices: list[Any] | None
    min: int | None = None


class RulesAnswer(_Strict):
    """``GET /api/rules``: the rule options and the numbers of the rules a page needs."""

    options: list[RuleOptionModel]
    about: dict[str, dict[str, Any]]
    players: dict[str, int]
    decks: list[int]
    flip7: dict[str, int]
    rated: dict[str, list[str]]
    cards: list[dict[str, Any]]


# ---------------------------------------------------------------------- the coach's jobs
# POST and GET /api/games/{game_id}/coach (flip7.server.services.coach_jobs): a seat's decisions
# graded by the coach (flip7.coach), worked out in a worker process and kept.


class CoachRequest(_Strict):
    """``POST /api/games/{game_id}/coach``: the seat (0 to players - 1) to analyse."""

    seat: StrictInt


class CoachProgress(_Strict):
    """Decisions graded so far (``done``) of the seat's decisions (``total``)."""

    done: int
    total: int


class CoachAnswer(_Strict):
    """A seat's analysis: ``queued`` (waiting for a worker), ``running``, ``done`` (then
    ``result`` is the coach's report, ``flip7-coach/1``, as ``flip7 analyse --json``
    prints it) or ``failed`` (``message`` says why; asking again starts it anew)."""

    status: Literal["queued", "running", "done", "failed"]
    progress: CoachProgress
    result: dict[str, Any] | None = None
    message: str | None = None
