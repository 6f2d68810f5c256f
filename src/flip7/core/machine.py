"""The machine a program runs on, as far as sizing its worker pools needs to know."""

from __future__ import annotations

import os

__all__ = ["available_cores"]


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one).

    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)
