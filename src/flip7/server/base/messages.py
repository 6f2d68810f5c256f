"""The web app's message catalogues (docs/i18n.md).

A language's catalogue is ``static/locales/<lang>/<area>.json``, one flat JSON object per
area (keys ``<area>.<name>``). ``GET /api/messages/{lang}`` serves a language's areas merged
into one object, read once and then kept in memory, with an ``ETag`` (a browser asks again
with ``If-None-Match`` and gets ``304``). The same catalogues word the prose the server itself
sends for display, the cards' names and explanations of ``/api/cards`` (``?lang=``, else the
``flip7_lang`` cookie): :func:`text`, :func:`explainer`. (The rule options' words of
``/api/rules`` are looked up by the browser itself: ``rules.option.<name>.*``.)

>>> "en" in languages() and "de" in languages()
True
>>> text("de", "rules.card.name.steal", "Steal")
'Klauen'
>>> text("de", "rules.card.number_second", "A second {value} in your line busts you.", value=5)
'Eine zweite 5 in deiner Reihe lässt dich rausfliegen.'
>>> text("xx", "rules.card.name.steal", "Steal"), text("de", "no.such.key", "Source")
('Steal', 'Source')
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOCALES = Path(__file__).parents[1] / "static" / "locales"
DEFAULT = "en"
_CODE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$")


@functools.cache
def languages() -> tuple[str, ...]:
    """The languages with a catalogue folder, sorted ("de", "en")."""
    if not LOCALES.is_dir():
        return ()
    return tuple(sorted(p.name for p in LOCALES.iterdir() if p.is_dir() and _CODE.match(p.name)))


def supported(lang: str | None) -> str | None:
    """``lang`` ("de", "de-DE", "DE") as a language with a catalogue, or None."""
    if not lang:
        return None
    lower = lang.strip().lower()
    for code in (lower, lower.split("-")[0].split("_")[0]):
        if code in languages():
            return code
    return None


@functools.cache
def catalogue(lang: str) -> dict[str, Any]:
    """A language's areas merged into one object (empty for an unknown language)."""
    if lang not in languages():
        return {}
    merged: dict[str, Any] = {}
    for path in sorted((LOCALES / lang).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            merged.update(data)
    return merged


@functools.cache
def served(lang: str) -> tuple[bytes, str]:
    """A language's catalogue as ``GET /api/messages/{lang}`` serves it, and its ETag."""
    body = json.dumps(catalogue(lang), ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def text(lang: str | None, key: str, default: str, **params: Any) -> str:
    """``key``'s message in ``lang`` (else English's, else ``default``: the source text kept
    in the code), with ``{placeholders}`` filled in from ``params``. Plural objects take the
    ``one`` form when ``params["count"] == 1`` (English and German), else ``other``."""
    code = supported(lang) or DEFAULT
    message = catalogue(code).get(key)
    if message is None:
        message = catalogue(DEFAULT).get(key, default)
    if isinstance(message, dict):
        form = "one" if params.get("count") == 1 else "other"
        message = message.get(form, message.get("other", default))
    result = str(message)
    for name, value in params.items():
        result = result.replace("{" + name + "}", str(value))
    return result


def explainer(lang: str | None) -> Callable[..., str]:
    """The words of :mod:`flip7.core.explain` in ``lang`` (its ``text`` argument)."""
    code = supported(lang) or DEFAULT
    return functools.partial(text, code)


# The cookie the web app keeps its language in (i18n.js).
COOKIE = "flip7_lang"


def choose(lang: str | None, cookie: str | None = None) -> str:
    """The language a request asks for: ``?lang=``, else the web app's cookie
    (:data:`COOKIE`), else English.

    >>> choose("de-DE"), choose(None, "de"), choose("xx", "yy")
    ('de', 'de', 'en')
    """
    return supported(lang) or supported(cookie) or DEFAULT
