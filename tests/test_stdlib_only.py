"""``import flip7`` loads only the standard library, and so does playing and replaying a game.

Which folders are standard-library-only, and what each may import, is stated folder by folder
in test_layers.py; this test checks the same property at run time.
"""

from __future__ import annotations

import sys

from conftest import python_json
from test_layers import STDLIB_ONLY


def test_importing_flip7_loads_no_third_party_package() -> None:
    code = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        "import flip7\n"
        "import flip7.analysis.advisor, flip7.scorekeeper.scorecard\n"
        "game = flip7.Game.new(3, seed=1)\n"
        "while not game.over:\n"
        "    game.apply(game.legal_decisions()[0])\n"
        "flip7.replay(flip7.Record.from_game(game))\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    loaded = python_json(code)
    assert "flip7" in loaded
    for name in loaded:
        parts = name.split(".")
        if parts[0] == "flip7":
            assert len(parts) == 1 or parts[1] in STDLIB_ONLY, name
        else:
            assert parts[0] in sys.stdlib_module_names, name


def test_old_module_names_still_import() -> None:
    """Modules that moved into the layer folders import under their first names too."""
    import flip7.advisor  # type: ignore[import-not-found]
    import flip7.decisions  # type: ignore[import-not-found]

    import flip7
    import flip7.analysis.advisor
    import flip7.core.decisions

    assert sys.modules["flip7.advisor"] is flip7.analysis.advisor
    assert sys.modules["flip7.decisions"] is flip7.core.decisions
    assert flip7.core.decisions.__spec__ is not None
    assert flip7.core.decisions.__spec__.name == "flip7.core.decisions"
