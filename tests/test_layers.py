"""Layers import downward only: engine <- bots, sim <- server, cli.

The engine's own rule (standard library only) is in test_stdlib_only.py; here the parts
above it are checked: bots and the simulator never import the server or the CLI, and the
server never imports the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "flip7"

FORBIDDEN = {
    "bots": ("flip7.server", "flip7.cli"),
    "sim": ("flip7.server", "flip7.cli"),
    "server": ("flip7.cli",),
}


def _files(part: str) -> list[Path]:
    folder = PACKAGE / part
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{part}.py"]


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_parts_import_only_downward(part: str) -> None:
    for path in _files(part):
        for name in _imported(path):
            for banned in FORBIDDEN[part]:
                assert not (name == banned or name.startswith(banned + ".")), (
                    f"{path.relative_to(PACKAGE)} imports {name}: {part} sits below {banned}"
                )
