"""The code figures the README gives for the server house (run from the repository root):

    python scripts/code_figures.py [CHECKOUT]

(another checkout, such as a worktree of an older commit, gives that commit's figures).
``Any`` in ``src/flip7/server`` (each use of the name in code: annotations, casts; the
``typing`` import lines are not counted), the longest Python function in ``src/flip7`` and
the longest JavaScript function of the browser client (by ESLint's own count, when
``node_modules`` is installed: ``make jscheck``), and the line count of ``create_app``.
"""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
SERVER = ROOT / "src" / "flip7" / "server"


def any_uses(folder: Path) -> dict[str, int]:
    """``Any`` tokens per sub-package, outside import statements, comments and strings."""
    counts: dict[str, int] = {}
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder)
        part = rel.parts[0] if len(rel.parts) > 1 else "(root)"
        tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
        in_import = False
        n = 0
        for tok in tokens:
            if tok.type == tokenize.NAME and tok.string in ("import", "from") and tok.start[1] == 0:
                in_import = True
            elif tok.type == tokenize.NEWLINE:
                in_import = False
            elif tok.type == tokenize.NAME and tok.string == "Any" and not in_import:
                n += 1
        counts[part] = counts.get(part, 0) + n
    return counts


def longest_python(folder: Path) -> tuple[int, str]:
    best = (0, "")
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > best[0]:
                    best = (length, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return best


def function_lines(path: Path, name: str) -> int:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            assert node.end_lineno is not None
            return node.end_lineno - node.lineno + 1
    return 0


def longest_javascript() -> tuple[int, str] | None:
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    if not eslint.exists():
        return None
    # Counted as make jscheck's max-lines-per-function counts: every line, blank and comment too.
    rule = json.dumps(["warn", {"max": 1, "skipBlankLines": False, "skipComments": False}])
    done = subprocess.run(
        [str(eslint), "--no-config-lookup", "--rule", f"max-lines-per-function: {rule}",
         "--format", "json", "src/flip7/server/static/js"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    best = (0, "")
    for result in json.loads(done.stdout or "[]"):
        for message in result["messages"]:
            if message.get("ruleId") != "max-lines-per-function":
                continue
            # "Function 'mountTable' has too many lines (1122). Maximum allowed is 1."
            text = message["message"]
            lines = int(text.split("(")[-1].split(")")[0])
            if lines > best[0]:
                where = Path(result["filePath"]).relative_to(ROOT)
                best = (lines, f"{where}:{message['line']} {text.split(' has ')[0]}")
    return best


def main() -> int:
    counts = any_uses(SERVER)
    print(f"Any in src/flip7/server: {sum(counts.values())} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")  # fmt: skip
    lines, where = longest_python(ROOT / "src" / "flip7")
    print(f"longest Python function: {lines} lines ({where})")
    app = next(SERVER.rglob("app.py"))
    print(f"create_app: {function_lines(app, 'create_app')} lines ({app.relative_to(ROOT)})")
    js = longest_javascript()
    if js is None:
        print("longest JavaScript function: (needs node_modules: make jscheck)")
    else:
        print(f"longest JavaScript function: {js[0]} lines ({js[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
