"""The solitaire optimum: one player alone drawing Number cards from a fresh deck.

``flip7 solve`` and :func:`solve` compute, exactly, the best a player can do in a round of
*Flip 7: With a Vengeance* played alone with the deck's Number cards only: the optimal
expected round score and the policy that reaches it, and how close the best fixed stop
threshold ("hit while my number sum is below T") comes.

The model (RULES.md section numbers):

* The deck's Number cards only (§1.1): for Vengeance the 92 Number cards, **including** the
  three Special Numbers, which are Number cards (§4.2): The Zero, Unlucky 7 and Lucky 13.
  No Modifier or Action card is in the deck, so nothing else can reach the line.
* One player, who hits or stays (§3.2). The first card must be taken (an empty line cannot
  Stay, §3.2.3, ``can_stay_with_empty_line = false``), which is the round's first deal card.
* A duplicate value busts: the round scores 0 (§2.3, §4.1). Seven Number cards are Flip 7:
  the round ends at once and scores the sum + 15 (§5, §8).
* The Zero (§4.3): while it is in the line the player must hit; without Flip 7 the round
  scores 0; with Flip 7 it scores in full (+15).
* Unlucky 7 (§4.4): when it is drawn every other card of the line goes to the discard pile
  and the line is {Unlucky 7}; it never busts on arrival, a regular 7 after it busts.
  By the rules the wiped cards are out of the draw pile for the rest of the round (§3.5.2),
  so the game after a wipe depends on what was wiped. :func:`solve_exact` and
  :class:`ExactModel` solve that game exactly (:mod:`~flip7.analysis.solver.wipes`): several
  thousand games after a wipe, one per wiped line, sharing their states, 2.8 million in
  all; about 25 s of pure Python for the optimum and 7 s a threshold. :func:`solve` and
  :class:`LineModel` by default use the put-back model: the wiped cards go back into the
  pile, so that the draw pile is always the deck less the line and the state is the line
  alone (``exact_wipe=True`` there walks the exact game by the general recursion: fine for
  small decks, far too slow for the full deck).
* Lucky 13 (§4.5): a regular 13 and Lucky 13 are a safe pair in either order, both score,
  and both count toward Flip 7 (``lucky13_pair_flip7_count = 2``); a third 13 busts.
* The deck never runs out: a round uses at most 7 + 1 + 6 cards before a wipe and after.
* Brutal mode (§10) changes nothing here: the line holds no Modifiers and there is no other
  player to take −15.

The Vengeance figures (``flip7 solve``). By the rules (wiped cards to the discard pile) the
optimum is 20.7502 (20.75023; Flip 7 in 1.10% of rounds, a bust in 33.53%), and the best
fixed threshold, "hit while the number sum is below 27", scores 20.6490, 99.51% of it
(:data:`VENGEANCE_EXACT`: computed ahead, as the full solve takes about 50 s; a test
recomputes it, and plays the optimal policy in a Monte Carlo that deals the deck). In the
put-back model the optimum is 20.7495 (Flip 7 1.10%, bust 33.52%) and the threshold 27
scores 20.6484; that optimum's policy played by the rules scores 20.7501, 0.0001 below the
rules' optimum.

``--deck base-numbers`` is the original Flip 7's number deck: values 0–12, value *n* with
*n* copies and one 0, none of them special. Its optimum is the published 18.5652:

>>> base = solve("base-numbers")
>>> round(base.optimum, 4)
18.5652
>>> base.best_threshold, round(base.threshold_ev, 4), round(base.share, 4)
(23, 18.5212, 0.9976)
>>> base.policy_rows[1]     # two cards: hit below 22, stay from 22 (a plain threshold)
PolicyRow(cards=2, states=78, hit_states=76, highest_hit=21, lowest_stay=22, fit=22, agree=78)

The models, a module each: :mod:`~flip7.analysis.solver.line_model` (one line against a draw
pile of known composition: :class:`LineModel`), :mod:`~flip7.analysis.solver.keep_hitting`
(the chance of Flip 7 when hitting to the end: :func:`always_hit_flip7`),
:mod:`~flip7.analysis.solver.wipes` (the solitaire with the rules' wipes: :class:`ExactModel`)
and :mod:`~flip7.analysis.solver.solitaire` (the figures above: :func:`solve`,
:func:`solve_exact`). They share the line keys of :mod:`~flip7.analysis.solver.lines` and the
decks of :mod:`~flip7.analysis.solver.decks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flip7.core.lazy import LazyNames

if TYPE_CHECKING:
    from flip7.analysis.solver.decks import DECKS, Deck
    from flip7.analysis.solver.keep_hitting import always_hit_flip7
    from flip7.analysis.solver.line_model import LineModel, LineRules
    from flip7.analysis.solver.lines import (
        BUST,
        LINE_BITS,
        LINE_MASK,
        NUMBER_SLOTS,
        U7_LINE,
        flip7_reached,
        key_cards,
        line_key,
        receive,
    )
    from flip7.analysis.solver.solitaire import (
        VENGEANCE_EXACT,
        ExactSolution,
        PolicyRow,
        Solution,
        ThresholdResult,
        exact_solution,
        solve,
        solve_exact,
    )
    from flip7.analysis.solver.wipes import ExactModel

# The names load their modules on first use (PEP 562), as the package ``flip7`` does: the
# bots need the line keys, ``flip7 solve`` the solitaire, neither the other's modules.
_PUBLIC = {
    "decks": "DECKS Deck",
    "keep_hitting": "always_hit_flip7",
    "line_model": "LineModel LineRules",
    "lines": "BUST LINE_BITS LINE_MASK NUMBER_SLOTS U7_LINE flip7_reached key_cards line_key "
    "receive",
    "solitaire": "VENGEANCE_EXACT ExactSolution PolicyRow Solution ThresholdResult "
    "exact_solution solve solve_exact",
    "wipes": "ExactModel",
}
_LAZY = LazyNames(globals(), {f"{__name__}.{module}": names for module, names in _PUBLIC.items()})


def __getattr__(name: str) -> object:
    return _LAZY.attribute(name)


def __dir__() -> list[str]:
    return _LAZY.dir()


__all__ = [
    "BUST",
    "DECKS",
    "LINE_BITS",
    "LINE_MASK",
    "NUMBER_SLOTS",
    "U7_LINE",
    "VENGEANCE_EXACT",
    "Deck",
    "ExactModel",
    "ExactSolution",
    "LineModel",
    "LineRules",
    "PolicyRow",
    "Solution",
    "ThresholdResult",
    "always_hit_flip7",
    "exact_solution",
    "flip7_reached",
    "key_cards",
    "line_key",
    "receive",
    "solve",
    "solve_exact",
]
