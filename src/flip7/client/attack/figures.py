"""What ``flip7 attack`` reports: each flood's figures (:class:`FloodFigures`), a row per
attack (:class:`AttackRow`) judged against the targets (:func:`verdict_reasons`), and the
table of rows (:func:`report`).

>>> verdict_reasons(control_p95=12.0, health_p95=8.0, moves=300, errors=0, health_errors=0)
[]
>>> verdict_reasons(control_p95=70.0, health_p95=8.0, moves=300, errors=2, health_errors=0)
['control p95 70 ms > 50', '2 control errors']
>>> verdict_reasons(control_p95=12.0, health_p95=8.0, moves=300, errors=0, health_errors=0,
...                 victim=WaitFigures(40, 900.0, 2000.0, 3000.0),
...                 victim_quiet=WaitFigures(60, 500.0, 900.0, 1200.0))
['victim bot median 900 ms > 1.5 × its quiet 500']
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# The targets a row is judged by (2-core machine, each flood running).
TARGET_CONTROL_P95_MS = 50.0
TARGET_HEALTH_P95_MS = 100.0
# The victim bot table's median wait per bot move during a flood, at most this many times
# its median in the quiet window before it.
TARGET_VICTIM_RATIO = 1.5
MAX_NOTES = 12

ATTACKS: dict[str, str] = {
    "baseline": "no flood",
    "uploads": "replay uploads (oversize and at-limit records) and replay pages",
    "tables": "POST /api/tables as fast as possible",
    "bots12": "12 tables of search bots, the human gone",
    "bots60": "60 tables of search bots, the human gone",
    "frames": "WebSockets sending binary and text frames flat out",
    "idle": "silent TCP sockets, never-ending headers, WebSockets without hello",
    "malformed": "odd bodies, paths and frames",
    "searchbots": "tables of as many search bots at the ceilings as allowed, from one address",
    "tables-many": "POST /api/tables from many addresses of one block",
    "chat-many": "chat spam from spectators of many addresses at one table",
    "welcomes": "many spectators reading a long game's welcome again and again",
    "writes": "scorecards, their rounds and renames as fast as answered",
    "queues": "uploads, replay pages and coach jobs from many addresses",
    "ratings": "rating farms: two puppets at a short rated table, one player vs Beginner bots",
}


@dataclass(frozen=True, slots=True)
class WaitFigures:
    """The victim bot table's waits per bot move in a window (ms): how many, median, p95,
    longest."""

    moves: int
    p50_ms: float | None
    p95_ms: float | None
    max_ms: float | None

    def to_json(self) -> dict[str, Any]:
        def ms(value: float | None) -> float | None:
            return None if value is None else round(value, 2)

        return {"moves": self.moves, "p50_ms": ms(self.p50_ms), "p95_ms": ms(self.p95_ms),
                "max_ms": ms(self.max_ms)}  # fmt: skip


def victim_ratio(victim: WaitFigures | None, quiet: WaitFigures | None) -> float | None:
    """The victim's median wait over its quiet median (None where either is unknown).

    >>> victim_ratio(WaitFigures(9, 90.0, 1.0, 1.0), WaitFigures(9, 60.0, 1.0, 1.0))
    1.5
    """
    if victim is None or quiet is None or not victim.p50_ms or not quiet.p50_ms:
        return None
    return victim.p50_ms / quiet.p50_ms


def verdict_reasons(
    *,
    control_p95: float | None,
    health_p95: float | None,
    moves: int,
    errors: int,
    health_errors: int,
    server_errors: int = 0,
    server_log_errors: int = 0,
    victim: WaitFigures | None = None,
    victim_quiet: WaitFigures | None = None,
    victim_errors: int = 0,
) -> list[str]:
    """Why a row misses the target (an empty list: it meets it). ``victim``: the victim bot
    table's waits during the flood (None: not measured), ``victim_quiet`` before it."""
    reasons = []
    if moves == 0:
        reasons.append("no control moves")
    if control_p95 is not None and control_p95 > TARGET_CONTROL_P95_MS:
        reasons.append(f"control p95 {control_p95:.0f} ms > {TARGET_CONTROL_P95_MS:.0f}")
    if health_p95 is None:
        reasons.append("no health answer")
    elif health_p95 > TARGET_HEALTH_P95_MS:
        reasons.append(f"health p95 {health_p95:.0f} ms > {TARGET_HEALTH_P95_MS:.0f}")
    if errors:
        reasons.append(f"{errors} control errors")
    if health_errors:
        reasons.append(f"{health_errors} health errors")
    if server_errors:
        reasons.append(f"{server_errors} HTTP 500s / closes 1011")
    if server_log_errors:
        reasons.append(f"{server_log_errors} server log errors")
    if victim is not None:
        ratio = victim_ratio(victim, victim_quiet)
        if victim.moves == 0:
            reasons.append("no victim bot moves")
        elif ratio is not None and ratio > TARGET_VICTIM_RATIO:
            assert victim.p50_ms is not None and victim_quiet is not None
            reasons.append(
                f"victim bot median {victim.p50_ms:.0f} ms > {TARGET_VICTIM_RATIO:g} × its "
                f"quiet {victim_quiet.p50_ms:.0f}"
            )
        if victim_errors:
            reasons.append(f"{victim_errors} victim errors")
    return reasons


@dataclass(slots=True)
class FloodFigures:
    """What a flood sent and how the server answered. ``sent``: requests, connections or
    frames; ``answered``: those that got any answer; ``refused``: answers that refuse (4xx,
    an error frame, a close by the server); ``failed``: no answer at all (a reset, a
    timeout); ``server_errors``: HTTP 500, a 5xx without an error code, a WebSocket close
    1011 (bugs: never expected). A 5xx with a code (503 ``busy``) is a refusal."""

    sent: int = 0
    answered: int = 0
    refused: int = 0
    failed: int = 0
    server_errors: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    setup_seconds: float = 0.0

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES and text not in self.notes:
            self.notes.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "answered": self.answered,
            "refused": self.refused,
            "failed": self.failed,
            "server_errors": self.server_errors,
            "codes": dict(self.codes.most_common()),
            "notes": list(self.notes),
            "addresses": list(self.addresses),
            "setup_seconds": round(self.setup_seconds, 2),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FloodFigures:
        return cls(
            sent=int(data.get("sent", 0)),
            answered=int(data.get("answered", 0)),
            refused=int(data.get("refused", 0)),
            failed=int(data.get("failed", 0)),
            server_errors=int(data.get("server_errors", 0)),
            codes=Counter({str(k): int(v) for k, v in dict(data.get("codes", {})).items()}),
            notes=[str(n) for n in data.get("notes", [])],
            addresses=[str(a) for a in data.get("addresses", [])],
            setup_seconds=float(data.get("setup_seconds", 0.0)),
        )


@dataclass(slots=True)
class AttackRow:
    """One attack's figures: the flood's, the control table's (ms) and /api/health's (ms)."""

    attack: str
    description: str
    duration: float
    flood: FloodFigures | None
    control_moves: int = 0
    control_p50_ms: float | None = None
    control_p95_ms: float | None = None
    control_max_ms: float | None = None
    control_errors: int = 0
    control_error_kinds: dict[str, int] = field(default_factory=dict)
    control_error_messages: list[str] = field(default_factory=list)
    health_count: int = 0
    health_p50_ms: float | None = None
    health_p95_ms: float | None = None
    health_max_ms: float | None = None
    health_errors: int = 0
    health_error_messages: list[str] = field(default_factory=list)
    server_cpu_percent: float | None = None
    machine_cpu_percent: float | None = None
    # this process (the control clients and the health probe): CPU and worst loop lag
    client_cpu_percent: float | None = None
    client_lag_max_ms: float | None = None
    server_log_errors: list[str] = field(default_factory=list)
    server_log_warnings: int = 0
    # the victim bot table: its waits per bot move before the flood and during it
    victim_bot: str | None = None
    victim_quiet: WaitFigures | None = None
    victim: WaitFigures | None = None
    victim_games: int = 0
    victim_errors: int = 0
    victim_error_messages: list[str] = field(default_factory=list)
    # bytes the server's SQLite file (with its -wal) grew by in the window (None: unknown)
    database_growth_bytes: int | None = None
    # the control table's slowest move (ms) in each second of the window, from when it was
    # sent (None: no move sent that second): whether a flood's cost comes in one burst
    control_max_by_second: list[float | None] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        return verdict_reasons(
            control_p95=self.control_p95_ms,
            health_p95=self.health_p95_ms,
            moves=self.control_moves,
            errors=self.control_errors,
            health_errors=self.health_errors,
            server_errors=self.flood.server_errors if self.flood else 0,
            server_log_errors=len(self.server_log_errors),
            victim=self.victim,
            victim_quiet=self.victim_quiet,
            victim_errors=self.victim_errors,
        )

    @property
    def ok(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, Any]:
        def ms(value: float | None) -> float | None:
            return None if value is None else round(value, 2)

        return {
            "attack": self.attack,
            "description": self.description,
            "duration": self.duration,
            "flood": None if self.flood is None else self.flood.to_json(),
            "control": {
                "moves": self.control_moves,
                "p50_ms": ms(self.control_p50_ms),
                "p95_ms": ms(self.control_p95_ms),
                "max_ms": ms(self.control_max_ms),
                "errors": self.control_errors,
                "error_kinds": dict(self.control_error_kinds),
                "first_errors": list(self.control_error_messages),
            },
            "health": {
                "count": self.health_count,
                "p50_ms": ms(self.health_p50_ms),
                "p95_ms": ms(self.health_p95_ms),
                "max_ms": ms(self.health_max_ms),
                "errors": self.health_errors,
                "first_errors": list(self.health_error_messages),
            },
            "server_cpu_percent": ms(self.server_cpu_percent),
            "machine_cpu_percent": ms(self.machine_cpu_percent),
            "client_cpu_percent": ms(self.client_cpu_percent),
            "client_lag_max_ms": ms(self.client_lag_max_ms),
            "server_log_errors": list(self.server_log_errors[:MAX_NOTES]),
            "server_log_error_count": len(self.server_log_errors),
            "server_log_warning_count": self.server_log_warnings,
            "victim": {
                "bot": self.victim_bot,
                "quiet": None if self.victim_quiet is None else self.victim_quiet.to_json(),
                "flood": None if self.victim is None else self.victim.to_json(),
                "ratio": _round(victim_ratio(self.victim, self.victim_quiet)),
                "games": self.victim_games,
                "errors": self.victim_errors,
                "first_errors": list(self.victim_error_messages),
            },
            "database_growth_bytes": self.database_growth_bytes,
            "control_max_by_second_ms": [ms(v) for v in self.control_max_by_second],
            "ok": self.ok,
            "reasons": self.reasons,
        }


def max_by_second(
    sent: list[float], latencies_ms: list[float], start: float, duration: float
) -> list[float | None]:
    """The largest latency of the moves sent in each whole second from ``start`` (None
    where no move was sent); ``sent`` and ``latencies_ms`` go pairwise.

    >>> max_by_second([10.2, 10.7, 12.5], [8.0, 31.0, 12.0], 10.0, 3.0)
    [31.0, None, 12.0]
    """
    slowest: list[float | None] = [None] * max(1, math.ceil(duration))
    for moment, latency in zip(sent, latencies_ms, strict=True):
        second = int(moment - start)
        if 0 <= second < len(slowest):
            worst = slowest[second]
            slowest[second] = latency if worst is None else max(worst, latency)
    return slowest


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _ms(value: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"


def _count(value: int | None, width: int = 8) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}d}"


def _waits(figures: WaitFigures | None) -> str:
    if figures is None:
        return "not measured"
    return (f"median {_ms(figures.p50_ms, 0)} ms, p95 {_ms(figures.p95_ms, 0)} ms, max "
            f"{_ms(figures.max_ms, 0)} ms over {figures.moves} bot moves")  # fmt: skip


def goal_reasons(row: AttackRow) -> list[str]:
    """Why a row misses the issue's two goals: the control table's p95 and the victim bot
    table's median against its quiet one (the full verdict, :attr:`AttackRow.reasons`,
    also counts errors and /api/health)."""
    return verdict_reasons(
        control_p95=row.control_p95_ms, health_p95=0.0, moves=row.control_moves, errors=0,
        health_errors=0, victim=row.victim, victim_quiet=row.victim_quiet,
    )  # fmt: skip


def report(rows: list[AttackRow], header: str, total_seconds: float) -> str:
    """The table of figures (the victim bot table's waits per move next to the control
    table's latencies), a few lines of details per attack, the summary against the goals
    and the total run time."""
    lines = [
        header,
        "",
        f"{'attack':<11} {'sent':>8} {'answered':>8} {'refused':>8} {'failed':>7} "
        f"{'ctl p50':>7} {'p95':>6} {'max':>6} {'moves':>5} {'errors':>6} "
        f"{'health p50':>10} {'p95':>6} {'max':>6} "
        f"{'victim p50':>10} {'p95':>7} {'max':>7} {'moves':>5} {'quiet p50':>9}  verdict",
    ]
    for row in rows:
        flood = row.flood
        victim = row.victim
        verdict = "pass" if row.ok else "FAIL: " + "; ".join(row.reasons)
        lines.append(
            f"{row.attack:<11} {_count(flood.sent if flood else None)} "
            f"{_count(flood.answered if flood else None)} "
            f"{_count(flood.refused if flood else None)} "
            f"{_count(flood.failed if flood else None, 7)} "
            f"{_ms(row.control_p50_ms, 7)} {_ms(row.control_p95_ms)} {_ms(row.control_max_ms)} "
            f"{row.control_moves:5d} {row.control_errors:6d} "
            f"{_ms(row.health_p50_ms, 10)} {_ms(row.health_p95_ms)} {_ms(row.health_max_ms)} "
            f"{_ms(victim.p50_ms if victim else None, 10)} "
            f"{_ms(victim.p95_ms if victim else None, 7)} "
            f"{_ms(victim.max_ms if victim else None, 7)} "
            f"{_count(victim.moves if victim else None, 5)} "
            f"{_ms(row.victim_quiet.p50_ms if row.victim_quiet else None, 9)}  {verdict}"
        )
    lines.append("")
    lines.append("details (answers by code; ms are milliseconds):")
    for row in rows:
        lines.extend(_details(row))
    passed = sum(row.ok for row in rows)
    lines.append("")
    lines.append(
        f"summary against the goals (control p95 ≤ {TARGET_CONTROL_P95_MS:.0f} ms; the victim "
        f"bot table's median wait per move ≤ {TARGET_VICTIM_RATIO:g} × its quiet median):"
    )
    lines.append(f"  {'attack':<11} {'control p95':>11} {'victim median':>13} "
                 f"{'quiet median':>12} {'ratio':>6}  goals")  # fmt: skip
    for row in rows:
        ratio = victim_ratio(row.victim, row.victim_quiet)
        goals = goal_reasons(row)
        lines.append(
            f"  {row.attack:<11} {_ms(row.control_p95_ms, 8)} ms "
            f"{_ms(row.victim.p50_ms if row.victim else None, 10)} ms "
            f"{_ms(row.victim_quiet.p50_ms if row.victim_quiet else None, 9)} ms "
            f"{'-' if ratio is None else f'{ratio:.2f}':>6}  "
            f"{'pass' if not goals else 'FAIL: ' + '; '.join(goals)}"
        )
    lines.append("")
    lines.append(
        f"{passed} of {len(rows)} rows meet the target (control p95 ≤ "
        f"{TARGET_CONTROL_P95_MS:.0f} ms, health p95 ≤ {TARGET_HEALTH_P95_MS:.0f} ms, "
        f"0 errors, victim median ≤ {TARGET_VICTIM_RATIO:g} × quiet); total run time "
        f"{total_seconds:.0f} s"
    )
    return "\n".join(lines)


def _details(row: AttackRow) -> list[str]:
    lines = [f"  {row.attack}: {row.description}"]
    flood = row.flood
    if flood is not None:
        codes = ", ".join(f"{code} ×{n}" for code, n in flood.codes.most_common(16))
        lines.append(
            f"    from {_address_range(flood.addresses)}; setup {flood.setup_seconds:.1f} s"
        )
        if codes:
            lines.append(f"    answers: {codes}")
        lines.extend(f"    note: {note}" for note in flood.notes)
    if row.victim is not None or row.victim_quiet is not None:
        lines.append(f"    victim ({row.victim_bot} bots, {row.victim_games} games over): quiet "
                     f"{_waits(row.victim_quiet)}; during {_waits(row.victim)}")  # fmt: skip
        lines.extend(f"      {m}" for m in row.victim_error_messages[:3])
    if row.database_growth_bytes is not None:
        lines.append(f"    database grew {row.database_growth_bytes / 1024:.0f} KiB "
                     f"({row.database_growth_bytes / 1024 / row.duration:.1f} KiB/s)")
    cpu = []
    if row.server_cpu_percent is not None:
        cpu.append(f"server and its workers {row.server_cpu_percent:.0f}% of a core")
    if row.machine_cpu_percent is not None:
        cpu.append(f"machine {row.machine_cpu_percent:.0f}%")
    if row.client_cpu_percent is not None:
        cpu.append(
            f"control clients {row.client_cpu_percent:.0f}% "
            f"(loop lag max {_ms(row.client_lag_max_ms, 0)} ms)"
        )
    if cpu:
        lines.append(f"    cpu: {', '.join(cpu)}; health probes {row.health_count}")
    if row.control_max_by_second:
        slowest = " ".join(_ms(v, 0).strip() for v in row.control_max_by_second)
        lines.append(f"    control's slowest move by second of the flood (ms): {slowest}")
    if row.control_errors:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(row.control_error_kinds.items()))
        lines.append(f"    control errors: {kinds}")
        lines.extend(f"      {m}" for m in row.control_error_messages[:3])
    lines.extend(f"    health error: {m}" for m in row.health_error_messages[:3])
    if row.server_log_errors:
        lines.append(f"    server log: {len(row.server_log_errors)} error lines; the first:")
        lines.extend(f"      {line[:300]}" for line in row.server_log_errors[:3])
    return lines


def _address_range(addresses: list[str]) -> str:
    """
    >>> _address_range(["127.0.0.2", "127.0.0.3", "127.0.0.4"]), _address_range(["127.0.0.2"])
    ('127.0.0.2 to 127.0.0.4 (3 addresses)', '127.0.0.2')
    """
    if len(addresses) <= 1:
        return addresses[0] if addresses else "-"
    return f"{addresses[0]} to {addresses[-1]} ({len(addresses)} addresses)"
