"""The throwaway services (flip7.client.services) where the fixtures do not reach: a server
that does not come up says why, and a stopped server's log outlives its folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from flip7.client.services import ServerProcess, ServiceError, serve_subprocess


def test_a_server_that_does_not_start_says_why(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess("nosuchdb://x", log_path=log, startup_timeout=60)
    with pytest.raises(ServiceError) as failed:
        server.start()
    assert "flip7 serve exited with status" in str(failed.value)
    assert not server.running
    assert log.read_text().startswith("--- serve --host 127.0.0.1 --port ")
    # Without a log file its output comes from the pipe.
    piped = ServerProcess("nosuchdb://x", startup_timeout=60)
    with pytest.raises(ServiceError) as failed_too:
        piped.start()
    assert "nosuchdb" in str(failed_too.value)


def test_the_log_of_a_stopped_server_outlives_its_folder() -> None:
    pytest.importorskip("fastapi")
    with serve_subprocess(extra_args=["--log-level", "info"]) as server:
        folder = server.log_path
        assert server.running
    assert folder is not None and not folder.exists()
    assert not server.running
    assert "--- serve --host 127.0.0.1" in server.log_text()
