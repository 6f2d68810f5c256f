"""The engine uses only the standard library.

The engine is the package's top level: the modules listed in ``ENGINE``. The ``bots``, ``sim``,
``cli``, ``server`` and ``scorekeeper`` parts may bring their own dependencies; the engine may not
import them, nor anything outside the standard library.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "flip7"

ENGINE = (
    "__init__",
    "advisor",
    "cards",
    "decisions",
    "errors",
    "events",
    "game",
    "record",
    "rules",
    "scorecard",
    "scoring",
    "solver",
    "view",
)
ENGINE_FILES = [PACKAGE / f"{name}.py" for name in ENGINE if (PACKAGE / f"{name}.py").exists()]
ENGINE_MODULES = {"flip7"} | {f"flip7.{name}" for name in ENGINE if name != "__init__"}


def _is_submodule(name: str) -> bool:
    return (PACKAGE / f"{name}.py").exists() or (PACKAGE / name).is_dir()


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (absolute names), with its line number."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # Engine modules are files at the package's top level: ``.x`` is ``flip7.x``.
            assert node.level <= 1, f"{path.name}:{node.lineno}: import from above flip7"
            parts = ["flip7"] if node.level else []
            if node.module:
                parts.append(node.module)
            module = ".".join(parts)
            found.append((node.lineno, module))
            if module == "flip7":
                # ``from flip7 import x`` (or ``from . import x``) may name a submodule.
                found.extend(
                    (node.lineno, f"flip7.{alias.name}")
                    for alias in node.names
                    if _is_submodule(alias.name)
                )
    return found


def test_engine_files_exist() -> None:
    names = {p.stem for p in ENGINE_FILES}
    assert names >= set(ENGINE) - {"view"}


@pytest.mark.parametrize("path", ENGINE_FILES, ids=[p.stem for p in ENGINE_FILES])
def test_engine_module_imports_only_stdlib(path: Path) -> None:
    for line, module in _imports(path):
        top = module.split(".")[0]
        if top == "flip7":
            # Inside the package, only other engine modules.
            parts = module.split(".")
            name = ".".join(parts[:2])
            assert name in ENGINE_MODULES, f"{path.name}:{line} imports {module}"
        else:
            assert top in sys.stdlib_module_names, f"{path.name}:{line} imports {module}"


def test_importing_flip7_loads_no_third_party_package() -> None:
    code = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        "import flip7\n"
        "game = flip7.Game.new(3, seed=1)\n"
        "while not game.over:\n"
        "    game.apply(game.legal_decisions()[0])\n"
        "flip7.replay(flip7.Record.from_game(game))\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    loaded = json.loads(out.stdout)
    assert "flip7" in loaded
    for name in loaded:
        top = name.split(".")[0]
        if top == "flip7":
            assert ".".join(name.split(".")[:2]) in ENGINE_MODULES, name
        else:
            assert top in sys.stdlib_module_names, name
