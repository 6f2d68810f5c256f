"""The database under a running server (issue 12, findings 6 and 7): one server per
database (the lease), and an SQLite file that is deleted, replaced, read-only or full."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

import sqlalchemy as sa
from server_helpers import (
    ServerProcess,
    WsPlayer,
    app_client,
    choose,
    decider,
    free_port,
    services_of,
    started,
)

from flip7.server.base.settings import database_url
from flip7.server.store.database import Store, server_lease
from flip7.server.store.lease import DatabaseInUse, process_identity

HOST = socket.gethostname()


def _fake_lease(db_url: str, **row: Any) -> None:
    """Put a lease row of some other server into the database (migrated first)."""

    async def put() -> None:
        store = await Store.open(database_url(db_url))
        try:
            now = datetime.now(UTC)
            values = {"name": "server", "holder": "someone-else", "host": "elsewhere",
                      "pid": 4242, "process": None, "started": now - timedelta(hours=1),
                      "expires_at": now + timedelta(seconds=60), **row}  # fmt: skip
            async with store.engine.begin() as conn:
                await conn.execute(server_lease.delete())
                await conn.execute(server_lease.insert().values(**values))
        finally:
            await store.close()

    asyncio.run(put())


def _lease_row(db_url: str) -> dict[str, Any] | None:
    async def get() -> dict[str, Any] | None:
        store = await Store.open(database_url(db_url))
        try:
            async with store.engine.connect() as conn:
                row = (await conn.execute(server_lease.select())).first()
        finally:
            await store.close()
        return None if row is None else dict(row._mapping)

    return asyncio.run(get())


# ---------------------------------------------------------------------- the lease


def test_a_second_server_on_one_database_is_refused_until_the_first_exits(db_url: str) -> None:
    with app_client(db_url) as first:
        assert first.get("/api/health").json()["status"] == "ok"
        row = _lease_row(db_url)
        assert row is not None and row["pid"] == os.getpid() and row["host"] == HOST
        with pytest.raises(DatabaseInUse) as refused, app_client(db_url):
            pass
        message = str(refused.value)
        assert message.startswith(f"another flip7 server (pid {os.getpid()} on host {HOST}, since ")
        assert "is using this database; stop it first, or wait " in message
        assert first.get("/api/health").json()["status"] == "ok"  # the first one is unharmed
    assert _lease_row(db_url) is None  # released on exit
    with app_client(db_url) as third:
        assert third.get("/api/health").json()["status"] == "ok"


def test_a_live_lease_of_another_host_refuses_and_an_expired_one_is_taken(db_url: str) -> None:
    _fake_lease(db_url)
    refused = pytest.raises(DatabaseInUse, match=r"\(pid 4242 on host elsewhere, since .*wait 60 s")
    with refused, app_client(db_url):
        pass
    _fake_lease(db_url, expires_at=datetime.now(UTC) - timedelta(seconds=1))
    with app_client(db_url) as client:
        assert client.get("/api/health").json()["status"] == "ok"
        row = _lease_row(db_url)
        assert row is not None and (row["pid"], row["host"]) == (os.getpid(), HOST)


def test_a_crashed_holder_on_this_host_is_taken_over_at_once(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'flip7.db'}"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _fake_lease(db, host=HOST, pid=dead.pid)  # not expired, but its process is gone
    with app_client(db) as client:
        assert client.get("/api/health").json()["status"] == "ok"
    # pid 1 is alive, but is not the process that took the lease (another start time).
    assert process_identity(1) is not None
    _fake_lease(db, host=HOST, pid=1, process="some-boot/1234")
    with app_client(db) as client:
        assert client.get("/api/health").json()["status"] == "ok"
    # The same pid and process: alive, refused.
    _fake_lease(db, host=HOST, pid=1, process=process_identity(1))
    with pytest.raises(DatabaseInUse, match=r"\(pid 1 on host"), app_client(db):
        pass


def test_a_lost_lease_stops_acknowledging_moves(tmp_path: Path) -> None:
    db = tmp_path / "flip7.db"
    url = f"sqlite:///{db}"
    with _game(db, seed=3, lease_seconds=0.3) as (client, players):
        _steal(url, datetime.now(UTC))
        deadline = time.monotonic() + 10
        while "took over" not in str((health := client.get("/api/health")).json()["problem"]):
            assert time.monotonic() < deadline, "the lost lease was never noticed"
            time.sleep(0.05)
        assert health.status_code == 503
        body = health.json()
        assert body["status"] == "error"
        assert body["problem"].startswith(
            "another flip7 server (pid 4242 on host elsewhere, since "
        )
        assert "took over this server's database lease" in body["problem"]
        _refused(players, url)
    row = _lease_row(url)  # the new holder's lease is left alone on exit
    assert row is not None and row["holder"] == "thief"


@contextmanager
def _game(db: Path, **settings: Any) -> Iterator[tuple[Any, list[WsPlayer]]]:
    """A game of three humans under way on the SQLite file ``db``: the client, the players."""
    with app_client(db, **settings) as client, ExitStack() as stack:
        _, players = started(client, stack, humans=3)
        yield client, players


def _unhealthy(client: Any) -> dict[str, Any]:
    """The health check's body, which must come with a 503."""
    health = client.get("/api/health")
    assert health.status_code == 503, health.text
    body: dict[str, Any] = health.json()
    return body


def _steal(url: str, now: datetime) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(server_lease.update().values(
            holder="thief", host="elsewhere", pid=4242, started=now,
            expires_at=now + timedelta(seconds=60)))  # fmt: skip
    engine.dispose()


def _stored_versions(url: str) -> int:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        count = conn.exec_driver_sql("SELECT count(*) FROM table_log").scalar_one()
    engine.dispose()
    return int(count)


def _refused(players: list[WsPlayer], url: str | None) -> None:
    """The next move is answered with server_error (not acknowledged) and not stored."""
    before = None if url is None else _stored_versions(url)
    mover, _ = decider(players)
    answer = mover.move(choose(mover.state["game"], random.Random(1)))
    assert answer["type"] == "error" and answer["code"] == "server_error", answer
    if url is not None:
        assert _stored_versions(url) == before


def test_flip7_serve_announces_a_new_database_and_refuses_a_second_server(
    tmp_path: Path,
) -> None:
    db = tmp_path / "data" / "flip7.db"
    db.parent.mkdir()
    server = ServerProcess(str(db)).start()
    try:
        second = subprocess.run(
            [sys.executable, "-m", "flip7", "serve", "--port", str(free_port()), "--db",
             str(db), "--log-level", "warning"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert second.returncode == 2, second.stderr
        assert second.stderr.startswith(
            f"flip7 serve: error: another flip7 server (pid {server.proc.pid} on host {HOST}, "
        ), second.stderr
        assert "is using this database; stop it first, or wait " in second.stderr
        assert "Traceback" not in second.stderr and second.stdout == ""
    finally:
        server.stop()
    assert server.proc is not None and server.proc.stdout is not None
    first_log = server.proc.stdout.read().decode()
    assert f"flip7: creating a new database at {db}\n" in first_log
    assert '"event":"database_created"' in first_log  # and the warning in the JSON log
    assert _lease_row(f"sqlite:///{db}") is None  # released on a clean exit (SIGTERM)


# ---------------------------------------------------------------------- the SQLite file


def test_deleting_the_live_sqlite_file_is_reported_and_moves_are_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "flip7.db"
    with _game(db, seed=4) as (client, players):
        db.unlink()
        health = _unhealthy(client)
        assert health["status"] == "error"
        assert health["problem"] == f"the database file {db.resolve()} was deleted"
        _refused(players, None)
        # Writes outside the tables are refused with a clear 503 too, never a 500.
        upload = client.post("/api/replays", content=b"{}")
        assert upload.status_code in (400, 503)
        card = client.post(
            "/api/scorecards", json={"name": "Friday", "players": ["Ann", "Bob", "Cyd"]}
        )
        assert card.status_code == 503, card.text
        assert card.json()["detail"]["code"] == "server_error"
        assert not db.exists()  # nothing recreated an empty database in its place


def test_replacing_the_live_sqlite_file_is_reported_and_moves_are_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "flip7.db"
    with _game(db, seed=5) as (client, players):
        shutil.copy(db, tmp_path / "copy.db")
        os.replace(tmp_path / "copy.db", db)
        assert _unhealthy(client)["problem"] == (
            f"the database file {db.resolve()} was replaced by another file"
        )
        _refused(players, f"sqlite:///{db}")


def test_a_read_only_sqlite_file_is_reported(tmp_path: Path) -> None:
    db = tmp_path / "flip7.db"
    with app_client(db) as client:
        mode = db.stat().st_mode
        db.chmod(stat.S_IRUSR | stat.S_IRGRP)
        try:
            problem = _unhealthy(client)["problem"]
        finally:
            db.chmod(mode)
        assert problem == f"the database file {db.resolve()} is read-only"
        assert client.get("/api/health").status_code == 200


def test_a_nearly_full_disk_and_a_full_database_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "flip7.db"
    with app_client(db, tables_burst=1000, tables_per_minute=1000.0) as client:
        import flip7.server.store.dbfile

        monkeypatch.setattr(flip7.server.store.dbfile, "LOW_DISK_BYTES", 2**62)
        assert _unhealthy(client)["problem"].startswith(
            f"the disk holding the database file {db.resolve()} is full ("
        )
        monkeypatch.undo()
        assert client.get("/api/health").status_code == 200

        # A database that cannot grow: SQLite answers "database or disk is full".
        store = services_of(client).lobby.store

        def cap(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA page_count")
            pages = cursor.fetchone()[0]
            cursor.execute(f"PRAGMA max_page_count = {pages}")
            cursor.close()

        sa.event.listen(store.write_engine.pool, "checkout", cap)
        body = {"name": "x" * 40, "player": "Ann", "seats": 6}
        for _ in range(300):
            answer = client.post("/api/tables", json=body)
            if answer.status_code != 201:
                break
        assert answer.status_code == 503, answer.text
        assert answer.json()["detail"]["code"] == "server_error"
        assert _unhealthy(client)["problem"] == (
            "the database is full: a write failed (database or disk is full)"
        )
        sa.event.remove(store.write_engine.pool, "checkout", cap)


def test_a_new_database_is_announced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from flip7.server.api.startup import prepare_database
    from flip7.server.base.settings import Settings

    db = tmp_path / "new.db"
    settings = Settings(database_url=database_url(str(db)))
    assert prepare_database(settings) == [f"flip7: creating a new database at {db}"]
    assert any("creating a new database at" in r.getMessage() and r.levelname == "WARNING"
               for r in caplog.records)  # fmt: skip
    # The lease is reserved for this process's app, which adopts it...
    with app_client(db) as client:
        assert client.get("/api/health").json()["status"] == "ok"
    # ...and released on its exit; the next look says which database it is.
    assert prepare_database(settings) == [f"flip7: using the database {db} (SQLite)"]
    with app_client(db):
        pass


# ---------------------------------------------------------------------- where commits run


def test_commits_and_the_health_check_run_off_the_servers_event_loop(tmp_path: Path) -> None:
    """A commit's round trips (BEGIN, each statement, COMMIT) run as blocking code on a
    thread of their own (store/committer.py), not on the server's loop, whose turns a
    flood lengthens: in a spectators' flood a move's commit had paid a long turn four or
    five times over. The health check asks the same connection; an in-memory database
    keeps one engine on the loop (a second engine would open another, empty database)."""
    import threading

    async def scenario(url: str) -> tuple[set[str], str | None]:
        store = await Store.open(url)
        seen: set[str] = set()

        def note(*_args: Any) -> None:
            seen.add(threading.current_thread().name)

        sa.event.listen(store.write_engine, "before_cursor_execute", note)
        try:
            await store.add_replay("r1", "{}", datetime.now(UTC))
            problem = await store.check()
        finally:
            sa.event.remove(store.write_engine, "before_cursor_execute", note)
            await store.close()
        return seen, problem

    on_file = asyncio.run(scenario(database_url(str(tmp_path / "db.sqlite"))))
    assert on_file == ({"flip7-store-commits"}, None)
    in_memory = asyncio.run(scenario("sqlite+aiosqlite:///:memory:"))
    assert in_memory == ({threading.current_thread().name}, None)
