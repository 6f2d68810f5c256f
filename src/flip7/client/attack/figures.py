"""What ``flip7 attack`` reports: each flood's figures (:class:`FloodFigures`), a row per
attack (:class:`AttackRow`) judged against the targets (:func:`verdict_reasons`), and the
table of rows (:func:`report`).

>>> verdict_reasons(control_p95=12.0, health_p95=8.0, moves=300, errors=0, health_errors=0)
[]
>>> verdict_reasons(control_p95=70.0, health_p95=8.0, moves=300, errors=2, health_errors=0)
['control p95 70 ms > 50', '2 control errors']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# The targets a row is judged by (2-core machine, each flood running).
TARGET_CONTROL_P95_MS = 50.0
TARGET_HEALTH_P95_MS = 100.0
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
}


def verdict_reasons(
    *,
    control_p95: float | None,
    health_p95: float | None,
    moves: int,
    errors: int,
    health_errors: int,
    server_errors: int = 0,
    server_log_errors: int = 0,
) -> list[str]:
    """Why a row misses the target (an empty list: it meets it)."""
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
            "ok": self.ok,
            "reasons": self.reasons,
        }


def _ms(value: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}.1f}"


def _count(value: int | None, width: int = 8) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:{width}d}"


def report(rows: list[AttackRow], header: str, total_seconds: float) -> str:
    """The table of figures, a line of details per attack, and the total run time."""
    lines = [
        header,
        "",
        f"{'attack':<10} {'sent':>8} {'answered':>8} {'refused':>8} {'failed':>7} "
        f"{'ctl p50':>7} {'p95':>6} {'max':>6} {'moves':>5} {'errors':>6} "
        f"{'health p50':>10} {'p95':>6} {'max':>6}  verdict",
    ]
    for row in rows:
        flood = row.flood
        verdict = "pass" if row.ok else "FAIL: " + "; ".join(row.reasons)
        lines.append(
            f"{row.attack:<10} {_count(flood.sent if flood else None)} "
            f"{_count(flood.answered if flood else None)} "
            f"{_count(flood.refused if flood else None)} "
            f"{_count(flood.failed if flood else None, 7)} "
            f"{_ms(row.control_p50_ms, 7)} {_ms(row.control_p95_ms)} {_ms(row.control_max_ms)} "
            f"{row.control_moves:5d} {row.control_errors:6d} "
            f"{_ms(row.health_p50_ms, 10)} {_ms(row.health_p95_ms)} {_ms(row.health_max_ms)}  "
            f"{verdict}"
        )
    lines.append("")
    lines.append("details (answers by code; ms are milliseconds):")
    for row in rows:
        lines.append(f"  {row.attack}: {row.description}")
        flood = row.flood
        if flood is not None:
            codes = ", ".join(f"{code} ×{n}" for code, n in flood.codes.most_common(12))
            lines.append(
                f"    from {_address_range(flood.addresses)}; setup {flood.setup_seconds:.1f} s"
            )
            if codes:
                lines.append(f"    answers: {codes}")
            lines.extend(f"    note: {note}" for note in flood.notes)
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
        if row.control_errors:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(row.control_error_kinds.items()))
            lines.append(f"    control errors: {kinds}")
            lines.extend(f"      {m}" for m in row.control_error_messages[:3])
        lines.extend(f"    health error: {m}" for m in row.health_error_messages[:3])
        if row.server_log_errors:
            lines.append(f"    server log: {len(row.server_log_errors)} error lines; the first:")
            lines.extend(f"      {line[:300]}" for line in row.server_log_errors[:3])
    passed = sum(row.ok for row in rows)
    lines.append("")
    lines.append(
        f"{passed} of {len(rows)} rows meet the target (control p95 ≤ "
        f"{TARGET_CONTROL_P95_MS:.0f} ms, health p95 ≤ {TARGET_HEALTH_P95_MS:.0f} ms, "
        f"0 errors); total run time {total_seconds:.0f} s"
    )
    return "\n".join(lines)


def _address_range(addresses: list[str]) -> str:
    """
    >>> _address_range(["127.0.0.2", "127.0.0.3", "127.0.0.4"]), _address_range(["127.0.0.2"])
    ('127.0.0.2 to 127.0.0.4 (3 addresses)', '127.0.0.2')
    """
    if len(addresses) <= 1:
        return addresses[0] if addresses else "-"
    return f"{addresses[0]} to {addresses[-1]} ({len(addresses)} addresses)"
