"""The precompiled loop of flip7.fast (fast/_aot.py): a later process loads it without numba
and plays the same games; its cache key follows the sources; a bad file in the cache is
built anew, never loaded; numba's JIT, the fallback, plays the very same games."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import python_json, require

from flip7.core.rules import Rules

require("numba")
require("numpy")

import flip7.fast as fast  # noqa: E402
from flip7.fast import _aot  # noqa: E402


@pytest.fixture(scope="module")
def built() -> Path:
    """The precompiled loop's file, built (or found) once for the module: the build
    replaces numba's first compile for every other test of flip7.fast."""
    fast.warm()
    if fast.kernel_kind() != "aot":
        # No compiler, no setuptools: a machine's lack, skipped. Anything else (the kernel's
        # parameters changed without _aot._EXPORTS, say) is a fault.
        lack = re.search(r"compil|pycc|setuptools|distutils|link|writable", _aot.why_jit, re.I)
        if _aot.why_jit and not lack:
            pytest.fail(f"the precompiled loop does not build: {_aot.why_jit}")
        pytest.skip(f"no precompiled loop here ({_aot.why_jit or 'FLIP7_FAST_AOT=0'})")
    _, fname = _aot.module_file(_aot.cache_key())
    path = next((d / fname for d in _aot.cache_dirs() if (d / fname).is_file()), None)
    assert path is not None, f"{fname} is in none of {_aot.cache_dirs()}"
    return path


def _games(**kwargs: Any) -> tuple[Any, ...]:
    r = fast.simulate(**kwargs)
    return r.wins, r.shared, r.mean_rounds


WORKLOADS: list[dict[str, Any]] = [
    {"n_games": 300, "players": 4, "seed": 5},
    {"n_games": 200, "players": 5, "policies": ("random", "threshold:20", "targeting", "ev",
                                                 "targeting"), "seed": 9},
    {"n_games": 200, "players": 3, "rules": Rules(brutal=True, pass_actions=True), "seed": 2,
     "policies": "ev"},
]  # fmt: skip


def test_a_new_process_loads_it_without_numba(built: Path) -> None:
    code = (
        "import json, sys\nimport flip7.fast as f\n"
        "r = f.simulate(300, players=4, seed=5)\n"
        "print(json.dumps([r.wins, f.kernel_kind(), 'numba' in sys.modules]))\n"
    )
    wins, kind, numba_imported = python_json(code, **{_aot.ENV_AOT: None})
    assert (kind, numba_imported) == ("aot", False)
    assert tuple(wins) == fast.simulate(300, players=4, seed=5).wins


def test_the_cache_key_follows_the_sources_and_the_cpu(tmp_path: Path) -> None:
    copies = []
    for source in _aot.SOURCES:
        shutil.copy(source, tmp_path / source.name)
        copies.append(tmp_path / source.name)
    key = _aot.cache_key(copies)
    assert key == _aot.cache_key()  # the text counts, not where it lies
    assert _aot.cache_key(copies, cpu="another CPU") != key
    with open(copies[0], "a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    changed = _aot.cache_key(copies)
    assert changed != key
    assert _aot.module_file(changed)[0] != _aot.module_file(key)[0]


def test_a_bad_file_in_the_cache_is_built_anew(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _games(**WORKLOADS[0])
    monkeypatch.setenv(_aot.ENV_CACHE, str(tmp_path))
    key = _aot.cache_key()
    _, fname = _aot.module_file(key)
    (tmp_path / fname).write_bytes(b"\x7fELF not quite a module")  # a truncated build
    assert _aot.find(key) is None

    # Another build's module under this one's name does not load either (its init has
    # another name); the loop is built anew: here a copy of the real build, not a compile.
    other_name, other_file = _aot.module_file("f" * 64)
    shutil.copy(built, tmp_path / other_file)
    assert _aot.load_module(other_name, tmp_path / other_file) is None

    def compile_module(name_: str, folder: Path, fname_: str) -> None:
        shutil.copy(built, folder / fname_)

    monkeypatch.setattr(_aot, "compile_module", compile_module)
    module, kind = _aot.load()
    assert kind == "aot"
    assert _aot.find(key) is not None  # the bad file was replaced
    monkeypatch.setattr(fast, "_LOOP", module)
    assert _games(**WORKLOADS[0]) == expected


def test_no_compiler_falls_back_to_the_jit_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_aot.ENV_CACHE, str(tmp_path))
    monkeypatch.setattr(_aot, "cache_key", lambda *args, **kwargs: "e" * 64)

    def compile_module(name: str, folder: Path, fname: str) -> None:
        raise _aot.AotUnavailable("CompileError: no C compiler")

    monkeypatch.setattr(_aot, "compile_module", compile_module)
    with pytest.warns(RuntimeWarning, match="no C compiler.*FLIP7_FAST_AOT=0"):
        module, kind = _aot.load()
    assert kind == "jit" and module.__name__ == "flip7.fast._kernel"
    monkeypatch.setenv(_aot.ENV_AOT, "0")
    assert _aot.load()[1] == "jit"  # asked for: no build, no warning


def test_the_jit_plays_the_same_games(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """numba's JIT (the fallback) and the precompiled loop: the same games to the card.
    The one test that compiles by the JIT (the loop's two entry points; what they call is
    in numba's cache since the build)."""
    aot = [_games(**w) for w in WORKLOADS]
    record = fast.simulate(3, players=4, records=True, seed=7).records
    assert record is not None
    aot_results = [fast.play_record(r) for r in record]
    monkeypatch.setenv(_aot.ENV_AOT, "0")
    module, kind = _aot.load()
    assert kind == "jit"
    monkeypatch.setattr(fast, "_LOOP", module)
    monkeypatch.setattr(fast, "_KIND", kind)
    assert fast.kernel_kind() == "jit"
    assert [_games(**w) for w in WORKLOADS] == aot
    assert fast.simulate(3, players=4, records=True, seed=7).records == record
    assert [fast.play_record(r) for r in record] == aot_results


def test_the_bench_times_a_new_process_start(built: Path) -> None:
    from flip7.fast.bench import time_start

    seconds, kind = time_start(runs=1)
    assert seconds > 0 and kind == "aot"


class _Builder:
    """A stand-in for the background build's process: running until ``done``."""

    def __init__(self, argv: list[str], **kwargs: Any) -> None:
        self.argv = argv
        self.done = False
        STARTED.append(self)

    def poll(self) -> int | None:
        return 0 if self.done else None


STARTED: list[_Builder] = []


def test_a_server_bot_never_waits_for_the_build(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the loop is not built (an empty cache folder here), ready(build=True) starts
    one build in a process of its own and says False (the bot searches in Python) until it
    is done; then True, and the loop is loaded where the build left it. Without ``build``,
    True: the first use builds it."""
    import subprocess

    monkeypatch.setenv(_aot.ENV_CACHE, str(tmp_path))
    monkeypatch.setattr(fast, "_LOOP", None)
    monkeypatch.setattr(fast, "_BUILDER", None)
    monkeypatch.setattr(subprocess, "Popen", _Builder)
    STARTED.clear()
    assert fast.ready() is True  # nobody builds: the first use would
    assert fast.ready(build=True) is False
    assert fast.ready(build=True) is False
    assert len(STARTED) == 1, "one build, not one a search"
    assert STARTED[0].argv[-1] == "import flip7.fast; flip7.fast.build_unless_built()"

    STARTED[0].done = True
    assert fast.ready(build=True) is True  # the build ended without a loop: the first use builds
    shutil.copy(built, tmp_path / _aot.module_file(_aot.cache_key())[1])
    monkeypatch.setattr(fast, "_LOOP", None)
    assert fast.ready(build=True) is True
    assert fast._LOOP is not None and fast.kernel_kind() == "aot"
    assert len(STARTED) == 1
    assert fast.build_unless_built() is False  # built: nothing to do


def test_another_process_building_is_seen(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another process holds the build's lock, ready() says False; once it lets go
    (here without a loop built), True."""
    import subprocess
    import sys

    monkeypatch.setenv(_aot.ENV_CACHE, str(tmp_path))
    monkeypatch.setattr(fast, "_LOOP", None)
    monkeypatch.setattr(fast, "_BUILDER", None)
    key = _aot.cache_key()
    lock = tmp_path / (_aot.module_file(key)[0] + ".lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(60)",
         str(lock)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert _aot.building(key) is True
        assert fast.ready() is False
    finally:
        holder.kill()
        holder.wait()
    assert _aot.building(key) is False
    assert fast.ready() is True
