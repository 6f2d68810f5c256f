"""Typed errors for everything a user can get wrong.

Every error says what was wrong and what is allowed. They all derive from
:class:`Flip7Error`, so a caller can catch one type and show the message.
"""

from __future__ import annotations


class Flip7Error(ValueError):
    """Base class of every error a user of flip7 can cause."""


class CardError(Flip7Error):
    """A card code that does not name a card (RECORD.md §1)."""


class RulesError(Flip7Error):
    """An unknown rule option or a value out of range (RULES.md §13)."""


class DecisionError(Flip7Error):
    """A decision that cannot be parsed, or that is not legal now."""


class GameStateError(Flip7Error):
    """An operation that does not fit the game's current state (a card when a
    decision is due, a decision when the game is over, ...)."""


class LineError(Flip7Error):
    """A line that cannot exist (for ``flip7 score``): too many Number cards, Actions in a line."""


class RecordError(Flip7Error):
    """An invalid record, naming the header key or the entry that does not fit.

    ``kind`` is ``"record"`` for a header problem, ``"draws"`` or ``"decisions"`` for
    an entry, and ``index`` is the 0-based entry (``None`` for the header).
    """

    def __init__(self, kind: str, index: int | None, message: str) -> None:
        self.kind = kind
        self.index = index
        where = f"{kind}[{index}]" if index is not None else kind
        super().__init__(f"{where}: {message}")
