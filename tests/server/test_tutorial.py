"""The first game that teaches (flip7.server.table.tutorial): driving the engine through the
script really brings every lesson's event, in order, and ends the game with the script."""

from __future__ import annotations

import random

import pytest

from flip7.core.cards import ACTIONS, MODIFIERS, Card, new_deck
from flip7.core.decisions import parse_decision
from flip7.core.events import Event
from flip7.core.lines import FLIP7_CARDS
from flip7.core.scoring import FLIP7_BONUS
from flip7.engine.game import Game
from flip7.engine.record import Record, replay
from flip7.server.table.changes import TutorialStep
from flip7.server.table.tutorial import FIRST_GAME, LEARNER, SCRIPTS, Tutorial, for_start

NAMES = ["Ann", "Basic bot 1", "Basic bot 2"]
# What the issue asks the first game to teach, each by a lesson of its own.
TAUGHT = {
    "hit", "bust", "stay", "zero", "unlucky7", "lucky13", "just_one_more", "flip_four",
    "steal", "swap", "discard", "modifier", "flip7", "scoring",
}


def _matches(event: Event, after: tuple[str, str | None]) -> bool:
    data = event.to_json()
    kind, card = after
    return data["type"] == kind and (card is None or data.get("card") == card)


def _play(seed: int = 1) -> tuple[Game, Tutorial, list[tuple[int, str, list[Event]]]]:
    """Play the whole script as the server does: bots take the script's decisions once the
    lessons at their turn are read; the learner reads and then makes the move asked for.
    Returns every lesson shown with the events since the step that showed the lessons
    before its step's."""
    game, events = FIRST_GAME.new_game(NAMES, FIRST_GAME.rules, seed)
    tutorial = Tutorial(FIRST_GAME)
    shown: list[tuple[int, str, list[Event]]] = []
    since: list[Event] = list(events)
    window: list[Event] = []
    at = -1  # the step whose lessons are on screen: they share one window of events
    for _ in range(500):
        state = tutorial.to_json(game)  # every lesson's text fills in at every point
        lesson = tutorial.lesson(game)
        if lesson is not None and (not shown or shown[-1][0] != lesson[0]):
            if len(game.decisions) != at:
                at, window, since = len(game.decisions), since, []
            shown.append((lesson[0], lesson[1].id, window))
        if game.over:
            if lesson is None:
                break
            tutorial.read(lesson[0])
            continue
        index = tutorial.step(game)
        assert index is not None, (len(game.decisions), game.to_decide)
        step = FIRST_GAME.steps[index]
        assert step.decision in game.legal_decisions(), (index, step)
        if step.seat == LEARNER:
            if lesson is not None and lesson[2]:
                tutorial.read(lesson[0])
                continue
            assert state["expect"] == str(step.decision)
            since += game.apply(step.decision)
        else:
            move = tutorial.bot_move(game)
            if move == "wait":
                assert lesson is not None and lesson[2]
                tutorial.read(lesson[0])
                continue
            assert move == step.decision
            since += game.apply(step.decision)
    return game, tutorial, shown


def test_every_lesson_comes_with_its_event_in_order() -> None:
    game, tutorial, shown = _play()
    lessons = FIRST_GAME.lessons
    assert [number for number, _, _ in shown] == list(range(len(lessons)))
    for number, lesson_id, events in shown:
        lesson = lessons[number]
        assert lesson.id == lesson_id
        if lesson.after is not None:
            assert any(_matches(e, lesson.after) for e in events), (lesson.id, events)
    assert {lesson.id for lesson in lessons} >= TAUGHT
    # The lessons at a bot's turn were all read; the ending too.
    assert tutorial.lessons_read == len(lessons)
    assert tutorial.lesson(game) is None


def test_the_guided_game_ends_with_the_script_and_the_learner_wins() -> None:
    game, tutorial, _ = _play()
    assert game.over and game.winners == (LEARNER,)
    assert len(game.decisions) == len(FIRST_GAME.steps)
    assert game.rounds[-1].flip7 == LEARNER
    target = FIRST_GAME.rules.target_score
    assert target < Game.new(3).rules.target_score  # a short game
    # Nobody reached the target before the last round: the game ends with the script.
    totals = [0, 0, 0]
    for result in game.rounds[:-1]:
        totals = [t + s for t, s in zip(totals, result.scores, strict=True)]
        assert max(totals) < target
    assert tutorial.to_json(game)["step"] == tutorial.to_json(game)["steps"]


def test_every_special_card_and_every_action_is_in_the_script() -> None:
    drawn = set(FIRST_GAME.draws)
    assert {Card.ZERO, Card.UNLUCKY_7, Card.LUCKY_13} <= drawn
    assert set(ACTIONS) <= drawn
    assert drawn & set(MODIFIERS)
    # And each one is really drawn in the guided game.
    game, _, _ = _play()
    assert {Card.ZERO, Card.UNLUCKY_7, Card.LUCKY_13, *ACTIONS} <= set(game.draws)


def test_the_seed_shuffles_only_the_cards_after_the_script() -> None:
    n = len(FIRST_GAME.draws)
    one, two = FIRST_GAME.pile(random.Random(1)), FIRST_GAME.pile(random.Random(2))
    assert one[-n:] == two[-n:] == list(reversed(FIRST_GAME.draws))  # drawn from the end
    assert sorted(one) == sorted(two) == sorted(new_deck())  # a whole deck
    assert one[:-n] != two[:-n]
    # Whatever the seed, the guided game draws the script's cards and nothing more.
    assert _play(1)[0].draws == _play(2)[0].draws == FIRST_GAME.draws


def test_a_tutorial_game_has_a_record_that_replays() -> None:
    game, _, _ = _play(5)
    again = replay(Record.from_json(Record.from_game(game).to_json()))
    assert again.totals == game.totals and again.winners == game.winners


def test_the_learner_may_make_only_the_move_the_lesson_asks_for() -> None:
    game, _ = FIRST_GAME.new_game(NAMES, FIRST_GAME.rules, 1)
    tutorial = Tutorial(FIRST_GAME)
    for number in (0, 1):
        tutorial.read(number)
        game.apply(tutorial.bot_move(game))  # type: ignore[arg-type]
    assert game.to_decide == LEARNER
    assert tutorial.refusal(game, LEARNER, parse_decision("hit")) is None
    message = tutorial.refusal(game, LEARNER, parse_decision("stay"))
    assert message == (
        "the lesson asks you to Hit now — or skip the tutorial to play freely"
    )
    state = tutorial.to_json(game)
    assert state["expect"] == "hit" and state["lesson"]["id"] == "hit"
    assert state["lesson"]["next"] is False and state["step"] == 2
    assert "Ann" not in state["lesson"]["text"] and "{" not in state["lesson"]["text"]


def test_the_steal_is_asked_for_in_words_and_bots_wait_for_got_it() -> None:
    game, tutorial, _ = _play_to("steal")
    assert tutorial.to_json(game)["expect"] == "steal 1 3"
    message = tutorial.refusal(game, LEARNER, parse_decision("steal 2 9"))
    assert message is not None and "steal Basic bot 1's 3 now" in message


def _play_to(lesson_id: str) -> tuple[Game, Tutorial, int]:
    """The guided game up to the point where ``lesson_id`` is on screen."""
    game, _ = FIRST_GAME.new_game(NAMES, FIRST_GAME.rules, 1)
    tutorial = Tutorial(FIRST_GAME)
    while True:
        lesson = tutorial.lesson(game)
        if lesson is not None and lesson[1].id == lesson_id:
            return game, tutorial, lesson[0]
        if lesson is not None and lesson[2]:
            tutorial.read(lesson[0])
            continue
        index = tutorial.step(game)
        assert index is not None
        game.apply(FIRST_GAME.steps[index].decision)


def test_the_numbers_in_lessons_come_from_core() -> None:
    game, tutorial, number = _play_to("flip7_chance")
    text = tutorial.to_json(game)["lesson"]["text"]
    assert f"+{FLIP7_BONUS} points" in text and f"{FLIP7_CARDS} Number cards" in text
    assert "You hold 6 different numbers" in text
    assert tutorial.to_json(game)["lesson"]["number"] == number
    for lesson in FIRST_GAME.lessons:  # never a copy of a rule's number
        assert str(FLIP7_BONUS) not in lesson.text, lesson.id


def test_reading_and_skipping_are_checked() -> None:
    game, tutorial, number = _play_to("bust")
    assert tutorial.bot_move(game) == "wait"
    assert tutorial.problem(game, False, number + 1) == (
        "stale_lesson", f"lesson {number + 1} is not on screen; lesson {number} is"
    )
    assert tutorial.problem(game, False, number) is None
    event = tutorial.apply(TutorialStep(read=number))
    assert event.to_json() == {"type": "tutorial", "read": number}
    assert tutorial.bot_move(game) == parse_decision("hit")
    game.apply("hit")
    # The learner's step: its lesson asks for the move, there is nothing to read.
    code, message = tutorial.problem(game, False, number + 1) or ("", "")
    assert code == "stale_lesson" and "asks for a move" in message
    assert tutorial.problem(game, True, None) is None
    skipped = tutorial.apply(TutorialStep(read=None))
    assert skipped.to_json() == {"type": "tutorial", "skipped": True}
    assert tutorial.problem(game, True, None) == (
        "tutorial_over", "the tutorial was skipped: this is a normal game now"
    )
    # A normal game from here: no lesson, no expected move, the bots decide for themselves.
    state = tutorial.to_json(game)
    assert state["skipped"] is True and state["lesson"] is None and state["expect"] is None
    assert tutorial.refusal(game, LEARNER, parse_decision("stay")) is None
    game.apply("stay")
    assert tutorial.bot_move(game) is None


def test_a_start_names_its_script() -> None:
    assert for_start(None) is None
    started = for_start(FIRST_GAME.id)
    assert started is not None and started.script is SCRIPTS[FIRST_GAME.id]
    with pytest.raises(ValueError, match="unknown tutorial script 'nope'"):
        for_start("nope")


def test_a_script_cannot_use_more_cards_than_a_deck() -> None:
    from dataclasses import replace

    with pytest.raises(ValueError, match="more cards than a deck holds"):
        replace(FIRST_GAME, draws=(Card.ONE, Card.ONE))
