"""The end screen's places (tableend.js placeOf), run as they are in Node: equal totals
share a place and the next place is counted past them (the review of issue "Tables that
wait": 179 and 179 were ranked 2 and 3)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from conftest import missing

TABLE_END_JS = (Path(__file__).resolve().parents[2] / "src" / "flip7" / "server" / "static"
                / "js" / "tableend.js")  # fmt: skip


def test_equal_totals_share_a_place() -> None:
    node = shutil.which("node")
    if node is None:
        missing("node")
    source = TABLE_END_JS.read_text(encoding="utf-8")
    found = re.search(r"^export function placeOf\(totals, total\) \{\n.*?^\}\n", source,
                      re.S | re.M)  # fmt: skip
    assert found, "tableend.js no longer has export function placeOf(totals, total)"
    cases = [[200, 179, 179, 150], [90, 90, 90], [12], [30, 20, 10], [5, 5, 1, 1]]
    script = (found.group(0).removeprefix("export ")
              + f"const cases = {json.dumps(cases)};\n"
              + "console.log(JSON.stringify(cases.map((c) => c.map((x) => placeOf(c, x)))));\n")
    ran = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                         check=True)  # fmt: skip
    assert json.loads(ran.stdout) == [[1, 2, 2, 4], [1, 1, 1], [1], [1, 2, 3], [1, 1, 3, 3]]
