"""The operator's Prometheus metrics (``flip7 serve --metrics HOST:PORT``,
flip7.server.api.metrics): on an address of their own, never the players' port; moves
by people and bots, the move's and the commit's seconds, tables, sockets and the bot
pool, as a scrape reads them from a real server."""

from __future__ import annotations

import random
import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("prometheus_client")

import httpx
from server_helpers import ServerProcess, SyncSocket, WsPlayer, auth, choose, free_port

from flip7.cli import main


def _value(text: str, name: str) -> float:
    """A sample's value in a scrape's text (``name`` with its labels, if any)."""
    found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert found is not None, f"{name} not in the scrape:\n{text}"
    return float(found.group(1))


def test_a_scrape_counts_the_moves_commits_tables_and_sockets(tmp_path: object) -> None:
    port = free_port()
    server = ServerProcess(f"sqlite:///{tmp_path}/m.db", seed=3,
                           extra_args=["--metrics", f"127.0.0.1:{port}"]).start()
    try:
        metrics = f"http://127.0.0.1:{port}/metrics"
        before = httpx.get(metrics, timeout=5).text
        assert _value(before, "flip7_tables") == 0 and _value(before, "flip7_sockets") == 0
        assert 'flip7_moves_total{by="human"}' not in before
        with httpx.Client(base_url=server.url, timeout=10) as client:
            assert client.get("/metrics").status_code == 404  # not on the players' port
            made = client.post("/api/tables", json={"player": "Ann", "seats": 3})
            table_id, token = made.json()["table"]["id"], made.json()["token"]
            for _ in range(2):
                client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                            headers=auth(token))  # fmt: skip
            socket = SyncSocket(server.url.replace("http", "ws") + f"/ws/tables/{table_id}")
            player = WsPlayer(socket, None, token)
            player.hello()
            assert client.post(f"/api/tables/{table_id}/start",
                               headers=auth(token)).status_code == 200  # fmt: skip
        rng, moves = random.Random(5), 0
        while moves < 4 and not player.settle()["game"]["over"]:
            assert player.move(choose(player.state["game"], rng))["type"] == "result"
            moves += 1
        text = httpx.get(metrics, timeout=5).text
        socket.close()
    finally:
        server.stop()
    assert _value(text, 'flip7_moves_total{by="human"}') == moves
    assert _value(text, 'flip7_moves_total{by="bot"}') >= 1
    counted = _value(text, 'flip7_moves_total{by="human"}') + _value(
        text, 'flip7_moves_total{by="bot"}')
    assert _value(text, "flip7_move_seconds_count") == counted
    assert _value(text, 'flip7_move_seconds_bucket{le="+Inf"}') == counted
    assert _value(text, "flip7_database_commits_total") >= 1
    assert _value(text, "flip7_database_writes_total") >= _value(
        text, "flip7_database_commits_total")
    assert _value(text, "flip7_tables") == 1 and _value(text, "flip7_sockets") == 1
    assert _value(text, "flip7_bot_workers") >= 1 and _value(text, "flip7_bot_queue") == 0
    assert "flip7_cluster_linked_sockets" not in text  # one process


def test_serve_refuses_a_bad_or_busy_metrics_address(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--metrics", "localhost"]) == 2
    assert "--metrics: metrics are served on HOST:PORT" in capsys.readouterr().err
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(free_port()), "--metrics",
                     f"127.0.0.1:{port}"]) == 2  # fmt: skip
    assert "--metrics: " in capsys.readouterr().err


def test_a_cluster_process_says_its_links_remote_sockets_and_redis() -> None:
    from flip7.server.api.metrics import Metrics, Reading

    metrics = Metrics()
    metrics.watch(lambda: Reading(tables=3, sockets=7, bot_workers=2, bots_waiting=1,
                                  bots_thinking=2, bot_worker_seconds=1.5, stand_ins=4,
                                  cluster_linked=2, cluster_remote=5,
                                  cluster_redis_up=False, fenced_writes=6,
                                  cluster_takeovers=8, cluster_links_moved=9,
                                  cluster_tables_lost=10))  # fmt: skip
    text = metrics.text()
    for sample, value in (("flip7_cluster_linked_sockets", 2), ("flip7_cluster_remote_sockets", 5),
                          ("flip7_cluster_redis_up", 0), ("flip7_bot_queue", 1),
                          ("flip7_database_writes_fenced_total", 6),
                          ("flip7_cluster_takeovers_total", 8),
                          ("flip7_cluster_links_moved_total", 9),
                          ("flip7_cluster_tables_lost_total", 10),
                          ("flip7_bot_worker_seconds_total", 1.5),
                          ("flip7_bot_stand_ins_total", 4)):  # fmt: skip
        assert _value(text, sample) == value, sample


def test_a_cluster_process_says_where_the_tables_are_and_its_handovers() -> None:
    from flip7.server.api.metrics import Metrics, Reading

    metrics = Metrics()
    metrics.watch(lambda: Reading(tables=3, sockets=0, bot_workers=2, bots_waiting=0,
                                  bots_thinking=0, bot_worker_seconds=0.0, stand_ins=0,
                                  cluster_linked=0, cluster_remote=0, cluster_redis_up=True,
                                  cluster_processes=(("a1@1/2", 3), ("b2@2/2", 5)),
                                  cluster_misplaced=1, cluster_handovers_given=4,
                                  cluster_handovers_received=2))  # fmt: skip
    text = metrics.text()
    for sample, value in (('flip7_cluster_process_tables{process="a1@1/2"}', 3),
                          ('flip7_cluster_process_tables{process="b2@2/2"}', 5),
                          ("flip7_cluster_tables_misplaced", 1),
                          ("flip7_cluster_handovers_given_total", 4),
                          ("flip7_cluster_handovers_received_total", 2)):  # fmt: skip
        assert _value(text, sample) == value, sample
