"""What the cluster bench's figures were measured on (:func:`machine`), said in one line
above every figure (:func:`machine_line`)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from flip7.client.measure import load_average
from flip7.client.services import PG_BIN, RECIPE


def _first_line(command: list[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_revision() -> str | None:
    root = RECIPE.parent.parent
    head = _first_line(["git", "-C", str(root), "rev-parse", "--short", "HEAD"])
    if head is None or not head.strip().isalnum():
        return None
    dirty = _first_line(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"])
    return head + ("+changes" if dirty else "")


def machine(
    pg_bin: Path = PG_BIN, haproxy: str = "haproxy", redis_server: str = "redis-server"
) -> dict[str, Any]:
    """What the figures were measured on: cores, CPU, Python, the services' versions, the
    load average at the start and the source revision."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 0
    return {
        "nproc": cores,
        "cpu": _cpu_model(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "kernel": f"{platform.system()} {platform.release()}",
        "postgresql": _first_line([str(pg_bin / "postgres"), "--version"]),
        "redis": _first_line([redis_server, "--version"]),
        "haproxy": _first_line([haproxy, "-v"]),
        "load_average": load_average(),
        "revision": _git_revision(),
    }


def machine_line(m: dict[str, Any]) -> str:
    """One line naming the machine, printed above every figure.

    >>> print(machine_line({"nproc": 2, "cpu": "AMD EPYC", "python": "CPython 3.11.7",
    ...     "kernel": "Linux 6.1", "postgresql": "postgres (PostgreSQL) 15.8", "redis": None,
    ...     "haproxy": None, "load_average": 0.5, "revision": "abc"}).replace("; ", "\\n"))
    machine: nproc 2, AMD EPYC, CPython 3.11.7, Linux 6.1, load average 0.5 at the start
    postgres (PostgreSQL) 15.8
    revision abc
    """
    tools = "; ".join(str(m[k]) for k in ("postgresql", "redis", "haproxy") if m.get(k))
    return (
        f"machine: nproc {m['nproc']}, {m['cpu']}, {m['python']}, {m['kernel']}, "
        f"load average {m['load_average']} at the start"
        + (f"; {tools}" if tools else "")
        + (f"; revision {m['revision']}" if m.get("revision") else "")
    )
