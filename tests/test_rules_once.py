"""Every rule and constant of RULES.md lives in one place, which every part uses.

The rule options, their defaults and the player counts are :mod:`flip7.core.rules`'; the
scoring, the −15 and the end of the game :mod:`flip7.core.scoring`'; the bust rule and the
Flip 7 count :mod:`flip7.core.lines`'; the bust risk :func:`flip7.analysis.advisor.bust_risk`.
These tests fail when a second copy appears: in ``src`` (by grep) or in the browser's
JavaScript, which gets all of them from ``GET /api/rules`` and the table's frames.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

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


def _python_files() -> list[tuple[str, str]]:
    return [
        (name, path.read_text(encoding="utf-8"))
        for path in sorted(SRC.rglob("*.py"))
        if not (name := path.relative_to(SRC).as_posix()).startswith(SECOND_COPY)
    ]


def test_the_second_copy_is_held_to_the_engine_by_replay() -> None:
    text = (Path(__file__).parent / "fast" / "test_fast.py").read_text(encoding="utf-8")
    assert "replay" in text and (SRC / SECOND_COPY).is_dir()


def _js_files() -> list[tuple[str, str]]:
    return [(path.name, path.read_text(encoding="utf-8")) for path in sorted(JS.glob("*.js"))]


def _sites(pattern: str) -> set[str]:
    rx = re.compile(pattern)
    return {name for name, text in _python_files() if rx.search(text)}


# ---------------------------------------------------------------------- one place in src


@pytest.mark.parametrize(
    ("pattern", "home"),
    [
        (r"allow_two_players else", {"core/rules.py"}),
        (r"brutal_busted_scoring ==", {"core/rules.py"}),
        (r"(?m)^MAX_PLAYERS\s*=", {"core/rules.py"}),
        (r"(?m)^ONE_DECK_MAX_PLAYERS\s*=", {"core/rules.py"}),
        (r"decks must be", {"core/rules.py"}),
        (r"need 2 decks|one deck is for", {"core/rules.py"}),
        (r"(?m)^FLIP7_BONUS\s*=", {"core/scoring.py"}),
        (r"[-+]= 15\b|\b15 if seat ==", set()),
        (r"tie_break == \"shared_win\"", {"core/scoring.py"}),
        (r"def _bust_reasons|def _busts\b|def _end_of_game", set()),
        (r"brutal_minus15_targets ==", {"core/rules.py"}),
        # §4.4.5, §4.3.3: who wipes, who must hit (core/lines.py's wipes and must_hit).
        (r"unlucky7_triggers_on_transfer\)", {"core/lines.py"}),
        (r"ZERO in ", set()),
        # §5.1's seven cards are FLIP7_CARDS, not a 7 or a 6 compared with a card count.
        (r"(len\((line|numbers|cards)\w*\)|\bcards|\bn|\bheld) *(>=|>|<|<=|!=|==) *[67]\b", set()),
        (r"\b[67] - (n|held|first|_count)\b", set()),
        (r"(?m)^FLIP7_CARDS\s*=", {"core/lines.py"}),
    ],
)
def test_a_rule_is_written_once_in_src(pattern: str, home: set[str]) -> None:
    assert _sites(pattern) <= home, f"{pattern!r} outside {home}: {_sites(pattern) - home}"


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
