"""The folders of ``src/flip7`` are its layers, and imports go downward only.

Each folder names the folders it may import (its own included). Below the line every
folder may use only the standard library; above it, each brings its own extras. Any
upward import, any module outside a folder, and any import cycle between modules fails
here. ``docs/architecture.md`` draws the same picture.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "flip7"

# folder -> the folders it may import. ``flip7`` is the package's own __init__ (the public
# names of core and engine).
LAYERS: dict[str, frozenset[str]] = {
    "core": frozenset({"core"}),
    "engine": frozenset({"core", "engine"}),
    "flip7": frozenset({"core", "engine"}),
    "analysis": frozenset({"core", "engine", "analysis", "flip7"}),
    "scorekeeper": frozenset({"core", "engine", "analysis", "scorekeeper", "flip7"}),
    "bots": frozenset({"core", "engine", "analysis", "bots", "flip7"}),
    "coach": frozenset({"core", "engine", "analysis", "bots", "coach", "flip7"}),
    "tournament": frozenset({"core", "engine", "analysis", "bots", "tournament", "flip7"}),
    # Research: the compiled simulator (numba), the RL environments, training R6 (torch).
    "fast": frozenset({"core", "engine", "analysis", "bots", "fast", "flip7"}),
    "envs": frozenset({"core", "engine", "analysis", "bots", "envs", "flip7"}),
    "learn": frozenset({"core", "engine", "analysis", "bots", "fast", "envs", "learn", "flip7"}),
    "client": frozenset({"core", "engine", "client", "flip7"}),
    "server": frozenset(
        {"core", "engine", "analysis", "scorekeeper", "bots", "coach", "server", "flip7"}
    ),
    "cli": frozenset(
        {
            "core", "engine", "analysis", "scorekeeper", "bots", "coach", "tournament",
            "client", "server", "fast", "envs", "learn", "cli", "flip7",
        }
    ),
    "__main__": frozenset({"cli"}),
}
# The folders a plain ``import flip7`` and the engine's users may rely on: no third party.
STDLIB_ONLY = ("core", "engine", "flip7", "analysis", "scorekeeper")


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    if len(rel.parts) == 1:
        return "flip7" if rel.stem == "__init__" else rel.stem
    return rel.parts[0]


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = ["flip7", *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, as absolute names, with line numbers: at the top, in
    functions, and under ``TYPE_CHECKING`` alike."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module(path).split(".")
    if path.stem != "__init__":
        package.pop()
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, module))
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if _exists(sub):
                    found.append((node.lineno, sub))
    return found


def _exists(module: str) -> bool:
    parts = module.split(".")
    if parts[0] != "flip7":
        return False
    where = PACKAGE.joinpath(*parts[1:])
    return where.is_dir() or where.with_suffix(".py").is_file()


def _target_layer(module: str) -> str:
    parts = module.split(".")
    return "flip7" if len(parts) == 1 else parts[1]


FILES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_layer() -> None:
    for path in FILES:
        assert _layer(path) in LAYERS, (
            f"{path.relative_to(PACKAGE)} is outside the layer folders {sorted(LAYERS)}"
        )


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_imports_only_downward(layer: str) -> None:
    allowed = LAYERS[layer]
    for path in FILES:
        if _layer(path) != layer:
            continue
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top == "flip7":
                target = _target_layer(module)
                assert target in allowed, (
                    f"{path.relative_to(PACKAGE)}:{line} imports {module}: {layer} may import "
                    f"only {', '.join(sorted(allowed))}"
                )
            elif layer in STDLIB_ONLY:
                assert top in sys.stdlib_module_names, (
                    f"{path.relative_to(PACKAGE)}:{line} imports {module}: {layer} uses only "
                    "the standard library"
                )


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for path in FILES:
        own = _module(path)
        graph[own] = {
            m
            for _, m in _imports(path)
            if m.startswith("flip7") and _exists(m) and m not in ("flip7", own)
        }
    state: dict[str, int] = {}
    trail: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        trail.append(module)
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                cycle = [*trail[trail.index(dep) :], dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        trail.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_the_layering_test_sees_an_upward_import(tmp_path: Path) -> None:
    """The checker itself: an engine module importing the server is caught."""
    sample = PACKAGE / "engine" / "game.py"
    imports = dict((m, line) for line, m in _imports(sample))
    assert "flip7.core.cards" in imports
    bad = ast.parse("from flip7.server.table import lobby\n")
    node = bad.body[0]
    assert isinstance(node, ast.ImportFrom) and node.module is not None
    assert _target_layer(node.module) not in LAYERS["engine"]


# ---------------------------------------------------------------------- the server's layers

SERVER = PACKAGE / "server"
# server sub-package -> the sub-packages it may import (its own included), bottom to top:
# base (settings, protocol models, limits, logs, names, catalogues); table (the live table:
# no web framework, no database); store (the database behind table's storage interface);
# services (players, ratings, replays, coach, scorecards) and cluster (many processes);
# api (routes, the socket, the composition root) over all of them.
SERVER_LAYERS: dict[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    "table": frozenset({"base", "table"}),
    "store": frozenset({"base", "table", "store"}),
    "services": frozenset({"base", "table", "store", "services"}),
    "cluster": frozenset({"base", "table", "store", "cluster"}),
    "api": frozenset({"base", "table", "store", "services", "cluster", "api"}),
}
# What the live table never reaches, not even through another flip7 module: it is the game
# master, and sees storage and transport only through the interfaces it declares.
TABLE_NEVER = frozenset({"fastapi", "starlette", "sqlalchemy", "alembic", "redis", "uvicorn"})
SERVER_FILES = sorted(SERVER.rglob("*.py"))


def _server_layer(path: Path) -> str | None:
    rel = path.relative_to(SERVER)
    return rel.parts[0] if len(rel.parts) > 1 else None


def test_every_server_module_is_in_a_server_layer() -> None:
    for path in SERVER_FILES:
        rel = path.relative_to(SERVER)
        if rel.parts[0] == "__init__.py":
            continue
        assert rel.parts[0] in SERVER_LAYERS, (
            f"server/{rel} is outside the server's layer folders {sorted(SERVER_LAYERS)}"
        )


@pytest.mark.parametrize("layer", sorted(SERVER_LAYERS))
def test_server_layer_imports_only_downward(layer: str) -> None:
    allowed = SERVER_LAYERS[layer]
    for path in SERVER_FILES:
        if _server_layer(path) != layer:
            continue
        for line, module in _imports(path):
            parts = module.split(".")
            if parts[:2] != ["flip7", "server"] or len(parts) < 3:
                continue
            assert parts[2] in allowed, (
                f"server/{path.relative_to(SERVER)}:{line} imports {module}: server.{layer} "
                f"may import only server.{{{', '.join(sorted(allowed))}}}"
            )


def _reach(start: list[Path]) -> dict[str, tuple[str, ...]]:
    """Every module reachable by imports from ``start``, with the chain that reaches it."""
    seen: dict[str, tuple[str, ...]] = {}
    todo = [(_module(p), (_module(p),)) for p in start]
    while todo:
        module, chain = todo.pop()
        if module in seen:
            continue
        seen[module] = chain
        if not module.startswith("flip7"):
            continue
        parts = module.split(".")
        where = PACKAGE.joinpath(*parts[1:])
        path = where / "__init__.py" if where.is_dir() else where.with_suffix(".py")
        if not path.is_file():
            continue
        for _, dep in _imports(path):
            todo.append((dep, (*chain, dep)))
    return seen


def test_the_table_knows_no_web_framework_and_no_database() -> None:
    reached = _reach([p for p in SERVER_FILES if _server_layer(p) == "table"])
    for module, chain in sorted(reached.items()):
        assert module.split(".")[0] not in TABLE_NEVER, (
            "server.table reaches " + module + ": " + " -> ".join(chain)
        )


# The one folder that speaks SQL: everything else reaches the database through the store's
# typed calls (flip7.server.store), never through a statement or a bind dict of its own.
DATABASE_LIBRARIES = frozenset({"sqlalchemy", "alembic"})


def _owner(path: Path) -> str:
    """``server.<sub-package>`` for a module of the server's layers, else its layer."""
    layer = _server_layer(path) if path.is_relative_to(SERVER) else None
    return f"server.{layer}" if layer is not None else _layer(path)


@pytest.mark.parametrize("owner", sorted({_owner(p) for p in FILES} - {"server.store"}))
def test_only_the_store_imports_the_database_library(owner: str) -> None:
    for path in FILES:
        if _owner(path) != owner:
            continue
        for line, module in _imports(path):
            assert module.split(".")[0] not in DATABASE_LIBRARIES, (
                f"{path.relative_to(PACKAGE)}:{line} imports {module}: only server.store "
                "speaks SQL; call a typed function of flip7.server.store instead"
            )


def test_the_database_check_sees_the_store_speak_sql() -> None:
    """The checker itself: the store's import of sqlalchemy is seen, and is the store's."""
    database = SERVER / "store" / "database.py"
    assert _owner(database) == "server.store"
    assert "sqlalchemy" in {module for _, module in _imports(database)}
    assert _owner(SERVER / "services" / "players.py") == "server.services"
    assert _owner(PACKAGE / "engine" / "game.py") == "engine"
