"""What the tools measure besides the game: percentiles, and the CPU seconds of processes
and of the whole machine, read from ``/proc`` (Linux; None where unreadable).

>>> percentile([3.0, 1.0, 2.0, 4.0], 50), percentile([3.0, 1.0, 2.0, 4.0], 99)
(2.0, 4.0)
>>> percent(1.5, 3.0), percent_between(None, 2.0, 1.0)
(50.0, None)
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CpuSnapshot",
    "cpu_delta",
    "cpu_snapshot",
    "load_average",
    "machine_busy_seconds",
    "machine_times",
    "percent",
    "percent_between",
    "percentile",
    "process_cpu_seconds",
]

_TICK = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def percent(seconds: float, wall: float) -> float:
    """CPU seconds over a wall-clock window, in % of one core (0 for an empty window)."""
    return 100 * seconds / wall if wall > 0 else 0.0


def percent_between(before: float | None, after: float | None, wall: float) -> float | None:
    """The CPU seconds from ``before`` to ``after`` over ``wall`` seconds, in % of one core;
    None when either reading is missing or the window is empty."""
    if before is None or after is None or wall <= 0:
        return None
    return percent(after - before, wall)


def load_average() -> float | None:
    """The machine's 1-minute load average."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


# --- processes ---------------------------------------------------------------------------------


def _stat(pid: int | str) -> tuple[int, float, float, str] | None:
    """A process's parent pid, its own CPU seconds (utime + stime), the CPU seconds of its
    children that ended (cutime + cstime) and its command name; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    head, rest = text.rsplit(")", 1)
    fields = rest.split()
    # fields[0] is the state (field 3 of proc(5)): ppid is field 4, utime..cstime 14..17
    return (
        int(fields[1]),
        (int(fields[11]) + int(fields[12])) / _TICK,
        (int(fields[13]) + int(fields[14])) / _TICK,
        head.split("(", 1)[-1],
    )


def process_cpu_seconds(pid: int) -> float | None:
    """utime + stime of one process (a single read: cheap enough to do every second)."""
    stat = _stat(pid)
    return None if stat is None else stat[1]


def _processes() -> dict[int, tuple[int, float, float, str]]:
    """Every process: pid -> :func:`_stat`."""
    found: dict[int, tuple[int, float, float, str]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (stat := _stat(entry.name)) is not None:
            found[int(entry.name)] = stat
    return found


def machine_times() -> tuple[float, float] | None:
    """CPU seconds every core spent busy (not idle, not waiting for the disk) since boot, and
    of those in interrupts (irq + softirq: on loopback, mostly the kernel's networking)."""
    try:
        with open("/proc/stat") as stat:
            numbers = [int(n) for n in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is already in user)
    busy = sum(numbers[:8]) - numbers[3] - numbers[4]
    return busy / _TICK, (numbers[5] + numbers[6]) / _TICK


def machine_busy_seconds() -> float | None:
    times = machine_times()
    return None if times is None else times[0]


@dataclass(frozen=True, slots=True)
class CpuSnapshot:
    at: float  # time.monotonic()
    groups: dict[str, float]  # CPU seconds so far of each group's processes and descendants
    machine: float | None  # the machine's busy seconds so far
    interrupts: float | None = None  # of those, in irq and softirq
    # Every process in no group: pid -> (command name, CPU seconds so far)
    others: dict[int, tuple[str, float]] = field(default_factory=dict)
    wall: float = 0.0  # time.time(), to find other processes' log lines in the window


def cpu_snapshot(groups: dict[str, list[int]]) -> CpuSnapshot:
    """The CPU seconds used so far by each group of processes (each root pid with every
    descendant, ended children included through cutime/cstime: a PostgreSQL backend that
    ends in the window is still counted, by its postmaster), and by every other process."""
    table = _processes()
    children: dict[int, list[int]] = {}
    for pid, row in table.items():
        children.setdefault(row[0], []).append(pid)
    seconds: dict[str, float] = {}
    counted: set[int] = set()
    for name, roots in groups.items():
        total = 0.0
        todo = [pid for pid in roots if pid in table]
        while todo:
            pid = todo.pop()
            if pid in counted:
                continue
            counted.add(pid)
            _, own, ended, _ = table[pid]
            total += own + ended
            todo.extend(children.get(pid, ()))
        seconds[name] = total
    # The others' ended children are left out: their parents (init, a shell, a test
    # runner) are counted on their own.
    others = {pid: (row[3], row[1]) for pid, row in table.items() if pid not in counted}
    times = machine_times()
    return CpuSnapshot(
        time.monotonic(),
        seconds,
        None if times is None else times[0],
        None if times is None else times[1],
        others,
        time.time(),
    )


def _command(pid: int, name: str) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return name
    words = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return (words or name)[:100]


def cpu_delta(before: CpuSnapshot, after: CpuSnapshot, top: int = 5) -> dict[str, Any]:
    """The CPU seconds of each group between two snapshots, the machine's busy seconds,
    what no group accounts for (``other``: the kernel's networking, other processes), the
    interrupts' share of the machine and the busiest ``top`` other processes (command,
    seconds; a process started in between is counted whole).

    >>> a = CpuSnapshot(10.0, {"x": 1.0, "y": 2.0}, 100.0)
    >>> b = CpuSnapshot(12.0, {"x": 2.5, "y": 2.0}, 103.0)
    >>> cpu_delta(a, b)
    {'wall_s': 2.0, 'seconds': {'x': 1.5, 'y': 0.0}, 'machine_s': 3.0, 'other_s': 1.5, \
'interrupts_s': None, 'other_top': [], 'window_wall': [0.0, 0.0]}
    """
    seconds = {
        name: round(max(0.0, after.groups.get(name, 0.0) - value), 3)
        for name, value in before.groups.items()
    }
    machine_s = (
        None
        if before.machine is None or after.machine is None
        else round(after.machine - before.machine, 3)
    )
    other = None if machine_s is None else round(max(0.0, machine_s - sum(seconds.values())), 3)
    interrupts = (
        None
        if before.interrupts is None or after.interrupts is None
        else round(after.interrupts - before.interrupts, 3)
    )
    used = []
    for pid, (name, total) in after.others.items():
        then = before.others.get(pid)
        spent = total - (then[1] if then is not None and then[0] == name else 0.0)
        if spent >= 0.05:
            used.append((spent, pid, name))
    used.sort(reverse=True)
    return {
        "wall_s": round(after.at - before.at, 3),
        "seconds": seconds,
        "machine_s": machine_s,
        "other_s": other,
        "interrupts_s": interrupts,
        "other_top": [[_command(pid, name), round(spent, 2)] for spent, pid, name in used[:top]],
        "window_wall": [round(before.wall, 3), round(after.wall, 3)],
    }
