"""What every bot of the ladder shares: construction from a seed and parameters, and
reading the game through a :class:`~flip7.bots.public.PublicView` only.

A ladder bot declares its parameters (name, type, default, lower bound) in ``PARAMS``;
:func:`flip7.bots.make_bot` checks a spec's parameters against them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from flip7.bots.public import PublicView
from flip7.core.decisions import Decision
from flip7.engine.game import Game

__all__ = ["LadderBot", "Param"]


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a ladder bot: ``threshold:t=30`` sets ``t``."""

    name: str
    type: type[int] | type[float]
    default: int | float
    low: float
    high: float = float("inf")
    help: str = ""

    def parse(self, text: str) -> int | float:
        """The value of ``text``; a :class:`ValueError` says what is allowed."""
        try:
            value = self.type(text)
        except ValueError:
            kind = "a whole number" if self.type is int else "a number"
            raise ValueError(f"{self.name} must be {kind}, got {text!r}") from None
        if not self.low <= value <= self.high:
            top = "" if self.high == float("inf") else f" and at most {self.high:g}"
            raise ValueError(f"{self.name} must be at least {self.low:g}{top}, got {text}")
        return value


class LadderBot:
    """A bot of the ladder: ``choose(game)`` hands :meth:`decide` a public view.

    Subclasses set ``name`` (their registry name), ``rung``, ``PARAMS`` (the first one is
    the positional parameter: ``threshold:30`` is ``threshold:t=30``) and ``decide``.
    """

    name: str = ""
    rung: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    PARAMS: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, seed: int | None = None, **params: int | float) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        known = {p.name: p for p in self.PARAMS}
        self.params: dict[str, int | float] = {p.name: p.default for p in self.PARAMS}
        for key, value in params.items():
            if key not in known:
                raise TypeError(f"{self.name} has no parameter {key!r}")
            self.params[key] = value
        extra = ",".join(
            f"{p.name}={self.params[p.name]:g}" for p in self.PARAMS
            if self.params[p.name] != p.default
        )  # fmt: skip
        self.spec = f"{self.name}:{extra}" if extra else self.name
        self.name = self.spec  # the instance's name: its canonical spec

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"

    def choose(self, game: Game) -> Decision:
        return self.decide(PublicView(game))

    def decide(self, view: PublicView) -> Decision:  # pragma: no cover - abstract
        raise NotImplementedError
