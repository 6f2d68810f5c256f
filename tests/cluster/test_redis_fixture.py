"""The ``redis_server`` / ``redis_url`` fixtures (tests/conftest.py): a logical database of its
own per test, empty; a restart on the same port that loses every key (nothing persisted);
a client that reconnects afterwards, as the server's will."""

from __future__ import annotations

import time

import pytest
from conftest import RedisServer, redis_commands


def test_each_test_gets_an_empty_database_of_its_own(redis_server: RedisServer,
                                                     redis_url: str) -> None:
    host, port = redis_server
    db = int(redis_url.rsplit("/", 1)[1])
    assert redis_url == f"redis://{host}:{port}/{db}"
    assert redis_commands(host, port, ("SELECT", str(db)), ("DBSIZE",)) == [b"+OK", b":0"]
    redis_commands(host, port, ("SELECT", str(db)), ("SET", "k", "v"))
    other = redis_server.fresh_db(db + 1)
    assert other != redis_url
    assert redis_commands(host, port, ("SELECT", str(db + 1)), ("DBSIZE",)) == [b"+OK", b":0"]
    # Flushing one database leaves the others alone.
    assert redis_commands(host, port, ("SELECT", str(db)), ("GET", "k"))[1] == b"$1"


def test_a_restart_keeps_the_port_and_loses_every_key(redis_server: RedisServer,
                                                      redis_url: str) -> None:
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(redis_url, socket_timeout=2,
                                  retry=redis.retry.Retry(redis.backoff.ConstantBackoff(0.1), 20),
                                  retry_on_error=[redis.ConnectionError])  # fmt: skip
    try:
        client.set("k", "v")
        port, pid = redis_server.port, redis_server.proc.pid  # type: ignore[union-attr]
        start = time.monotonic()
        redis_server.restart(down_for=0.3)
        print(f"Redis restarted in {time.monotonic() - start:.2f} s")
        assert redis_server.port == port and redis_server.proc.pid != pid  # type: ignore[union-attr]
        # The old connection is dead; the client's retry reconnects to the new server.
        assert client.get("k") is None
        assert client.ping()
    finally:
        client.close()


def test_down_means_refused_and_start_brings_it_back(redis_server: RedisServer,
                                                     redis_url: str) -> None:
    redis_server.kill()
    assert not redis_server.ping()
    with pytest.raises(OSError):
        redis_commands(redis_server.host, redis_server.port, ("PING",), timeout=0.5)
    # The next test's redis_url starts it again (here: by hand, the same call).
    url = redis_server.fresh_db(int(redis_url.rsplit("/", 1)[1]))
    assert url == redis_url and redis_server.ping()
