"""Argument types the commands share: whole numbers in a range, seeds, rule options.

>>> _ = int_range(2, 18)("4")
>>> int_range(2, 18)("19")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be from 2 to 18, got 19
>>> rules_option('{"brutal": true}').brutal
True
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from flip7.core.errors import RulesError
from flip7.core.rules import Rules

__all__ = ["int_range", "rules_option", "seed"]


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high`` (no upper limit: None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            limit = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise argparse.ArgumentTypeError(f"must be {limit}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def seed(text: str) -> int:
    """An argument type: a seed, any whole number."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None


def rules_option(text: str | None) -> Rules:
    """A ``--rules`` argument: a JSON object of rule options (RULES.md §13); None: defaults."""
    if text is None:
        return Rules()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RulesError(f"--rules is not valid JSON ({exc}): {text!r}") from None
    return Rules.from_json(data)
