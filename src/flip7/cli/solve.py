"""``flip7 solve``: the exact solitaire optimum of a Number deck (see :mod:`flip7.analysis.solver`).

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="flip7 solve")
>>> add_arguments(parser)
>>> run(parser.parse_args(["--deck", "base-numbers", "--thresholds", "22:24"]))
Solitaire optimum, deck base-numbers: 79 Number cards, one player drawing alone
<BLANKLINE>
optimal expected round score  18.5652  (Flip 7 0.28%, bust 31.35%)
best fixed threshold          hit while the number sum is below 23: 18.5212 (99.76% of the optimum)
<BLANKLINE>
optimal policy by Number cards in the line (states where Stay is allowed):
  cards  states   hit  highest sum hit  lowest sum stayed  best split: stay from
      1      13    13               12                  -    13 (100.0% agree)
      2      78    76               21                 22    22 (100.0% agree)
      3     286   221               23                 22    23 (98.6% agree)
      4     715   333               24                 23    24 (97.6% agree)
      5    1287   356               26                 25    26 (98.4% agree)
      6    1716   754               35                 34    35 (97.5% agree)
<BLANKLINE>
fixed thresholds (hit while the sum is below T):
  T=22 18.4991  T=23 18.5212  T=24 18.4626
...
0
"""

from __future__ import annotations

import argparse

from flip7.analysis.solver import DECKS, ExactSolution, Solution, exact_solution, solve
from flip7.core.errors import Flip7Error

__all__ = ["DESCRIPTION", "EPILOG", "add_arguments", "format_solution", "run"]


DESCRIPTION = """\
Solve the solitaire round exactly: one player alone draws Number cards from a fresh deck
until they stay, bust or reach Flip 7 (RULES.md §4, §5, §8). Prints the optimal expected
round score with its Flip 7 and bust rates, and the best fixed threshold ("hit while the
number sum is below T") with the share of the optimum it reaches.

Decks: vengeance (default): the 92 Number cards of Flip 7: With a Vengeance, The Zero,
Unlucky 7 and Lucky 13 included and played by their rules; base-numbers: the original
Flip 7's 79 Number cards (0-12, value n with n copies, one 0).

Unlucky 7 (RULES.md §4.4.1, §3.5.2): the cards it wipes go to the discard pile and stay
out of the draw pile for the rest of the round. That game ("the rules") is solved exactly
too, but takes about a minute for the Vengeance deck, so its figures are printed from a
computation done ahead (a test recomputes it); --exact-wipes computes them again. The
put-back model, where the wiped cards go back into the pile (the draw pile is the deck
less the line), is solved every time (a few seconds) and printed for comparison, with its
policy by line length and every threshold tried. --json: the put-back model's figures as
before, the rules' under "exact"."""

EPILOG = """\
examples:
  flip7 solve                          the Vengeance deck
  flip7 solve --deck base-numbers      the original number deck (optimum 18.5652)
  flip7 solve --json                   everything as one JSON object
  flip7 solve --thresholds 20:30       try only thresholds 20 to 30
  flip7 solve --exact-wipes            compute the rules' figures again (about 90 s),
                                       and play the put-back optimum's policy by the rules
"""


class SolveError(Flip7Error):
    """A bad ``flip7 solve`` argument."""


def _thresholds(text: str) -> range:
    try:
        low, _, high = text.partition(":")
        lo, hi = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"thresholds are LOW:HIGH whole numbers, got {text!r}"
        ) from None
    if not 0 <= lo <= hi <= 200:
        raise argparse.ArgumentTypeError(f"thresholds must be 0 <= LOW <= HIGH <= 200, got {text}")
    return range(lo, hi + 1)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``flip7 solve``."""
    parser.add_argument(
        "--deck", choices=sorted(DECKS), default="vengeance",
        help="the Number deck (default vengeance)",
    )  # fmt: skip
    parser.add_argument(
        "--thresholds", type=_thresholds, default=range(10, 46), metavar="LOW:HIGH",
        help="fixed thresholds to try in the put-back model (default 10:45); with exact "
        "wipes the best threshold is searched from the put-back model's best",
    )  # fmt: skip
    parser.add_argument(
        "--exact-wipes", action="store_true",
        help="compute the optimum with exact Unlucky 7 wipes (the wiped cards stay out of the "
        "pile, RULES.md §3.5.2) and its best threshold again instead of printing the figures "
        "computed ahead, and play the put-back model's optimal policy and best threshold with "
        "exact wipes; about a minute and a half",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    """Solve and print; 0 on success (bad input raises a :class:`Flip7Error`)."""
    if args.deck not in DECKS:
        raise SolveError(f"unknown deck {args.deck!r}; decks are {', '.join(sorted(DECKS))}")
    solution = solve(args.deck, thresholds=args.thresholds, check_wipes=args.exact_wipes)
    # The best threshold, played by the rules just now, is not played again.
    played = {}
    if solution.threshold_exact_wipe is not None:
        played[solution.best_threshold] = solution.threshold_exact_wipe
    exact = exact_solution(args.deck, recompute=args.exact_wipes, played=played)
    if args.json:
        import json  # only here: the text needs none of it

        print(json.dumps({**solution.to_json(), "exact": exact.to_json()}))
    else:
        print(format_solution(solution, exact))
    return 0


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def _figures(optimum: float, p_flip7: float, p_bust: float, threshold: int, ev: float) -> list[str]:
    return [
        f"optimal expected round score  {optimum:.4f}  (Flip 7 {p_flip7:.2%}, bust {p_bust:.2%})",
        f"best fixed threshold          hit while the number sum is below {threshold}: "
        f"{ev:.4f} ({ev / optimum:.2%} of the optimum)",
    ]


def format_solution(solution: Solution, exact: ExactSolution | None = None) -> str:
    """The text ``flip7 solve`` prints: ``exact`` (the rules' wipes) first when the deck holds
    Unlucky 7, then the put-back model's figures, policy and thresholds."""
    deck = DECKS[solution.deck]
    out = [
        f"Solitaire optimum, deck {solution.deck}: {deck.size} Number cards, "
        "one player drawing alone"
    ]
    wipes = bool(deck.counts[14]) and not solution.exact_wipe
    if wipes and exact is not None:
        best = exact.best
        out += [
            "",
            "Unlucky 7 wipes to the discard pile (the rules, RULES.md §4.4.1, §3.5.2):",
            *_figures(exact.optimum, exact.p_flip7, exact.p_bust, best.threshold, best.ev),
            "  thresholds with exact wipes: "
            + "  ".join(f"T={t.threshold} {t.ev:.4f}" for t in exact.thresholds),
            f"  ({exact.states:,} states, {exact.seconds:.0f} s"
            + (": computed ahead, --exact-wipes computes it again)" if exact.cached else ")"),
            "",
            "Put-back model, for comparison (the wiped cards go back: the pile is the deck less "
            "the line):",
        ]
    else:
        if wipes:
            out.append(
                "(Unlucky 7 wipes put the wiped cards back: the pile is the deck less the line)"
            )
        out.append("")
    best = solution.best
    out += _figures(solution.optimum, solution.p_flip7, solution.p_bust, best.threshold, best.ev)
    out += [
        "",
        f"optimal policy{' (put back)' if wipes and exact is not None else ''} by Number cards "
        "in the line (states where Stay is allowed):",
        "  cards  states   hit  highest sum hit  lowest sum stayed  best split: stay from",
    ]
    for row in solution.policy_rows:
        share = row.agree / row.states
        out.append(
            f"  {row.cards:>5}  {row.states:>6}  {row.hit_states:>4}  "
            f"{_dash(row.highest_hit):>15}  {_dash(row.lowest_stay):>17}  "
            f"{row.fit:>4} ({share:.1%} agree)"
        )
    if solution.optimum_policy_exact_wipe is not None:
        out.append(
            f"played with exact wipes: the put-back optimal policy scores "
            f"{solution.optimum_policy_exact_wipe:.4f}, its best threshold "
            f"{solution.threshold_exact_wipe:.4f}"
        )
    out += ["", "fixed thresholds (hit while the sum is below T):"]
    tried = list(solution.thresholds)
    for i in range(0, len(tried), 6):
        out.append("  " + "  ".join(f"T={t.threshold} {t.ev:.4f}" for t in tried[i : i + 6]))
    out.append(f"solved {solution.states:,} states in {solution.seconds:.1f} s")
    return "\n".join(out)
