"""The server's sentences as the browser shows them (i18n.js serverSentence), run as they
are in Node: the review of issue "Tables that wait" found raw lowercase sentences with API
paths in toasts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from conftest import missing

I18N_JS = (Path(__file__).resolve().parents[2] / "src" / "flip7" / "server" / "static" / "js"
           / "i18n.js")  # fmt: skip


def test_server_sentences_are_capitalised_without_api_paths() -> None:
    node = shutil.which("node")
    if node is None:
        missing("node")
    source = I18N_JS.read_text(encoding="utf-8")
    found = re.search(r"^export function serverSentence\(text\) \{\n.*?^\}\n", source,
                      re.S | re.M)  # fmt: skip
    assert found, "i18n.js no longer has export function serverSentence(text)"
    cases = [
        "your identity already has a seat at this table",
        "you cannot hand your own seat to a bot; leave the table (POST /leave) to let a bot "
        "play it for the rest of the game",
        "add one first (PUT /api/players/me/email)",
        "Already fine.",
        "",
    ]
    script = (found.group(0).removeprefix("export ")
              + f"console.log(JSON.stringify({json.dumps(cases)}.map(serverSentence)));\n")
    ran = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                         check=True)  # fmt: skip
    assert json.loads(ran.stdout) == [
        "Your identity already has a seat at this table",
        "You cannot hand your own seat to a bot; leave the table to let a bot play it for the "
        "rest of the game",
        "Add one first",
        "Already fine.",
        "",
    ]
