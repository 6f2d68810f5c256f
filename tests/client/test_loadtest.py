"""The load test: its bookkeeping on its own, then a short real run against `flip7 serve`."""

from __future__ import annotations

import argparse
import json
import random
import shlex

import pytest

pytest.importorskip("httpx")
pytest.importorskip("websockets")

from flip7.client import loadtest
from flip7.client.loadtest import LoadResult
from flip7.client.loadtest.clients import Run, Table
from flip7.client.measure import percentile


def _table(clients: int = 3) -> Table:
    run = Run("http://127.0.0.1:1", None, 0.0, 0.5, 10.0, True, None)  # type: ignore[arg-type]
    run.stats.window_start, run.stats.window_end = 0.0, 1e9
    table = Table(run, 0, clients, seed=1)
    table.id = "abc"
    return table


def test_latency_is_the_last_arrival_at_the_table() -> None:
    table = _table()
    table.begin_move("0.1", mover=0, base=5, sent=10.0)
    table.on_update(0, 6, 10.002)
    table.on_update(1, 6, 10.004)
    table.on_result("0.1", 6)
    assert table.pending  # client 2 has not had the update yet
    table.on_update(2, 6, 10.009)
    assert not table.pending
    assert table.run.stats.latencies == [pytest.approx(0.009)]
    assert table.run.stats.errors == 0


def test_the_next_move_may_start_before_the_mover_reads_its_result() -> None:
    table = _table()
    table.begin_move("0.1", mover=0, base=5, sent=1.0)
    for client in range(3):
        table.on_update(client, 6, 1.001 + client / 1000)
    table.begin_move("1.1", mover=1, base=6, sent=1.004)  # client 1's turn now
    table.on_result("0.1", 6)  # read late by client 0
    for client in range(3):
        table.on_update(client, 7, 1.006)
    table.on_result("1.1", 7)
    assert not table.pending
    assert table.run.stats.latencies == [pytest.approx(0.003), pytest.approx(0.002)]


def test_a_chain_of_versions_is_measured_to_the_result_version() -> None:
    table = _table(2)
    table.begin_move("0.1", mover=0, base=5, sent=2.0)
    table.on_result("0.1", 8)
    table.on_update(0, 6, 2.001)
    table.on_update(1, 6, 2.001)
    assert table.pending
    table.on_update(0, 8, 2.005)
    table.on_update(1, 8, 2.007)
    assert table.run.stats.latencies == [pytest.approx(0.007)]


def test_an_unanswered_move_times_out_as_an_error() -> None:
    table = _table()
    table.begin_move("0.1", mover=0, base=5, sent=0.0)
    table.on_update(0, 6, 0.001)
    table.watch(11.0)
    assert not table.pending
    assert table.run.stats.errors == 1
    assert "no complete answer" in table.run.stats.messages[0]


def test_policy_hits_below_25_and_otherwise_picks_a_legal_option() -> None:
    client = _table().clients[0]
    players = [{"number_sum": 24}, {"number_sum": 25}]
    assert client.choose({"legal_decisions": ["hit", "stay"], "viewer": 0, "players": players}) == (
        "hit"
    )
    assert client.choose({"legal_decisions": ["hit", "stay"], "viewer": 1, "players": players}) == (
        "stay"
    )
    client.rng = random.Random(3)
    legal = ["target 0", "target 1", "target 2"]
    assert client.choose({"legal_decisions": legal, "viewer": 0, "players": players}) in legal


def test_percentiles_and_the_result() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([7.0], 99) == 7.0
    result = LoadResult(
        url="http://127.0.0.1:1",
        tables=2,
        clients=4,
        think=0.0,
        think_jitter=0.5,
        warmup=1.0,
        duration=2.0,
        setup_seconds=0.1,
        moves=10,
        moves_per_second=5.0,
        updates=40,
        p50_ms=1.0,
        p90_ms=2.0,
        p99_ms=3.0,
        max_ms=4.0,
        mean_ms=1.5,
        errors=0,
        error_messages=(),
        error_kinds={},
        games_finished=1,
        client_cpu_percent=10.0,
        client_lag_max_ms=1.0,
    )
    data = json.loads(json.dumps(result.to_json()))
    assert data["connections"] == 8
    assert data["errors"] == {"count": 0, "kinds": {}, "first": []}
    assert result.ok
    assert "errors       0" in result.report()


def test_arguments() -> None:
    parser = argparse.ArgumentParser()
    loadtest.add_arguments(parser)
    args = parser.parse_args([])
    assert (args.tables, args.clients, args.duration, args.think, args.warmup) == (
        200,
        4,
        60.0,
        0.5,
        5.0,
    )
    assert args.url is None and not args.json
    with pytest.raises(SystemExit):
        parser.parse_args(["--clients", "1"])


def test_a_short_real_run(capsys: pytest.CaptureFixture[str]) -> None:
    """3 tables × 4 clients for a few seconds against a `flip7 serve` subprocess."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    parser = argparse.ArgumentParser()
    loadtest.add_arguments(parser)
    # think > 0: a client flat out would pass the server's per-connection rate limit.
    argv = "--tables 3 --clients 4 --duration 4 --warmup 1 --think 0.05 --seed 1 --json"
    args = parser.parse_args(shlex.split(argv))
    status = loadtest.run(args)
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["errors"]["count"] == 0, data["errors"]
    assert data["server_log_errors"] == []
    assert status == 0
    assert data["tables"] == 3 and data["connections"] == 12
    assert data["moves"] > 0 and data["moves_per_second"] > 0
    assert data["updates"] >= data["moves"] * 4 * 0.9
    assert 0 < data["p50_ms"] <= data["p90_ms"] <= data["p99_ms"] <= data["max_ms"]
    assert data["p99_ms"] < 2000
    assert data["server_cpu_percent"] is not None and data["server_cpu_percent"] > 0
    assert [second["second"] for second in data["timeline"]] == [0, 1, 2, 3]
    assert sum(second["moves"] for second in data["timeline"]) == data["moves"]
