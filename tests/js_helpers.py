"""One function of the browser client run as it is in Node, on test cases: the tests that
hold a pure function of a client module (tableend.js placeOf, i18n.js serverSentence)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import missing

__all__ = ["JS", "run_js_function"]

JS = Path(__file__).resolve().parent.parent / "src" / "flip7" / "server" / "static" / "js"


def run_js_function(module: str, head: str, cases: list[Any], call: str) -> Any:
    """``call`` (a JavaScript expression of ``c``) for each of ``cases``, with the function
    of ``module`` (a file of static/js) whose first line is ``export function {head} {``
    defined as it stands there; the results, as JSON gives them back."""
    node = shutil.which("node")
    if node is None:
        missing("node")
    source = (JS / module).read_text(encoding="utf-8")
    found = re.search(rf"^export function {re.escape(head)} \{{\n.*?^\}}\n", source,
                      re.S | re.M)  # fmt: skip
    assert found, f"{module} no longer has export function {head}"
    script = (found.group(0).removeprefix("export ")
              + f"console.log(JSON.stringify({json.dumps(cases)}.map((c) => {call})));\n")
    ran = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                         check=True)  # fmt: skip
    return json.loads(ran.stdout)
