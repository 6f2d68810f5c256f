"""Every rule and constant of RULES.md lives in one place, which every part uses.

The rule options, their defaults and the player counts are :mod:`flip7.core.rules`'; the
scoring, the −15 and the end of the game :mod:`flip7.core.scoring`'; the bust rule and the
Flip 7 count :mod:`flip7.core.lines`'; the bust risk :func:`flip7.analysis.advisor.bust_risk`.
These tests fail when a second copy appears: in ``src`` (read as syntax trees: which names
are bound, which options are read, which numbers are compared, which functions are called)
or in the browser's JavaScript, which gets all of them from ``GET /api/rules`` and the
table's frames (read as text: the project has no JavaScript parser).
"""

from __future__ import annotations

import ast
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import TypeVar

import pytest

from flip7.core.cards import NUMBERS, Card, deck_counts
from flip7.core.lines import (
    COPY_BUSTS,
    FLIP7_CARDS,
    bust_reasons,
    busts,
    has_duplicate,
    is_flip7,
    must_hit,
)
from flip7.core.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ONE_DECK_MAX_PLAYERS,
    TWO_PLAYERS,
    Rules,
    decks_for,
    players_problem,
)
from flip7.core.scoring import FLIP7_BONUS, add_round, game_winners, round_score, score_round

SRC = Path(__file__).resolve().parents[1] / "src" / "flip7"
JS = SRC / "server" / "static" / "js"
RULES_MD = Path(__file__).resolve().parents[1].parent / "shared" / "RULES.md"


# The compiled simulator (flip7.fast) is the one sanctioned second copy of the rules: numba
# code cannot call the engine's Python. It is held to the engine by replay instead: every
# record it writes replays through the engine to the same result (tests/fast/test_fast.py).
SECOND_COPY = "fast/"

N = TypeVar("N", bound=ast.AST)


class Source:
    """Modules as syntax trees, by their path under ``src/flip7``, with their nodes by kind."""

    def __init__(self, trees: dict[str, ast.Module]) -> None:
        self.trees = trees
        self.by_kind: defaultdict[type[ast.AST], list[tuple[str, ast.AST]]] = defaultdict(list)
        for module, tree in trees.items():
            for node in ast.walk(tree):
                self.by_kind[type(node)].append((module, node))

    def nodes(self, kind: type[N]) -> Iterator[tuple[str, N]]:
        for module, node in self.by_kind[kind]:
            assert isinstance(node, kind)
            yield module, node


@cache
def _src() -> Source:
    """Every module of ``src/flip7`` but the second copy."""
    return Source({
        name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for path in sorted(SRC.rglob("*.py"))
        if not (name := path.relative_to(SRC).as_posix()).startswith(SECOND_COPY)
    })  # fmt: skip


def _int(node: ast.AST, *values: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value in values


def _named(node: ast.AST) -> str | None:
    """The name a Name or an attribute reads (``n``; ``rules.tie_break``: ``tie_break``)."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _calls(tree: ast.AST) -> set[str]:
    """The names of the functions and methods called in ``tree``."""
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    return {name for call in calls if (name := _named(call.func))}


def test_the_second_copy_is_held_to_the_engine_by_replay() -> None:
    """tests/fast/test_fast.py imports the engine's replay, and one of its tests gives the
    engine's replay the records of ``fast.simulate`` (read from its syntax tree: running it
    needs numba)."""
    path = Path(__file__).parent / "fast" / "test_fast.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert (SRC / SECOND_COPY).is_dir()
    assert "replay" in _imported_from(tree, "flip7.engine.record")
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    calls = {name: _calls(f) for name, f in functions.items()}

    def reaches(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found = set(calls[name])
        for callee in calls[name] & set(functions) - seen:
            found |= reaches(callee, seen | {name})
        return found

    assert any(
        {"replay", "simulate"} <= reaches(name) for name in functions if name.startswith("test_")
    )


def _js_files() -> list[tuple[str, str]]:
    return [(path.name, path.read_text(encoding="utf-8")) for path in sorted(JS.glob("*.js"))]


# ---------------------------------------------------------------------- one place in src


def _bound(name: str) -> set[str]:
    """The modules that bind ``name`` by an assignment (a definition, not an import)."""
    targets = [
        *((m, t) for m, node in _src().nodes(ast.Assign) for t in node.targets),
        *((m, node.target) for m, node in _src().nodes(ast.AnnAssign)),
        *((m, node.target) for m, node in _src().nodes(ast.AugAssign)),
        *((m, node.target) for m, node in _src().nodes(ast.NamedExpr)),
    ]
    return {
        module
        for module, target in targets
        for bound in ast.walk(target)
        if isinstance(bound, ast.Name) and bound.id == name
    }


@pytest.mark.parametrize(
    ("name", "home"),
    [
        ("MIN_PLAYERS", "core/rules.py"),
        ("TWO_PLAYERS", "core/rules.py"),
        ("MAX_PLAYERS", "core/rules.py"),
        ("ONE_DECK_MAX_PLAYERS", "core/rules.py"),
        ("FLIP7_BONUS", "core/scoring.py"),
        ("FLIP7_CARDS", "core/lines.py"),
        ("COPY_BUSTS", "core/lines.py"),
    ],
)
def test_a_rule_constant_is_defined_once(name: str, home: str) -> None:
    assert _bound(name) == {home}


def _reads(option: str) -> set[str]:
    """The modules that read the rule option ``option`` (an attribute of that name)."""
    return {
        module
        for module, node in _src().nodes(ast.Attribute)
        if node.attr == option and isinstance(node.ctx, ast.Load)
    }


@pytest.mark.parametrize(
    ("option", "home"),
    [
        ("allow_two_players", {"core/rules.py"}),  # Rules.min_players, players_text
        ("brutal_busted_scoring", {"core/rules.py"}),  # Rules.busted_modifiers_count
        ("brutal_minus15_targets", {"core/rules.py"}),  # Rules.minus15_may_hit_busted
        ("tie_break", {"core/scoring.py"}),  # game_winners
        # §4.4.5: who wipes is core/lines.py's wipes; core/explain.py picks its words by it.
        ("unlucky7_triggers_on_transfer", {"core/lines.py", "core/explain.py"}),
    ],
)
def test_a_rule_option_is_decided_in_one_place(option: str, home: set[str]) -> None:
    assert _reads(option) == home


def _texts() -> Iterator[tuple[str, str]]:
    """Every string constant (the pieces of f-strings too) but docstrings."""
    docstrings = {
        id(node.body[0].value)
        for kind in (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        for _, node in _src().nodes(kind)
        if node.body and isinstance(node.body[0], ast.Expr)
    }
    for module, node in _src().nodes(ast.Constant):
        if isinstance(node.value, str) and id(node) not in docstrings:
            yield module, node.value


def _written(words: str) -> set[str]:
    return {module for module, text in _texts() if words in text}


@pytest.mark.parametrize("words", ["decks must be", " decks (one deck is for up to "])
def test_the_deck_messages_are_written_once(words: str) -> None:
    assert _written(words) == {"core/rules.py"}


def _fifteens() -> list[tuple[str, int, str]]:
    """``total -= 15``, ``15 if seat == …`` and ``-15``: where FLIP7_BONUS is meant."""
    found = [
        (module, node)
        for module, node in _src().nodes(ast.AugAssign)
        if isinstance(node.op, ast.Add | ast.Sub) and _int(node.value, 15)
    ]
    found += [
        (module, node)
        for module, node in _src().nodes(ast.IfExp)
        if _int(node.body, 15) or _int(node.orelse, 15)
    ]
    found += [
        (module, node)
        for module, node in _src().nodes(ast.UnaryOp)
        if isinstance(node.op, ast.USub) and _int(node.operand, 15)
    ]
    return [(module, node.lineno, ast.unparse(node)) for module, node in found]


def test_the_plus_and_minus_15_are_flip7_bonus() -> None:
    """The Flip 7 bonus and the Brutal −15 are core/scoring.py's FLIP7_BONUS."""
    assert _fifteens() == []


_COPIES = {"_bust_reasons", "_busts", "_end_of_game"}


def _copies() -> list[tuple[str, str]]:
    return [
        (module, node.name)
        for kind in (ast.FunctionDef, ast.AsyncFunctionDef)
        for module, node in _src().nodes(kind)
        if node.name in _COPIES
    ]


def test_no_private_copy_of_a_core_rule() -> None:
    """The engine once had its own bust rule and end of the game: no such function now."""
    assert _copies() == []


def _imported_from(tree: ast.Module, module: str) -> set[str]:
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == module
        for alias in node.names
    }


@pytest.mark.parametrize(
    ("user", "home", "rules"),
    [
        ("engine/game.py", "flip7.core.rules", {"players_problem", "decks_for"}),
        ("engine/game.py", "flip7.core.lines", {"busts", "wipes", "must_hit", "is_flip7"}),
        ("engine/game.py", "flip7.core.scoring", {"round_score", "busted_score", "game_winners"}),
        ("scorekeeper/scorecard.py", "flip7.core.rules", {"players_problem", "decks_for"}),
        ("scorekeeper/scorecard.py", "flip7.core.scoring", {"add_round", "game_winners"}),
        ("scorekeeper/rounds.py", "flip7.core.lines", {"bust_reasons", "is_flip7"}),
        ("scorekeeper/rounds.py", "flip7.core.scoring", {"score_round"}),
    ],
)
def test_the_engine_and_the_scorekeeper_call_the_core_rules(
    user: str, home: str, rules: set[str]
) -> None:
    """Each imports these rules' functions from their home and calls them."""
    tree = _src().trees[user]
    assert rules <= _imported_from(tree, home) & _calls(tree)


def _zero_in() -> list[tuple[str, int, str]]:
    return [
        (module, node.lineno, ast.unparse(node))
        for module, node in _src().nodes(ast.Compare)
        if any(isinstance(op, ast.In) for op in node.ops)
        and (_named(node.left) or "").lstrip("_") == "ZERO"
    ]


def test_the_zero_is_looked_for_by_must_hit() -> None:
    """§4.3.3: whether a line's Zero makes its player hit is core/lines.py's must_hit; no
    ``ZERO in line`` anywhere (must_hit itself reads the line's flags)."""
    assert _zero_in() == []


# §5.1's seven cards are FLIP7_CARDS: no 7 or 6 compared with a count of cards (``len(line)``,
# ``len(numbers[seat])``, ``cards``, ``n``, ``held``), nor a 7 or a 6 a count is taken from.
_COUNTS = {"cards", "n", "held"}
_LINES = ("line", "numbers", "cards")


def _a_count_of_cards(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and _named(node.func) == "len" and node.args:
        counted = node.args[0]
        while isinstance(counted, ast.Subscript):
            counted = counted.value
        return (_named(counted) or "").startswith(_LINES)
    return isinstance(node, ast.Name) and node.id in _COUNTS


def _sevens() -> list[tuple[str, int, str]]:
    found: list[tuple[str, ast.expr]] = [
        (module, node)
        for module, node in _src().nodes(ast.Compare)
        if any(_int(side, 6, 7) for side in (node.left, *node.comparators))
        and any(_a_count_of_cards(side) for side in (node.left, *node.comparators))
    ]
    found += [
        (module, node)
        for module, node in _src().nodes(ast.BinOp)
        if isinstance(node.op, ast.Sub) and _int(node.left, 6, 7)
    ]
    return [(module, node.lineno, ast.unparse(node)) for module, node in found]


def test_the_flip7_count_is_flip7_cards() -> None:
    assert _sevens() == []


def test_the_guards_find_the_copies_they_guard_against(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each guard above, shown a module holding the copy it looks for, finds it there."""
    copy = Source({"elsewhere.py": ast.parse(
        "MAX_PLAYERS = 36\n"
        "def _busts(line, card):\n"
        "    return card in line\n"
        "def score(rules, seat, n, line, numbers, totals, flip7):\n"
        "    if rules.tie_break == 'shared_win' and Card.ZERO in line:\n"
        "        totals[seat] -= 15\n"
        "    if len(numbers[seat]) >= 7 or n == 7:\n"
        "        return 7 - n\n"
        "    problem = f'{n} players need 2 decks (one deck is for up to 18 players)'\n"
        "    return 15 if seat == flip7 else -15\n"
    )})  # fmt: skip
    monkeypatch.setattr(sys.modules[__name__], "_src", lambda: copy)
    assert _bound("MAX_PLAYERS") == _reads("tie_break") == {"elsewhere.py"}
    assert _written(" decks (one deck is for up to ") == {"elsewhere.py"}
    assert _copies() == [("elsewhere.py", "_busts")]
    assert [(line, text) for _, line, text in _zero_in()] == [(5, "Card.ZERO in line")]
    assert [text for _, _, text in _fifteens()] == [
        "totals[seat] -= 15", "15 if seat == flip7 else -15", "-15"
    ]  # fmt: skip
    assert [text for _, _, text in _sevens()] == [
        "len(numbers[seat]) >= 7", "n == 7", "7 - n"
    ]  # fmt: skip


def test_the_engine_and_the_scorekeeper_name_the_core_constants() -> None:
    from flip7.engine import game
    from flip7.scorekeeper import scorecard

    assert game.MAX_PLAYERS is MAX_PLAYERS and game.ONE_DECK_MAX_PLAYERS is ONE_DECK_MAX_PLAYERS
    assert scorecard.MAX_PLAYERS is MAX_PLAYERS
    assert (MIN_PLAYERS, TWO_PLAYERS, ONE_DECK_MAX_PLAYERS, MAX_PLAYERS) == (3, 2, 18, 36)
    assert [decks_for(n) for n in (3, 18, 19, 36)] == [1, 1, 2, 2]


def test_the_player_count_messages_come_from_core() -> None:
    from flip7.core.errors import GameStateError
    from flip7.engine.game import Game
    from flip7.scorekeeper.scorecard import Scorecard, ScorecardError

    problem = players_problem(2, Rules())
    assert problem == "a game needs 3 to 36 players (2 only with allow_two_players), got 2"
    with pytest.raises(GameStateError) as engine:
        Game.new(2)
    assert str(engine.value) == problem
    with pytest.raises(ScorecardError) as keeper:
        Scorecard.new(["Ann", "Bob"])
    assert str(keeper.value) == players_problem(
        2, Rules(), option="the rule allow_two_players"
    )
    assert players_problem(2, Rules(allow_two_players=True)) is None
    assert players_problem(19, Rules(), 1) == (
        "19 players need 2 decks (one deck is for up to 18 players)"
    )
    # The decks' messages too (test_the_deck_messages_are_written_once: in core alone).
    names = [f"P{i}" for i in range(19)]
    for players, decks in ((19, 1), (3, 3)):
        problem = players_problem(players, Rules(), decks)
        assert problem is not None
        with pytest.raises(GameStateError, match=f"^{re.escape(problem)}$"):
            Game.new(players, decks=decks)
        with pytest.raises(ScorecardError, match=f"^{re.escape(problem)}$"):
            Scorecard.new(names[:players], decks=decks)


# ---------------------------------------------------------------------- RULES.md §13


@pytest.mark.skipif(not RULES_MD.is_file(), reason="no ../shared/RULES.md next to this clone")
def test_the_options_are_those_of_rules_md() -> None:
    section = RULES_MD.read_text(encoding="utf-8").split("## 13.", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| `(.+?)` \|$", section, re.M)
    assert [name for name, _, _ in rows] == [o.name for o in Rules.options()]
    for (name, _values, default), option in zip(rows, Rules.options(), strict=True):
        shown = default.strip('"')
        assert shown == str(option.default).lower() or shown == str(option.default), name


def test_each_option_has_help_a_section_and_words_for_its_choices() -> None:
    for option in Rules.options():
        assert option.help and option.section.startswith("§"), option.name
        if option.type == "choice":
            assert option.choices is not None and option.default in option.choices
            assert [value for value, _ in option.words] == list(option.choices)
        assert option.to_json()["default"] == getattr(Rules(), option.name)


# ---------------------------------------------------------------------- scoring and lines


def test_the_engine_shortcut_is_the_core_score() -> None:
    """engine/game.py ``_score_round`` scores a line with no Modifiers, no Zero and no Flip 7
    as its number sum: that is what :func:`round_score` gives such a line."""
    rng = random.Random(7)
    plain = [c for c in NUMBERS if c is not Card.ZERO]
    for _ in range(2000):
        line = rng.sample(plain, rng.randint(0, 6))
        for brutal in (False, True):
            assert round_score(line, [], flip7=False, brutal=brutal) == sum(
                c.value_points for c in line
            )


def test_a_round_and_the_end_of_the_game() -> None:
    rules = Rules(brutal=True, target_score=30)
    lines = [
        ([Card.ONE, Card.TWO, Card.THREE, Card.FOUR, Card.FIVE, Card.SIX, Card.ZERO], [], False),
        ([Card.NINE, Card.NINE], [Card.MINUS_4], True),
        ([Card.TEN], [], False),
    ]
    scores = score_round(lines, rules, flip7=0, minus15=2)
    assert scores == (21, -4, 10)  # no +15 for the −15 taken instead
    totals = add_round((10, 0, 20), scores, 2)
    assert totals == (31, -4, 30 - FLIP7_BONUS)
    assert game_winners(totals, rules) == (0,)
    assert game_winners((31, 31, 0), rules) == ()  # a tie at the top: extra rounds
    assert game_winners((31, 31, 0), rules.replace(tie_break="shared_win")) == (0, 1)
    assert game_winners((29, 0, 0), rules) == ()


def test_bust_reasons_and_busts_say_the_same_as_has_duplicate() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        line = [rng.choice(NUMBERS) for _ in range(rng.randint(0, 5))]
        assert bool(bust_reasons(line)) == has_duplicate(line)
        if not has_duplicate(line):
            card = rng.choice(NUMBERS)
            assert busts(line, card) == has_duplicate([*line, card])
    assert is_flip7(NUMBERS[1:FLIP7_CARDS + 1]) and not is_flip7(NUMBERS[1:FLIP7_CARDS])


def test_the_engines_copy_check_is_the_core_bust_rule() -> None:
    """engine/game.py's hot loop busts a card of :data:`COPY_BUSTS` on a copy of itself:
    that is exactly what :func:`busts` says for those cards, and for no other card."""
    rng = random.Random(11)
    for _ in range(3000):
        line = [rng.choice(NUMBERS) for _ in range(rng.randint(0, 6))]
        if has_duplicate(line):
            continue
        for card in NUMBERS:
            if COPY_BUSTS[card]:
                assert busts(line, card) == (card in line), (line, card)
    copy_only = [c for c in NUMBERS if COPY_BUSTS[c]]
    assert [c.code for c in NUMBERS if not COPY_BUSTS[c]] == ["7", "13", "U7", "L13"]
    assert len(copy_only) == len(NUMBERS) - 4
    assert not any(COPY_BUSTS[c] for c in Card if not c.is_number)


@pytest.mark.parametrize("rules", [Rules(), Rules(can_stay_with_empty_line=True)])
def test_the_engine_offers_stay_exactly_when_core_allows_it(rules: Rules) -> None:
    """Every turn the engine gives (a Hit/Stay to decide, or a hit it makes itself because
    Stay is not allowed) agrees with :func:`must_hit`, checked on the line as it stands."""
    from flip7.core.decisions import DecisionKind
    from flip7.core.events import Drew
    from flip7.engine.game import Game

    rng = random.Random(5)
    offered = forced = 0
    for g in range(60):
        game = Game.new(4, rules, explicit=True, dealer=g % 4)
        hit_by: int | None = None  # the seat whose chosen Hit is waiting for its card
        while not game.over:
            if game.needs_card:
                lines = [(game.line(s), game.modifiers(s)) for s in range(game.n)]
                outcomes = game.chance_outcomes()
                card = rng.choices([c for c, _ in outcomes], [float(p) for _, p in outcomes])[0]
                for event in game.draw(card):
                    if isinstance(event, Drew) and event.cause == "hit":
                        if event.seat == hit_by:
                            hit_by = None
                        else:
                            forced += 1
                            assert must_hit(*lines[event.seat], rules) is not None, lines
                        break
                continue
            seat = game.to_decide
            assert seat is not None
            if game.decision_kind is DecisionKind.HIT_OR_STAY:
                offered += 1
                assert must_hit(game.line(seat), game.modifiers(seat), rules) is None
            decision = rng.choice(game.legal_decisions())
            if str(decision) == "hit":
                hit_by = seat
            game.apply(decision)
    assert offered > 500 and forced > 50


# ---------------------------------------------------------------------- the bust risk


def test_the_terminal_game_shows_the_advisors_bust_risk() -> None:
    pytest.importorskip("rich")
    import io

    from rich.console import Console

    from flip7.analysis.advisor import Situation, bust_risk, next_card
    from flip7.cli.play import YOU, TerminalGame
    from flip7.engine.game import Game

    game = Game.new(3, explicit=True, dealer=2)
    for code in ["12", "5", "9"]:
        game.draw(code)
    ui = TerminalGame(game, [None, None, None], io.StringIO(), Console(file=io.StringIO()))
    expected = next_card(Situation.from_game(game, YOU)).p_bust
    assert bust_risk(game, YOU) == expected
    assert ui.bust_chance() == float(expected)


def test_the_deciding_seat_gets_the_bust_risk_from_the_server() -> None:
    """The view a seat is sent (:func:`flip7.server.table.views.seat_view`, for the live
    table and a seat's replay alike) holds the advisor's bust risk when it must Hit or Stay."""
    pytest.importorskip("fastapi")
    from flip7.analysis.advisor import bust_risk
    from flip7.engine.game import Game
    from flip7.server.table.views import seat_view

    game = Game.new(3, explicit=True, dealer=2)
    for code in ["12", "5", "9"]:
        game.draw(code)
    view = seat_view(game, 0)
    assert view["bust_risk"] == float(bust_risk(game, 0))
    game.apply("stay")  # seat 0 stayed: its line has no next card to show odds for
    assert "bust_risk" not in seat_view(game, 0)
    assert seat_view(game, 1)["bust_risk"] == float(bust_risk(game, 1))


# ---------------------------------------------------------------------- the browser


def test_api_rules_serves_the_core_options_and_numbers(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from server_helpers import app_client

    from flip7.server.table.options import MAX_SEATS

    with app_client(tmp_path / "db.sqlite") as client:
        data = client.get("/api/rules").json()
    assert data["options"] == [o.to_json() for o in Rules.options()]
    assert data["about"]["tie_break"]["values"] == dict(Rules.option("tie_break").words)
    assert data["players"] == {
        "min": MIN_PLAYERS, "min_two_players": TWO_PLAYERS, "max": MAX_PLAYERS,
        "one_deck_max": ONE_DECK_MAX_PLAYERS, "table_max": MAX_SEATS,
    }  # fmt: skip
    assert data["flip7"] == {"cards": FLIP7_CARDS, "bonus": FLIP7_BONUS}
    deck = deck_counts()
    assert [(c["code"], c["count"], c["value"]) for c in data["cards"]] == [
        (c.code, deck[c], c.value_points) for c in Card
    ]


def test_the_javascript_keeps_no_copy_of_the_rules() -> None:
    # The values of several words ("modifiers_only"): "zero" is also a card's CSS class.
    choices = {
        value
        for option in Rules.options()
        for value in option.choices or ()
        if isinstance(value, str) and "_" in value
    }
    copies = [
        # an option's values (the server sends them, and the words for them)
        *(rf"[\"']{re.escape(value)}[\"']|\b{re.escape(value)}\s*:" for value in choices),
        # the defaults and limits: 200, 36, 18/19 players, 2 or 3 players, 7 cards, +15
        r"(\|\||\?\?|===|!==|default:|value:)\s*[\"']?200\b",
        r"[\"']200[\"']",
        r"(?<!toString\()\b36\b",
        r"(>=|<=|>|<|=)\s*1[89]\b",
        r"\?\s*2\s*:\s*3\b",
        r"length:\s*7\b|of 7 number",
        r"[+−-]15\b",
        r"RULE_DEFAULTS|FALLBACK_VALUES|bustRisk",
    ]
    found = [
        (name, pattern, m.group(0))
        for name, text in _js_files()
        for pattern in copies
        for m in re.finditer(pattern, text)
    ]
    assert found == []
