"""Table chat: what a message may hold, the entries a table keeps, and who may switch
spectator chat off.

Chat is not a change of the game: it has its own numbers (``n``, 1, 2, … per table) and
never moves the table's ``version``, so a message sent while someone decides cannot make
their move fail its version check. Every entry is stored (``table_chat``, beside the
table's change log) before it is broadcast, and a table rebuilt on restart gets its recent
entries back from there.

>>> clean_chat("  gg  ", 200)
'gg'
>>> clean_chat("a\\u0007b", 200)
Traceback (most recent call last):
...
flip7.server.table.chat.ChatRefused: a chat message must not contain control characters (U+0007)
>>> clean_chat("🎉" * 3, 3)
'🎉🎉🎉'
"""

from __future__ import annotations

import math
import unicodedata
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from flip7.core.jsontypes import JSON, JSONObject
from flip7.server.base.formats import iso, utcnow
from flip7.server.base.limits import TokenBucket

__all__ = [
    "CHAT_KINDS",
    "ChatEntry",
    "ChatKind",
    "ChatLog",
    "ChatRefused",
    "chat_kind",
    "clean_chat",
]

ChatKind = Literal["message", "spectators_off", "spectators_on"]
# A message, or the host switching spectator chat off or on (shown in the chat as a notice).
CHAT_KINDS: tuple[ChatKind, ...] = ("message", "spectators_off", "spectators_on")


def chat_kind(text: str) -> ChatKind:
    """The kind a stored entry names; ValueError for none of :data:`CHAT_KINDS`."""
    for kind in CHAT_KINDS:
        if kind == text:
            return kind
    raise ValueError(f"unknown chat entry kind {text!r}; kinds are {', '.join(CHAT_KINDS)}")

# Format characters that reorder or hide text (bidirectional embeddings, overrides and
# isolates, and invisible separators): a message could show something else than it says.
# Other format characters stay: the zero-width joiner and variation selectors build emoji.
_REORDERING = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


class ChatRefused(Exception):
    """A chat message or switch the table refuses; ``code`` goes in the error frame,
    ``status`` is the HTTP status it stands for."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def clean_chat(text: str, max_chars: int) -> str:
    """``text`` trimmed, or :class:`ChatRefused` (``bad_chat``) if it is empty, longer than
    ``max_chars`` characters (code points: an emoji is one or a few, never half), or holds a
    control character, a line or paragraph separator or a character that reorders text.
    Nothing else is changed: ``<script>`` is stored and sent as it is, and the browser shows
    it as text."""
    text = text.strip()
    if not text:
        raise ChatRefused("bad_chat", "a chat message must not be empty")
    if len(text) > max_chars:
        raise ChatRefused(
            "bad_chat",
            f"a chat message may have at most {max_chars} characters, this one has {len(text)}",
        )
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in _REORDERING:
            raise ChatRefused(
                "bad_chat",
                f"a chat message must not contain control characters (U+{ord(ch):04X})",
            )
    return text


@dataclass(frozen=True, slots=True)
class ChatEntry:
    """One line of a table's chat: who said it (a seat, or a spectator), when, and what."""

    n: int
    at: datetime
    kind: ChatKind
    name: str
    seat: int | None
    spectator: bool
    text: str

    def to_json(self) -> JSONObject:
        return {
            "n": self.n,
            "at": iso(self.at),
            "kind": self.kind,
            "name": self.name,
            "seat": self.seat,
            "spectator": self.spectator,
            "text": self.text,
        }


class ChatLog:
    """A table's chat in memory: its recent entries (as many as a welcome carries), the
    next entry's number, whether spectators may chat, and the numbers of spectators'
    names (``Spectator 1``, ``Spectator 2``, … for this server's life)."""

    def __init__(self, keep: int) -> None:
        self.recent: deque[ChatEntry] = deque(maxlen=max(1, keep))
        self.keep = keep
        self.next_n = 1
        self.spectators = True
        self._spectator_names = 0

    def restore(self, entries: list[ChatEntry], spectators: bool) -> None:
        """Take back the stored entries (oldest first) and the spectator switch."""
        for entry in entries:
            self.recent.append(entry)
        if entries:
            self.next_n = entries[-1].n + 1
        self.spectators = spectators

    def add(self, entry: ChatEntry) -> None:
        self.recent.append(entry)
        if entry.kind == "spectators_off":
            self.spectators = False
        elif entry.kind == "spectators_on":
            self.spectators = True

    def message(
        self, seat: int | None, name: str, watching: bool, text: str, max_chars: int,
        budget: TokenBucket | None = None, now: float = 0.0,
    ) -> ChatEntry:
        """The entry of a message ``text`` from ``seat`` (None: a spectator) called ``name``;
        ``watching``: a spectator or a player who left, held to the spectator switch and to
        ``budget``, the table's spectators' messages (all their addresses together; ``now``
        on its clock). Refused (:class:`ChatRefused`): ``bad_chat`` (:func:`clean_chat`),
        ``chat_muted`` (403) while the host has spectators' chat off, ``chat_rate_limited``
        (429) past ``budget``.

        >>> log, spectators = ChatLog(50), TokenBucket(1 / 60, 2, 2, 0.0)
        >>> [log.message(None, "Spectator 1", True, "hi", 200, spectators).n for _ in "ab"]
        [1, 2]
        >>> log.message(None, "Spectator 2", True, "hi", 200, spectators)
        Traceback (most recent call last):
        ...
        flip7.server.table.chat.ChatRefused: spectators are chatting too fast at this table: ...
        (2 at once, limit spectator_chat_per_minute); try again in 60 seconds
        >>> log.message(0, "Ann", False, "players may", 200, spectators).n
        3
        """
        text = clean_chat(text, max_chars)
        if watching and not self.spectators:
            raise ChatRefused(
                "chat_muted", "the host has turned spectators' chat off at this table", 403
            )
        if watching and budget is not None and not budget.take(now):
            raise ChatRefused(
                "chat_rate_limited",
                f"spectators are chatting too fast at this table: at most "
                f"{budget.rate * 60:g} spectator messages a minute ({budget.burst:g} at once, "
                f"limit spectator_chat_per_minute); try again in "
                f"{max(1, math.ceil(budget.wait(now)))} seconds",
                429,
            )
        return ChatEntry(self.take_number(), utcnow(), "message", name, seat, watching, text)

    def switch(self, seat: int, name: str, allowed: bool) -> ChatEntry | None:
        """The entry of the host (``seat``, called ``name``) turning spectators' chat on
        (``allowed``) or off; None if it already is so."""
        if allowed == self.spectators:
            return None
        kind: ChatKind = "spectators_on" if allowed else "spectators_off"
        return ChatEntry(self.take_number(), utcnow(), kind, name, seat, False, "")

    def take_number(self) -> int:
        """The next entry's number; taken before it is stored, so a write that fails leaves
        a gap, never two entries under one number."""
        n = self.next_n
        self.next_n += 1
        return n

    def spectator_name(self) -> str:
        self._spectator_names += 1
        return f"Spectator {self._spectator_names}"

    def to_json(self) -> list[JSON]:
        """The recent entries, oldest first (what a welcome carries)."""
        if self.keep <= 0:
            return []
        return [entry.to_json() for entry in self.recent]
