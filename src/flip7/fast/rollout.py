"""R5's rollouts at compiled speed: :mod:`flip7.bots.mcts`'s search, its rest of the round
played by :mod:`flip7.fast`'s loop instead of the engine.

:func:`prepare` loads a searched position (a game sampled from the searching seat's view:
lines, totals, the draw pile, the resolution stack with its Flip Four frames, whose turn,
the pending decision; the discard pile is what these leave of the deck) into the loop's
state once, and returns a :class:`Position` whose :meth:`~Position.run` plays rollouts of
every candidate in one call: the candidate made where the decision was asked, then the rest
of the round by mcts's rollout players, compiled (``POL_MCTS`` in
:mod:`flip7.fast._kernel`: the same choices, ties between uses of an Action broken by seat,
then card code, as mcts's own are), valued at the end of the round as mcts values it (a
share of the win, or :func:`~flip7.bots.winprob.calibrated_chance`; with mcts's
``value=1``, R6's network's).

What differs from mcts's Python rollouts: the cards. Python shuffles a fresh order of the
draw pile's public composition for each iteration (and seeds its reshuffles) with the bot's
generator; here each card is drawn at random from the pile as it comes, by the loop's
generator seeded from (a seed the bot draws, the iteration): the same distribution, not
the same cards for a seed. The candidates of an iteration meet the same cards until their
games part, as in Python (common random numbers). Given the same cards (``draws``, which
only the tests give), a rollout ends in the same state as Python's.

:func:`install` hands :func:`prepare` to :mod:`flip7.bots.mcts`
(:func:`~flip7.bots.mcts.use_rollout_engine`).

>>> from flip7.engine.game import Game
>>> from flip7.core.decisions import HIT, STAY
>>> game = Game.new(4, seed=3)
>>> position = Position(game, [HIT, STAY], game.to_decide)
>>> diffs, squares = position.run(seed=1, start=0, stop=100)
>>> diffs[0], squares[0], len(diffs)
(0.0, 0.0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from flip7.bots import mcts, winprob
from flip7.bots.mcts import RolloutRun
from flip7.core.decisions import Decision, DecisionKind
from flip7.engine.game import Game, Phase
from flip7.engine.state import Draw, Finish, FlipFour, FlipFourStep, ForceStay, Purpose, Resolve
from flip7.fast import FastError, _code_of, _loop, _rules_array
from flip7.fast import _layout as _l

__all__ = ["Position", "install", "prepare"]

# mirrors _kernel's E_* entries (the kernel's module is not imported without numba)
_E_TURN, _E_RESOLVE, _E_USE, _E_FLIP7 = 0, 1, 2, 3
_ENTRY = {
    DecisionKind.HIT_OR_STAY: _E_TURN,
    DecisionKind.GIVE: _E_RESOLVE,
    DecisionKind.TARGET: _E_RESOLVE,
    DecisionKind.PASS: _E_RESOLVE,
    DecisionKind.STEAL: _E_USE,
    DecisionKind.SWAP: _E_USE,
    DecisionKind.DISCARD: _E_USE,
    DecisionKind.FLIP7_CHOICE: _E_FLIP7,
}
_PHASE = {Phase.DEAL: _l.PH_DEAL, Phase.TURNS: _l.PH_TURNS,
          Phase.ROUND_END: _l.PH_ROUND_END, Phase.OVER: _l.PH_OVER}  # fmt: skip
_PURPOSE = {Purpose.DEAL: _l.P_DEAL, Purpose.DEAL_BURN: _l.P_BURN, Purpose.HIT: _l.P_HIT,
            Purpose.JUST_ONE_MORE: _l.P_JOM, Purpose.FLIP_FOUR: _l.P_F4}  # fmt: skip


def _blob(seat: int, net: Any = None) -> Any:
    """The POL_MCTS settings (MB_* slots) and the value model's quadrature: mcts's and
    winprob's own numbers, so that they are written down once; then ``net`` (a value
    network's layers, :meth:`flip7.bots.learned.ValueNet`'s) if the rollouts' ends are
    valued by it."""
    nodes, weights = winprob._X, winprob._W
    head = [-1, seat, mcts._HIT_BELOW, mcts._JOM_SELF, mcts._LEAD_BONUS, mcts._OWN_NUMBER,
            mcts._DIVIDE_COST, 0, 0, 0, len(nodes)]  # fmt: skip
    out = np.zeros(len(head) + 2 * len(nodes), dtype=np.int64)
    out[: len(head)] = head
    floats = out.view(np.float64)
    floats[_l.MB_SPREAD_END] = winprob.SPREAD_END
    floats[_l.MB_SPREAD_POINT] = winprob.SPREAD_PER_POINT
    floats[_l.MB_NODES + 1 :] = [*nodes, *weights]
    if net is None:
        return out
    out[_l.MB_NET] = len(out)
    return np.concatenate([out, _l.net_blob(net, 0)])


def _load(M: Any, game: Game, seat: int) -> int:
    """Write ``game``'s state into M (a fresh state of its players); the entry of its
    pending decision. The engine's resolution stack and Flip Four frames map item for item
    onto the loop's (RULES.md §11 on both sides). The stack, the deal's place, the last
    turn and the Flip 7 seat have no public reader: they are read from the engine's own
    fields, as :meth:`Game.fork` copies them."""
    n = game.n
    for s in range(n):
        row = _l.CNT + _l.NCODES * s
        numbers, mods = game.line(s), game.modifiers(s)
        for c in (*numbers, *mods):
            M[row + c] += 1
            M[_l.MASK + s] |= 1 << int(c)
        M[_l.NNUM + s] = len(numbers)
        M[_l.NMOD + s] = len(mods)
        M[_l.SUMS + s] = game.number_sum(s)
    statuses = [int(game._status[s]) for s in range(n)]  # the engine's codes are the loop's
    M[_l.STATUS : _l.STATUS + n] = statuses
    M[_l.TOTALS : _l.TOTALS + n] = game.totals
    pile = np.array(game.draw_pile, dtype=np.int64)
    M[_l.PILE : _l.PILE + len(pile)] = pile
    M[_l.S_NPILE] = len(pile)
    M[_l.PCNT : _l.PCNT + _l.NCODES] = np.bincount(pile, minlength=_l.NCODES)
    frames: dict[int, int] = {}

    def frame(f: FlipFour) -> int:
        if id(f) not in frames:
            i = frames[id(f)] = len(frames)
            M[_l.FR + 8 * i : _l.FR + 8 * i + 4] = [f.target, f.card, f.left, len(f.set_aside)]
            M[_l.FR + 8 * i + 4 : _l.FR + 8 * i + 4 + len(f.set_aside)] = f.set_aside
        return frames[id(f)]

    items: list[tuple[int, int, int, int]] = []
    for task in game._stack:
        if type(task) is Draw:
            where = 0 if task.frame is None else frame(task.frame)
            items.append((_l.T_DRAW, _PURPOSE[task.purpose], task.seat, where))
        elif type(task) is FlipFourStep:
            items.append((_l.T_STEP, frame(task.frame), 0, 0))
        elif type(task) is ForceStay:
            items.append((_l.T_FORCE, task.target, task.card, task.user))
        elif type(task) is Resolve:
            items.append((_l.T_RESOLVE, task.card, task.user, 0))
        elif type(task) is Finish:
            items.append((_l.T_FINISH, task.card, task.user, 0))
    if len(items) > _l.STACK_CAP or len(frames) > _l.FRAME_CAP:
        raise FastError("the position's resolution stack is deeper than the loop's")
    for i, item in enumerate(items):
        M[_l.STK + 4 * i : _l.STK + 4 * i + 4] = item
    M[_l.S_SP] = len(items)
    M[_l.S_FTOP] = len(frames)
    kind = game.decision_kind
    if kind is None or game.to_decide != seat:
        raise FastError(f"seat {seat} has no decision to make here")
    entry = _ENTRY[kind]
    M[_l.S_PHASE] = _PHASE[game.phase]
    M[_l.S_DEALER] = game.dealer
    M[_l.S_DEAL_I] = game._deal_i
    # A Hit or Stay is asked again at the next turn: the one after the seat before it.
    M[_l.S_TURN] = (seat - 1) % n if entry == _E_TURN else game._turn
    flip7 = game._flip7_seat
    M[_l.S_FLIP7] = -1 if flip7 is None else flip7
    M[_l.S_ROUND] = game.round
    M[_l.S_NLIVE] = sum(1 for st in statuses if st != _l.BUSTED)
    M[_l.S_MINUS15] = -1
    return entry


class Position:
    """A searched position loaded for compiled rollouts (see the module docstring).

    ``draws``, for the tests: the cards the rollouts draw, in order (a scripted game's
    draws), instead of random ones."""

    def __init__(
        self,
        game: Game,
        candidates: Sequence[Decision],
        seat: int,
        draws: Sequence[int] | None = None,
        value: int = 0,
    ) -> None:
        n = game.n
        target = game.rules.target_score
        totals = game.totals
        rl = _rules_array(game.rules, game.decks, draws is not None, False)
        rl[_l.R_ROUND] = 1
        ptype = np.full(n, _l.POL_MCTS, dtype=np.int64)
        pparam = np.array(
            [_l.MCTS_SEARCH if s == seat
             else _l.MCTS_CHASE if totals[s] + mcts._CHASE_FROM >= target
             else _l.MCTS_FAST for s in range(n)],
            dtype=np.int64,
        )  # fmt: skip
        sdraws = np.array(list(draws) if draws is not None else [], dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        net = mcts.value_net().layers if value else None
        self._M0 = _l.make_state(n, rl, ptype, pparam, 1, 1, 1, sdraws, none, _blob(seat, net))
        entry = _load(self._M0, game, seat)
        card = game.pending_card
        self._pend = np.array([entry, -1 if card is None else int(card), seat], dtype=np.int64)
        self._M = self._M0.copy()
        self._cands = np.array([_code_of(d) for d in candidates], dtype=np.int64)
        self._diffs = np.zeros(len(candidates))
        self._squares = np.zeros(len(candidates))

    def run(self, seed: int, start: int, stop: int) -> tuple[list[float], list[float]]:
        """Rollouts ``start`` … ``stop - 1`` (of the run seeded ``seed``) of every
        candidate: per candidate, the sums of its paired differences to the first's value
        and of their squares (:data:`flip7.bots.mcts.RolloutRun`)."""
        self._diffs[:] = 0.0
        self._squares[:] = 0.0
        loop = _loop()
        if loop.rollouts(self._M, self._M0, seed, start, stop, self._cands, self._pend,
                         self._diffs, self._squares) < 0:  # fmt: skip
            raise FastError("a rollout broke a limit of the compiled loop (its stack)")
        return self._diffs.tolist(), self._squares.tolist()

    def end(self, seed: int, i: int, candidate: int) -> tuple[float, tuple[int, ...]]:
        """Rollout ``i`` of candidate number ``candidate``: its value and the totals at its
        end (for the tests)."""
        v = _loop().rollout_end(self._M, self._M0, seed, i, self._cands[candidate], self._pend)
        n = int(self._M[_l.S_N])
        return float(v), tuple(int(t) for t in self._M[_l.TOTALS : _l.TOTALS + n])


def prepare(
    game: Game, candidates: Sequence[Decision], seat: int, value: int = 0
) -> RolloutRun | None:
    """:data:`flip7.bots.mcts.RolloutEngine`: ``seat``'s position in ``game`` (sampled
    from its view) with ``candidates`` to search, the ends valued as mcts's ``value`` says,
    or ``None`` where the loop cannot hold it (a resolution stack deeper than its own: the
    search stays in Python)."""
    try:
        return Position(game, candidates, seat, value=value).run
    except FastError:
        return None


def install() -> None:
    """Make :mod:`flip7.bots.mcts` play its rollouts here from now on (this process)."""
    mcts.use_rollout_engine(prepare)
