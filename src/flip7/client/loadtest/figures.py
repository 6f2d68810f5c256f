"""What one load test measured: :class:`LoadResult`, second by second :class:`Second`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_ERROR_MESSAGES = 10


@dataclass(frozen=True, slots=True)
class Second:
    """One second of the window: the moves sent in it, their latencies (ms; 0 without any),
    and the CPU the server and the whole machine used (% of one core; None if unknown)."""

    second: int
    moves: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    server_cpu_percent: float | None
    machine_cpu_percent: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "second": self.second,
            "moves": self.moves,
            "p50_ms": _round(self.p50_ms),
            "p99_ms": _round(self.p99_ms),
            "max_ms": _round(self.max_ms),
            "server_cpu_percent": _round(self.server_cpu_percent),
            "machine_cpu_percent": _round(self.machine_cpu_percent),
        }

    def line(self) -> str:
        def pct(value: float | None) -> str:
            return "-" if value is None else f"{value:.0f}"

        return (
            f"{self.second:6d} {self.moves:6d} {self.p50_ms:8.1f} {self.p99_ms:8.1f} "
            f"{self.max_ms:8.1f} {pct(self.server_cpu_percent):>9} "
            f"{pct(self.machine_cpu_percent):>10}"
        )


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What one load test measured. Latencies are in milliseconds (None without any move)."""

    url: str
    tables: int  # tables that were set up and played
    clients: int  # clients (WebSocket connections) per table
    think: float
    think_jitter: float
    warmup: float
    duration: float  # the measured window, seconds (after the warmup)
    setup_seconds: float  # creating, joining and connecting every table
    moves: int  # moves sent in the window whose update reached every client
    moves_per_second: float
    updates: int  # update frames received by all clients in the window
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None
    mean_ms: float | None
    errors: int
    error_messages: tuple[str, ...]  # the first few
    error_kinds: dict[str, int]  # how many of each: an error code, "closed", "timeout", …
    games_finished: int  # in the window
    client_cpu_percent: float  # of one core, this process, in the window
    client_lag_max_ms: float | None  # worst event-loop lag of this process in the window
    timeline: tuple[Second, ...] = ()  # second by second through the window
    server_cpu_percent: float | None = None  # of one core, when the server's pid is known
    # every process of the machine together, in % of one core (200% = two busy cores), and
    # the machine's cores and 1-minute load average at the end: how much else was running
    machine_cpu_percent: float | None = None
    machine_cores: int = 0
    load_average: float | None = None
    server_log_errors: tuple[str, ...] = ()  # error/traceback lines of a server we started
    server_log_warnings: tuple[str, ...] = ()
    p95_ms: float | None = None

    @property
    def connections(self) -> int:
        return self.tables * self.clients

    @property
    def ok(self) -> bool:
        """At least one move and no error of any kind."""
        return self.moves > 0 and self.errors == 0 and not self.server_log_errors

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "tables": self.tables,
            "clients": self.clients,
            "connections": self.connections,
            "think": self.think,
            "think_jitter": self.think_jitter,
            "warmup": self.warmup,
            "duration": self.duration,
            "setup_seconds": round(self.setup_seconds, 3),
            "moves": self.moves,
            "moves_per_second": round(self.moves_per_second, 2),
            "updates": self.updates,
            "p50_ms": _round(self.p50_ms),
            "p90_ms": _round(self.p90_ms),
            "p95_ms": _round(self.p95_ms),
            "p99_ms": _round(self.p99_ms),
            "max_ms": _round(self.max_ms),
            "mean_ms": _round(self.mean_ms),
            "errors": {
                "count": self.errors,
                "kinds": dict(self.error_kinds),
                "first": list(self.error_messages),
            },
            "games_finished": self.games_finished,
            "client_cpu_percent": round(self.client_cpu_percent, 1),
            "client_lag_max_ms": _round(self.client_lag_max_ms),
            "server_cpu_percent": None
            if self.server_cpu_percent is None
            else round(self.server_cpu_percent, 1),
            "timeline": [second.to_json() for second in self.timeline],
            "machine_cpu_percent": _round(self.machine_cpu_percent),
            "machine_cores": self.machine_cores,
            "load_average": self.load_average,
            "server_log_errors": list(self.server_log_errors[:MAX_ERROR_MESSAGES]),
            "server_log_error_count": len(self.server_log_errors),
            "server_log_warnings": list(self.server_log_warnings[:MAX_ERROR_MESSAGES]),
            "server_log_warning_count": len(self.server_log_warnings),
        }

    def report(self, *, timeline: bool = False) -> str:
        """A short human-readable report; ``timeline`` adds a line per second."""

        def ms(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f} ms"

        per_s = self.updates / self.duration if self.duration > 0 else 0.0
        lines = [
            f"flip7 loadtest against {self.url}",
            f"  tables       {self.tables} × {self.clients} clients = "
            f"{self.connections} WebSocket connections",
            f"  timing       think {self.think:g} s ± {self.think_jitter:.0%}, "
            f"warmup {self.warmup:g} s, measured {self.duration:g} s "
            f"(setup took {self.setup_seconds:.1f} s)",
            f"  moves        {self.moves} ({self.moves_per_second:.1f}/s); "
            f"{self.updates} updates received ({per_s:.0f}/s)",
            f"  latency      p50 {ms(self.p50_ms)}, p90 {ms(self.p90_ms)}, "
            f"p95 {ms(self.p95_ms)}, "
            f"p99 {ms(self.p99_ms)}, max {ms(self.max_ms)} "
            "(move sent → its update at every client of the table)",
            f"  games        {self.games_finished} finished",
        ]
        cpu = f"client {self.client_cpu_percent:.0f}% of a core"
        if self.server_cpu_percent is not None:
            cpu = f"server {self.server_cpu_percent:.0f}% of a core, " + cpu
        lines.append(f"  cpu          {cpu}, client loop lag max {ms(self.client_lag_max_ms)}")
        if self.machine_cpu_percent is not None:
            lines.append(
                f"  machine      {self.machine_cores} cores, every process and the kernel "
                f"{self.machine_cpu_percent:.0f}% of a core, load average {self.load_average}"
            )
        if timeline:
            lines.append("  second  moves   p50 ms   p99 ms   max ms  server %  machine %")
            lines.extend(f"  {s.line()}" for s in self.timeline)
        if self.errors == 0:
            lines.append("  errors       0")
        else:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.error_kinds.items()))
            lines.append(f"  errors       {self.errors} ({kinds}); the first:")
            lines.extend(f"    {message}" for message in self.error_messages)
        if self.server_log_errors:
            lines.append(f"  server log   {len(self.server_log_errors)} error lines; the first:")
            lines.extend(f"    {line}" for line in self.server_log_errors[:MAX_ERROR_MESSAGES])
        if self.server_log_warnings:
            lines.append(f"  server log   {len(self.server_log_warnings)} warnings; the first:")
            lines.extend(f"    {line}" for line in self.server_log_warnings[:3])
        return "\n".join(lines)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
