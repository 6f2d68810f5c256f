"""A tournament's outputs: the summary table, ``results.json``, ``games.csv`` and PNG plots.

The table is plain rows of strings (:func:`summary_table`); the command line draws it with
Rich and :func:`format_table` draws it as plain text. Plots need matplotlib (``flip7[sim]``)
and are drawn with its Agg backend, without a display.

>>> from flip7.tournament import run_tournament
>>> result = run_tournament(["basic", "random", "random"], games=6, seed=1)
>>> headers, rows = summary_table(result)
>>> headers[:4]
['bot', 'seats', 'win rate (95% CI)', 'fair']
>>> [row[0] for row in rows]
['basic', 'random']
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flip7.tournament.runner import TournamentError, TournamentResult
from flip7.tournament.stats import Latency

__all__ = [
    "describe",
    "format_seconds",
    "format_table",
    "plot_round_scores",
    "plot_win_rates",
    "position_table",
    "summary_table",
    "write_games_csv",
    "write_outputs",
    "write_results_json",
]


def format_seconds(seconds: float) -> str:
    """A duration in the unit that suits it.

    >>> format_seconds(0.0000042), format_seconds(0.0153), format_seconds(2.5)
    ('4.2µs', '15.3ms', '2.50s')
    """
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:.1f}ms"
    return f"{seconds:.2f}s"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(rate: float, low: float, high: float) -> str:
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _latency(lat: Latency | None) -> str:
    if lat is None or not lat.count:
        return "-"
    return (
        f"{format_seconds(lat.quantile(0.5))} / {format_seconds(lat.quantile(0.95))} / "
        f"{format_seconds(lat.max)}"
    )


def summary_table(result: TournamentResult) -> tuple[list[str], list[list[str]]]:
    """The summary: one row per bot spec (all its seats together)."""
    headers = [
        "bot", "seats", "win rate (95% CI)", "fair", "edge", "game score", "round score",
        "bust", "Flip 7", "attack pts/game", "decision p50 / p95 / max",
    ]  # fmt: skip
    rows = []
    for s in result.specs:
        rows.append(
            [
                s.spec,
                str(s.seats),
                _interval(s.win_rate, s.win_low, s.win_high),
                _pct(s.fair_share),
                f"{100 * s.edge:+.1f} pp",
                f"{s.mean_game_score:.1f}",
                f"{s.mean_round_score:.2f}",
                _pct(s.bust_rate),
                f"{100 * s.flip7_rate:.2f}%",
                "-" if s.attack_points is None else f"{s.attack_points:.1f}",
                _latency(result.latency.get(s.spec)),
            ]
        )
    return headers, rows


def position_table(result: TournamentResult) -> tuple[list[str], list[list[str]]]:
    """One row per lineup entry, followed around the table by the rotation."""
    headers = ["entry", "bot", "win rate (95% CI)", "fair", "edge", "game score"]
    rows = [
        [
            f"#{p.position + 1}",
            p.spec,
            _interval(p.win_rate, p.win_low, p.win_high),
            _pct(p.fair_share),
            f"{100 * p.edge:+.1f} pp",
            f"{p.mean_game_score:.1f}",
        ]
        for p in result.positions
    ]
    return headers, rows


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell: text left, numbers right.

    >>> print(format_table(["bot", "games"], [["basic", "12"], ["random", "3"]]))
    bot     games
    basic      12
    random      3
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def cell(i: int, text: str) -> str:
        return text.ljust(widths[i]) if i == 0 else text.rjust(widths[i])

    lines = ["  ".join(cell(i, h) for i, h in enumerate(headers)).rstrip()]
    lines += ["  ".join(cell(i, c) for i, c in enumerate(r)).rstrip() for r in rows]
    return "\n".join(lines)


def describe(result: TournamentResult) -> str:
    """The line above the table: what was played, how fast."""
    lineup = ", ".join(result.seats)
    paired = ", paired deals" if result.paired else ""
    return (
        f"{result.games} games of {result.players} players ({lineup}), seed {result.seed}"
        f"{paired}: {result.seconds:.2f} s, {result.games_per_second:.0f} games/s "
        f"({result.executor})"
    )


# ---------------------------------------------------------------------- files


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TournamentError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_results_json(result: TournamentResult, path: Path) -> Path:
    _write(path, json.dumps(result.to_json(), indent=2) + "\n")
    return path


def write_games_csv(result: TournamentResult, path: Path) -> Path:
    """One row per game: its number, deal, deal seed, rotation, rounds and winners (seats,
    space-separated), then for each seat its bot spec, final total, round points, busts,
    Flip 7s and attack points (empty when not measured)."""
    n = result.players
    header = ["game", "deal", "deal_seed", "rotation", "rounds", "winners"]
    for seat in range(n):
        header += [
            f"seat{seat}_bot", f"seat{seat}_total", f"seat{seat}_round_points",
            f"seat{seat}_busts", f"seat{seat}_flip7s", f"seat{seat}_attack",
        ]  # fmt: skip
    try:
        with path.open("w", encoding="utf-8", newline="") as f:
            out = csv.writer(f)
            out.writerow(header)
            for row in result.rows:
                line: list[Any] = [
                    row.index, row.deal, row.deal_seed, row.rotation, row.rounds,
                    " ".join(map(str, row.winners)),
                ]  # fmt: skip
                for seat in range(n):
                    line += [
                        row.seats[seat], row.totals[seat], row.round_points[seat],
                        row.busts[seat], row.flip7s[seat],
                        "" if row.attacks is None else row.attacks[seat],
                    ]  # fmt: skip
                out.writerow(line)
    except OSError as exc:
        raise TournamentError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise TournamentError(
            "plots need matplotlib: pip install 'flip7[sim]' (or leave out --out)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_win_rates(result: TournamentResult, path: Path) -> Path:
    """Win rates with their Wilson 95% intervals and fair shares: one bar per bot spec, and
    one per lineup entry when a spec sits in several seats."""
    plt = _pyplot()
    labels: list[str] = []
    rates: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    fairs: list[float] = []
    for s in result.specs:
        labels.append(f"{s.spec} ({s.seats} seat{'s' if s.seats > 1 else ''})")
        rates.append(s.win_rate)
        lows.append(s.win_low)
        highs.append(s.win_high)
        fairs.append(s.fair_share)
    if len(result.specs) < result.players:
        for p in result.positions:
            labels.append(f"#{p.position + 1} {p.spec}")
            rates.append(p.win_rate)
            lows.append(p.win_low)
            highs.append(p.win_high)
            fairs.append(p.fair_share)
    ys = list(range(len(labels)))[::-1]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(labels)))
    try:
        errors = [[r - lo for r, lo in zip(rates, lows, strict=True)],
                  [hi - r for r, hi in zip(rates, highs, strict=True)]]  # fmt: skip
        ax.barh(ys, rates, xerr=errors, color="#4c78a8", alpha=0.8, capsize=4, label="win rate")
        for y, fair in zip(ys, fairs, strict=True):
            ax.plot([fair, fair], [y - 0.4, y + 0.4], color="#e45756", linewidth=2)
        ax.plot([], [], color="#e45756", linewidth=2, label="fair share")
        ax.set_yticks(ys)
        ax.set_yticklabels(labels)
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(lambda x, _pos: f"{100 * x:.0f}%")
        ax.set_xlabel("games won (95% Wilson interval)")
        ax.set_title(f"{result.games} games, seed {result.seed}: {', '.join(result.seats)}")
        ax.legend(loc="lower right")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return path


def plot_round_scores(result: TournamentResult, path: Path) -> Path:
    """The distribution of round scores of each bot spec, one panel each (a bust scores 0,
    or in Brutal mode its Modifiers)."""
    plt = _pyplot()
    specs = result.specs
    fig, axes = plt.subplots(
        len(specs), 1, figsize=(8, 0.5 + 2.0 * len(specs)), sharex=True, squeeze=False
    )
    try:
        for ax, stats in zip(axes[:, 0], specs, strict=True):
            spec = stats.spec
            dist = result.round_scores.get(spec, {})
            total = sum(dist.values()) or 1
            xs = sorted(dist)
            ax.bar(xs, [dist[x] / total for x in xs], width=1.0, color="#4c78a8")
            mean = sum(x * k for x, k in dist.items()) / total
            ax.axvline(mean, color="#e45756", linewidth=1.5, label=f"mean {mean:.1f}")
            ax.set_ylabel("share of rounds")
            ax.set_title(
                f"{spec}: {total} rounds, {100 * stats.bust_rate:.1f}% busted"
                + ("" if result.rules.brutal else " (scored 0)"),
                fontsize=10,
            )
            ax.yaxis.set_major_formatter(lambda y, _pos: f"{100 * y:.0f}%")
            ax.legend(loc="upper right")
        axes[-1, 0].set_xlabel("round score")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return path


def write_outputs(result: TournamentResult, out: Path | str, plots: bool = True) -> list[Path]:
    """Write ``results.json``, ``games.csv`` and (with ``plots``) ``win_rates.png`` and
    ``round_scores.png`` into the directory ``out`` (created); returns the paths."""
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create {folder}: {exc.strerror or exc}") from None
    paths = [
        write_results_json(result, folder / "results.json"),
        write_games_csv(result, folder / "games.csv"),
    ]
    if plots:
        paths.append(plot_win_rates(result, folder / "win_rates.png"))
        paths.append(plot_round_scores(result, folder / "round_scores.png"))
    return paths
