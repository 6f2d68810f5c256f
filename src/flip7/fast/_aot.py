"""Loading :mod:`flip7.fast`'s compiled loop: precompiled (ahead of time) where it can be,
numba's JIT otherwise.

numba's own cache still costs every new process numba's import and its compiler's start-up
(about a second together), so the loop is also built once, with ``numba.pycc``, into a plain
CPython extension module exporting ``run_batch``, ``run_script``, ``finals_chance`` and
R5's ``rollouts`` and ``rollout_end``: a
later process loads it as it would any extension (numpy only; numba is not imported) in a
few milliseconds.

The built module is cached under a name that hashes everything its machine code depends on
(:func:`cache_key`): the sources of the loop (``_kernel.py``, ``_layout.py``) and of this
recipe, the versions of numba, llvmlite and numpy, the interpreter (its cache tag), the
machine and the CPU (it is built for this CPU's instruction set, as the JIT compiles: a
module built for another CPU could stop the process on an illegal instruction). Where the
cache lies, numba's policy: ``__pycache__`` next to these sources when that is writable,
otherwise ``~/.cache/flip7`` (``$XDG_CACHE_HOME/flip7``), or wherever ``FLIP7_CACHE_DIR``
says. Old builds are not removed (each is about 0.7 MB).

Building needs numba (with ``numba.pycc``), setuptools and a C compiler; it takes about as
long as numba's first compile (which it shares: the loop's functions go through numba's
cache). Processes that build at once (test workers) take turns on a lock file, and a build
becomes visible only whole (written elsewhere, loaded once, then renamed into place). When it
cannot build, or ``FLIP7_FAST_AOT=0``, the loop is numba's JIT as before (with a warning in
the first case). Not a public module: :mod:`flip7.fast` is its interface.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ENV_CACHE = "FLIP7_CACHE_DIR"
"""Where the precompiled loop is cached (instead of ``__pycache__`` or ``~/.cache/flip7``)."""
ENV_AOT = "FLIP7_FAST_AOT"
"""``0`` (or ``false``, ``no``, ``off``): use numba's JIT, never the precompiled loop."""

_HERE = Path(__file__).resolve().parent
SOURCES = (_HERE / "_kernel.py", _HERE / "_layout.py", Path(__file__).resolve())
"""The files whose text goes into :func:`cache_key`."""
_PACKAGES = ("numba", "llvmlite", "numpy")
_VERSION_FILES = ("_version.py", "version.py")
_PREFIX = "_flip7_loop_"
# The exported functions and their argument types, as flip7.fast calls them: the state M,
# then run_batch's seed, g0, g1, dealer, wins, out (rounds, shared, games) and offs;
# finals_chance's network offset and seat (flip7.fast.learned_chance); rollouts' and
# rollout_end's state to play in, seed, rollouts and candidates (flip7.fast.rollout). A change
# of their parameters in _kernel.py must be made here too (else the build fails: JIT, with a
# warning, and tests/fast/test_fast_aot.py fails saying why).
_EXPORTS = {
    "run_batch": "i8(i8[::1], i8, i8, i8, i8, i8[::1], i8[::1], i8[:, ::1])",
    "run_script": "i8(i8[::1], i8)",
    "finals_chance": "f8(i8[::1], i8, i8)",
    "rollouts": "i8(i8[::1], i8[::1], i8, i8, i8, i8[::1], i8[::1], f8[::1], f8[::1])",
    "rollout_end": "f8(i8[::1], i8[::1], i8, i8, i8, i8[::1])",
}


why_jit = ""
"""Why :func:`load` last fell back to numba's JIT against ``FLIP7_FAST_AOT`` ("" if never)."""


class AotUnavailable(Exception):
    """Why the precompiled loop cannot be built here (no compiler, no numba.pycc, ...)."""


def cpu_id() -> str:
    """This CPU as the compiled code depends on it: on Linux its model and instruction-set
    flags from ``/proc/cpuinfo``, on macOS from ``sysctl``; elsewhere what :mod:`platform`
    says."""
    keys = ("vendor_id", "model name", "flags", "CPU implementer", "CPU part", "Features")
    found: dict[str, str] = {}
    with (
        contextlib.suppress(OSError),
        open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f,
    ):
        for line in f:
            key, sep, value = line.partition(":")
            key = key.strip()
            if sep and key in keys and key not in found:
                found[key] = value.strip()
            if not line.strip() and found:
                break  # the first processor's block is enough
    if found:
        return "; ".join(f"{k}={found[k]}" for k in keys if k in found)
    if sys.platform == "darwin":  # the model and its features, as sysctl has them
        import subprocess

        with contextlib.suppress(OSError, subprocess.SubprocessError):
            names = ["machdep.cpu.brand_string", "machdep.cpu.features", "hw.cputype"]
            out = subprocess.run(
                ["sysctl", *names], capture_output=True, text=True, timeout=10, check=False
            )
            if out.stdout.strip():
                return out.stdout.strip()
    return f"{platform.processor()} {platform.machine()} {platform.system()}"


def _version(package: str) -> str:
    """``package``'s version file (its exact build: version and revision) without importing
    it, nor importlib.metadata (a tenth of this module's start); the metadata's version
    where there is no such file."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return "-"
    for folder in spec.submodule_search_locations:
        for name in _VERSION_FILES:
            with contextlib.suppress(OSError):
                return (Path(folder) / name).read_text(errors="replace")
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "-"


def cache_key(sources: Sequence[Path] = SOURCES, cpu: str | None = None) -> str:
    """A hex digest of everything the precompiled loop's machine code depends on: the
    ``sources``' text, numba's, llvmlite's and numpy's versions (their version files, read
    without importing them), the interpreter's cache tag, the machine and the CPU
    (:func:`cpu_id`)."""
    h = hashlib.sha256()
    for path in sources:
        h.update(Path(path).name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    for package in _PACKAGES:
        h.update(f"{package}={_version(package)}\0".encode())
    h.update(f"{sys.implementation.cache_tag}\0{platform.machine()}\0".encode())
    h.update((cpu if cpu is not None else cpu_id()).encode())
    return h.hexdigest()


def module_file(key: str) -> tuple[str, str]:
    """The module name and file name of the precompiled loop of ``key``."""
    name = _PREFIX + key[:24]
    return name, name + importlib.machinery.EXTENSION_SUFFIXES[0]


def cache_dirs() -> list[Path]:
    """Where to look for the precompiled loop, in order (the first writable one is where it
    is built): ``FLIP7_CACHE_DIR`` alone when set, else ``__pycache__`` next to the sources,
    then the user's cache (``$XDG_CACHE_HOME/flip7`` or ``~/.cache/flip7``)."""
    given = os.environ.get(ENV_CACHE)
    if given:
        return [Path(given).expanduser()]
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "flip7"
    return [_HERE / "__pycache__", user]


def aot_wanted() -> bool:
    """False when ``FLIP7_FAST_AOT`` asks for numba's JIT."""
    return os.environ.get(ENV_AOT, "1").strip().lower() not in ("0", "false", "no", "off")


def load_module(name: str, path: Path) -> ModuleType | None:
    """The precompiled loop in ``path``, or None when it does not load as one (a truncated
    file, another build's module, something else)."""
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
        if spec is None:
            return None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except Exception:  # ImportError mostly; whatever it is, build anew
        return None
    if not all(callable(getattr(module, fn, None)) for fn in _EXPORTS):
        return None
    return module


def find(key: str) -> ModuleType | None:
    """The cached precompiled loop of ``key`` (:func:`cache_key`), if one loads."""
    name, fname = module_file(key)
    for folder in cache_dirs():
        path = folder / fname
        if path.is_file():
            module = load_module(name, path)
            if module is not None:
                return module
    return None


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """Hold ``path`` locked (one builder at a time; released if its holder dies)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: builders may overlap (each renames whole)
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def building(key: str) -> bool:
    """Whether another process is building the precompiled loop of ``key`` now (holds its
    lock file): a server's bot plays its search in Python meanwhile rather than wait for
    the build (:func:`flip7.fast.ready`).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.environ[ENV_CACHE] = folder
    ...     try:
    ...         building("0" * 64)
    ...     finally:
    ...         del os.environ[ENV_CACHE]
    False
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock to ask
        return False
    name, _ = module_file(key)
    for folder in cache_dirs():
        path = folder / (name + ".lock")
        if not path.is_file():
            continue
        with open(path, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    return False


def compile_module(name: str, folder: Path, fname: str) -> None:
    """Build the loop with ``numba.pycc`` into ``folder/fname`` (an extension module
    ``name``), for this CPU model and its exact instruction-set features, as the JIT does."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pycc's deprecation notice
            # untyped, as Any: mypy --strict stays on this module's own code
            codegen: Any = importlib.import_module("numba.core.codegen")
            pycc: Any = importlib.import_module("numba.pycc")
    except Exception as exc:  # whatever stops pycc's import
        raise AotUnavailable(f"numba.pycc does not import ({exc})") from exc
    import flip7.fast._kernel as _kernel

    cc = pycc.CC(name)
    cc.output_dir = str(folder)
    cc.output_file = fname
    cc.target_cpu = "host"
    cc.use_nrt = False  # the loop allocates nothing
    cc.verbose = False
    for export, sig in _EXPORTS.items():
        cc.export(export, sig)(getattr(_kernel, export).py_func)
    # pycc takes the features the CPU model implies; a VM may hide some of them (AVX-512,
    # say), so ask for the host's own, as the JIT does.
    aot: Any = getattr(codegen, "AOTCPUCodegen", None)
    features = getattr(aot, "_customize_tm_features", None)
    if features is None or not hasattr(aot, "_get_host_cpu_features"):
        raise AotUnavailable("numba's AOT code generator is not the one this recipe knows")
    aot._customize_tm_features = lambda self: self._get_host_cpu_features()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cc.compile()
    except Exception as exc:  # a missing compiler, setuptools, ...
        first = str(exc).strip().splitlines()[:1]
        raise AotUnavailable(": ".join([type(exc).__name__, *first])) from exc
    finally:
        aot._customize_tm_features = features


def build(key: str) -> ModuleType:
    """Build the precompiled loop of ``key`` into the first writable cache folder (unless
    another process did meanwhile) and load it; :class:`AotUnavailable` when it cannot."""
    name, fname = module_file(key)
    folder = next((d for d in cache_dirs() if _writable(d)), None)
    if folder is None:
        raise AotUnavailable(f"no writable cache folder (set {ENV_CACHE})")
    with _lock(folder / (name + ".lock")):
        path = folder / fname
        if path.is_file():  # another process built it while this one waited
            module = load_module(name, path)
            if module is not None:
                return module
        work = Path(tempfile.mkdtemp(prefix=name + "-", dir=folder))
        try:
            compile_module(name, work, fname)
            # Loaded where it was built, then renamed into place: no process ever finds
            # half a file or one that does not load.
            module = load_module(name, work / fname)
            if module is None:
                raise AotUnavailable("the built module does not load")
            os.replace(work / fname, path)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return module


def load() -> tuple[Any, str]:
    """The compiled loop (a module with the entry points of ``_EXPORTS``) and how it was
    compiled: ``"aot"`` (precompiled, cached or built now) or ``"jit"`` (numba's JIT:
    ``FLIP7_FAST_AOT=0``, or with a warning when the precompiled one cannot be built)."""
    if aot_wanted():
        key = cache_key()
        module = find(key)
        if module is not None:
            return module, "aot"
        try:
            return build(key), "aot"
        except (AotUnavailable, OSError) as exc:  # OSError: a full disk, a file in use
            global why_jit
            why_jit = str(exc)
            warnings.warn(
                f"flip7.fast: no precompiled simulator ({exc}); using numba's JIT, which adds "
                "about a second to every process's start. The precompiled one needs "
                f"numba.pycc, setuptools and a C compiler; {ENV_AOT}=0 silences this.",
                RuntimeWarning,
                stacklevel=3,
            )
    import flip7.fast._kernel as _kernel

    return _kernel, "jit"
