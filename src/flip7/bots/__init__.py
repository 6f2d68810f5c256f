"""Bots: players that choose among the legal options using only what a seat can see.

A bot reads the table through a :class:`~flip7.bots.public.PublicView` (lines, Modifiers,
statuses, totals, whose decision, the legal options, and the draw pile's composition
worked out by counting cards); it never looks at the draw pile's order or the random state.

The ladder, each rung stronger than the one below:

====  ===========  ===========================================================
R0    random       a uniformly random legal option
R1    threshold    hits while its number sum is below t (27); random targets
R2    targeting    R1 plus leader-focused targeting of every Action and Modifier
R3    ev           R2 plus card counting and the exact expected value of Hit vs Stay
R4    winprob      R3 playing to win: the chance to win, not the score, near the end
R5    mcts         R4 checked by search over re-sampled draw piles near the end
R6    learned      R4 with R5's searched Hit/Stay learned by a network (needs numpy)
====  ===========  ===========================================================

``basic`` is the project's first bot, kept as it was (the bench and the web app's stand-in
use it): R1's Hit/Stay with rules of thumb aimed at the leader, between R1 and R2.

A bot is made from a *spec*: a name, a name and its first parameter (``threshold:30``), a
name and parameters (``mcts:iters=400,time=0.2``), ``module:Class`` for a bot of your
own (:func:`parse_bot_spec`), or a level's name (:mod:`flip7.bots.levels`: Beginner, Easy,
Medium, Hard, Expert, in any case), which stands for its spec.

>>> from flip7.engine.game import Game
>>> game = Game.new(4, seed=3)
>>> bots = [make_bot(spec, seed=i) for i, spec in
...         enumerate(["ev", "targeting", "threshold:25", "random"])]
>>> game.play(bots)
>>> game.winners != ()
True
>>> bots[2].name, bots[2].hit_below
('threshold:t=25', 25)
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from flip7.bots.base import LadderBot, Param
from flip7.bots.levels import DEFAULT_LEVEL, LEVELS, Level, level_named
from flip7.bots.public import PublicView
from flip7.core.errors import Flip7Error
from flip7.core.lazy import LazyNames
from flip7.engine.game import Player

if TYPE_CHECKING:
    from flip7.bots.basic import BasicBot
    from flip7.bots.ladder import EVBot, RandomBot, TargetingBot, ThresholdBot
    from flip7.bots.learned import LearnedBot
    from flip7.bots.mcts import MCTSBot
    from flip7.bots.winprob import WinProbBot

# Where each ladder bot lives, in ladder order. A bot's module is imported when the bot is
# first made or its class asked for: a program that plays with one bot (a benchmark, a
# game in the terminal) does not load the searches and tables of the others.
_PLACES = {
    "random": "flip7.bots.ladder:RandomBot",
    "threshold": "flip7.bots.ladder:ThresholdBot",
    "targeting": "flip7.bots.ladder:TargetingBot",
    "ev": "flip7.bots.ladder:EVBot",
    "winprob": "flip7.bots.winprob:WinProbBot",
    "mcts": "flip7.bots.mcts:MCTSBot",
    "learned": "flip7.bots.learned:LearnedBot",
    "basic": "flip7.bots.basic:BasicBot",
}
_LAZY = LazyNames(globals(), {
    "flip7.bots.basic": "BasicBot",
    "flip7.bots.ladder": "EVBot RandomBot TargetingBot ThresholdBot",
    "flip7.bots.learned": "LearnedBot",
    "flip7.bots.mcts": "MCTSBot",
    "flip7.bots.winprob": "WinProbBot",
})  # fmt: skip


def __getattr__(name: str) -> object:
    return _LAZY.attribute(name)


def __dir__() -> list[str]:
    return _LAZY.dir()


__all__ = [
    "BOTS",
    "DEFAULT_LEVEL",
    "LEVELS",
    "BasicBot",
    "Bot",
    "BotSpec",
    "EVBot",
    "LadderBot",
    "LearnedBot",
    "Level",
    "MCTSBot",
    "Param",
    "PublicView",
    "RandomBot",
    "TargetingBot",
    "ThresholdBot",
    "WinProbBot",
    "bot_names",
    "level_named",
    "make_bot",
    "parse_bot_spec",
]


class Bot(Player, Protocol):
    """A player of the bot registry: it has a name and picks one of
    ``game.legal_decisions()`` for ``game.to_decide``."""

    name: str


class _Ladder(Mapping[str, type[LadderBot]]):
    """The ladder's classes by name, in ladder order; each is imported when first asked
    for (see ``_PLACES``)."""

    def __getitem__(self, name: str) -> type[LadderBot]:
        module, _, attr = _PLACES[name].partition(":")
        cls: type[LadderBot] = getattr(importlib.import_module(module), attr)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(_PLACES)

    def __len__(self) -> int:
        return len(_PLACES)


LADDER: Mapping[str, type[LadderBot]] = _Ladder()


def _ladder_bot(name: str, seed: int | None = None) -> Bot:
    bot: Bot = LADDER[name](seed)
    return bot


# Plain names only (the web server lists them); a spec adds parameters or names a class.
BOTS: dict[str, Callable[[int | None], Bot]] = {
    name: functools.partial(_ladder_bot, name) for name in LADDER
}


def bot_names() -> list[str]:
    """The registry's names, ladder order first.

    >>> bot_names()[:4]
    ['random', 'threshold', 'targeting', 'ev']
    """
    return list(BOTS)


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec: a ladder bot with parameters, or a user class."""

    text: str
    factory: Callable[..., Any]
    params: dict[str, int | float]
    user: bool

    def make(self, seed: int | None = None) -> Bot:
        """A new bot of this spec."""
        if not self.user:
            bot: Bot = self.factory(seed, **self.params)
            return bot
        try:
            accepts_seed = "seed" in inspect.signature(self.factory).parameters
        except (TypeError, ValueError):
            accepts_seed = False
        made = self.factory(seed=seed) if accepts_seed else self.factory()
        if not callable(getattr(made, "choose", None)):
            raise Flip7Error(f"{self.text}: a bot needs a choose(game) method")
        if not isinstance(getattr(made, "name", None), str):
            with contextlib.suppress(AttributeError):
                made.name = self.text
        return made  # type: ignore[no-any-return]


def _usage() -> str:
    return (
        f"bots are {', '.join(bot_names())}; give one as NAME, NAME:VALUE, "
        "NAME:KEY=VALUE,KEY=VALUE or module:Class, or a level: "
        + ", ".join(level.name for level in LEVELS)
    )


def _params_usage(cls: type[LadderBot]) -> str:
    if not cls.PARAMS:
        return f"{cls.name} takes no parameters"
    return f"{cls.name} takes " + ", ".join(f"{p.name} (default {p.default:g})" for p in cls.PARAMS)


def parse_bot_spec(spec: str) -> BotSpec:
    """Read a bot spec: ``ev``, ``threshold:30``, ``mcts:iters=400,time=0.2``,
    ``module:Class`` / ``package.module:Class`` (an importable class whose instances have
    ``choose(game)``; it gets ``seed=`` if its constructor takes it), or a level's name
    (any case), read as its spec.

    >>> parse_bot_spec("threshold:30").params
    {'t': 30}
    >>> parse_bot_spec("Hard").text
    'winprob'
    >>> parse_bot_spec("targeting:t=25,spread=50").params
    {'t': 25, 'spread': 50.0}
    >>> parse_bot_spec("threshold:x=1")
    Traceback (most recent call last):
    ...
    flip7.core.errors.Flip7Error: bot 'threshold:x=1': unknown parameter 'x'; threshold takes t ...
    """
    if not isinstance(spec, str) or not spec.strip():
        raise Flip7Error(f"empty bot spec; {_usage()}")
    text = spec.strip()
    level = level_named(text)
    if level is not None:
        text = level.spec
    name, _, rest = text.partition(":")
    cls = LADDER.get(name)
    if cls is None:
        factory = BOTS.get(name)
        if factory is not None and not rest:  # registered by someone else, no parameters
            return BotSpec(text, factory, {}, True)
        if rest and name and rest.isidentifier():
            return BotSpec(text, _load(text, name, rest), {}, True)
        raise Flip7Error(f"unknown bot {text!r}; {_usage()}")
    params: dict[str, int | float] = {}
    if rest:
        by_name = {p.name: p for p in cls.PARAMS}
        for i, item in enumerate(rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq:
                if i or not cls.PARAMS:
                    raise Flip7Error(
                        f"bot {text!r}: give parameters as KEY=VALUE; {_params_usage(cls)}"
                    )
                key, value = cls.PARAMS[0].name, item
            key = key.strip()
            param = by_name.get(key)
            if param is None:
                raise Flip7Error(f"bot {text!r}: unknown parameter {key!r}; {_params_usage(cls)}")
            if key in params:
                raise Flip7Error(f"bot {text!r}: {key} is given twice")
            try:
                params[key] = param.parse(value.strip())
            except ValueError as exc:
                raise Flip7Error(f"bot {text!r}: {exc}") from None
    return BotSpec(text, cls, params, False)


def _load(text: str, module: str, attr: str) -> Callable[..., Any]:
    try:
        loaded = importlib.import_module(module)
    except ImportError as exc:
        raise Flip7Error(f"bot {text!r}: cannot import module {module!r} ({exc})") from None
    factory = getattr(loaded, attr, None)
    if factory is None or not callable(factory):
        raise Flip7Error(f"bot {text!r}: module {module!r} has no class {attr!r}")
    if isinstance(factory, type) and not callable(getattr(factory, "choose", None)):
        raise Flip7Error(f"bot {text!r}: {attr} has no choose(game) method")
    return factory  # type: ignore[no-any-return]


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its spec (see :func:`parse_bot_spec`), seeded with ``seed``.

    >>> make_bot("threshold:30", seed=1).hit_below
    30
    >>> make_bot("nobody")
    Traceback (most recent call last):
    ...
    flip7.core.errors.Flip7Error: unknown bot 'nobody'; bots are random, threshold, ...
    """
    return parse_bot_spec(spec).make(seed)
