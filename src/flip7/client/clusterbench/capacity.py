"""The capacity model (docs/deploy.md, "How many processes"): what a deployment needs for
1,000, 10,000 and 100,000 live tables, from costs measured on this machine.

Each resource's use is modelled as ``a × moves per second + b × live tables``: ``a`` is
what one move costs (the server's work, its writes, its budget checks, its messages), ``b``
what a table costs each second whether or not anyone moves (the lobby list's refresh,
leases, sockets' keep-alives). Two runs at the same number of tables and two paces (think
2 s and 20 s) give both. Memory is per table: the servers' resident memory at the end of
the fast run less what they held before the first table, over the tables.

The projection holds the human pace of the fast run (its moves per table and second) and
keeps each server process under :data:`PROCESS_SHARE` of a core (the human scenario's p99
target was met with processes at about 55 % of a core). PostgreSQL and Redis are single
instances (one primary; Redis runs commands on one core): they are what a deployment
cannot add more of, so the report says at how many tables each would need a whole core
(Redis's ceiling) and how many cores PostgreSQL would need. The model is linear: commits
are grouped per process (one transaction for whatever is queued), so at a higher pace a
commit carries more moves and PostgreSQL's figures are an upper bound.

A check run then puts as many processes as the machine allows at a human pace and compares
what the model predicts for that run's moves and tables with what was measured.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flip7.client.clusterbench.bench import Bench, Layout, Load

__all__ = [
    "PROCESS_SHARE",
    "Cost",
    "Model",
    "capacity",
    "capacity_report",
    "fit",
]

# A server process kept under this share of one core, for its latency's sake.
PROCESS_SHARE = 0.6
# The live tables the report projects.
SIZES = (1_000, 10_000, 100_000)


@dataclass(frozen=True, slots=True)
class Cost:
    """One resource's use: ``per_move`` per applied move, ``per_table`` per live table and
    second.

    >>> Cost("server CPU", "cores", 0.002, 0.0001).rate(500, 1000)
    1.1
    """

    name: str
    unit: str
    per_move: float
    per_table: float

    def rate(self, moves_per_second: float, tables: int) -> float:
        return round(self.per_move * moves_per_second + self.per_table * tables, 6)


@dataclass(frozen=True, slots=True)
class Model:
    """Every resource's :class:`Cost`, the memory a table and a process hold, and the pace
    the projection assumes (moves per table and second)."""

    costs: tuple[Cost, ...]
    mib_per_table: float
    mib_per_process: float
    pace: float

    def cost(self, name: str) -> Cost:
        return next(c for c in self.costs if c.name == name)

    def need(self, tables: int) -> dict[str, float]:
        """What ``tables`` live tables at :attr:`pace` need of every resource, with the
        server processes that keeps each under :data:`PROCESS_SHARE` of a core.

        >>> m = Model((Cost("server CPU", "cores", 0.002, 0.0001),), 0.1, 100.0, 0.5)
        >>> m.need(1000)
        {'server CPU': 1.1, 'processes': 2, 'server MiB per process': 150.0}
        """
        moves = self.pace * tables
        out = {c.name: c.rate(moves, tables) for c in self.costs}
        processes = max(1, math.ceil(out["server CPU"] / PROCESS_SHARE))
        out["processes"] = processes
        out["server MiB per process"] = round(
            self.mib_per_process + self.mib_per_table * tables / processes, 1
        )
        return out


# What each resource is read from in a run: (name, unit, amount over the window).
def _seconds(*names: str) -> Callable[[dict[str, Any]], float]:
    def amount(run: dict[str, Any]) -> float:
        cpu = run["cpu_seconds"]
        return float(sum(v for k, v in cpu.items() if any(k.startswith(n) for n in names)))

    return amount


def _counted(key: str) -> Callable[[dict[str, Any]], float]:
    def amount(run: dict[str, Any]) -> float:
        return float(run["per_move"]["totals"][key])

    return amount


RESOURCES: tuple[tuple[str, str, Callable[[dict[str, Any]], float]], ...] = (
    ("server CPU", "cores", _seconds("app")),
    ("PostgreSQL CPU", "cores", _seconds("postgres")),
    ("Redis CPU", "cores", _seconds("redis")),
    ("HAProxy CPU", "cores", _seconds("haproxy")),
    ("PostgreSQL commits", "/s", _counted("pg_commits")),
    ("PostgreSQL WAL", "bytes/s", _counted("pg_wal_bytes")),
    ("Redis commands", "/s", _counted("redis_commands")),
)


def _rates(run: dict[str, Any]) -> dict[str, float]:
    window = float(run["window_s"])
    return {name: amount(run) / window for name, _, amount in RESOURCES}


def _memory(run: dict[str, Any]) -> tuple[float, float]:
    idle = run.get("rss_idle_mib") or {}
    end = run["per_move"]["rss_mib"]
    grown = sum(end[k] - idle.get(k, end[k]) for k in end)
    base = sum(idle.values()) / max(len(idle), 1)
    return max(grown, 0.0) / run["tables"], base


def fit(fast: dict[str, Any], slow: dict[str, Any]) -> Model:
    """The model from two runs with the same tables at two paces.

    >>> run = lambda moves, app: {"window_s": 10.0, "moves": moves, "tables": 100,
    ...     "moves_per_second": moves / 10, "cpu_seconds": {"app1": app},
    ...     "rss_idle_mib": {"app1": 100.0},
    ...     "per_move": {"rss_mib": {"app1": 110.0}, "totals": {"pg_commits": moves,
    ...                  "pg_wal_bytes": 800 * moves, "redis_commands": 2 * moves}}}
    >>> m = fit(run(500, 1.2), run(50, 0.3))
    >>> m.cost("server CPU"), m.mib_per_table, m.pace
    (Cost(name='server CPU', unit='cores', per_move=0.002, per_table=0.0002), 0.1, 0.5)
    """
    fast_rates, slow_rates = _rates(fast), _rates(slow)
    m1, m2 = float(fast["moves_per_second"]), float(slow["moves_per_second"])
    tables = int(fast["tables"])
    costs = []
    for name, unit, _ in RESOURCES:
        r1, r2 = fast_rates[name], slow_rates[name]
        per_move = max((r1 - r2) / (m1 - m2), 0.0) if m1 > m2 else r1 / max(m1, 1e-9)
        per_table = max((r2 - per_move * m2) / tables, 0.0)
        costs.append(Cost(name, unit, round(per_move, 9), round(per_table, 9)))
    per_table_mib, base = _memory(fast)
    return Model(tuple(costs), round(per_table_mib, 4), round(base, 1), round(m1 / tables, 4))


def capacity(
    bench: Bench,
    fast: Load,
    slow: Load,
    processes: int,
    check: Load,
    check_processes: int,
) -> dict[str, Any]:
    """The two runs that fit the model, the projection, and the check run."""
    runs = []
    for load, label in ((fast, "fast"), (slow, "slow")):
        bench.say(f"capacity: {load.tables} tables, think {load.think:g} s, {processes} processes")
        runs.append(bench.measure(Layout(str(processes), processes, True), load))
        runs[-1]["pace"] = label
    model = fit(runs[0], runs[1])
    bench.say(
        f"capacity check: {check.tables} tables, think {check.think:g} s, "
        f"{check_processes} processes"
    )
    checked = bench.measure(Layout(str(check_processes), check_processes, True), check)
    measured = _rates(checked)
    predicted = {
        c.name: c.rate(float(checked["moves_per_second"]), int(checked["tables"]))
        for c in model.costs
    }
    return {
        "runs": runs,
        "model": {
            "costs": [
                {"name": c.name, "unit": c.unit, "per_move": c.per_move, "per_table": c.per_table}
                for c in model.costs
            ],
            "mib_per_table": model.mib_per_table,
            "mib_per_process": model.mib_per_process,
            "pace": model.pace,
        },
        "projection": {str(n): model.need(n) for n in SIZES},
        "check": {
            "run": checked,
            "predicted": predicted,
            "measured": {k: round(v, 6) for k, v in measured.items()},
        },
    }


def _amount(value: float, unit: str) -> str:
    if unit == "bytes/s":
        return f"{value / 1e6:.2f} MB/s"
    if unit == "cores":
        return f"{value:.2f} cores"
    return f"{value:,.0f}/s"


def _model_from(figures: dict[str, Any]) -> Model:
    m = figures["model"]
    costs = tuple(Cost(c["name"], c["unit"], c["per_move"], c["per_table"]) for c in m["costs"])
    return Model(costs, m["mib_per_table"], m["mib_per_process"], m["pace"])


def ceilings(model: Model) -> list[str]:
    """At how many live tables each single instance needs a whole core (Redis cannot use
    another; PostgreSQL's figure is per core of its primary)."""
    lines = []
    for name in ("Redis CPU", "PostgreSQL CPU"):
        c = model.cost(name)
        per_table = c.per_move * model.pace + c.per_table
        if per_table > 0:
            lines.append(f"{name.split()[0]}: one core per {1 / per_table:,.0f} live tables")
    return lines


def capacity_report(figures: dict[str, Any], sizes: Sequence[int] = SIZES) -> list[str]:
    model = _model_from(figures)
    fast, slow = figures["runs"]
    lines = [
        f"capacity: {fast['tables']} tables × {fast['clients']} clients, "
        f"{fast['processes']} processes, think {fast['think']:g} s "
        f"({fast['moves_per_second']:.0f} moves/s) and {slow['think']:g} s "
        f"({slow['moves_per_second']:.0f} moves/s), {fast['window_s']:.0f} s each; "
        f"errors {fast['errors']} and {slow['errors']}",
        f"  {'resource':<20} {'per move':>12} {'per table-second':>17}",
    ]
    for c in model.costs:
        scale, unit = (1000.0, "ms") if c.unit == "cores" else (1.0, "")
        lines.append(
            f"  {c.name:<20} {c.per_move * scale:>10.4f}{unit:>2} {c.per_table * scale:>15.5f}"
            f"{unit:>2}"
        )
    lines.append(
        f"  memory: {model.mib_per_table:.3f} MiB a table, {model.mib_per_process:.0f} MiB a "
        f"process by itself; pace {model.pace:.3f} moves per table-second"
    )
    lines.append("  " + "; ".join(ceilings(model)))
    head = f"  {'live tables':>11} {'processes':>9} {'MiB each':>8} " + " ".join(
        f"{c.name:>18}" for c in model.costs
    )
    lines.append(head)
    for n in sizes:
        need = model.need(n)
        cells = " ".join(f"{_amount(need[c.name], c.unit):>18}" for c in model.costs)
        lines.append(
            f"  {n:>11,} {need['processes']:>9} {need['server MiB per process']:>8.0f} {cells}"
        )
    check = figures["check"]
    run = check["run"]
    lines.append(
        f"  check: {run['tables']} tables, {run['processes']} processes, think "
        f"{run['think']:g} s: {run['moves_per_second']:.0f} moves/s, p99 "
        f"{run['p99_ms']} ms, errors {run['errors']}"
    )
    for c in model.costs:
        p, m = check["predicted"][c.name], check["measured"][c.name]
        ratio = f"{m / p:.2f}" if p > 0 else "-"
        lines.append(
            f"    {c.name:<20} predicted {_amount(p, c.unit):>12}, measured "
            f"{_amount(m, c.unit):>12} (measured / predicted {ratio})"
        )
    return lines
