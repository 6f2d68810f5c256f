"""The package ``flip7.analysis.solver``: its modules' public names, all of them re-exported;
and the optimum's parts in its ``line_model``: the 13s table of the five-card closed form and
the one closed form of a line holding The Zero, shared by both recursions."""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Sequence

import pytest

from flip7.analysis import solver
from flip7.analysis.solver import BUST, LINE_MASK, LineModel, line_key, line_model, receive
from flip7.core.cards import Card

ZERO, U7, L13 = int(Card.ZERO), int(Card.UNLUCKY_7), int(Card.LUCKY_13)
THIRTEEN = int(Card.THIRTEEN)


def test_the_package_exports_every_public_name_of_its_modules() -> None:
    # Each model's module names what it makes public; the package re-exports all of it, the
    # very objects, and nothing else.
    exported: set[str] = set()
    for found in pkgutil.iter_modules(solver.__path__):
        module = importlib.import_module(f"{solver.__name__}.{found.name}")
        for name in module.__all__:
            assert getattr(solver, name) is getattr(module, name), f"{found.name}.{name}"
            exported.add(name)
    assert exported == set(solver.__all__)


def test_the_thirteens_table_follows_the_rules() -> None:
    # Each entry is (copies the line can take, safe cards lost by taking one), for the regular
    # 13 and for Lucky 13 (§4.5): checked against the line rules and the safe-card count.
    rng = random.Random(4)
    thirteens: tuple[list[int], ...] = ([], [THIRTEEN], [L13], [THIRTEEN, L13], [L13, L13])
    for _ in range(200):
        base = line_key(rng.sample([1, 2, 3, 4, 5, 8, 9], rng.randint(0, 3)))
        for cards in thirteens:
            line = base
            for card in cards:
                line = receive(line, card)
            held = cards.count(THIRTEEN), cards.count(L13)
            plus = [rng.randint(0, 3) for _ in range(16)]
            plus[THIRTEEN] = held[0] + rng.randint(0, 3)
            plus[L13] = held[1] + rng.randint(0, 2)
            code = line >> 15 & 3 if line & (1 << 13) else 4
            table = line_model._thirteen_takes(plus[THIRTEEN], plus[L13])[code]
            safe = line_model._safe_cards(line, plus)[0]
            for slot, held_here, (copies, gone) in zip((THIRTEEN, L13), held, table, strict=True):
                child = receive(line, slot)
                if child == BUST:  # a third 13, or a second regular one
                    assert copies == 0
                    continue
                assert copies == plus[slot] - held_here
                if copies:
                    assert gone == safe - line_model._safe_cards(child, plus)[0]


@pytest.mark.parametrize("fast", [True, False])
def test_both_recursions_count_a_zero_root_with_the_one_closed_form(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    closed_form = line_model._zero_line_value

    def counted(
        line: int, pile: Sequence[int], left: int, flip: int, after_wipe: Callable[[], float]
    ) -> float:
        calls.append(line)
        return closed_form(line, pile, left, flip, after_wipe)

    monkeypatch.setattr(line_model, "_zero_line_value", counted)
    rng = random.Random(8)
    for _ in range(30):
        counts = [rng.choice((0, 1, 1, 2)) for _ in range(16)]
        key = line_key([ZERO, *rng.sample([1, 2, 3, 4, 5, 6, 8, 9, 13, 15], rng.randint(0, 4))])
        model = LineModel(counts)
        model.fast = fast
        walk = LineModel(counts)
        walk.fast = fast
        walk.closed_forms = False
        before = len(calls)
        got = model.value(key)
        assert calls[before:] == [key & LINE_MASK]
        assert got == pytest.approx(walk.value(key), abs=1e-9)
