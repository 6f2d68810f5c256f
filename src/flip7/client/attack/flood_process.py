"""A flood in its own process, so that its event loop never delays the control clients'
clocks, at a lower CPU priority (``nice``: a real attacker's CPU is another machine's):
:class:`FloodProcess` starts and reads it, :func:`flood_main` is the process."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flip7.client.attack.figures import FloodFigures
from flip7.client.attack.floods import FLOODS
from flip7.client.options import loop_factory
from flip7.client.services import python_env
from flip7.core.machine import lower_priority

SETUP_LIMIT = 90.0  # seconds a flood may take to get ready
FLOOD_NICE = 10


class FloodProcess:
    """A flood in its own process: it prints ``READY`` once set up and ``RESULT {json}`` at
    the end; its standard error goes to a file whose tail is kept if it fails."""

    def __init__(self, process: asyncio.subprocess.Process, stderr: Path) -> None:
        self.process = process
        self.stderr = stderr

    @classmethod
    async def spawn(cls, config: dict[str, Any], folder: Path) -> FloodProcess:
        stderr = folder / f"flood-{config['attack']}.log"
        with stderr.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "from flip7.client.attack.flood_process import flood_main; "
                "raise SystemExit(flood_main())",
                json.dumps(config),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                env=python_env(),
                start_new_session=True,
            )
        return cls(process, stderr)

    async def _line(self, prefix: str, limit: float) -> str | None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + limit
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                raw = await asyncio.wait_for(self.process.stdout.readline(), remaining)
            except (TimeoutError, ValueError):
                return None
            if not raw:
                return None
            text = raw.decode(errors="replace").strip()
            if text.startswith(prefix):
                return text.removeprefix(prefix).strip()

    async def ready(self) -> bool:
        return await self._line("READY", SETUP_LIMIT) is not None

    async def result(self, limit: float) -> FloodFigures:
        text = await self._line("RESULT", limit)
        figures = FloodFigures()
        if text is not None:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                figures = FloodFigures.from_json(json.loads(text))
        else:
            tail = self.tail()
            figures.note(f"the flood process gave no result: {tail or 'no output'}")
        await self.stop()
        return figures

    def tail(self) -> str:
        try:
            lines = self.stderr.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-3:])[:500]

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()


async def run_flood(config: dict[str, Any]) -> FloodFigures:
    figures = FloodFigures()
    flood = FLOODS[str(config["attack"])](config, figures)
    began = time.monotonic()
    try:
        await asyncio.wait_for(flood.setup(), SETUP_LIMIT - 5)
    except Exception as exc:  # a failed setup is a figure: the flood runs with what it has
        figures.note(f"setup failed: {type(exc).__name__}: {exc}"[:300])
    figures.setup_seconds = time.monotonic() - began
    print("READY", flush=True)
    duration = float(config["duration"])
    deadline = time.monotonic() + duration
    try:
        await asyncio.wait_for(flood.run(deadline), duration + 10)
    except TimeoutError:
        figures.note("the flood did not stop in time")
    except Exception as exc:
        figures.note(f"the flood failed: {type(exc).__name__}: {exc}"[:300])
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(flood.close(), 5)
    return figures


def flood_main(argv: list[str] | None = None) -> int:
    """A flood's process: ``argv[0]`` is its JSON config; prints READY, then RESULT {json}."""
    args = sys.argv[1:] if argv is None else argv
    config = json.loads(args[0])
    host = urlsplit(str(config["url"])).hostname or ""
    if not loopback(host):
        print(f"flip7 attack: floods go to loopback only, not {host!r}", file=sys.stderr)
        return 2
    if config.get("nice", True):
        lower_priority(FLOOD_NICE)
    with asyncio.Runner(loop_factory=loop_factory("auto")) as runner:
        figures = runner.run(run_flood(config))
    print("RESULT " + json.dumps(figures.to_json()), flush=True)
    return 0


def loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (127.0.0.0/8, ::1 or localhost).

    >>> loopback("127.0.0.1"), loopback("localhost"), loopback("10.0.0.1")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
