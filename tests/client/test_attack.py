"""The attack benchmark: its verdict and report on their own, floods sent from other loopback
addresses than the control table's, and a short real run against `flip7 serve`."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
from collections import Counter

import pytest

pytest.importorskip("httpx")
pytest.importorskip("websockets")

from flip7.client import attack
from flip7.client.attack import AttackRow, FloodFigures
from flip7.client.attack.floods import Idle, Uploads
from flip7.client.attack.floods.uploads import server_limits


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    attack.add_arguments(parser)
    return parser


def test_the_verdict_names_every_miss() -> None:
    assert attack.verdict_reasons(
        control_p95=50.0, health_p95=100.0, moves=1, errors=0, health_errors=0
    ) == []
    reasons = attack.verdict_reasons(
        control_p95=51.0, health_p95=None, moves=0, errors=1, health_errors=2,
        server_errors=3, server_log_errors=4,
    )  # fmt: skip
    assert reasons == [
        "no control moves",
        "control p95 51 ms > 50",
        "no health answer",
        "1 control errors",
        "2 health errors",
        "3 HTTP 500s / closes 1011",
        "4 server log errors",
    ]


def test_report_and_json_have_a_row_per_attack() -> None:
    flood = FloodFigures(sent=10, answered=9, refused=7, failed=1, codes=Counter({"429": 7}))
    flood.addresses = attack.flood_addresses(2)
    rows = [
        AttackRow("baseline", "no flood", 2.0, None, control_moves=30, control_p50_ms=3.0,
                  control_p95_ms=6.0, control_max_ms=9.0, health_count=20, health_p50_ms=2.0,
                  health_p95_ms=4.0, health_max_ms=5.0),
        AttackRow("tables", "tables", 2.0, flood, control_moves=0, health_count=0),
    ]  # fmt: skip
    text = attack.report(rows, "header", 12.0)
    lines = text.splitlines()
    assert lines[0] == "header"
    baseline = next(line for line in lines if line.startswith("baseline "))
    assert baseline.split()[-1] == "pass"
    tables = next(line for line in lines if line.startswith("tables "))
    assert tables.split()[1:5] == ["10", "9", "7", "1"]
    assert "FAIL: no control moves; no health answer" in tables
    assert "answers: 429 ×7" in text
    assert "from 127.0.0.2 to 127.0.0.3 (2 addresses)" in text
    assert "1 of 2 rows meet the target" in text and "total run time 12 s" in text
    data = json.loads(json.dumps([row.to_json() for row in rows]))
    assert data[0]["ok"] and data[0]["flood"] is None and data[0]["control"]["p95_ms"] == 6.0
    assert data[1]["flood"]["codes"] == {"429": 7} and not data[1]["ok"]
    assert FloodFigures.from_json(data[1]["flood"]).to_json() == data[1]["flood"]


def test_arguments() -> None:
    args = _parser().parse_args([])
    assert args.attacks == list(attack.ATTACKS) and args.attacks[0] == "baseline"
    assert (args.duration, args.idle, args.frame_sockets) == (20.0, 1000, 20)
    args = _parser().parse_args(["--attacks", "frames, idle", "--duration", "2"])
    assert args.attacks == ["frames", "idle"] and args.duration == 2.0
    with pytest.raises(SystemExit):
        _parser().parse_args(["--attacks", "frames,nuke"])


def test_floods_go_to_loopback_only(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["--url", "http://192.0.2.1:8000", "--attacks", "tables"])
    assert attack.run(args) == 2
    assert "loopback only" in capsys.readouterr().err
    assert attack.flood_main([json.dumps({"url": "http://example.com", "attack": "tables"})]) == 2


def test_floods_come_from_other_addresses_than_the_control_table() -> None:
    """The server's per-address budgets must see a flood as a stranger: its HTTP requests
    and raw sockets leave from 127.0.0.2 and up, never 127.0.0.1."""
    seen: list[str] = []

    async def main() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("peername")[0])
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 429 Too Many\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        figures = FloodFigures()
        flood = Idle(
            {"url": f"http://127.0.0.1:{port}", "addresses": 3, "attack": "idle"}, figures
        )
        try:
            for address in flood.addresses:
                await flood.request(address, "GET", "/api/health")
            opened = await flood._open("127.0.0.4", asyncio.Semaphore(1))
            assert opened is not None
            opened[1].write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            await opened[0].read()
            opened[1].close()
        finally:
            await flood.close()
            server.close()
            await server.wait_closed()
        assert figures.sent == 3 and figures.answered == 3 and figures.refused == 3
        assert figures.codes == Counter({"429": 3})

    asyncio.run(main())
    assert seen == ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.4"]


def test_the_upload_flood_reads_the_servers_limits() -> None:
    """A client imports nothing of the server: the at-limit record is sized from
    ``GET /api/limits`` of the server it attacks."""
    limits = {"max_record_bytes": 40_000, "max_record_draws": 200,
              "max_record_decisions": 150, "max_record_target_score": 200}  # fmt: skip
    paths: list[str] = []

    async def main() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            head = (await reader.readuntil(b"\r\n\r\n")).decode()
            path = head.split()[1]
            paths.append(path)
            body = json.dumps({**limits, "rate_burst": 40}).encode()
            status = "200 OK" if path == "/api/limits" else "404 Not Found"
            if path != "/api/limits":
                body = b'{"detail": {"code": "not_found", "message": "no"}}'
            writer.write(f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                         + body)  # fmt: skip
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        flood = Uploads(
            {"url": f"http://127.0.0.1:{port}", "addresses": 2, "attack": "uploads"},
            FloodFigures(),
        )
        try:
            got = await server_limits(flood, flood.addresses[0])
            assert got == limits
            big = flood._at_limit(limits)
            assert len(big) <= limits["max_record_bytes"] * 0.95
            record = json.loads(big)
            assert len(record["decisions"]) <= limits["max_record_decisions"]
            assert len(record["draws"]) <= limits["max_record_draws"]
            flood.url = flood.url + "/old"  # a server without the endpoint: a note, no limits
            flood._clients.clear()
            assert await server_limits(flood, flood.addresses[0]) is None
            assert any("/api/limits" in note for note in flood.figures.notes)
        finally:
            await flood.close()
            server.close()
            await server.wait_closed()

    asyncio.run(main())
    assert paths == ["/api/limits", "/old/api/limits"]


def test_a_short_real_run(capsys: pytest.CaptureFixture[str]) -> None:
    """A baseline and a small frame flood of 2 s each against one `flip7 serve` (--url: one
    server start instead of two keeps the test short; the victim table's quiet window, not
    asserted here but in test_attack_floods, 2 s instead of 8)."""
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from flip7.client.services import serve_subprocess

    with serve_subprocess(bot_delay=0.05) as server:
        argv = ("--attacks baseline,frames --duration 2 --quiet 2 --frame-sockets 4 --seed 1 "
                "--json")
        status = attack.run(_parser().parse_args([*shlex.split(argv), "--url", server.url]))
    assert server.log_errors() == ()
    data = json.loads(capsys.readouterr().out)
    assert status in (0, 1)  # the figures on a busy machine are not this test's business
    assert data["ok"] is (status == 0)
    assert [row["attack"] for row in data["attacks"]] == ["baseline", "frames"]
    assert data["total_seconds"] > 0 and data["target"]["control_p95_ms"] == 50.0
    baseline, frames = data["attacks"]
    assert baseline["flood"] is None
    for row in data["attacks"]:
        control = row["control"]
        assert control["moves"] > 0, row
        assert control["errors"] == 0, control["first_errors"]
        assert 0 < control["p50_ms"] <= control["p95_ms"] <= control["max_ms"]
        # The slowest move of each second of the 2 s window; the worst of them is the max.
        by_second = row["control_max_by_second_ms"]
        assert len(by_second) == 2
        assert max(v for v in by_second if v is not None) == control["max_ms"]
        assert row["health"]["count"] > 0 and row["health"]["errors"] == 0
    flood = frames["flood"]
    assert flood["addresses"] == ["127.0.0.2", "127.0.0.3"]
    assert flood["sent"] > 0 and flood["answered"] > 0 and flood["server_errors"] == 0
    assert all(not code.startswith("frames: closed 1011") for code in flood["codes"])
