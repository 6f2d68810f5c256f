"""Shared test configuration: Hypothesis profiles.

With ``CI=true`` the ``ci`` profile is loaded: derandomized (the same examples on every run) and
without the example database, so a CI run is deterministic.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")


# ---------------------------------------------------------------------- services

import importlib  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

# The services the tests run are the tools' own (flip7.client.services: loopback only).
from flip7.client.services import (  # noqa: E402, F401 - RedisServer, redis_commands re-exported
    PG_BIN,
    REDIS_DATABASES,
    REDIS_SERVER,
    Postgres,
    RedisServer,
    redis_commands,
    which,
)

IN_CI = os.environ.get("CI", "").lower() == "true"


# Seconds the slowest test files take (setup included; `pytest --durations=0` on the 2-core
# VM, 2026-12-03; test_fast.py with its first build of the compiled loop, as in CI). The two
# workers take whole files (--dist loadfile) heaviest first, so that no long file starts last
# while the other worker sits idle. xdist's own order (turned off in the Makefile with
# --no-loadscope-reorder) puts the files with the most tests first, which left the one-test,
# 60-second chaos run for the very end. Only the order depends on these figures.
SLOW_FILES = {
    "test_proxy.py": 100, "test_browser_ux.py": 92, "test_solver.py": 89,
    "test_cluster_chaos.py": 62, "test_fast.py": 57, "test_browser.py": 51,
    "test_cluster_harness.py": 50, "test_clusterbench.py": 49, "test_browser_tutorial.py": 41,
    "test_browser_scorecard.py": 38, "test_cluster_failover.py": 30,
    "test_browser_players.py": 29, "test_browser_table_life.py": 28,
    "test_browser_chat.py": 28, "test_cluster.py": 27, "test_server_kill.py": 25,
    "test_server_abuse.py": 25, "test_browser_invite.py": 24, "test_browser_coach.py": 22,
    "test_browser_learn.py": 21, "test_server_persistence.py": 21, "test_browser_i18n.py": 20,
    "test_server_store.py": 15, "test_coach.py": 15, "test_server_coach.py": 14,
    "test_server_chat_live.py": 14, "test_browser_livekeeper.py": 14,
    "test_server_scorecard.py": 14, "test_server_ratings.py": 13,
    "test_browser_lobby_levels.py": 12, "test_properties.py": 12,
    "test_learned.py": 12, "test_server_replays.py": 11, "test_advisor.py": 10,
    "test_js_protocol.py": 16, "test_attack_floods.py": 95, "test_attack.py": 30,
    "test_cluster_budgets.py": 40, "test_server_bot_shares.py": 20,
    "test_server_table_ceilings.py": 15, "test_server_rating_farms.py": 15,
    "test_browser_break.py": 25, "test_browser_axe.py": 77, "test_browser_turn_based.py": 30,
    "test_server_turn_based.py": 15, "test_browser_keyboard.py": 14,
    "test_browser_push.py": 12, "test_browser_email.py": 12,
}


# The files whose tests use Chromium (the ``chromium_browser`` fixture), found at collection.
BROWSER_FILES: set[Path] = set()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    BROWSER_FILES.update(i.path for i in items if "chromium_browser" in i.fixturenames)
    # A stable sort: each file's tests stay together and in their order. The browser files
    # come first, one after the other, so that each worker runs its share of them in a row
    # with one Chromium (SharedChromium): a worker takes the next file as it ends one.
    items.sort(key=lambda item: (item.path not in BROWSER_FILES,
                                 -SLOW_FILES.get(item.path.name, 0)))  # fmt: skip


def missing(what: str) -> None:
    """Skip a test whose service is not installed, except in CI where it must run."""
    if IN_CI:
        pytest.fail(f"{what} is required when CI=true")
    pytest.skip(f"{what} is not available")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Postgres]:
    """A throwaway PostgreSQL cluster (initdb + postgres on a free loopback port), the one
    ``flip7 cluster-bench`` starts (flip7.client.services.Postgres)."""
    if not (PG_BIN / "initdb").exists():
        missing(f"PostgreSQL ({PG_BIN / 'initdb'})")
    server = Postgres(PG_BIN).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def _database(pg_server: Postgres) -> Iterator[str]:
    name = pg_server.create_database("t_")
    yield pg_server.url(name)
    pg_server.drop_database(name)


@pytest.fixture
def pg_url(pg_server: Postgres) -> Iterator[str]:
    """A fresh empty PostgreSQL database for one test, as a ``postgresql://`` URL."""
    with _database(pg_server) as url:
        yield url


@pytest.fixture(scope="module")
def module_pg_url(pg_server: Postgres) -> Iterator[str]:
    """A fresh empty PostgreSQL database shared by a file's tests (for a fixture of that
    scope, such as a cluster started once for the file)."""
    with _database(pg_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on an SQLite file and on a real PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'flip7.db'}"
    return str(request.getfixturevalue("pg_url"))


# ---------------------------------------------------------------- Debian's Chromium (Playwright)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = CHROMIUM if os.path.isabs(CHROMIUM) else shutil.which(CHROMIUM)
    if not path or not os.access(path, os.X_OK):
        missing(f"chromium not found at {CHROMIUM!r} (set CHROMIUM)")
    assert path is not None
    return path


# How long a browser test waits for a page, both for actions and for ``expect``'s
# assertions (whose own default, 5 s, is too short on the 2-core CI machine: three pages
# catching up with a game the test played at full speed over WebSockets took just over 5 s).
BROWSER_TIMEOUT_MS = 15_000


class SharedChromium:
    """One Playwright driver and Chromium for consecutive browser files (starting them took
    a few seconds a file on the CI machine). While Playwright's sync API is up, the thread
    has a running event loop and ``asyncio.run`` refuses to start: so it is stopped before
    any test of another file that does not use the browser (:func:`pytest_runtest_setup`)."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None
        self.file: Path | None = None  # the file of the last test that had it

    def browser(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        self.stop()
        path = chromium_path()
        try:
            from playwright.sync_api import expect, sync_playwright
        except ImportError:
            missing("playwright is not installed")
        expect.set_options(timeout=BROWSER_TIMEOUT_MS)
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        return self._browser

    def stop(self) -> None:
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


SHARED_CHROMIUM = SharedChromium()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # A file's own tests keep the browser to the file's end, as a fixture of the file would.
    if item.path != SHARED_CHROMIUM.file and "chromium_browser" not in item.fixturenames:
        SHARED_CHROMIUM.stop()


def pytest_sessionfinish() -> None:
    SHARED_CHROMIUM.stop()


@pytest.fixture(scope="module")
def chromium_browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Chromium for the file's tests; each gets fresh contexts (browser_helpers.new_page),
    and the file's are closed at its end, so that the next file starts with none."""
    SHARED_CHROMIUM.file = request.path
    browser = SHARED_CHROMIUM.browser()
    yield browser
    if browser.is_connected():
        for context in browser.contexts:
            context.close()


# ---------------------------------------------------------------------- Redis


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A ``redis-server`` for the session, on a free loopback port (``.host``, ``.port``,
    ``.url(db)``, ``.stop()``, ``.kill()``, ``.start()``, ``.restart()``)."""
    if which(REDIS_SERVER) is None:
        missing("redis-server")
    workdir = Path(tempfile.mkdtemp(prefix="redistest-", dir="/tmp"))
    server = RedisServer(workdir)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


_redis_dbs = itertools.count()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """``redis://127.0.0.1:PORT/N``: a logical database of its own for this test, empty.
    The server is started again first if an earlier test left it stopped."""
    return redis_server.fresh_db(next(_redis_dbs) % REDIS_DATABASES)


@pytest.fixture(scope="module")
def module_redis_url(redis_server: RedisServer) -> str:
    """The same, shared by a file's tests (as :func:`module_pg_url`)."""
    return redis_server.fresh_db(next(_redis_dbs) % REDIS_DATABASES)


def require(module: str) -> Any:
    """Import an optional dependency (an extra such as ``fast`` or ``gymnasium``): skip the test
    when it is not installed, except in CI, where ``make test`` installs every extra it tests."""
    try:
        return importlib.import_module(module)
    except ImportError:
        missing(f"the Python package {module!r}")
        raise


SRC = Path(__file__).resolve().parents[1] / "src"


def python_json(code: str, **env: str | None) -> Any:
    """Run ``code`` in a new interpreter with this checkout's ``src`` first on its path and
    return what it printed, read as JSON. ``env``: variables to set, or (None) to unset."""
    environ = dict(os.environ)
    environ["PYTHONPATH"] = os.pathsep.join([str(SRC), environ.get("PYTHONPATH", "")])
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=True
    )
    return json.loads(out.stdout)
