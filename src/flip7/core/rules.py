"""Rule options (RULES.md §13), by exactly those names and defaults.

>>> Rules()
Rules()
>>> rules = Rules.from_json({"brutal": True, "tie_break": "shared_win"})
>>> rules
Rules(brutal=True, tie_break='shared_win')
>>> rules.to_json()
{'brutal': True, 'tie_break': 'shared_win'}
>>> Rules.from_json({"brutel": True})
Traceback (most recent call last):
...
flip7.core.errors.RulesError: unknown rule option 'brutel'; options are brutal, target_score, ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, Literal

from flip7.core.errors import RulesError

__all__ = ["Rules"]

TieBreak = Literal["extra_rounds", "shared_win"]
BrutalBustedScoring = Literal["modifiers_only", "zero"]
Minus15Targets = Literal["any_other_player", "non_busted_others"]
NoCardsLeft = Literal["end_round"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "tie_break": ("extra_rounds", "shared_win"),
    "brutal_busted_scoring": ("modifiers_only", "zero"),
    "brutal_minus15_targets": ("any_other_player", "non_busted_others"),
    "no_cards_left": ("end_round",),
}
_LUCKY13_COUNTS = (1, 2)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of RULES.md §13; the defaults are standard play."""

    brutal: bool = False
    target_score: int = 200
    lucky13_pair_flip7_count: int = 2
    unlucky7_triggers_on_transfer: bool = True
    can_stay_with_empty_line: bool = False
    deal_skips_inactive: bool = True
    tie_break: TieBreak = "extra_rounds"
    brutal_busted_scoring: BrutalBustedScoring = "modifiers_only"
    brutal_minus15_targets: Minus15Targets = "any_other_player"
    swap_allow_cross_type: bool = True
    pass_actions: bool = False
    no_cards_left: NoCardsLeft = "end_round"
    allow_two_players: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name))

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        """Read a ``rules`` object; missing keys take their defaults, unknown keys are errors."""
        if not isinstance(data, dict):
            raise RulesError(f"rules must be a JSON object, not {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        for key in data:
            if key not in names:
                raise RulesError(f"unknown rule option {key!r}; options are {', '.join(names)}")
        return cls(**data)

    def to_json(self, *, full: bool = False) -> dict[str, Any]:
        """The options as a JSON object: only those that differ from the default unless ``full``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if full or value != f.default:
                out[f.name] = value
        return out

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.to_json().items())
        return f"Rules({inner})"


def _check(name: str, value: Any) -> None:
    if name == "target_score":
        if type(value) is not int or value < 1:
            raise RulesError(f"rule option target_score must be an integer >= 1, not {value!r}")
    elif name == "lucky13_pair_flip7_count":
        if type(value) is not int or value not in _LUCKY13_COUNTS:
            raise RulesError(f"rule option lucky13_pair_flip7_count must be 1 or 2, not {value!r}")
    elif name in _CHOICES:
        allowed = _CHOICES[name]
        if not isinstance(value, str) or value not in allowed:
            shown = " or ".join(repr(a) for a in allowed)
            raise RulesError(f"rule option {name} must be {shown}, not {value!r}")
    elif type(value) is not bool:
        raise RulesError(f"rule option {name} must be true or false, not {value!r}")
