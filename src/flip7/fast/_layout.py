"""The layout of :mod:`flip7.fast`'s game state and the codes its compiled loop uses.

Plain numpy, no numba: :mod:`flip7.fast` reads these (and builds a game's state array with
:func:`make_state`) without importing the compiler when the loop is loaded precompiled.
:mod:`flip7.fast._kernel` compiles against them (numba freezes module globals as constants).
A game's whole state is one preallocated int64 array ``M``; see :mod:`flip7.fast._kernel`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# ------------------------------------------------------------------ card codes (Card values)
ZERO = 0
SEVEN = 7
THIRTEEN = 13
U7 = 14
L13 = 15
DIV2 = 16
FIRST_MOD = 16
FIRST_ACTION = 22
JOM = 22
FLIP4 = 23
STEAL = 24
SWAP = 25
DISCARD = 26
NCODES = 27

VALUE = np.array([*range(14), 7, 13, *(0,) * 11], dtype=np.int64)
PENALTY = np.array([*(0,) * 17, 2, 4, 6, 8, 10, *(0,) * 5], dtype=np.int64)
# Number cards whose only bust check is a copy of the same code (all but the 7s and 13s).
PLAIN = np.array([c < 16 and c not in (7, 13, 14, 15) for c in range(27)], dtype=np.bool_)
ONE_DECK = np.array(
    [1, *range(1, 7), 6, *range(8, 13), 12, 1, 1, *(1,) * 6, *(2,) * 5], dtype=np.int64
)

# ------------------------------------------------------------------ statuses, tasks, phases
ACTIVE, STAYED, BUSTED = 0, 1, 2
T_DRAW, T_STEP, T_FORCE, T_RESOLVE, T_FINISH = 1, 2, 3, 4, 5
P_DEAL, P_BURN, P_HIT, P_JOM, P_F4 = 0, 1, 2, 3, 4
PH_DEAL, PH_TURNS, PH_ROUND_END, PH_OVER = 0, 1, 2, 3

# ------------------------------------------------------------------ decision kinds
K_HIT, K_STAY, K_TARGET, K_GIVE, K_PASS = 1, 2, 3, 4, 5
K_STEAL, K_SWAP, K_DISCARD, K_BONUS, K_MINUS = 6, 7, 8, 9, 10

# ------------------------------------------------------------------ policies
POL_RANDOM, POL_THRESHOLD, POL_TARGETING, POL_EV = 0, 1, 2, 3

# ------------------------------------------------------------------ scalar slots of sc
S_N, S_NPILE, S_SP, S_PHASE, S_DEALER, S_DEAL_I, S_TURN = 0, 1, 3, 4, 5, 6, 7  # 2: free
S_FLIP7, S_ROUND, S_HALT, S_ND, S_NC, S_NR, S_SDI, S_SCI = 8, 9, 10, 11, 12, 13, 14, 15
S_FTOP, S_OVERFLOW, S_ERROR, S_NLIVE, S_MINUS15 = 16, 17, 18, 19, 20
RNG = 21  # the xorshift64* state (its bits, as an int64)
# Where the logs lie in M (they follow the fixed part) and how long each is.
H_DLOG, H_DCAP, H_CLOG, H_CCAP, H_RLOG, H_RCAP = 22, 23, 24, 25, 26, 27
H_SDRAWS, H_NSDRAWS, H_SDECS, H_NSDECS = 28, 29, 30, 31

# ------------------------------------------------------------------ rule slots of rl
R_BRUTAL, R_TARGET, R_L13, R_U7T, R_EMPTY, R_SKIPS, R_SHARED = 0, 1, 2, 3, 4, 5, 6
R_BMODS, R_M15ANY, R_CROSS, R_PASS, R_DECKS, R_SCRIPTED, R_LOG = 7, 8, 9, 10, 11, 12, 13
NRL = 16

# Every function: cached; no reference counting (nothing here allocates, and M outlives every
# call: counting references cost a third of the time); integer division without Python's
# checks. The smallest ones are inlined where they are called.

STACK_CAP = 512
FRAME_CAP = 16
MAXP = 40

# The whole state of a game is one int64 array M (one argument to every function, so that a
# call costs nothing): scalars, rules, per-seat rows of MAXP, piles, stack, frames, then logs.
RL = 32
CNT = RL + NRL  # MAXP rows of NCODES: how many of each card code a seat's line holds
NNUM = CNT + MAXP * NCODES  # Number cards in the line
NMOD = NNUM + MAXP  # Modifiers in the line
SUMS = NMOD + MAXP  # the line's number sum
STATUS = SUMS + MAXP
TOTALS = STATUS + MAXP
PTYPE = TOTALS + MAXP  # the seat's policy
PPARAM = PTYPE + MAXP  # its t
MASK = PPARAM + MAXP  # bit c set: the line holds card code c
OPTS = MASK + MAXP  # scratch: the seats a decision may name
PILE = OPTS + 64  # the draw pile's cards (in no order: draws pick at random)
PCNT = PILE + 216  # the draw pile's count of each code
DCNT = PCNT + 32  # the discard pile's count of each code, when worked out (discards())
STK = DCNT + 32  # the stack: STACK_CAP items of (type, a, b, c)
FR = STK + 4 * STACK_CAP  # Flip Four frames: target, card, left, set-aside count, 4 cards
FIXED = FR + 8 * FRAME_CAP

# Every index into M and the tables is a uint64 (``M[np.uint64(SUMS + s)]``): numba wraps
# a signed index that might be negative (a compare and a select on every access, about a
# tenth of the run time); none ever is. The hot loops keep uint64 offsets and seats.
U0, U1 = np.uint64(0), np.uint64(1)
U_CNT, U_NCODES, U_NNUM, U_NMOD = (
    np.uint64(CNT),
    np.uint64(NCODES),
    np.uint64(NNUM),
    np.uint64(NMOD),
)
U_SUMS, U_STATUS, U_PTYPE, U_PPARAM = (
    np.uint64(SUMS),
    np.uint64(STATUS),
    np.uint64(PTYPE),
    np.uint64(PPARAM),
)
U_MASK, U_PILE, U_PCNT, U_DCNT = np.uint64(MASK), np.uint64(PILE), np.uint64(PCNT), np.uint64(DCNT)
U_ZERO, U_SEVEN, U_THIRTEEN, U_U7, U_L13, U_DIV2 = (
    np.uint64(c) for c in (ZERO, SEVEN, THIRTEEN, U7, L13, DIV2)
)


def enc(kind: int, s1: int, c1: int, s2: int, c2: int) -> int:
    """A decision as an int: kind in the low 4 bits, then seat 1 (6 bits), card 1 (5 bits),
    seat 2, card 2 (the kernel compiles the same function inline)."""
    return kind | (s1 << 4) | (c1 << 10) | (s2 << 15) | (c2 << 21)


def make_state(
    n: int, rules: Any, ptype: Any, pparam: Any, dcap: int, ccap: int, rcap: int,
    sdraws: Any, sdecs: Any, nets: Any = None,
) -> Any:  # fmt: skip
    """The state array of a game (reused game after game): ``rules`` by the R_ slots,
    each seat's policy and t, room for the logs, the scripted draws and decisions, and
    the learned seats' networks (``nets``: their :func:`net_blob` slots, one after
    another; a learned seat's t is where its network begins in them)."""
    dlog = FIXED
    clog = dlog + dcap
    rlog = clog + ccap
    sd = rlog + rcap
    sk = sd + len(sdraws)
    nk = sk + len(sdecs)
    M = np.zeros(nk + (0 if nets is None else len(nets)), dtype=np.int64)
    M[S_N] = n
    M[RL : RL + NRL] = rules
    M[RL + R_NETS] = nk
    M[PTYPE : PTYPE + n] = ptype
    M[PPARAM : PPARAM + n] = pparam
    M[H_DLOG], M[H_DCAP], M[H_CLOG], M[H_CCAP], M[H_RLOG], M[H_RCAP] = (
        dlog,
        dcap,
        clog,
        ccap,
        rlog,
        rcap,
    )
    M[H_SDRAWS], M[H_NSDRAWS], M[H_SDECS], M[H_NSDECS] = sd, len(sdraws), sk, len(sdecs)
    M[sd:sk] = sdraws
    M[sk:nk] = sdecs
    if nets is not None:
        M[nk:] = nets
    return M


def logs(M: Any) -> tuple[Any, Any, Any]:
    """The (draws, decisions, rounds) logs of M, as views."""
    d, c, r = M[H_DLOG], M[H_CLOG], M[H_RLOG]
    return M[d : d + M[H_DCAP]], M[c : c + M[H_CCAP]], M[r : r + M[H_RCAP]]


# ------------------------------------------------------------------ the learned policy
# A ``learned`` seat plays with a value network (R6's ValueNet) that lies in M after the
# scripted decisions: rule slot R_NETS says where the networks begin, and a learned seat's
# PPARAM where its own begins from there. A network, in int64 slots from its start: the
# reach of its endgame (R6's ``reach``), its layer count L, the width of its widest layer,
# where its scratch rows begin, then (inputs, outputs) of each layer, then each layer's
# weights (transposed: those into its first unit, then its second, ...) and biases as
# float64 bits, then four float64 scratch rows of that widest width (the first layer as a
# line in the seat's own total, and the activations), so that evaluating allocates nothing.
POL_LEARNED = 4
R_NETS = 14
NET_REACH, NET_LAYERS, NET_WIDEST, NET_SCRATCH, NET_SHAPES = 0, 1, 2, 3, 4
NET_FEATURES = 8  # flip7.bots.learned.FEATURES
NET_ABSENT = 1.5  # a seat missing from a table of fewer than four: this far behind, in targets


def net_blob(layers: Any, reach: int) -> Any:
    """A network's slots (see above) from its layers, a sequence of (weights, biases)."""
    shapes: list[int] = []
    data: list[Any] = []
    widest = NET_FEATURES
    for w, b in layers:
        shapes += [int(w.shape[0]), int(w.shape[1])]
        widest = max(widest, int(w.shape[0]), int(w.shape[1]))
        data += [np.ascontiguousarray(np.transpose(w), dtype=np.float64).ravel(),
                 np.ascontiguousarray(b, dtype=np.float64).ravel()]  # fmt: skip
    weights = sum(len(x) for x in data)
    scratch = NET_SHAPES + len(shapes) + weights
    head = np.array([reach, len(layers), widest, scratch, *shapes], dtype=np.int64)
    floats = np.concatenate([*data, np.zeros(4 * widest)]).astype(np.float64)
    return np.concatenate([head, floats.view(np.int64)])


# ------------------------------------------------------------------ mcts's rollout policy
# R5's (flip7.bots.mcts) rollouts, played by the compiled loop (flip7.fast.rollout). Every
# seat of a rollout has policy POL_MCTS; its PPARAM says which of mcts's rollout players it
# is: one far from the target (Hit below a number sum, no chase), one near it (chasing the
# end of the game first), or the searching bot itself (chasing, then one card of lookahead
# over the draw pile). The policy's settings and the rollout's value model lie in M where
# rule slot R_NETS points (as a learned seat's network would): MB_* slots, then the
# quadrature of the value model as float64 bits, then (mcts's ``value=1``) R6's network,
# which values the end of a rollout instead. Rule slot R_ROUND stops the loop at the end of
# the round.
POL_MCTS = 5
MCTS_FAST, MCTS_CHASE, MCTS_SEARCH = 0, 1, 2
R_ROUND = 15
MB_FORCED = 0  # the next decision of the searching seat, already made (an enc code; -1: none)
MB_SEAT = 1  # the searching seat
MB_HIT_BELOW = 2  # Hit below this number sum (no chase, or no end in sight)
MB_JOM_SELF = 3  # Just One More on itself from this number sum (Active)
MB_LEAD_BONUS = 4  # an Action's use on the leader is worth this much more
MB_OWN_NUMBER = 5  # what discarding one of its own Number cards is worth
MB_DIVIDE_COST = 6  # what a ÷2 costs a line (beyond its penalty of 0)
MB_SPREAD_END = 7  # the value model's spread (float64 bits): its constant part
MB_SPREAD_POINT = 8  # and its part per point the leader still needs
MB_NET = 9  # where a value network (net_blob) lies from these slots' start; 0: the normal model
MB_NODES = 10  # the quadrature: how many nodes, then the nodes and the weights (float64 bits)
