"""The browser's types of the server's messages (static/js/protocol.js) against the server.

protocol.js describes, as JSDoc ``@typedef``s, every WebSocket frame of both directions,
the REST bodies the browser sends and the answers it reads; ``make jscheck`` (tsc) holds the
modules to them. Here they are held to the server: every model of the WebSocket schema
(``GET /api/protocol``) and every REST model the browser uses (``/openapi.json``) has a
typedef with the same properties, optional exactly where the schema does not require them,
``null`` where the schema allows it, the schema's literal values and the typedefs of the
models it refers to. The scorekeeper's and the players' answers have no schema: their
typedefs are compared with real answers.

The typedefs are read by a small parser of JSDoc blocks (``/** ... */``): ``@typedef
{type} Name`` and ``@property {type} name`` / ``[name]`` lines, the type's braces matched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from server_helpers import app_client

from flip7.server.base.protocol import protocol_schema

PROTOCOL_JS = (Path(__file__).resolve().parents[2] / "src" / "flip7" / "server" / "static"
               / "js" / "protocol.js")

# The REST models the browser sends or reads: typedef -> the OpenAPI component.
REST_MODELS = {
    "ErrorAnswer": "ErrorAnswer", "ErrorDetail": "ErrorDetail",
    "CreateTable": "CreateTable", "JoinTable": "JoinTable", "StartTutorial": "StartTutorial",
    "TutorialStep": "TutorialStep", "AddBot": "AddBot", "Ready": "Ready",
    "CoachRequest": "CoachRequest",
    "SeatGranted": "SeatGranted", "TableAnswer": "TableAnswer", "TableList": "TableList",
    "ListedTable": "ListedTableModel", "RecentGames": "RecentGames",
    "RecentGame": "RecentGameModel", "ReplayAnswer": "ReplayAnswer", "ReplayStep": "ReplayStep",
    "ReplayCreated": "ReplayCreated", "ServerInfo": "ServerInfo", "BotList": "BotList",
    "BotLevel": "BotLevelModel", "Limits": "Limits", "RulesAnswer": "RulesAnswer",
    "RuleOption": "RuleOptionModel", "CardsAnswer": "CardsAnswer", "CardText": "CardText",
    "CoachAnswer": "CoachAnswer", "CoachProgress": "CoachProgress",
    "FinalLine": "FinalLine", "Minus15Choice": "Minus15Choice",
    "CreateScorecard": "CreateScorecard", "CheckRound": "CheckRound", "NewRound": "NewRound",
    "EditRound": "EditRound", "LiveUpdate": "LiveUpdate", "CardEvent": "CardEvent",
    "StayEvent": "StayEvent", "MoveEvent": "MoveEvent", "DiscardEvent": "DiscardEvent",
    "ReshuffleEvent": "ReshuffleEvent", "Flip4Event": "Flip4Event", "GiveEvent": "GiveEvent",
    "UseEvent": "UseEvent", "Problem": "_ProblemModel",
    "ScorecardErrorDetail": "_ErrorDetail",
}


# ---------------------------------------------------------------------- the JSDoc parser


@dataclass
class Prop:
    type: str
    optional: bool


@dataclass
class Typedef:
    name: str
    type: str
    props: dict[str, Prop] = field(default_factory=dict)


def _braced(text: str, start: int) -> tuple[str, int]:
    """The text inside the braces that open at ``start``, and the index after them."""
    assert text[start] == "{", text[start:start + 40]
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i].strip(), i + 1
    raise ValueError(f"unbalanced braces: {text[start:start + 60]!r}")


def _tags(block: str) -> Iterator[tuple[str, str, str]]:
    """A JSDoc block's ``@typedef``/``@property`` tags: (tag, type, the word after it)."""
    for m in re.finditer(r"@(typedef|property)\s*(?=\{)", block):
        type_, end = _braced(block, m.end())
        word = re.match(r"\s*(\[[^\]]*\]|\S+)", block[end:])
        assert word, f"@{m.group(1)} {{{type_}}} without a name"
        yield m.group(1), type_, word.group(1)


def parse_typedefs(source: str) -> dict[str, Typedef]:
    """Every ``@typedef`` of the JSDoc blocks of ``source``, with its ``@property`` tags."""
    out: dict[str, Typedef] = {}
    for block in re.findall(r"/\*\*(.*?)\*/", source, flags=re.DOTALL):
        text = re.sub(r"^\s*\*", "", block, flags=re.MULTILINE)
        current: Typedef | None = None
        for tag, type_, word in _tags(text):
            if tag == "typedef":
                assert word not in out, f"two typedefs named {word}"
                current = out[word] = Typedef(word, type_)
            else:
                assert current is not None, f"@property {word} outside a typedef"
                optional = word.startswith("[")
                name = word.strip("[]").split("=")[0]
                assert name not in current.props, f"{current.name}.{name} twice"
                current.props[name] = Prop(type_, optional)
    return out


def members(type_: str) -> list[str]:
    """The members of a type's top-level union: ``A | B[] | {a: C | D}`` -> three."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(type_):
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(type_[start:i].strip())
            start = i + 1
    out.append(type_[start:].strip())
    return out


@pytest.fixture(scope="module")
def typedefs() -> dict[str, Typedef]:
    return parse_typedefs(PROTOCOL_JS.read_text(encoding="utf-8"))


def test_the_parser() -> None:
    source = """
    /**
     * A thing.
     * @typedef {object} Thing
     * @property {string | null} name what {it} is called
     * @property {{a: number, b: Array<{c: 1}>}} [nested]
     * @typedef {Thing | "none"} Maybe
     */
    """
    defs = parse_typedefs(source)
    assert set(defs) == {"Thing", "Maybe"}
    assert defs["Thing"].props == {
        "name": Prop("string | null", False),
        "nested": Prop("{a: number, b: Array<{c: 1}>}", True),
    }
    assert defs["Maybe"].props == {}
    assert members('A | B[] | {a: C | D} | Array<E | F> | "x"') == [
        "A", "B[]", "{a: C | D}", "Array<E | F>", '"x"']


# ---------------------------------------------------------------------- against a schema


def _nullable(schema: dict[str, Any]) -> bool:
    return any(s.get("type") == "null" for s in schema.get("anyOf", []))


def _literals(schema: dict[str, Any]) -> set[str] | None:
    """The JSON of the values a schema allows when it allows only some (const, enum,
    null); None when it allows more."""
    parts = schema.get("anyOf", [schema])
    out: set[str] = set()
    for part in parts:
        if "const" in part:
            out.add(json.dumps(part["const"]))
        elif "enum" in part:
            out.update(json.dumps(v) for v in part["enum"])
        elif part.get("type") == "null":
            out.add("null")
        else:
            return None
    return out


def _refs(schema: Any) -> set[str]:
    """The models a schema refers to, anywhere inside it."""
    if isinstance(schema, dict):
        found = {schema["$ref"].rsplit("/", 1)[-1]} if "$ref" in schema else set()
        for value in schema.values():
            found |= _refs(value)
        return found
    if isinstance(schema, list):
        return set().union(*(_refs(v) for v in schema)) if schema else set()
    return set()


def _expand(type_: str, defs: dict[str, Typedef], depth: int = 3) -> str:
    """A type with the names of alias typedefs (not objects) replaced by their types."""
    if depth == 0:
        return type_

    def one(m: re.Match[str]) -> str:
        d = defs.get(m.group(0))
        if d is None or d.type == "object":
            return m.group(0)
        return f"({_expand(d.type, defs, depth - 1)})"

    return re.sub(r"\b[A-Z]\w*\b", one, type_)


def check_against_schema(
    js: Typedef, schema: dict[str, Any], defs: dict[str, Typedef], js_name: dict[str, str]
) -> list[str]:
    """What a typedef gets wrong about its model's JSON Schema; ``js_name`` maps the
    schema's model names to typedef names."""
    where = js.name
    if js.type != "object":
        return [f"{where}: a typedef {{object}} with @property tags, not {{{js.type}}}"]
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    problems = [f"{where}.{p}: in the schema, missing here" for p in props if p not in js.props]
    problems += [f"{where}.{p}: not in the schema" for p in js.props if p not in props]
    for name, prop_schema in props.items():
        prop = js.props.get(name)
        if prop is None:
            continue
        if prop.optional != (name not in required):
            problems.append(f"{where}.{name}: optional here is {prop.optional}, the schema "
                            f"{'does not require' if name not in required else 'requires'} it")
        expanded = _expand(prop.type, defs)
        if _nullable(prop_schema) != ("null" in members(prop.type)):
            problems.append(f"{where}.{name}: {{{prop.type}}} but the schema "
                            f"{'allows' if _nullable(prop_schema) else 'does not allow'} null")
        literals = _literals(prop_schema)
        if literals is not None and set(members(expanded.strip("()"))) != literals:
            problems.append(f"{where}.{name}: {{{prop.type}}}, the schema allows "
                            f"{' | '.join(sorted(literals))}")
        for ref in sorted(_refs(prop_schema)):
            wanted = js_name.get(ref)
            if wanted is None:
                problems.append(f"{where}.{name}: refers to {ref}, which has no typedef here")
            elif not re.search(rf"\b{wanted}\b", expanded):
                problems.append(f"{where}.{name}: {{{prop.type}}} does not name {wanted} "
                                f"(the schema's {ref})")
    return problems


def _protocol_name(model: str) -> str:
    return model.removesuffix("Model")


# The kinds of a legal option (flip7.server.base.protocol's DecisionModel and its subclasses)
# are one typedef, Decision: the page reads a decision's seats and cards whatever its verb.
DECISION_MODELS = ("DecisionModel", "SeatDecisionModel", "CardDecisionModel", "SwapDecisionModel")


def _merged(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema for several models: every property of any, required where all require it."""
    props: dict[str, Any] = {}
    for schema in schemas:
        props.update(schema.get("properties", {}))
    required = set.intersection(*(set(s.get("required", [])) for s in schemas))
    return {"properties": props, "required": sorted(required)}


def test_every_websocket_model_has_its_typedef(typedefs: dict[str, Typedef]) -> None:
    problems: list[str] = []
    for direction in ("client_to_server", "server_to_client"):
        models = dict(protocol_schema()[direction]["$defs"])
        names = {m: _protocol_name(m) for m in models}
        kinds = [models.pop(m) for m in DECISION_MODELS if m in models]
        if kinds:
            assert len(kinds) == len(DECISION_MODELS), direction
            names.update(dict.fromkeys(DECISION_MODELS, "Decision"))
            models["Decision"] = _merged(kinds)
        for model, schema in models.items():
            name = names.get(model, model)
            js = typedefs.get(name)
            if js is None:
                problems.append(f"{direction}: {model} has no typedef {name}")
            else:
                problems += check_against_schema(js, schema, typedefs, names)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("union", "direction"), [
    ("ClientFrame", "client_to_server"), ("ServerFrame", "server_to_client")])
def test_the_frame_unions_list_every_frame(
    typedefs: dict[str, Typedef], union: str, direction: str
) -> None:
    """Each direction's frames, by their ``type``: the union of the direction lists each
    frame's typedef, whose ``type`` is that frame's."""
    mapping = protocol_schema()[direction]["discriminator"]["mapping"]
    frames = {kind: _protocol_name(ref.rsplit("/", 1)[-1]) for kind, ref in mapping.items()}
    assert union in typedefs, f"no typedef {union}"
    assert sorted(members(typedefs[union].type)) == sorted(frames.values())
    for kind, name in frames.items():
        assert typedefs[name].props["type"].type == json.dumps(kind), name


def test_the_rest_models_have_their_typedefs(typedefs: dict[str, Typedef], tmp_path: Path) -> None:
    with app_client(tmp_path / "t.db") as client:
        components = client.get("/openapi.json").json()["components"]["schemas"]
    names = {component: js for js, component in REST_MODELS.items()}
    names.update({m: _protocol_name(m) for m in protocol_schema()["server_to_client"]["$defs"]})
    problems: list[str] = []
    for js_name, component in REST_MODELS.items():
        if component not in components:
            problems.append(f"{js_name}: the server has no model {component} any more")
        elif js_name not in typedefs:
            problems.append(f"{component} has no typedef {js_name}")
        else:
            problems += check_against_schema(typedefs[js_name], components[component],
                                             typedefs, names)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------- against answers


def check_against_answer(js: Typedef, answer: dict[str, Any]) -> list[str]:
    """What a typedef gets wrong about a real answer's fields: one missing, one the
    answer lacks although the typedef requires it."""
    problems = [f"{js.name}.{k}: in the answer, missing here" for k in answer if k not in js.props]
    problems += [f"{js.name}.{k}: required here, not in the answer"
                 for k, p in js.props.items() if not p.optional and k not in answer]
    return problems


def _check_all(typedefs: dict[str, Typedef], pairs: list[tuple[str, Any]]) -> None:
    problems: list[str] = []
    for name, answer in pairs:
        assert isinstance(answer, dict), f"{name}: no answer to compare with ({answer!r})"
        problems += check_against_answer(typedefs[name], answer)
    assert not problems, "\n".join(problems)


def test_the_rules_answers_parts(typedefs: dict[str, Typedef], tmp_path: Path) -> None:
    """``GET /api/rules`` types its cards and its options' words as plain objects: their
    typedefs against the answer."""
    with app_client(tmp_path / "t.db") as client:
        rules = client.get("/api/rules").json()
    _check_all(typedefs, [("DeckCard", card) for card in rules["cards"]]
               + [("RuleAbout", about) for about in rules["about"].values()])


def test_the_scorekeepers_answers(typedefs: dict[str, Typedef], tmp_path: Path) -> None:
    with app_client(tmp_path / "t.db") as client:
        created = client.post("/api/scorecards", json={
            "name": "Friday", "players": ["Ann", "Bob", "Cyd"], "rules": {"brutal": True}}).json()
        base, key = f"/api/scorecards/{created['id']}", {"X-Scorecard-Key": created["key"]}
        lines = [{"cards": ["3"], "busted": False}, {"cards": []}, {"cards": ["5"]}]
        check = client.post(f"{base}/check", json={"lines": lines}, headers=key).json()
        saved = client.post(f"{base}/rounds", json={"number": 1, "lines": lines},
                            headers=key).json()
        live = client.put(f"{base}/live", json={"based_on": 0, "events": [
            {"type": "card", "seat": 0, "card": "12"}]}, headers=key).json()
        flip_four = client.put(f"{base}/live", json={"based_on": live["live"]["revision"],
                                                     "events": [
            {"type": "card", "seat": 0, "card": "12"},
            {"type": "card", "seat": 1, "card": "FLIP4"}]}, headers=key).json()
        listed = client.get("/api/scorecards").json()
    _check_all(typedefs, [
        ("ScorecardCreated", created), ("Scorecard", created["scorecard"]),
        ("RoundCheck", check), ("Scorecard", saved), ("ScorecardRound", saved["rounds"][0]),
        ("Scorecard", live), ("LiveRound", live["live"]), ("LiveAdvice", live["live"]["advice"]),
        ("FlipFour", flip_four["live"]["flip_four"]),
        ("ScorecardList", listed), ("ScorecardListItem", listed["scorecards"][0]),
    ])


def test_the_players_answers_after_a_rated_game(
    typedefs: dict[str, Typedef], tmp_path: Path
) -> None:
    from test_server_ratings import QUICK, _rated_game

    with app_client(tmp_path / "t.db", **QUICK) as client:
        ann, _bob, game_id = _rated_game(client)
        mine = {"X-Player-Key": ann["key"]}
        profile = client.get(f"/api/players/{ann['id']}").json()
        me = client.get("/api/players/me", headers=mine).json()
        games = client.get(f"/api/players/{ann['id']}/games").json()
        board = client.get("/api/leaderboard").json()
        summary = client.get(f"/api/games/{game_id}/summary").json()
        record = client.get(f"/api/games/{game_id}/record").json()
        transfer = client.post("/api/players/me/transfer", headers=mine).json()
        yours = client.get("/api/players/me/tables", headers=mine).json()
    assert yours["tables"], yours  # the finished game's table waits for a rematch
    _check_all(typedefs, [
        ("YourTables", yours), ("YourTable", yours["tables"][0]),
        ("YourTableSeat", yours["tables"][0]["seats"][0]),
        ("Identity", ann), ("Profile", profile), ("Profile", me),
        ("PlayerStats", profile["stats"]), ("RatingPoint", profile["rating_history"][0]),
        ("PlayerGames", games), ("PlayerGame", games["games"][0]),
        ("GameSeat", games["games"][0]["players"][0]),
        ("Leaderboard", board), ("LeaderboardPlayer", board["players"][0]),
        ("LeaderboardBot", board["bots"][0]),
        ("EndSummary", summary), ("EndSeat", summary["seats"][0]),
        ("EndSeatStats", summary["seats"][0]["stats"]),
        ("GameRecord", record), ("TransferCode", transfer),
    ])
    assert set(profile["rating"]) == {"mu", "sigma", "display", "provisional", "games", "wins"}


def test_the_coachs_report(typedefs: dict[str, Typedef]) -> None:
    from flip7.coach.report import CoachReport, GradedDecision, GradedOption
    from flip7.server.services.coach_jobs import _with_decision_objects

    option = GradedOption("hit", 40.0, 12.5, 100)
    decision = GradedDecision(0, 1, 2, 2, "hit_or_stay", "stay", "hit", "mistake", 30.0, 40.0,
                              10.0, 1.0, (option,), "hit is better")
    report = CoachReport(0, "Ann", (decision,)).to_json()
    # As stored (flip7 analyse --json), and as the server answers it (decisions as objects too).
    answered = _with_decision_objects(report)
    assert isinstance(answered, dict) and isinstance(answered["decisions"], list)
    graded = answered["decisions"][0]
    assert isinstance(graded, dict) and isinstance(graded["options"], list)
    _check_all(typedefs, [
        ("CoachReport", report), ("GradedDecision", report["decisions"][0]),
        ("GradedOption", report["decisions"][0]["options"][0]),
        ("CoachReport", answered), ("GradedDecision", graded),
        ("GradedOption", graded["options"][0]),
        ("Decision", graded["made_object"]), ("Decision", graded["best_object"]),
    ])
