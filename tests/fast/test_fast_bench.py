"""``flip7 bench --fast``: the compiled simulator timed beside the engine, N processes and a
peer program, in one run (flip7.fast.bench). Small game counts: these check the figures and
how they are read and combined, not the speed."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from conftest import require

require("numba")

from flip7.cli import main  # noqa: E402
from flip7.fast import bench  # noqa: E402
from flip7.fast.bench import BenchError, parse_rate, run_peer, time_engine  # noqa: E402

EPPIE_LIKE = """\
eppie vengeance players=4 target=200 hit=hit_below_27 targeting=adv games=1000000 seconds=7.741
wins: 0.2240 0.2436 0.2612 0.2712  undecided 0
129187 games/s
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def figure(text: str, label: str) -> float:
    """The games/s figure of the line starting with ``label``."""
    match = re.search(rf"^{re.escape(label)}[^:\n]*: ([0-9,]+) games/s", text, re.MULTILINE)
    assert match, f"no {label!r} line in:\n{text}"
    return float(match.group(1).replace(",", ""))


def cpu_figure(text: str, label: str) -> float:
    """The games per CPU second of the line starting with ``label``."""
    line = next(x for x in text.splitlines() if x.startswith(label))
    match = re.search(r"([0-9,]+) games per CPU second", line)
    assert match, line
    return float(match.group(1).replace(",", ""))


def ratios(text: str, other: str) -> tuple[float, float]:
    """The printed ratio compiled / ``other``, by wall time and by CPU time."""
    pattern = rf"^ratio compiled / {other}: ([0-9.]+)x \(([0-9.]+)x per CPU second\)$"
    match = re.search(pattern, text, re.MULTILINE)
    assert match, f"no ratio to {other} in:\n{text}"
    return float(match.group(1)), float(match.group(2))


# ---------------------------------------------------------------------- reading a peer


@pytest.mark.parametrize(
    ("output", "rate"),
    [
        (EPPIE_LIKE, 129187.0),
        ("176,000 games per second\n", 176000.0),
        ("engine runs at ~790 K games/s/core (2-player)", 790000.0),
        ("1.5M games/sec", 1500000.0),
        ("games/s: 4321.5", 4321.5),
        ('{"games_per_second": 2500.25}', 2500.25),
        ("games_per_s=99", 99.0),
        ("vengeance n=4    1135.0 ms     5000 ns/game", 200000.0),
        # The last figure counts: a summary line after per-batch ones.
        ("batch 1: 100 games/s\nbatch 2: 300 games/s\ntotal 200 games/s\n", 200.0),
    ],
)
def test_parse_rate_reads_the_last_known_form(output: str, rate: float) -> None:
    assert parse_rate(output) == pytest.approx(rate)


def test_parse_rate_with_a_pattern() -> None:
    text = "speed 12 kg/s\nthroughput(g/s)=345.5 | other=7\nthroughput(g/s)=400"
    assert parse_rate(text, r"throughput\(g/s\)=([0-9.]+)") == 400.0
    assert parse_rate(text, r"(?P<unit>k?g)?.*?(?P<rate>\d+) kg") == 12.0
    with pytest.raises(BenchError, match="no match"):
        parse_rate(text, r"games=(\d+)")
    with pytest.raises(BenchError, match="needs a group"):
        parse_rate(text, r"throughput")
    with pytest.raises(BenchError, match="not a regular expression"):
        parse_rate(text, r"(")


def test_parse_rate_without_a_figure_says_what_it_reads() -> None:
    with pytest.raises(BenchError, match="--peer-regex"):
        parse_rate("1000000 games in 5.7 s\n")


def test_run_peer_runs_the_program_and_reads_its_figure(tmp_path: Path) -> None:
    rate = run_peer(sys.executable, ["-c", f"print({EPPIE_LIKE!r})"])
    assert rate.games_per_second == 129187.0 and rate.cpu_games_per_second == 0
    cpu = "cpu: 3.2 s of CPU time, 312,500 games per CPU second\n"
    rate = run_peer(sys.executable, ["-c", f"print({EPPIE_LIKE + cpu!r})"])
    assert (rate.games_per_second, rate.cpu_games_per_second) == (129187.0, 312500.0)
    assert rate.games == 0 and rate.seconds > 0 and sys.executable in rate.label
    with pytest.raises(BenchError, match=r"status 3.*last output: oops"):
        run_peer(sys.executable, ["-c", "import sys; print('oops'); sys.exit(3)"])
    with pytest.raises(BenchError, match="not an executable file"):
        run_peer(str(tmp_path / "missing"))
    with pytest.raises(BenchError, match="longer than"):
        run_peer(sys.executable, ["-c", "import time; time.sleep(5)"], timeout=0.5)


# ---------------------------------------------------------------------- the engine side


def test_time_engine_figures_agree() -> None:
    rate = time_engine(games=4, players=3, bot="threshold", seed=2)
    assert (rate.games, rate.processes) == (4, 1)
    assert rate.games_per_second == pytest.approx(rate.games / rate.seconds)
    assert "bot threshold" in rate.label
    wins = [float(w) for w in re.findall(r"\d\.\d{3}", rate.detail.split(",")[0])]
    assert len(wins) == 3 and sum(wins) == pytest.approx(1.0, abs=0.002)
    assert re.search(r"mean rounds \d+\.\d\d", rate.detail)


# ---------------------------------------------------------------------- one run, side by side


def test_bench_fast_prints_every_figure_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    peer = "-c \"print('wins 0.25\\n98,765 games/s\\n100,000 games per CPU second')\""
    code, out, err = run(
        capsys, "bench", "--fast", "--games", "400", "--engine-games", "8", "--jobs", "2",
        "--seed", "3", "--peer", sys.executable, "--peer-args", peer,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("workload: 4 players to 200, default rules; compiled policy "
                          "'targeting' in every seat, engine bot 'basic'; seed 3\n")  # fmt: skip
    compiled = figure(out, "compiled (flip7.fast)")
    engine = figure(out, "engine (Game.play, bot basic)")
    jobs = figure(out, "compiled, 2 processes at once")
    peer_rate = figure(out, "peer (")
    assert "(400 games in " in out and "(8 games in " in out and "(800 games in " in out
    assert peer_rate == 98765.0
    # The printed ratios are the printed figures' (to their rounding), wall and CPU time.
    for other, rate in (("engine", engine), ("peer", peer_rate)):
        ratio, cpu_ratio = ratios(out, other)
        assert ratio == pytest.approx(compiled / rate, rel=0.01, abs=0.01)
        cpu_other = 100000.0 if other == "peer" else cpu_figure(out, "engine (")
        assert cpu_ratio == pytest.approx(
            cpu_figure(out, "compiled (flip7.fast)") / cpu_other, rel=0.01, abs=0.01
        )
    per_process = re.search(r"sum of per-process rates ([0-9,]+) games/s", out)
    assert per_process and jobs > 0
    # Both sides played the same game: four seats with win shares summing to one.
    for label in ("compiled (flip7.fast)", "engine (Game.play"):
        line = next(x for x in out.splitlines() if x.startswith(label))
        shares = [float(w) for w in re.search(r"wins ([0-9. ]+),", line).group(1).split()]  # type: ignore[union-attr]
        assert len(shares) == 4 and sum(shares) == pytest.approx(1.0, abs=0.01)


def test_bench_fast_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "bench", "--fast", "--games", "300", "--engine-games", "5", "--players", "3",
        "--policy", "threshold:t=25", "--bot", "threshold", "--rules", '{"target_score": 120}',
        "--json",
    )  # fmt: skip
    assert code == 0 and err == ""
    data = json.loads(out)
    assert (data["players"], data["policy"], data["bot"]) == (3, "threshold:t=25", "threshold")
    assert data["rules"] == {"target_score": 120}
    compiled, engine = data["compiled"], data["engine"]
    assert (compiled["games"], engine["games"]) == (300, 5)
    for rate in (compiled, engine):
        assert rate["games_per_second"] == pytest.approx(rate["games"] / rate["seconds"])
    assert data["ratio"] == pytest.approx(compiled["games_per_second"] / engine["games_per_second"])
    cpu = compiled["cpu_games_per_second"] / engine["cpu_games_per_second"]
    assert data["cpu_ratio"] == pytest.approx(cpu)
    assert data["jobs"] is None and data["peer"] is None and data["peer_ratio"] is None


def test_engine_games_0_skips_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--fast", "--games", "50", "--engine-games", "0")
    assert code == 0
    assert figure(out, "compiled (flip7.fast)") > 0
    assert "engine (" not in out and "ratio" not in out


# ---------------------------------------------------------------------- errors: exit 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--jobs", "2"], "--jobs only go with --fast"),
        (["--peer", "x", "--policy", "ev"], "--peer, --policy only go with --fast"),
        (["--fast", "--peer-args=-x"], "need --peer PATH"),
        (["--fast", "--peer", "/nonexistent/peer"], "not an executable file"),
        (["--fast", "--peer", sys.executable, "--peer-regex", "("], "not a regular expression"),
        (["--fast", "--policy", "nobody"], "unknown policy 'nobody'"),
        (["--fast", "--jobs", "0"], "must be from 1 to 256"),
        (["--fast", "--engine-games", "-1"], "0 or more"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    start = time.perf_counter()
    code, out, err = run(capsys, "bench", "--games", "5", *argv)
    assert code == 2 and out == ""
    assert message in err and "flip7 bench: error: " in err
    assert time.perf_counter() - start < 5  # said before any timing


def test_a_peer_that_prints_no_figure_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "--fast", "--games", "20", "--engine-games", "0",
                       "--peer", sys.executable, "--peer-args", "-c \"print('done')\"")  # fmt: skip
    assert code == 2
    assert "no games-per-second figure" in err and "--peer-regex" in err


def test_missing_numba_exits_2_saying_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "numba", None)  # as if it were not installed
    code, out, err = run(capsys, "bench", "--fast", "--games", "5")
    assert (code, out) == (2, "")
    assert "missing: numba" in err and "pip install 'flip7[fast]'" in err
    # Without the package itself, the CLI says so too, instead of a traceback.
    monkeypatch.setitem(sys.modules, "flip7.fast.bench", None)
    code, out, err = run(capsys, "bench", "--fast", "--jobs", "2")
    assert (code, out) == (2, "")
    assert err.startswith("flip7 bench: error: ") and "flip7.fast" in err


def test_the_plain_bench_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--games", "2", "--players", "3")
    assert code == 0 and out.startswith("2 games of 3 basic bots in ")
    assert bench.DEFAULT_POLICY == "targeting" and bench.DEFAULT_BOT == "basic"
