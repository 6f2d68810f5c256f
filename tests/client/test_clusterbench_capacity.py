"""``flip7 cluster-bench --scenario capacity``: the capacity model of docs/deploy.md fitted
on two tiny runs at two paces, projected and checked by a third run (the real figures are in
docs/deploy.md, not asserted by a test). A file of its own, so that the test workers run it
beside the other cluster-bench smoke runs."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")
pytest.importorskip("asyncpg")

from test_clusterbench import _needs_services

from flip7.client import clusterbench


def test_capacity_smoke_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Bounded: about 30 s (PostgreSQL, Redis, three tiny runs)."""
    _needs_services()
    code = clusterbench.main([
        "--scenario", "capacity", "--json", "--human-clients", "3", "--human-think", "0.2",
        "--human-warmup", "0.5", "--capacity-tables", "6", "--capacity-slow-think", "2",
        "--capacity-duration", "3", "--check-processes", "2", "--check-tables", "4",
    ])  # fmt: skip
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    # What went wrong, should something: the clients' errors, the servers' error lines.
    out = figures.get("capacity")
    runs = [*out["runs"], out["check"]["run"]] if out else []
    said = [(r.get("pace", "check"), r["error_kinds"], r["first_errors"],
             r["first_server_log_errors"]) for r in runs]  # fmt: skip
    assert code == 0, (captured.err, figures.get("error"), said)
    # The capacity model: fitted on a fast and a slow run, projected, checked by a third run.
    capacity = figures["capacity"]
    fast, slow = capacity["runs"]
    assert fast["moves_per_second"] > slow["moves_per_second"] > 0, (fast, slow)
    model = capacity["model"]
    server = next(c for c in model["costs"] if c["name"] == "server CPU")
    assert server["per_move"] > 0 and model["pace"] > 0, model
    sizes = capacity["projection"]
    assert list(sizes) == ["1000", "10000", "100000"]
    assert sizes["1000"]["processes"] <= sizes["10000"]["processes"] <= sizes["100000"]["processes"]
    big, small = sizes["100000"]["server CPU"], sizes["1000"]["server CPU"]
    assert big == pytest.approx(100 * small, rel=1e-3)
    check = capacity["check"]
    assert check["run"]["processes"] == 2 and check["run"]["errors"] == 0
    assert set(check["predicted"]) == set(check["measured"])
    report = "\n".join(clusterbench.capacity_report(capacity))
    assert "live tables" in report and "measured / predicted" in report and "one core per" in report
