"""The machine a program runs on, as far as sizing its worker pools needs to know."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["available_cores", "lower_priority"]


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one).

    >>> available_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def lower_priority(
    nice: int, *, own_session: bool = False, autogroup: Path = Path("/proc/self/autogroup")
) -> None:
    """Run this process at ``nice`` against every other process of the machine, not only
    those of its session. Where Linux groups each session's processes for the scheduler
    (``kernel.sched_autogroup_enabled``, on by default outside a systemd service's cgroup)
    a nice value only ranks a process within its session, and the session's group shares
    the cores evenly with every other group: a flood at nice 10 still took half of a
    2-core machine, and a server's bot worker, busy in the server's own group, made the
    server wait its group's turn for the worker's CPU. ``own_session``: start a session
    (so a group) of its own first, as a worker process does; the group is lowered to
    ``nice`` too, where there is one. Nothing here fails: a machine that cannot do it
    runs the process as it was.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     group = Path(folder) / "autogroup"
    ...     _ = group.write_text("/autogroup-7 nice 0")
    ...     lower_priority(0, autogroup=group)
    ...     group.read_text()
    '0'
    """
    with contextlib.suppress(OSError):
        os.nice(nice)
    if own_session:
        with contextlib.suppress(OSError):  # already a session's leader: it has its own
            os.setsid()
    if autogroup.exists():
        with contextlib.suppress(OSError):
            autogroup.write_text(str(nice))
