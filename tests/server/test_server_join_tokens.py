"""Join tokens (issue 28, finding 9): a client may choose its seat's token (so that a phone
can send a join again), but not a weak one, and not one that is already another seat's.

Before, a token of 22 ``A``s was accepted, and one token took a second seat under another
name at the same table. Now a chosen token needs
:data:`flip7.server.table.seat.TOKEN_DIFFERENT_CHARACTERS` different characters (400
``weak_token`` saying what is allowed) and may not be the token of another seat at the
table (409 ``token_taken``); the same token with the same name is still the retry that
gets its seat back. The browser's own tokens meet the rule.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from conftest import missing
from server_helpers import app_client, auth, new_table

from flip7.server.table.seat import TOKEN_DIFFERENT_CHARACTERS, token_problem

API_JS = Path(__file__).resolve().parents[2] / "src/flip7/server/static/js/api.js"

STRONG = "Abc_def-ghij0123456789xyz"


def test_a_weak_token_is_refused_saying_what_is_allowed(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, _ann = new_table(client, seats=4)
        url = f"/api/tables/{table_id}/join"
        for weak in ("A" * 22, "ab" * 11, "012345678" * 3, "A" * 60 + "BCDE"):
            r = client.post(url, json={"player": "Bob", "token": weak})
            assert r.status_code == 400, (weak, r.text)
            detail = r.json()["detail"]
            assert detail["code"] == "weak_token"
            assert "22 to 64 characters of A-Z a-z 0-9 _ -" in detail["message"]
            assert f"at least {TOKEN_DIFFERENT_CHARACTERS} of them different" in detail["message"]
        # Nothing was seated by the refusals; ten different characters are enough.
        seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert [s["kind"] for s in seats].count("human") == 1
        enough = "0123456789" * 2 + "00"
        assert client.post(url, json={"player": "Bob", "token": enough}).status_code == 200


def test_a_token_already_seated_under_another_name_is_409(tmp_path: Path) -> None:
    with app_client(tmp_path / "db.sqlite") as client:
        table_id, ann = new_table(client, seats=4)
        url = f"/api/tables/{table_id}/join"
        bob = client.post(url, json={"player": "Bob", "token": STRONG})
        assert bob.status_code == 200 and bob.json()["seat"] == 1
        for name, token in (("Cyd", STRONG), ("Dee", ann)):  # a joiner's, and the creator's
            r = client.post(url, json={"player": name, "token": token})
            assert r.status_code == 409, (name, r.text)
            assert r.json()["detail"]["code"] == "token_taken"
            assert "another seat" in r.json()["detail"]["message"]
        seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert [s["name"] for s in seats if s["kind"] == "human"] == ["Ann", "Bob"]
        # The retry of the same name and token still gets the same seat back.
        again = client.post(url, json={"player": "Bob", "token": STRONG})
        assert again.status_code == 200, again.text
        assert (again.json()["seat"], again.json()["token"]) == (1, STRONG)
        # The token acts for Bob's seat only.
        assert client.post(f"/api/tables/{table_id}/bots", json={"bot": "basic"},
                           headers=auth(STRONG)).status_code == 200
        # A token of another table is no secret of this one: it may be chosen here.
        other_id, _ = new_table(client, seats=3)
        elsewhere = client.post(f"/api/tables/{other_id}/join",
                                json={"player": "Cyd", "token": STRONG})
        assert elsewhere.status_code == 200, elsewhere.text


def test_the_browsers_seat_tokens_meet_the_rule(tmp_path: Path) -> None:
    """api.js's newSeatToken, run as it is in Node: every token it makes passes."""
    node = shutil.which("node")
    if node is None:
        missing("node")
    source = API_JS.read_text(encoding="utf-8")
    found = re.search(r"^function newSeatToken\(\) \{\n.*?^\}\n", source, re.S | re.M)
    assert found, "api.js no longer has function newSeatToken()"
    script = (
        "const window = globalThis;\n" + found.group(0)
        + "console.log(JSON.stringify(Array.from({length: 2000}, newSeatToken)));\n"
    )
    made = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60,
                          check=True)
    tokens = json.loads(made.stdout)
    assert len(set(tokens)) == 2000
    assert [t for t in tokens if token_problem(t) is not None] == []
