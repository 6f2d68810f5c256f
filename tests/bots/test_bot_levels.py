"""Bot levels (issue 14): Beginner to Expert, in order of strength, each a spec of the
ladder within the web server's ceilings; a level's name is taken wherever a spec is; the
server lists them with a default and gives their seats first names."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from flip7.bots import (
    DEFAULT_LEVEL,
    LADDER,
    LEVELS,
    MCTSBot,
    TargetingBot,
    level_named,
    make_bot,
    parse_bot_spec,
)
from flip7.core.errors import Flip7Error
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game

# ---------------------------------------------------------------------- the library


def test_the_levels_are_ladder_specs_weakest_first() -> None:
    assert [level.name for level in LEVELS] == ["Beginner", "Easy", "Medium", "Hard", "Expert"]
    rungs = []
    for level in LEVELS:
        parsed = parse_bot_spec(level.spec)
        assert not parsed.user and parsed.text == level.spec
        rungs.append(list(LADDER).index(level.spec.partition(":")[0]))
        assert level.blurb and len(level.blurb) <= 100
        assert level.names and len(set(level.names)) == len(level.names)
    # The ladder is in order of strength, each rung measured against the one below
    # (docs/strength.md): the levels follow it.
    assert rungs == sorted(rungs) and len(set(rungs)) == len(rungs)
    assert LEVELS[0].spec == "random" and DEFAULT_LEVEL.name == "Medium"
    assert DEFAULT_LEVEL.spec != "random"  # a fair fight by default


def test_every_level_is_within_the_servers_ceilings() -> None:
    from flip7.server.table.thinking import over_ceiling

    for level in LEVELS:
        assert over_ceiling(level.spec) is None, level


def test_a_level_name_is_taken_wherever_a_spec_is() -> None:
    for text in ("medium", "MEDIUM", " Medium ", "mEdIuM"):
        assert level_named(text) is DEFAULT_LEVEL
        assert parse_bot_spec(text).text == "targeting"
    assert isinstance(make_bot("medium", seed=1), TargetingBot)
    assert isinstance(make_bot("Expert", seed=1), MCTSBot)
    assert make_bot("beginner", seed=1).name == "random"
    # A level takes no parameters (its spec is what it is), and no level is a ladder name.
    with pytest.raises(Flip7Error, match=r"unknown bot 'medium:30'.*a level: Beginner, Easy"):
        parse_bot_spec("medium:30")
    assert level_named("targeting") is None and level_named("") is None


def test_beginner_is_the_weakest_at_a_table_of_the_cheap_levels() -> None:
    """A quick check of the order at one table (seats rotating): the full measurement of
    all five levels is in the report of issue 14 and in docs/strength.md."""
    levels = LEVELS[:3]
    wins: Counter[str] = Counter()
    for g in range(150):
        order = [levels[(g + i) % 3] for i in range(3)]
        bots = [make_bot(level.spec, seed=derive_seed("levels", g, i)) for i, level in
                enumerate(order)]  # fmt: skip
        game = Game.new(3, seed=g)
        game.play(bots)
        for seat in game.winners:
            wins[order[seat].name] += 1
    assert wins["Beginner"] * 4 < min(wins["Easy"], wins["Medium"]), wins


# ---------------------------------------------------------------------- the server


def _server() -> Any:
    pytest.importorskip("fastapi")
    import server_helpers

    return server_helpers


def _table(client: Any, seats: int = 8, player: str = "Ann") -> tuple[str, str]:
    answer = client.post("/api/tables", json={"player": player, "seats": seats})
    assert answer.status_code == 201, answer.text
    return answer.json()["table"]["id"], answer.json()["token"]


def test_api_bots_lists_the_levels_and_the_default(tmp_path: Path) -> None:
    helpers = _server()
    from flip7.bots import bot_names

    with helpers.app_client(tmp_path / "db.sqlite") as client:
        answer = client.get("/api/bots").json()
        assert answer["bots"] == bot_names()  # as before, for clients that read it
        assert answer["levels"] == [
            {"name": level.name, "spec": level.spec, "blurb": level.blurb} for level in LEVELS]
        assert answer["default"] == "Medium"
        schema = client.get("/openapi.json").json()["components"]["schemas"]["BotList"]
        assert set(schema["properties"]) == {"bots", "levels", "default"}


def test_bots_by_level_get_first_names_and_specs_keep_theirs(tmp_path: Path) -> None:
    helpers = _server()
    with helpers.app_client(tmp_path / "db.sqlite") as client:
        table_id, token = _table(client, player="Bea")

        def add(bot: Any) -> Any:
            body = {} if bot is None else {"bot": bot}
            return client.post(f"/api/tables/{table_id}/bots", json=body,
                               headers=helpers.auth(token))  # fmt: skip

        for bot in ("medium", "Medium", None, "BEGINNER", "hard", "threshold:30", "expert"):
            assert add(bot).status_code == 200, bot
        seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
        assert [(s["name"], s["bot"]) for s in seats] == [
            ("Bea", None),
            ("Mia (Medium bot)", "targeting"),
            ("Max (Medium bot)", "targeting"),
            ("Milo (Medium bot)", "targeting"),  # no bot named: the default level
            ("Benny (Beginner bot)", "random"),  # Bea is seated: her name is hers
            ("Hugo (Hard bot)", "winprob"),
            ("Threshold bot 1", "threshold:30"),  # a spec: as before
            ("Xena (Expert bot)", "mcts"),
        ]
        # A name that is no level and no spec: told what there is.
        refused = add("impossible")
        assert refused.status_code == 400
        detail = refused.json()["detail"]
        assert detail["code"] == "bad_bot"
        assert "levels are Beginner, Easy, Medium, Hard, Expert" in detail["message"]
        assert add("x" * 101).status_code == 422  # the body's own bound


def test_a_level_seat_name_never_clashes_with_a_seated_name() -> None:
    pytest.importorskip("fastapi")
    from flip7.server.table.bot_seats import level_seat_name

    medium = DEFAULT_LEVEL
    taken: list[str] = ["MIA", "Max (medium bot)"]
    names = []
    for _ in range(2 * len(medium.names)):
        name = level_seat_name(medium, taken)
        assert name.casefold() not in {t.casefold() for t in taken}
        taken.append(name)
        names.append(name)
    assert names[0] == "Milo (Medium bot)"  # neither Mia (seated) nor Max (a look-alike)
    assert "Mia 2 (Medium bot)" in names  # once every first name is in use
    # A full table of one level's bots: every name fits a player name's length.
    for level in LEVELS:
        seated: list[str] = []
        for _ in range(17):
            seated.append(level_seat_name(level, seated))
        assert len(set(seated)) == 17 and max(map(len, seated)) <= 24, seated
