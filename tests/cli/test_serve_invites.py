"""Invites that work, and names told apart (issue 14).

``flip7 serve`` takes a host, a port and a public URL (and ``make serve HOST= PORT=`` passes
them on); a busy port is one line and exit status 2; the server says where friends can reach
it, and ``GET /api/server`` tells the invite panel. Names are counted in characters, refused
rather than cut, and a look-alike of a seated name is taken.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import ServerProcess, app_client, auth, free_port

from flip7.server.api.startup import (
    PortUnavailable,
    address_lines,
    bind_listener,
    is_loopback,
    reachable_urls,
)
from flip7.server.base.settings import PublicUrlError, Settings, public_url

ROOT = Path(__file__).resolve().parents[2]


def _serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FLIP7_DATABASE_URL",
                                                            "FLIP7_PUBLIC_URL")}
    return subprocess.run([sys.executable, "-m", "flip7", "serve", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


# ---------------------------------------------------------------------- the port


def test_a_busy_port_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        db = tmp_path / "flip7.db"
        done = _serve("--port", str(port), "--db", str(db))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"flip7 serve: error: port {port} on 127.0.0.1 is already in use; stop the other "
        f"server or choose another port: make serve PORT={port + 1} "
        f"(or flip7 serve --port {port + 1})"
    ]
    assert "Traceback" not in done.stderr + done.stdout
    # Refused before the database: no file made, no lease left behind for the next try.
    assert not db.exists()


def test_bind_listener_says_what_is_wrong() -> None:
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        with pytest.raises(PortUnavailable, match=f"port {port} on 127.0.0.1 is already in use"):
            bind_listener("127.0.0.1", port)
    # An address that is not this machine's (a documentation address).
    with pytest.raises(PortUnavailable, match=r"not an address of this machine.*HOST=0\.0\.0\.0"):
        bind_listener("198.51.100.7", free_port())
    sock = bind_listener("127.0.0.1", free_port())
    try:
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_serve_refuses_a_bad_public_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    from flip7.cli import main

    for bad, words in (("ftp://x.org", "http(s)://"), ("https://", "must name a host"),
                       ("https://u:pw@x.org", "user or password"),
                       ("https://x.org/?a=1", "?query")):
        assert main(["serve", "--public-url", bad, "--db", str(tmp_path / "db")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("flip7 serve: error: --public-url:") and words in err, err
    assert not (tmp_path / "db").exists()


def test_serve_refuses_a_push_contact_that_is_no_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from flip7.cli import main

    assert main(["serve", "--push-contact", "ann@example.org", "--db",
                 str(tmp_path / "db")]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.startswith("flip7 serve: error: --push-contact:") and "mailto:" in err, err
    assert not (tmp_path / "db").exists()


def test_public_url_is_normalised() -> None:
    assert public_url("  https://flip7.example.org/games/ ") == "https://flip7.example.org/games"
    assert public_url("") is None
    with pytest.raises(PublicUrlError, match="at most 2000"):
        public_url("https://x.org/" + "a" * 2000)


# ---------------------------------------------------------------------- where friends reach it


def test_loopback_hosts_and_reachable_urls() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.9.9.9") and is_loopback("::1")
    assert is_loopback("localhost") and is_loopback("LOCALHOST.") and is_loopback("a.localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::")
    assert not is_loopback("192.168.1.20")
    assert reachable_urls("127.0.0.1", 8000) == ()
    assert reachable_urls("192.168.1.20", 8080) == ("http://192.168.1.20:8080",)
    for url in reachable_urls("0.0.0.0", 8000):
        host = url.removeprefix("http://").rsplit(":", 1)[0]
        assert url.endswith(":8000") and not is_loopback(host) and not host.startswith("169.254.")
        assert ":" not in host  # 0.0.0.0 is IPv4 only
    for url in reachable_urls("::", 8000):
        assert "[::1]" not in url and "127." not in url and "[fe80" not in url


def test_address_lines_tell_the_operator_what_to_do() -> None:
    (line,) = address_lines(Settings(), 8000)
    assert "only this machine can open http://127.0.0.1:8000" in line
    assert "make serve HOST=0.0.0.0" in line and "flip7 serve --host 0.0.0.0" in line
    lan = Settings(host="0.0.0.0", reachable_urls=("http://192.168.1.20:8000",))
    (line,) = address_lines(lan, 8000)
    assert "friends on your network can open http://192.168.1.20:8000" in line
    (line,) = address_lines(Settings(host="0.0.0.0"), 8000)
    assert "no network address of this machine was found" in line
    public = address_lines(Settings(public_url="https://flip7.example.org"), 8000)
    assert "invite links start with the public URL https://flip7.example.org" in public[0]


def test_serve_on_every_network_prints_the_addresses_and_api_server_tells_them(
    tmp_path: Path,
) -> None:
    import httpx

    server = ServerProcess(f"sqlite:///{tmp_path / 'db.sqlite'}",
                           extra_args=["--host", "0.0.0.0"]).start()
    try:
        info = httpx.get(server.url + "/api/server", timeout=5).json()
    finally:
        server.stop()
    assert server.proc is not None and server.proc.stdout is not None
    log = server.proc.stdout.read().decode()
    assert f"flip7 serving on http://0.0.0.0:{server.port}" in log
    assert info["loopback_only"] is False and info["public_url"] is None
    assert info["addresses"] == list(reachable_urls("0.0.0.0", server.port))
    if info["addresses"]:
        assert "friends on your network can open " + ", ".join(info["addresses"]) in log
    else:
        assert "no network address of this machine was found" in log
    assert "Traceback" not in log


def test_serve_on_loopback_says_only_this_machine(tmp_path: Path) -> None:
    server = ServerProcess(f"sqlite:///{tmp_path / 'db.sqlite'}",
                           extra_args=["--public-url", "https://flip7.example.org/"]).start()
    try:
        import httpx

        info = httpx.get(server.url + "/api/server", timeout=5).json()
    finally:
        server.stop()
    assert server.proc is not None and server.proc.stdout is not None
    log = server.proc.stdout.read().decode()
    assert f"only this machine can open http://127.0.0.1:{server.port}" in log
    assert "invite links start with the public URL https://flip7.example.org" in log
    assert info == {"public_url": "https://flip7.example.org", "addresses": [],
                    "loopback_only": True, "email": False}


def test_api_server_never_reads_the_host_header(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        plain = client.get("/api/server")
        assert plain.status_code == 200
        assert plain.json() == {"public_url": None, "addresses": [], "loopback_only": True,
                                "email": False}
        forged = client.get("/api/server", headers={"Host": "evil.example",
                                                     "X-Forwarded-Host": "evil.example"})
        assert forged.json() == plain.json()
        assert "/api/server" in client.get("/openapi.json").json()["paths"]
    with app_client(tmp_path / "db2.sqlite", host="0.0.0.0",
                    reachable_urls=("http://192.168.1.20:8000",),
                    public_url="https://flip7.example.org") as client:
        assert client.get("/api/server").json() == {
            "public_url": "https://flip7.example.org",
            "addresses": ["http://192.168.1.20:8000"], "loopback_only": False,
            "email": False}


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_serve_passes_host_and_port_through() -> None:
    def serve_line(*assignments: str, **environ: str) -> str:
        env = {k: v for k, v in os.environ.items() if k not in ("HOST", "PORT", "PUBLIC_URL")}
        env.update(environ)
        out = subprocess.run(["make", "-n", "-C", str(ROOT), "serve", *assignments],
                             capture_output=True, text=True, timeout=30, env=env).stdout
        (line,) = [x for x in out.splitlines() if "flip7 serve" in x]
        return line

    assert serve_line("HOST=0.0.0.0", "PORT=8080").endswith(
        "flip7 serve --host '0.0.0.0' --port '8080'")
    assert serve_line("PUBLIC_URL=https://flip7.example.org").endswith(
        "--port '8000' --public-url 'https://flip7.example.org'")
    # Loopback and port 8000 by default; the environment may set them too (HOST ?= …).
    assert serve_line().endswith("flip7 serve --host '127.0.0.1' --port '8000'")
    assert serve_line(HOST="0.0.0.0", PORT="8080").endswith(
        "flip7 serve --host '0.0.0.0' --port '8080'")


# ---------------------------------------------------------------------- names


def _create(client: Any, player: str, name: str = "Friday") -> Any:
    return client.post("/api/tables", json={"name": name, "player": player})


def test_names_are_counted_in_characters_and_refused_not_cut(tmp_path: Path) -> None:
    most = Settings().player_name_chars
    with app_client(tmp_path / "db.sqlite") as client:
        limits = client.get("/api/limits").json()
        assert limits["player_name_chars"] == most
        assert limits["table_name_chars"] == Settings().table_name_chars
        made = _create(client, "🎉Ann")
        assert made.status_code == 201
        assert made.json()["table"]["seats"][0]["name"] == "🎉Ann"  # stored whole
        # As many emoji as the limit: twice as many UTF-16 units, still accepted.
        full = _create(client, "🎉" * most)
        assert full.status_code == 201 and full.json()["table"]["seats"][0]["name"] == "🎉" * most
        over = _create(client, "🎉" * (most + 1))
        assert over.status_code == 400
        detail = over.json()["detail"]
        assert detail["code"] == "bad_name"
        assert f"at most {most} characters" in detail["message"]
        assert f"has {most + 1}" in detail["message"]
        long_table = _create(client, "Ann", name="x" * (Settings().table_name_chars + 1))
        assert long_table.status_code == 400 and "table name" in long_table.json()["detail"][
            "message"]
        for bad in ("   ", "Ann\u202e", "\u200d\u200d"):
            refused = _create(client, bad)
            assert refused.status_code == 400 and refused.json()["detail"]["code"] == "bad_name"
        table_id = made.json()["table"]["id"]
        joined = client.post(f"/api/tables/{table_id}/join", json={"player": "  Bob   Lee "})
        assert joined.status_code == 200
        assert [s["name"] for s in joined.json()["table"]["seats"][:2]] == ["🎉Ann", "Bob Lee"]
        too_long = client.post(f"/api/tables/{table_id}/join", json={"player": "é" * (most + 1)})
        assert too_long.status_code == 400 and too_long.json()["detail"]["code"] == "bad_name"


def test_the_name_limits_are_the_operators(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite", player_name_chars=3) as client:
        assert client.get("/api/limits").json()["player_name_chars"] == 3
        assert _create(client, "Ann").status_code == 201
        assert _create(client, "Anna").json()["detail"]["code"] == "bad_name"


def test_a_look_alike_of_a_seated_name_is_taken(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        made = _create(client, "Ann")
        table_id = made.json()["table"]["id"]
        join = f"/api/tables/{table_id}/join"
        for look_alike in ("\u0410nn", "ANN", "Ａｎｎ", "\u0391nn"):  # Cyrillic А, Greek Α
            taken = client.post(join, json={"player": look_alike})
            assert taken.status_code == 409, look_alike
            detail = taken.json()["detail"]
            assert detail["code"] == "name_taken" and "'Ann'" in detail["message"]
        same = client.post(join, json={"player": "Ann"}).json()["detail"]
        assert same["message"] == "someone at this table is already called 'Ann'"
        assert client.post(join, json={"player": "Anna"}).status_code == 200


def test_a_bot_takes_a_name_no_one_can_mistake(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        made = _create(client, "Basic bot l")  # a small L: reads as "Basic bot 1"
        table_id, token = made.json()["table"]["id"], made.json()["token"]
        added = client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                            headers=auth(token))
        assert added.status_code == 200, added.text
        assert added.json()["table"]["seats"][1]["name"] == "Basic bot 2"
