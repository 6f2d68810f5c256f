"""Display names a stranger types: cleaned, limited in characters, and told apart.

A name is cleaned once (:func:`clean`): runs of white space become one space, and it must
not be empty, too long or hold control characters. Its length is counted in characters
(Unicode code points, Python's ``len``), never in UTF-16 units, so ``"🦊 Fox"`` is five
characters; a name that is too long is refused with a message, never cut.

Two names at one table must not be mistaken for each other (:func:`looks_like`): not when
they differ only by case or compatibility forms (``"Ann"``, ``"ANN"``, ``"Ａｎｎ"``), by
accents (``"Zoë"``, ``"Zoe"``), by invisible joiners, or by letters of another script
that look the same (``"Ann"`` and ``"Аnn"`` with a Cyrillic А, a Greek Α), or ``I``, ``l``
and ``1``. The look-alike table is a small fold of the Latin, Cyrillic and Greek letters
that a reader cannot tell apart in the app's sans-serif font, in the spirit of Unicode's
confusables skeleton (UTS #39), with the standard library only.

>>> clean("  Ann   Lee ", "player name", 24)
'Ann Lee'
>>> looks_like("Ann", "\\u0410nn")
True
>>> looks_like("Ann", "Anna")
False
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from flip7.core.errors import Flip7Error

__all__ = ["BadName", "clean", "fold", "looks_like", "skeleton", "taken_by"]

# Format characters a name may hold: the joiners that emoji sequences (👩‍💻) and some
# scripts need. Every other format character is refused, the bidirectional overrides
# first among them: they make a name read differently from what it is.
_JOINERS = frozenset({"\u200c", "\u200d"})
# Left out of the comparison: the joiners and the variation selectors draw nothing.
_INVISIBLE = frozenset({"\u200c", "\u200d", "\ufe0e", "\ufe0f"})

# Letters that look like a Latin letter, case by case (an upper-case Cyrillic Н is an H,
# its lower case н is not an h), mapped to the lower-case Latin letter they look like.
_LOOK_ALIKES: dict[str, str] = {
    # Cyrillic capitals
    "А": "a", "В": "b", "Е": "e", "Ё": "e", "К": "k", "М": "m", "Н": "h", "О": "o",
    "Р": "p", "С": "c", "Т": "t", "У": "y", "Х": "x", "Ѕ": "s", "І": "l", "Ї": "l",
    "Ј": "j", "Ԛ": "q", "Ԝ": "w", "Ү": "y", "Һ": "h", "Ӏ": "l",
    # Cyrillic small letters
    "а": "a", "е": "e", "ё": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h",
    "ӏ": "l", "ү": "y", "ѵ": "v",
    # Greek capitals
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "l", "Κ": "k", "Μ": "m",
    "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
    # Greek small letters
    "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ϲ": "c", "ϳ": "j",
    # Latin and digits that pass for each other: a capital I, a small l, a one, a bar;
    # a capital O and a zero.
    "I": "l", "1": "l", "|": "l", "ı": "i", "ɡ": "g", "0": "o",
}  # fmt: skip
# Pairs of letters that read as one (checked after the fold, in lower case).
_LOOK_ALIKE_PAIRS: tuple[tuple[str, str], ...] = (("rn", "m"), ("vv", "w"))


class BadName(Flip7Error):
    """A name that cannot be used: empty, too long, or with control characters."""


def clean(value: str, what: str, limit: int) -> str:
    """``value`` as a display name: its white space collapsed, at most ``limit``
    characters (code points), no control or format characters but the joiners.

    >>> clean("🦊 Fox", "player name", 5)
    '🦊 Fox'
    >>> clean("Bartholomew", "player name", 8)
    Traceback (most recent call last):
    ...
    flip7.server.base.names.BadName: the player name may have at most 8 characters; ...
    >>> clean("Ann\\u202e", "player name", 24)
    Traceback (most recent call last):
    ...
    flip7.server.base.names.BadName: the player name must not contain control characters
    """
    # NFC: a name typed with a combining accent and one typed with the accented letter
    # are stored alike and counted alike.
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not name:
        raise BadName(f"the {what} must not be empty")
    if any(not ch.isprintable() and ch not in _JOINERS for ch in name):
        raise BadName(f"the {what} must not contain control characters")
    if not fold(name):
        raise BadName(f"the {what} must have a visible character")
    if len(name) > limit:
        raise BadName(f"the {what} may have at most {limit} characters; {name!r} has {len(name)}")
    return name


def fold(name: str) -> str:
    """What is left of a name when case, compatibility forms, accents and invisible
    characters are ignored.

    >>> fold("Ｚｏë")
    'zoe'
    """
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    kept = (ch for ch in text if ch not in _INVISIBLE and not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", "".join(kept))


def skeleton(name: str) -> str:
    """A name as it looks: :func:`fold` after every look-alike letter has become the
    Latin letter it looks like.

    >>> skeleton("\\u0410nn"), skeleton("Ann")
    ('ann', 'ann')
    >>> skeleton("AI") == skeleton("Al")
    True
    """
    text = unicodedata.normalize("NFKC", name)
    # Accents first come off the letter they sit on, so a Cyrillic Ё is an E with dots.
    text = unicodedata.normalize("NFD", text)
    folded = fold("".join(_LOOK_ALIKES.get(ch, ch) for ch in text))
    # Casefolding can make a new look-alike (a capital Greek Ι is a small ι).
    folded = "".join(_LOOK_ALIKES.get(ch, ch) for ch in folded)
    for pair, single in _LOOK_ALIKE_PAIRS:
        folded = folded.replace(pair, single)
    return folded


def looks_like(first: str, second: str) -> bool:
    """Whether two names could be taken for each other at a table.

    >>> looks_like("ann", "ANN"), looks_like("Ann", "Ａｎｎ"), looks_like("Zoë", "Zoe")
    (True, True, True)
    >>> looks_like("Ann", "\\u0391nn"), looks_like("Ann", "Bob")
    (True, False)
    """
    return fold(first) == fold(second) or skeleton(first) == skeleton(second)


def taken_by(name: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` that ``name`` could be taken for, or None.

    >>> taken_by("\\u0410nn", ["Bob", "Ann"])
    'Ann'
    """
    return next((other for other in names if looks_like(name, other)), None)
