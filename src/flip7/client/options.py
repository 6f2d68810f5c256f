"""What the tools' command lines share: the types of their options, ``--server-arg``, the
event loop, and the limit on open files (every WebSocket is one).

>>> positive_int("3"), seconds("0.5"), fraction("1")
(3, 0.5, 1.0)
>>> seconds("inf")
Traceback (most recent call last):
argparse.ArgumentTypeError: must be a number of seconds >= 0, not inf
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import resource
from collections.abc import Callable
from typing import Any

__all__ = [
    "add_loop_arg",
    "add_server_arg",
    "client_count",
    "fraction",
    "loop_factory",
    "positive_int",
    "positive_seconds",
    "raise_open_files",
    "rules",
    "seconds",
]

MIN_OPEN_FILES = 4096


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if not value >= 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a number of seconds >= 0, not {text}")
    return value


def positive_seconds(text: str) -> float:
    value = seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def fraction(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, not {text}")
    return value


def client_count(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 18:
        raise argparse.ArgumentTypeError(f"a table has 2 to 18 seats, not {value}")
    return value


def rules(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def add_server_arg(parser: argparse.ArgumentParser, example: str) -> None:
    """``--server-arg`` (repeatable, into ``args.server_arg``): the extra arguments of the
    ``flip7 serve`` subprocess, ``example`` shown in its help."""
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an extra argument for the `flip7 serve` subprocess, written with '=' "
        f"(--server-arg={example}); repeatable",
    )


def add_loop_arg(parser: argparse.ArgumentParser, whose: str) -> None:
    """``--loop``: the event loop of ``whose`` clients (:func:`loop_factory`)."""
    parser.add_argument(
        "--loop",
        choices=("auto", "asyncio", "uvloop"),
        default="auto",
        help=f"{whose} event loop; auto = uvloop when installed",
    )


def loop_factory(name: str) -> Callable[[], Any] | None:
    """The ``asyncio.Runner`` loop factory of a ``--loop`` choice (None: asyncio's own)."""
    if name == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if name == "uvloop":
            raise
        return None
    factory: Callable[[], Any] = uvloop.new_event_loop
    return factory


def raise_open_files(needed: int) -> None:
    """Raise the soft limit on open files to at least ``needed`` (and 4096) where allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(needed, MIN_OPEN_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY:
            want = min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
