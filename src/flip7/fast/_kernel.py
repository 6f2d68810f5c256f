# mypy: ignore-errors
# ruff: noqa: SIM102, SIM109, F403, F405  (numba: explicit comparisons and branches compile plainest; the layout's names come in with *)
"""The compiled game loop of :mod:`flip7.fast` (numba ``@njit(cache=True)``).

It mirrors :mod:`flip7.engine.game` step for step (RULES.md §3–§11): the same resolution
stack (draws, Flip Four steps and frames, forced Stays, set-aside cards to resolve, used
Actions to discard), the same points where a choice with two or more legal options is
asked, and the same end of round, scoring and end of game. A game's cards are card codes
(the values of :class:`flip7.core.cards.Card`), its piles and lines are counts per code
(only which cards lie where matters: the draw pile is drawn from at random, a lazy
Fisher–Yates), and its decisions are made inline by the seat's built-in policy.

A game's whole state is one preallocated int64 array ``M`` (its layout and the codes are in
:mod:`flip7.fast._layout`, numpy only), so that every
function takes one argument and nothing in the loop allocates or counts references. Decisions are
int-coded (:func:`enc`): kind in the low 4 bits, then seat 1 (6 bits), card 1 (5 bits),
seat 2, card 2. Not a public module: :mod:`flip7.fast` is its interface.
"""

# numba compiles these untyped functions: "mypy: ignore-errors" above keeps --strict to the
# typed interface, flip7.fast.
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.core.types import unliteral
from numba.cpython.unsafe.numbers import trailing_zeros

from flip7.fast._layout import *
from flip7.fast._layout import enc as _layout_enc

_njit = njit(cache=True, _nrt=False, error_model="numpy")


def jit(fn):
    """``_njit`` compiling one version per argument types, never one per constant: numba
    would otherwise compile (and cache) a callee again for each literal a call passes it
    (``arrive(M, P_HIT, ...)``, ``leader_among(M, me, K_TARGET)``, ...), each copy with its
    whole tree of callees, which made a cold compile several times longer for no gain."""
    disp = _njit(fn)
    typed = disp.get_call_template

    def get_call_template(args, kws):
        return typed(tuple(unliteral(a) for a in args), {k: unliteral(v) for k, v in kws.items()})

    disp.get_call_template = get_call_template
    return disp


jit_inline = njit(cache=True, _nrt=False, error_model="numpy", inline="always")

enc = jit_inline(_layout_enc)

# ------------------------------------------------------------------ random numbers


U32, U_XMUL = np.uint64(32), np.uint64(0x2545F4914F6CDD1D)


@jit_inline
def xorshift(x):
    """The generator's next state after ``x`` (a uint64)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


@jit_inline
def _next(M):
    # xorshift64*: state never 0 (seeded through splitmix64 with a nonzero fallback).
    x = xorshift(np.uint64(M[RNG]))
    M[RNG] = np.int64(x)
    return x * U_XMUL


@jit_inline
def below(M, k):
    """A uniform integer in [0, k) (Lemire's multiply; bias below 2**-24 for k <= 256)."""
    return np.int64(((_next(M) >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@jit
def seed_game(M, seed, game):
    """Seed ``rng`` for game number ``game`` of a run seeded ``seed`` (splitmix64), so that a
    game's cards and choices depend only on (seed, game), never on the batching."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(game) + np.uint64(1)
    for _ in range(2):
        z += np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x9E3779B97F4A7C15)
    M[RNG] = np.int64(z)


# ------------------------------------------------------------------ logs


@jit_inline
def log_append(M, count, cap, start, value):
    """``value`` onto the log whose length is M[count], room M[cap], place M[start]; one
    that is full marks the game as overflowing (the batch plays it again in a new call)."""
    i = M[count]
    if i < M[cap]:
        M[np.uint64(M[start] + i)] = value
    else:
        M[S_OVERFLOW] = 1
    M[count] = i + 1


@jit_inline
def log_decision(M, code):
    if M[RL + R_LOG]:
        log_append(M, S_NC, H_CCAP, H_CLOG, code)


# ------------------------------------------------------------------ lines


@jit_inline
def add_card(M, s, c):
    M[np.uint64(CNT + NCODES * (s) + c)] += 1
    M[np.uint64(MASK + s)] |= 1 << c
    if c < FIRST_MOD:
        M[np.uint64(NNUM + s)] += 1
    else:
        M[np.uint64(NMOD + s)] += 1


@jit_inline
def remove_card(M, s, c):
    M[np.uint64(CNT + NCODES * (s) + c)] -= 1
    if M[np.uint64(CNT + NCODES * (s) + c)] == 0:
        M[np.uint64(MASK + s)] &= ~(1 << c)
    if c < FIRST_MOD:
        M[np.uint64(NNUM + s)] -= 1
        M[np.uint64(SUMS + s)] -= VALUE[np.uint64(c)]
    else:
        M[np.uint64(NMOD + s)] -= 1


@jit_inline
def low_bit(m):
    """The index of the lowest set bit of ``m`` > 0 (one count-trailing-zeros instruction)."""
    return trailing_zeros(m)


@jit_inline
def bit_count(m):
    """How many bits of ``m`` are set (LLVM makes this loop one popcnt instruction)."""
    m = np.uint64(m)
    k = 0
    while m:
        m &= m - U1
        k += 1
    return k


@jit_inline
def clear_line(M, s):
    """Every card of seat ``s``'s line to the discard pile (which :func:`discards` counts)."""
    m = M[np.uint64(MASK + s)]
    row = U_CNT + U_NCODES * np.uint64(s)
    while m:
        c = np.uint64(low_bit(m))
        m &= m - 1
        M[np.uint64(row + c)] = 0
    M[np.uint64(MASK + s)] = 0
    M[np.uint64(NNUM + s)] = 0
    M[np.uint64(NMOD + s)] = 0


@jit_inline
def busts(M, s, c):
    """Whether Number card ``c`` arriving busts seat ``s``'s line (core.lines.busts)."""
    if PLAIN[np.uint64(c)]:
        return M[np.uint64(CNT + NCODES * (s) + c)] > 0
    if c == SEVEN or c == U7:
        return M[np.uint64(CNT + NCODES * (s) + SEVEN)] + M[np.uint64(CNT + NCODES * (s) + U7)] > 0
    same = 1 + M[np.uint64(CNT + NCODES * (s) + THIRTEEN)] + M[np.uint64(CNT + NCODES * (s) + L13)]
    lucky = (1 if c == L13 else 0) + M[np.uint64(CNT + NCODES * (s) + L13)]
    return same > 2 or (same == 2 and lucky == 0)


@jit
def is_flip7(M, s):
    if M[RL + R_L13] == 2:
        return M[np.uint64(NNUM + s)] >= 7
    values = 0
    for c in range(14):
        if c == SEVEN:
            if M[np.uint64(CNT + NCODES * (s) + SEVEN)] + M[np.uint64(CNT + NCODES * (s) + U7)] > 0:
                values += 1
        elif c == THIRTEEN:
            if (
                M[np.uint64(CNT + NCODES * (s) + THIRTEEN)] + M[np.uint64(CNT + NCODES * (s) + L13)]
                > 0
            ):
                values += 1
        elif (M[np.uint64(MASK + s)] >> c) & 1:
            values += 1
    return values >= 7


# ------------------------------------------------------------------ the draw pile

# For a Number card other than Unlucky 7, the other code a line may hold of the same number
# (7: Unlucky 7; 13 and Lucky 13: each other), else Just One More!, never in a line (count 0).
SAME_AS = np.array([JOM] * NCODES, dtype=np.int64)
SAME_AS[SEVEN], SAME_AS[THIRTEEN], SAME_AS[L13] = U7, L13, THIRTEEN
U_FIRST_MOD = np.uint64(FIRST_MOD)
U_TOTALS = np.uint64(TOTALS)
# A new game's draw pile of one and of two decks, in new_game's order (code by code): a
# copy, not a loop per code whose varying length the processor guesses wrong.
PILE1 = np.repeat(np.arange(NCODES, dtype=np.int64), ONE_DECK)
PILE2 = np.repeat(np.arange(NCODES, dtype=np.int64), 2 * ONE_DECK)


@jit_inline
def draw_fast(M, npile):
    """:func:`take`'s common case, inline in the hot loops: a random card off a draw pile
    of ``npile`` > 0 cards, unlogged (uint64 indices: see :func:`offer_turn`)."""
    un = np.uint64(npile)
    j = ((_next(M) >> np.uint64(32)) * un) >> np.uint64(32)  # below(M, npile)
    c = M[U_PILE + j]
    un -= U1
    M[U_PILE + j] = M[U_PILE + un]
    M[S_NPILE] = np.int64(un)
    M[U_PCNT + np.uint64(c)] -= 1
    return c


@jit_inline
def draw_ahead(M, state, npile):
    """:func:`draw_fast` with the generator's state for this draw worked out already
    (``state``, and ``npile`` > 0, both uint64): the card, and the state for the next draw
    (see :func:`offer_turn`)."""
    M[RNG] = np.int64(state)
    j = (((state * U_XMUL) >> U32) * npile) >> U32  # below(M, npile), as _next draws it
    c = M[U_PILE + j]
    npile -= U1
    M[U_PILE + j] = M[U_PILE + npile]
    M[S_NPILE] = np.int64(npile)
    M[U_PCNT + np.uint64(c)] -= 1
    return c, xorshift(state)


@jit
def discards(M):
    """The discard pile, as a count of each code into M[DCNT:]; how many cards it holds.

    It is what the game's cards leave once the draw pile, the lines and the cards set aside
    on the stack (Resolve and Finish items, a Just One More's forced Stay, a Flip Four frame's
    own card and draws) are taken out: worked out here, when a reshuffle or an empty pile's
    odds read it, not counted card by card as cards leave play (the end of every round would
    otherwise add each line to it, code by code)."""
    n = np.uint64(M[S_N])
    decks = M[RL + R_DECKS]
    total = 0
    for c in range(NCODES):
        uc = np.uint64(c)
        k = ONE_DECK[uc] * decks - M[U_PCNT + uc]
        for s in range(n):
            k -= M[U_CNT + U_NCODES * s + uc]
        M[U_DCNT + uc] = k
        total += k
    for i in range(M[S_SP]):
        t = M[np.uint64(STK + 4 * i)]
        if t == T_RESOLVE or t == T_FINISH:
            M[np.uint64(DCNT + M[np.uint64(STK + 4 * i + 1)])] -= 1
            total -= 1
        elif t == T_FORCE:
            M[np.uint64(DCNT + M[np.uint64(STK + 4 * i + 2)])] -= 1
            total -= 1
        elif t == T_STEP:
            f = M[np.uint64(STK + 4 * i + 1)]
            M[np.uint64(DCNT + M[np.uint64(FR + 8 * f + 1)])] -= 1
            k = M[np.uint64(FR + 8 * f + 3)]
            for j in range(k):
                M[np.uint64(DCNT + M[np.uint64(FR + 8 * f + 4 + j)])] -= 1
            total -= 1 + k
    return total


@jit
def take(M):
    """The next card off the draw pile (reshuffling the discard pile into it when empty,
    §3.5.1): its code, -1 when no card is left anywhere (§3.5.3), -2 when a scripted game
    has run out of draws (it halts there)."""
    npile = M[S_NPILE]
    if npile == 0:
        if discards(M) == 0:
            return -1
        one_deck = M[RL + R_DECKS] == 1
        for c in range(NCODES):
            k = M[np.uint64(DCNT + c)]
            if one_deck:
                # 12 copies (a deck's most of one code), the next codes writing over those
                # past k: a loop of fixed length where one of k ends at a guessed branch.
                # The pile of one deck ends short of PILE's room by more than 12 slots.
                for t in range(12):
                    M[U_PILE + np.uint64(npile + t)] = c
                npile += k
            else:
                for _ in range(k):
                    M[np.uint64(PILE + npile)] = c
                    npile += 1
            M[np.uint64(PCNT + c)] += k
    if M[RL + R_SCRIPTED]:
        i = M[S_SDI]
        if i >= M[H_NSDRAWS]:
            M[S_NPILE] = npile
            M[S_HALT] = 1
            return -2
        c = M[np.uint64(M[H_SDRAWS] + i)]
        j = 0
        while j < npile and M[np.uint64(PILE + j)] != c:
            j += 1
        if j == npile:
            M[S_NPILE] = npile
            M[S_HALT] = 1
            M[S_ERROR] = 1 + i  # draws[i] is not in the draw pile
            return -2
        M[S_SDI] = i + 1
    else:
        j = below(M, npile)
        c = M[np.uint64(PILE + j)]
    npile -= 1
    M[np.uint64(PILE + j)] = M[np.uint64(PILE + npile)]
    M[S_NPILE] = npile
    M[np.uint64(PCNT + c)] -= 1
    if M[RL + R_LOG]:
        log_append(M, S_ND, H_DCAP, H_DLOG, c)
    return c


# ------------------------------------------------------------------ the stack


@jit_inline
def push(M, t, a, b, c):
    sp = M[S_SP]
    if sp >= STACK_CAP:
        M[S_ERROR] = -1
        M[S_HALT] = 1
        return
    M[np.uint64(STK + 4 * (sp) + 0)] = t
    M[np.uint64(STK + 4 * (sp) + 1)] = a
    M[np.uint64(STK + 4 * (sp) + 2)] = b
    M[np.uint64(STK + 4 * (sp) + 3)] = c
    M[S_SP] = sp + 1


@jit
def drop_set_aside(M, seat):
    """§6.3.2, §11: a bust discards at once every card set aside for ``seat`` (its
    Resolve items, its Flip Four frames with their own card and draws still due): off the
    stack, they are in the discard pile (:func:`discards`)."""
    sp = M[S_SP]
    out = 0
    for i in range(sp):
        t = M[np.uint64(STK + 4 * (i) + 0)]
        keep = True
        if t == T_RESOLVE:
            if M[np.uint64(STK + 4 * (i) + 2)] == seat:
                keep = False
        elif t == T_STEP:
            f = M[np.uint64(STK + 4 * (i) + 1)]
            if M[np.uint64(FR + 8 * (f) + 0)] == seat:
                keep = False
                if f == M[S_FTOP] - 1:
                    M[S_FTOP] = f
        elif t == T_DRAW:
            if (
                M[np.uint64(STK + 4 * (i) + 1)] == P_F4
                and M[np.uint64(FR + 8 * M[STK + 4 * i + 3])] == seat
            ):
                keep = False
        if keep:
            if out != i:
                for k in range(4):
                    M[np.uint64(STK + 4 * (out) + k)] = M[np.uint64(STK + 4 * (i) + k)]
            out += 1
    M[S_SP] = out


@jit_inline
def bust(M, seat):
    M[np.uint64(STATUS + seat)] = BUSTED
    M[S_NLIVE] -= 1
    if M[S_SP]:
        drop_set_aside(M, seat)


@jit
def receive(M, seat, c, transfer, check):
    """``c`` enters ``seat``'s line by any route (§2.5): Unlucky 7, bust, Flip 7."""
    if c >= FIRST_MOD:
        add_card(M, seat, c)
        return
    if PLAIN[np.uint64(c)]:
        if M[np.uint64(CNT + NCODES * (seat) + c)] > 0:
            add_card(M, seat, c)
            bust(M, seat)
            return
        add_card(M, seat, c)
        M[np.uint64(SUMS + seat)] += c
    elif c == U7 and (not transfer or M[RL + R_U7T]):
        clear_line(M, seat)  # §4.4.1: no bust on Unlucky 7 itself
        add_card(M, seat, c)
        M[np.uint64(SUMS + seat)] = 7
    else:
        dup = busts(M, seat, c)
        add_card(M, seat, c)
        if dup:
            bust(M, seat)
            return
        M[np.uint64(SUMS + seat)] += VALUE[np.uint64(c)]
    if check and M[np.uint64(NNUM + seat)] >= 7:
        check_flip7(M, seat)


@jit_inline
def check_flip7(M, seat):
    if is_flip7(M, seat):
        M[S_FLIP7] = seat
        end_round(M)


# ------------------------------------------------------------------ end of round


@jit
def end_round(M):
    """Flip 7, no Active player, or no cards left: drop every pending effect, then score
    (after the Brutal Flip 7 choice). The cards set aside on the stack go to the discard
    pile with it (:func:`discards`)."""
    M[S_SP] = 0
    M[S_FTOP] = 0
    seat = M[S_FLIP7]
    n = M[S_N]
    if M[RL + R_BRUTAL] and seat >= 0:
        M[S_PHASE] = PH_ROUND_END
        others = 0
        for s in range(n):
            if s != seat and (M[RL + R_M15ANY] or M[np.uint64(STATUS + s)] != BUSTED):
                others += 1
        minus = -1
        if others:
            minus = choose_flip7(M, seat, others)
            if M[S_HALT]:
                return
        score_round(M, minus)
    else:
        score_round(M, -1)


@jit_inline
def penalties(M, s):
    """The points the −N Modifiers of seat ``s``'s line take off."""
    row = U_CNT + U_NCODES * np.uint64(s)
    pen = 0
    for c in range(17, 22):
        pen += PENALTY[np.uint64(c)] * M[row + np.uint64(c)]
    return pen


@jit_inline
def line_score(M, s, flip7, bonus):
    """RULES.md §8 / §10 for a line that has not busted (core.scoring.round_score), by
    selects rather than branches: what a line holds is a coin toss to the processor."""
    row = U_CNT + U_NCODES * np.uint64(s)
    # A number sum is never negative: each ÷2 (rounding down) is a shift.
    total = (M[np.uint64(SUMS + s)] >> min(M[row + U_DIV2], 63)) - penalties(M, s)
    if not M[RL + R_BRUTAL]:
        total = max(total, 0)
    if flip7:
        return total + 15 if bonus else total
    return 0 if M[row + U_ZERO] > 0 else total


@jit_inline
def score_round(M, minus15):
    if M[S_HALT]:
        return
    n = M[S_N]
    flip7 = M[S_FLIP7]
    log = M[RL + R_LOG]
    r0 = M[S_NR]
    if log:
        if r0 + 3 + 2 * n > M[H_RCAP]:
            M[S_OVERFLOW] = 1
            log = 0
        else:
            M[np.uint64(M[H_RLOG] + r0)] = M[S_DEALER]
            M[np.uint64(M[H_RLOG] + r0 + 1)] = flip7
            M[np.uint64(M[H_RLOG] + r0 + 2)] = minus15
    bmods = M[RL + R_BMODS] != 0
    for s in range(n):
        # Both scores worked out and one kept (a select): whether a seat busted is a coin
        # toss to the processor.
        busted = M[np.uint64(STATUS + s)] == BUSTED
        live = line_score(M, s, s == flip7, minus15 < 0)
        dead = -penalties(M, s) if bmods else 0
        score = dead if busted else live
        M[np.uint64(TOTALS + s)] += score
        if log:
            M[np.uint64(M[H_RLOG] + r0 + 3 + s)] = score
            M[np.uint64(M[H_RLOG] + r0 + 3 + n + s)] = (
                1 if M[np.uint64(STATUS + s)] == BUSTED else 0
            )
    if log:
        M[S_NR] = r0 + 3 + 2 * n
    if minus15 >= 0:
        M[np.uint64(TOTALS + minus15)] -= 15
    M[S_MINUS15] = minus15
    best = M[TOTALS + 0]
    for s in range(1, n):
        if M[np.uint64(TOTALS + s)] > best:
            best = M[np.uint64(TOTALS + s)]
    if best >= M[RL + R_TARGET]:
        leaders = 0
        for s in range(n):
            if M[np.uint64(TOTALS + s)] == best:
                leaders += 1
        if leaders == 1 or M[RL + R_SHARED]:
            M[S_PHASE] = PH_OVER
            return
    M[S_PHASE] = PH_ROUND_END


@jit_inline
def next_round(M):
    n = np.uint64(M[S_N])
    for s in range(n):
        # clear_line for every seat: the lines' cards go to the discard pile, which
        # discards() works out when it is read, so that only their counts are zeroed, every
        # code a line may hold rather than those it does hold: a stretch of fixed length
        # (a few vector stores), where a loop over the line's bits ends at a point the
        # processor cannot foresee.
        row = U_CNT + U_NCODES * s
        for c in range(FIRST_ACTION):
            M[row + np.uint64(c)] = 0
        M[U_MASK + s] = 0
        M[U_NNUM + s] = 0
        M[U_NMOD + s] = 0
        M[U_STATUS + s] = ACTIVE
        M[U_SUMS + s] = 0
    # The next seat deals (no division: a modulo is the slowest instruction here).
    d = M[S_DEALER] + 1
    M[S_DEALER] = d if d < M[S_N] else 0
    start_round(M)


@jit_inline
def start_round(M):
    M[S_ROUND] += 1
    M[S_NLIVE] = M[S_N]
    M[S_FLIP7] = -1
    M[S_PHASE] = PH_DEAL
    M[S_DEAL_I] = 0


# ------------------------------------------------------------------ drawing and resolving


@jit_inline
def draw_for(M, purpose, seat, frame):
    """A Draw task: take the card and let it arrive."""
    npile = M[S_NPILE]
    if npile > 0 and M[RL + R_SCRIPTED] == 0 and M[RL + R_LOG] == 0:
        c = draw_fast(M, npile)
    else:
        c = take(M)
    arrive(M, purpose, seat, frame, c)


@jit_inline
def arrive(M, purpose, seat, frame, c):
    """Card ``c`` drawn (a code from :func:`take`) arrives (engine ``_drawn``)."""
    if c < 0:
        if c == -1:
            end_round(M)  # no_cards_left = "end_round" (§3.5.3)
        return
    if purpose == P_F4:
        if c < FIRST_MOD:
            receive(M, seat, c, False, True)
        else:
            k = M[np.uint64(FR + 8 * (frame) + 3)]
            M[np.uint64(FR + 8 * (frame) + 4 + k)] = c
            M[np.uint64(FR + 8 * (frame) + 3)] = k + 1
        return
    if purpose == P_BURN:
        return  # to the discard pile
    if c < FIRST_MOD:
        receive(M, seat, c, False, True)
    else:
        resolve(M, c, seat)


@jit
def resolve(M, c, user):
    """A revealed Modifier or Action reaches ``user`` (§3.3).

    Each function called here (not inline) costs this one two zeroed stack slots on every
    call (numba's calling convention), so each callee is named at one place only."""
    n = M[S_N]
    if c < FIRST_MOD:
        receive(M, user, c, False, True)
        return
    if c >= STEAL:
        # Steal, Swap, Discard: used by the revealer, or handed over to a player who can
        # use it (pass_actions, §6.1.4 O-3).
        who = user
        if M[RL + R_PASS]:
            k = 0
            only = -1
            for s in range(n):
                if M[np.uint64(STATUS + s)] != BUSTED and has_use(M, c, s):
                    k += 1
                    only = s
            if k == 0:
                return  # to the discard pile
            if k == 1:
                who = only
            else:
                who = choose_seat(M, K_PASS, user, c, k)
                if M[S_HALT]:
                    return
        use(M, c, who)
        return
    # A Modifier goes to any non-busted player, or anyone in Brutal (§7.2–7.3, §10.2);
    # Just One More and Flip Four to a non-busted player.
    anyone = c < FIRST_ACTION and M[RL + R_BRUTAL] != 0
    k = n if anyone else M[S_NLIVE]
    if k == 1:
        to = user
        for s in range(n):
            if anyone or M[np.uint64(STATUS + s)] != BUSTED:
                to = s
    else:
        to = choose_seat(M, K_GIVE if c < FIRST_ACTION else K_TARGET, user, c, k)
        if M[S_HALT]:
            return
    if c < FIRST_ACTION:
        add_card(M, to, c)
    elif c == JOM:
        push(M, T_FORCE, to, c, user)
        push(M, T_DRAW, P_JOM, to, 0)
    else:
        f = M[S_FTOP]
        if f >= FRAME_CAP:
            M[S_ERROR] = -2
            M[S_HALT] = 1
            return
        M[S_FTOP] = f + 1
        M[np.uint64(FR + 8 * (f) + 0)] = to
        M[np.uint64(FR + 8 * (f) + 1)] = c
        M[np.uint64(FR + 8 * (f) + 2)] = 4
        M[np.uint64(FR + 8 * (f) + 3)] = 0
        push(M, T_STEP, f, 0, 0)


@jit_inline
def distinct(M, s):
    """(distinct Number codes, distinct Modifier codes) in seat ``s``'s line."""
    m = M[np.uint64(MASK + s)]
    a = 0
    b = 0
    numbers = m & 0xFFFF
    while numbers:
        numbers &= numbers - 1
        a += 1
    mods = m >> 16
    while mods:
        mods &= mods - 1
        b += 1
    return a, b


@jit
def has_use(M, c, user):
    n = M[S_N]
    holders = 0
    with_numbers = 0
    with_mods = 0
    other = False
    for s in range(n):
        if M[np.uint64(STATUS + s)] != BUSTED and (
            M[np.uint64(NNUM + s)] or M[np.uint64(NMOD + s)]
        ):
            holders += 1
            if M[np.uint64(NNUM + s)]:
                with_numbers += 1
            if M[np.uint64(NMOD + s)]:
                with_mods += 1
            if s != user:
                other = True
    if c == STEAL:
        return other
    if c == DISCARD:
        return holders > 0
    if M[RL + R_CROSS]:
        return holders >= 2
    return with_numbers >= 2 or with_mods >= 2


@jit_inline
def count_moves(M, c, user, cap):
    """How many legal options Steal, Swap or Discard has (engine ``_count_moves``),
    counting no further than ``cap``."""
    n = M[S_N]
    count = 0
    sa = 0
    sb = 0
    cross = M[RL + R_CROSS]
    for s in range(n):
        if M[np.uint64(STATUS + s)] == BUSTED:
            continue
        a, b = distinct(M, s)
        if a + b == 0:
            continue
        if c == SWAP:
            if cross:
                count += (a + b) * (sa + sb)
            else:
                count += a * sa + b * sb
            sa += a
            sb += b
        elif c == DISCARD or s != user:
            count += a + b
        if count >= cap:
            return cap
    return count


@jit_inline
def use(M, c, user):
    """Steal, Swap or Discard used by ``user`` (engine ``_use``)."""
    count = count_moves(M, c, user, 2)
    if count == 0:
        return  # to the discard pile (§6.1.1)
    if count == 1:
        s1, c1, s2, c2 = nth_move(M, c, user, 0)
    else:
        s1, c1, s2, c2 = choose_move(M, c, user)
        if M[S_HALT]:
            return
    do_move(M, c, user, s1, c1, s2, c2)


@jit
def do_move(M, c, user, s1, c1, s2, c2):
    # The used Action leaves play first (§6.1.5), to the discard pile as the discarded
    # card does: neither is in play any more, so discards() counts them.
    if c == STEAL:
        remove_card(M, s1, c1)
        receive(M, user, c1, True, True)
    elif c == DISCARD:
        remove_card(M, s1, c1)
    else:
        remove_card(M, s1, c1)
        remove_card(M, s2, c2)
        # §6.5.4: both placements first, then the checks; Flip 7 last.
        receive(M, s1, c2, True, False)
        receive(M, s2, c1, True, False)
        if M[np.uint64(STATUS + s1)] != BUSTED and M[S_FLIP7] < 0:
            check_flip7(M, s1)
        if M[np.uint64(STATUS + s2)] != BUSTED and M[S_FLIP7] < 0:
            check_flip7(M, s2)


@jit
def nth_move(M, c, user, k):
    """The ``k``-th legal option of Steal, Swap or Discard for ``user`` (seat order, then
    card code; a Swap's lower seat first): (s1, c1, s2, c2)."""
    n = M[S_N]
    cross = M[RL + R_CROSS]
    if c != SWAP:
        for s in range(n):
            if M[np.uint64(STATUS + s)] == BUSTED or (c == STEAL and s == user):
                continue
            m = M[np.uint64(MASK + s)]
            # A line whose cards all come before the k-th is passed over whole.
            here = bit_count(m)
            if k >= here:
                k -= here
                continue
            for _ in range(k):
                m &= m - 1
            return s, low_bit(m), -1, -1
        return -1, -1, -1, -1
    for s in range(n):
        if M[np.uint64(STATUS + s)] == BUSTED or M[np.uint64(MASK + s)] == 0:
            continue
        for t in range(s + 1, n):
            if M[np.uint64(STATUS + t)] == BUSTED or M[np.uint64(MASK + t)] == 0:
                continue
            if cross:
                # Every pair of the two lines' cards is an option: a pair of lines whose
                # options all come before the k-th is passed over whole.
                here = bit_count(M[np.uint64(MASK + s)]) * bit_count(M[np.uint64(MASK + t)])
                if k >= here:
                    k -= here
                    continue
            m = M[np.uint64(MASK + s)]
            while m:
                x = low_bit(m)
                m &= m - 1
                m2 = M[np.uint64(MASK + t)]
                while m2:
                    y = low_bit(m2)
                    m2 &= m2 - 1
                    if not cross and (x < FIRST_MOD) != (y < FIRST_MOD):
                        continue
                    if k == 0:
                        return s, x, t, y
                    k -= 1
    return -1, -1, -1, -1


# ------------------------------------------------------------------ policies


@jit_inline
def leader_among(M, me, kind):
    """The seat other than ``me`` with the highest running total (then the highest number
    sum) among those a decision of ``kind`` may name; -1 if none."""
    n = np.uint64(M[S_N])
    anyone = (kind == K_GIVE and M[RL + R_BRUTAL] != 0) or (
        kind == K_MINUS and M[RL + R_M15ANY] != 0
    )
    # (total, number sum) as one key (a number sum is 0 to a few hundred), kept by
    # arithmetic rather than a branch (LLVM made the if a jump): whether a seat leads is a
    # coin toss to the processor.
    best = np.int64(-1)
    top = np.int64(-(1 << 62))
    for s in range(n):
        key = M[U_TOTALS + s] * 16777216 + M[U_SUMS + s]
        better = np.int64(
            (s != np.uint64(me)) & (anyone | (M[U_STATUS + s] != BUSTED)) & (key > top)
        )
        best += (np.int64(s) - best) * better
        top += (key - top) * better
    return best


@jit
def seat_options(M, kind, user, c):
    """The seats a Give, Target or Pass decision may name, into M[OPTS:]; their number."""
    n = M[S_N]
    k = 0
    for s in range(n):
        if kind == K_GIVE:
            ok = M[RL + R_BRUTAL] != 0 or M[np.uint64(STATUS + s)] != BUSTED
        elif kind == K_TARGET:
            ok = M[np.uint64(STATUS + s)] != BUSTED
        else:
            ok = M[np.uint64(STATUS + s)] != BUSTED and has_use(M, c, s)
        if ok:
            M[np.uint64(OPTS + k)] = s
            k += 1
    return k


@jit
def scripted(M):
    """The next decision of a scripted game, or -1 (and halt) when they are used up."""
    i = M[S_SCI]
    if i >= M[H_NSDECS]:
        M[S_HALT] = 1
        return np.int64(-1)
    M[S_SCI] = i + 1
    return M[np.uint64(M[H_SDECS] + i)]


@jit_inline
def choose_seat(M, kind, user, c, k):
    """``user`` names a seat for a Give, Target or Pass with ``k`` >= 2 options."""
    if M[np.uint64(PTYPE + user)] == POL_MCTS:  # before the script: its draws only
        return mcts_seat(M, kind, user, c)
    if M[RL + R_SCRIPTED]:
        d = scripted(M)
        return (d >> 4) & 63 if d >= 0 else user
    p = M[np.uint64(PTYPE + user)]
    if (p == POL_RANDOM or p == POL_THRESHOLD) and kind != K_PASS:
        # A Give or Target at random (to another seat when there is one, at threshold):
        # seat_options' seats as bits, without its call and without the scan that drops
        # the user from them; the same draw from the same options.
        n = np.uint64(M[S_N])
        anyone = kind == K_GIVE and M[RL + R_BRUTAL] != 0
        opts = U0
        for s in range(n):
            opts |= np.uint64(anyone | (M[U_STATUS + s] != BUSTED)) << s
        if p == POL_THRESHOLD:
            opts &= ~(U1 << np.uint64(user))
        if opts == U0:
            pick = user
        else:
            for _ in range(below(M, bit_count(opts))):
                opts &= opts - U1
            pick = np.int64(low_bit(opts))
        log_decision(M, enc(kind, pick, 0, 0, 0))
        return pick
    if p == POL_RANDOM or p == POL_THRESHOLD or kind == K_PASS:
        # The options only matter to these: aiming at the leader needs none.
        k = seat_options(M, kind, user, c)
    if p == POL_RANDOM:
        pick = M[np.uint64(OPTS + below(M, k))]
    elif p == POL_THRESHOLD:
        # An option aimed at others: a Target or Give to another seat; a Pass to itself.
        if kind == K_PASS:
            pick = M[np.uint64(OPTS + below(M, k))]
            for i in range(k):
                if M[np.uint64(OPTS + i)] == user:
                    pick = user
        else:
            m = 0
            for i in range(k):
                if M[np.uint64(OPTS + i)] != user:
                    M[np.uint64(OPTS + m)] = M[np.uint64(OPTS + i)]
                    m += 1
            pick = M[np.uint64(OPTS + below(M, m))] if m else user
    else:
        # Targeting: every Modifier is bad for its holder, and Just One More / Flip Four
        # push a line toward a bust: both go to the leader; a Steal/Swap/Discard is kept.
        if kind == K_PASS:
            pick = M[OPTS + 0]
            for i in range(k):
                if M[np.uint64(OPTS + i)] == user:
                    pick = user
        else:
            pick = leader_among(M, user, kind)
            if pick < 0:
                pick = user
    log_decision(M, enc(kind, pick, 0, 0, 0))
    return pick


@jit
def choose_flip7(M, seat, others):
    """Brutal Flip 7: -1 for the +15 bonus, else the seat that loses 15."""
    if M[np.uint64(PTYPE + seat)] == POL_MCTS:
        return mcts_flip7(M, seat)
    if M[RL + R_SCRIPTED]:
        d = scripted(M)
        if d < 0 or (d & 15) == K_BONUS:
            return -1
        return (d >> 4) & 63
    p = M[np.uint64(PTYPE + seat)]
    leader = leader_among(M, seat, K_MINUS)
    if p == POL_RANDOM:
        i = below(M, others + 1)
        if i == 0:
            pick = -1
        else:
            pick = -1
            n = M[S_N]
            for s in range(n):
                if s != seat and (M[RL + R_M15ANY] or M[np.uint64(STATUS + s)] != BUSTED):
                    i -= 1
                    if i == 0:
                        pick = s
                        break
    elif p == POL_THRESHOLD:
        # Aimed at others: a -15 on a random other player.
        i = below(M, others)
        pick = -1
        n = M[S_N]
        for s in range(n):
            if s != seat and (M[RL + R_M15ANY] or M[np.uint64(STATUS + s)] != BUSTED):
                if i == 0:
                    pick = s
                    break
                i -= 1
    else:
        # The -15 on the leader when the leader is ahead of this seat, else the +15.
        pick = leader if M[np.uint64(TOTALS + leader)] >= M[np.uint64(TOTALS + seat)] else -1
    if pick < 0:
        log_decision(M, enc(K_BONUS, 0, 0, 0, 0))
    else:
        log_decision(M, enc(K_MINUS, pick, 0, 0, 0))
    return pick


@jit
def choose_hit(M, seat):
    """Hit (True) or Stay for an Active seat that may stay."""
    if M[np.uint64(PTYPE + seat)] == POL_MCTS:
        return mcts_hit(M, seat)
    if M[RL + R_SCRIPTED]:
        d = scripted(M)
        return d >= 0 and (d & 15) == K_HIT
    p = M[np.uint64(PTYPE + seat)]
    if p == POL_RANDOM:
        hit = below(M, 2) == 0
    elif p == POL_EV:
        hit = ev_hit(M, seat)
    elif p == POL_LEARNED:
        hit = learned_hit(M, seat)
    else:
        hit = M[np.uint64(SUMS + seat)] < M[np.uint64(PPARAM + seat)]
    log_decision(M, enc(K_HIT if hit else K_STAY, 0, 0, 0, 0))
    return hit


@jit_inline
def next_draws(M):
    """Where the counts of the cards the next draws come from lie in M: the draw pile's, or
    when it is empty the discard pile's (worked out here), which a reshuffle would make it."""
    if M[S_NPILE] > 0:
        return PCNT
    discards(M)
    return DCNT


@jit
def ev_hit(M, seat):
    """Hit when one more card's expected gain beats what a bust would lose: over the
    draw pile's exact contents (after a reshuffle when it is empty), the chance of each
    Number card, the value it adds (+15 for the seventh), and the line's round score that
    a busting card throws away. Modifiers and Actions count as adding nothing."""
    base = next_draws(M)
    total = 0
    for c in range(NCODES):
        total += M[np.uint64(base + c)]
    if total == 0:
        return False
    score = line_score(M, seat, False, True)
    gain = 0.0
    lose = 0.0
    seventh = M[np.uint64(NNUM + seat)] == 6
    for c in range(16):
        k = M[np.uint64(base + c)]
        if k == 0:
            continue
        if c == U7:
            gain += k * (7.0 - score)
        elif busts(M, seat, c):
            lose += k * score
        else:
            gain += k * (VALUE[np.uint64(c)] + (15.0 + score if seventh else 0.0))
    return gain > lose


# ------------------------------------------------------------------ the learned policy

# The network's sums may be added in any order (so that they run several at a time): its
# chance moves by about 1e-16, as numpy's own matrix products do against a plain sum.
_jit_net = njit(
    cache=True, _nrt=False, error_model="numpy", fastmath={"reassoc", "contract", "arcp"}
)


@jit_inline
def net_tanh(x):
    """tanh by one exp (libm's tanh costs three times as much); exact to about 1e-16."""
    if x > 20.0:
        return 1.0
    if x < -20.0:
        return -1.0
    return 1.0 - 2.0 / (np.exp(2.0 * x) + 1.0)


@_jit_net
def net_base(M, net, t1, t2, t3, k):
    """Set the network at ``net`` up for a seat whose ``k`` others end the round with the
    three highest totals ``t1`` >= ``t2`` >= ``t3`` (those past ``k`` are not read): its
    first layer at an own total of 0, and how that moves per point of the own total (only
    the own total moves it: features 0 and 4-6), into the first two scratch rows."""
    F = M.view(np.float64)
    layers = M[np.uint64(net + NET_LAYERS)]
    widest = M[np.uint64(net + NET_WIDEST)]
    sc = net + M[np.uint64(net + NET_SCRATCH)]
    rows = M[np.uint64(net + NET_SHAPES)]
    cols = M[np.uint64(net + NET_SHAPES + 1)]
    w = net + NET_SHAPES + 2 * layers
    b = w + rows * cols
    # The features of flip7.bots.learned.features at an own total of 0.
    scale = float(M[RL + R_TARGET])
    pad = scale * (1.0 - NET_ABSENT)
    o1 = float(t1) if k >= 1 else pad
    o2 = float(t2) if k >= 2 else pad
    o3 = float(t3) if k >= 3 else pad
    x1 = (scale - o1) / scale
    x2 = (scale - o2) / scale
    x3 = (scale - o3) / scale
    x4 = (0.0 - o1) / scale * 2.0
    x5 = (0.0 - o2) / scale * 2.0
    x6 = (0.0 - o3) / scale * 2.0
    x7 = max(0, k + 1 - 4) / 4.0
    for c in range(cols):
        u = w + c * rows  # the weights into unit c
        z = F[np.uint64(u)]  # x0 = 1 at an own total of 0
        z += x1 * F[np.uint64(u + 1)]
        z += x2 * F[np.uint64(u + 2)]
        z += x3 * F[np.uint64(u + 3)]
        z += x4 * F[np.uint64(u + 4)]
        z += x5 * F[np.uint64(u + 5)]
        z += x6 * F[np.uint64(u + 6)]
        z += x7 * F[np.uint64(u + 7)]
        F[np.uint64(sc + c)] = z + F[np.uint64(b + c)]
        slope = 2.0 * (F[np.uint64(u + 4)] + F[np.uint64(u + 5)] + F[np.uint64(u + 6)])
        F[np.uint64(sc + widest + c)] = (slope - F[np.uint64(u)]) / scale


@_jit_net
def net_chance(M, net, mine, t1, t2, k):
    """The chance to win by the network at ``net``, set up by :func:`net_base` for the
    same others, of a seat that ends the round at ``mine`` (R6's ValueNet.chance). A total
    at or over the target that is the only highest has won: exact, not the network's."""
    top = mine if mine > t1 else t1
    if top >= M[RL + R_TARGET]:
        if mine > t1:
            return 1.0
        if mine < t1 and (k < 2 or t1 > t2):
            return 0.0
    F = M.view(np.float64)
    layers = M[np.uint64(net + NET_LAYERS)]
    widest = M[np.uint64(net + NET_WIDEST)]
    sc = net + M[np.uint64(net + NET_SCRATCH)]
    src = sc + 2 * widest
    dst = sc + 3 * widest
    rows = M[np.uint64(net + NET_SHAPES)]
    cols = M[np.uint64(net + NET_SHAPES + 1)]
    me = float(mine)
    for c in range(cols):
        F[np.uint64(src + c)] = F[np.uint64(sc + c)] + me * F[np.uint64(sc + widest + c)]
    w = net + NET_SHAPES + 2 * layers + rows * cols + cols
    for i in range(1, layers):
        rows = cols
        cols = M[np.uint64(net + NET_SHAPES + 2 * i + 1)]
        for r in range(rows):
            F[np.uint64(src + r)] = net_tanh(F[np.uint64(src + r)])
        b = w + rows * cols
        for c in range(cols):
            u = w + c * rows  # the weights into unit c, along memory
            acc = 0.0
            for r in range(rows):
                acc += F[np.uint64(src + r)] * F[np.uint64(u + r)]
            F[np.uint64(dst + c)] = acc + F[np.uint64(b + c)]
        w = b + cols
        src, dst = dst, src
    return 1.0 / (1.0 + np.exp(-F[np.uint64(src)]))


@jit
def top_others(M, seat):
    """The three highest of M[OPTS + s] over the seats other than ``seat``, highest first
    (a missing one: the lowest int64), and how many others there are."""
    n = M[S_N]
    low = -(1 << 62)
    t1 = t2 = t3 = low
    for s in range(n):
        if s == seat:
            continue
        f = M[np.uint64(OPTS + s)]
        if f > t1:
            t1, t2, t3 = f, t1, t2
        elif f > t2:
            t2, t3 = f, t2
        elif f > t3:
            t3 = f
    return t1, t2, t3, n - 1


@jit
def finals_chance(M, net, seat):
    """``seat``'s chance to win by the network at ``net`` from the totals at the end of a
    round written in M[OPTS:OPTS + n] (for the tests: the same path as a decision's)."""
    t1, t2, t3, k = top_others(M, seat)
    net_base(M, net, t1, t2, t3, k)
    return net_chance(M, net, M[np.uint64(OPTS + seat)], t1, t2, k)


@jit
def round_score_now(M, s):
    """Seat ``s``'s round score if the round ended now (as score_round, without Flip 7)."""
    if M[np.uint64(STATUS + s)] == BUSTED:
        score = 0
        if M[RL + R_BMODS]:
            for c in range(17, 22):
                score -= PENALTY[np.uint64(c)] * M[np.uint64(CNT + NCODES * s + c)]
        return score
    return line_score(M, s, False, True)


@jit
def score_after(M, s, c):
    """Seat ``s``'s round score once Number card ``c`` (not Unlucky 7, not a bust)
    joins its line: Flip 7's +15 when it makes seven, The Zero's 0 otherwise."""
    total = M[np.uint64(SUMS + s)] + VALUE[np.uint64(c)]
    if M[RL + R_L13] == 2:
        flip7 = M[np.uint64(NNUM + s)] + 1 >= 7
    else:
        values = 0
        row = CNT + NCODES * s
        for x in range(14):
            if x == SEVEN:
                has = M[np.uint64(row + SEVEN)] + M[np.uint64(row + U7)]
                has += 1 if c == SEVEN else 0
            elif x == THIRTEEN:
                has = M[np.uint64(row + THIRTEEN)] + M[np.uint64(row + L13)]
                has += 1 if c == THIRTEEN or c == L13 else 0
            else:
                has = M[np.uint64(row + x)] + (1 if c == x else 0)
            if has > 0:
                values += 1
        flip7 = values >= 7
    for _ in range(M[np.uint64(CNT + NCODES * s + DIV2)]):
        total //= 2
    for x in range(17, 22):
        total -= PENALTY[np.uint64(x)] * M[np.uint64(CNT + NCODES * s + x)]
    if total < 0 and not M[RL + R_BRUTAL]:
        total = 0
    if flip7:
        return total + 15
    if c == ZERO or M[np.uint64(CNT + NCODES * s + ZERO)] > 0:
        return 0
    return total


@jit
def learned_hit(M, seat):
    """R6's Hit or Stay with a one-card look-ahead: near the end of the game (a total
    within the network's reach of the target), while another seat's line is still in
    play or under Brutal, the network's chance to win of staying (this round's score)
    against that of one more Number card, each weighted by its count in the draw pile
    (a bust, Unlucky 7's 7, The Zero's 0, the seventh's +15), every other line ending at
    its score now; a tie goes to ``ev_hit``, as everything before the end of the game."""
    n = M[S_N]
    net = M[RL + R_NETS] + M[np.uint64(PPARAM + seat)]
    best = M[TOTALS + 0]
    for s in range(1, n):
        if M[np.uint64(TOTALS + s)] > best:
            best = M[np.uint64(TOTALS + s)]
    if best + M[np.uint64(net + NET_REACH)] < M[RL + R_TARGET]:
        return ev_hit(M, seat)
    if not M[RL + R_BRUTAL]:
        alone = True  # R6's keeps_modifiers: a Modifier drawn would stay in its own line
        for s in range(n):
            if s != seat and M[np.uint64(STATUS + s)] != BUSTED:
                alone = False
        if alone:
            return ev_hit(M, seat)
    base = next_draws(M)
    numbers = 0
    for c in range(16):
        numbers += M[np.uint64(base + c)]
    if numbers == 0:
        return False  # R6's own_line: no Number card to draw, nothing to search
    for s in range(n):
        M[np.uint64(OPTS + s)] = M[np.uint64(TOTALS + s)] + round_score_now(M, s)
    t1, t2, t3, k = top_others(M, seat)
    net_base(M, net, t1, t2, t3, k)
    mine = M[np.uint64(TOTALS + seat)]
    stay = net_chance(M, net, mine + line_score(M, seat, False, True), t1, t2, k)
    bust_score = 0
    if M[RL + R_BMODS]:
        for c in range(17, 22):
            bust_score -= PENALTY[np.uint64(c)] * M[np.uint64(CNT + NCODES * seat + c)]
    busted = -1.0
    hit = 0.0
    for c in range(16):
        count = M[np.uint64(base + c)]
        if count == 0:
            continue
        if c == U7:
            v = net_chance(M, net, mine + 7, t1, t2, k)
        elif busts(M, seat, c):
            if busted < 0.0:
                busted = net_chance(M, net, mine + bust_score, t1, t2, k)
            v = busted
        else:
            v = net_chance(M, net, mine + score_after(M, seat, c), t1, t2, k)
        hit += count * v
    hit /= numbers
    if hit > stay + 1e-9:
        return True
    if abs(hit - stay) < 1e-6:
        return ev_hit(M, seat)  # nothing to choose between on the chance to win
    return False


@jit_inline
def move_value(M, s, rem, add):
    """A rough round score of seat ``s``'s line with card ``rem`` taken out and ``add``
    coming in (either may be -1): the judge of the targeting policy."""
    if M[np.uint64(STATUS + s)] == BUSTED:
        return 0
    total = M[np.uint64(SUMS + s)]
    nn = M[np.uint64(NNUM + s)]
    c7 = M[np.uint64(CNT + NCODES * (s) + SEVEN)] + M[np.uint64(CNT + NCODES * (s) + U7)]
    c13 = M[np.uint64(CNT + NCODES * (s) + THIRTEEN)]
    cl = M[np.uint64(CNT + NCODES * (s) + L13)]
    zero = M[np.uint64(CNT + NCODES * (s) + ZERO)]
    divs = M[np.uint64(CNT + NCODES * (s) + DIV2)]
    pen = 0
    if M[np.uint64(MASK + s)] >> 17:
        for c in range(17, 22):
            pen += PENALTY[np.uint64(c)] * M[np.uint64(CNT + NCODES * (s) + c)]
    if rem >= 0:
        if rem < FIRST_MOD:
            total -= VALUE[np.uint64(rem)]
            nn -= 1
            if rem == SEVEN or rem == U7:
                c7 -= 1
            elif rem == THIRTEEN:
                c13 -= 1
            elif rem == L13:
                cl -= 1
            elif rem == ZERO:
                zero -= 1
        elif rem == DIV2:
            divs -= 1
        else:
            pen -= PENALTY[np.uint64(rem)]
    if add >= 0:
        if add < FIRST_MOD:
            if add == U7 and M[RL + R_U7T]:
                total = 7
                nn = 1
                divs = 0
                pen = 0
                zero = 0
            else:
                if add == SEVEN or add == U7:
                    dup = c7 > 0
                elif add == THIRTEEN or add == L13:
                    same = 1 + c13 + cl
                    lucky = (1 if add == L13 else 0) + cl
                    dup = same > 2 or (same == 2 and lucky == 0)
                else:
                    dup = M[np.uint64(CNT + NCODES * (s) + add)] - (1 if rem == add else 0) > 0
                if dup:
                    return -pen if M[RL + R_BRUTAL] else 0
                total += VALUE[np.uint64(add)]
                nn += 1
                if add == ZERO:
                    zero += 1
        elif add == DIV2:
            divs += 1
        else:
            pen += PENALTY[np.uint64(add)]
    for _ in range(divs):
        total //= 2
    total -= pen
    if total < 0 and not M[RL + R_BRUTAL]:
        total = 0
    if nn >= 7:
        return total + 15
    if zero > 0:
        return 0
    return total


@jit_inline
def weight(M, user, leader, s):
    if s == user:
        return 1.0
    if s == leader:
        return -1.0
    return -0.3


@jit_inline
def lose_delta(M, s, x):
    """Roughly how seat ``s``'s round score changes when card ``x`` leaves its line (from
    its score M[OPTS + s]): a Number takes its value (nothing while The Zero holds the line
    at 0), The Zero gives the numbers back, ÷2 doubles, a −N gives N back."""
    base = M[np.uint64(OPTS + s)]
    if x < FIRST_MOD:
        if x == ZERO:
            return M[np.uint64(SUMS + s)] - base
        return -VALUE[np.uint64(x)] if base > 0 else 0
    if x == DIV2:
        return base
    return PENALTY[np.uint64(x)]


@jit_inline
def gain_delta(M, s, x, out):
    """Roughly how seat ``s``'s round score changes when card ``x`` arrives (``out``: a card
    leaving the line at the same time, or -1): a bust loses the score, Unlucky 7 wipes it to
    7, The Zero zeroes it, a Number adds its value (halved under ÷2, +15 as the seventh), a
    Modifier subtracts."""
    return gain_known(M, s, x, out, x < FIRST_MOD and busts(M, s, x))


@jit_inline
def gain_known(M, s, x, out, bust):
    """:func:`gain_delta` with ``busts(M, s, x)`` already known (``bust``; unread when ``x``
    is a Modifier): a Swap's judge works it out once per card, not once per pair."""
    base = M[np.uint64(OPTS + s)]
    if x < FIRST_MOD:
        if x == U7 and M[RL + R_U7T]:
            return 7 - base
        if bust and (out < 0 or VALUE[np.uint64(out)] != VALUE[np.uint64(x)]):
            return -base
        if x == ZERO:
            return -base
        g = VALUE[np.uint64(x)]
        if M[np.uint64(CNT + NCODES * s + DIV2)]:
            g //= 2
        if M[np.uint64(CNT + NCODES * s + ZERO)]:
            g = 0
        if M[np.uint64(NNUM + s)] + 1 - (1 if 0 <= out < FIRST_MOD else 0) >= 7:
            g += 15
        return g
    if x == DIV2:
        return -(base - base // 2)
    if M[RL + R_BRUTAL]:
        return -PENALTY[np.uint64(x)]
    return -min(PENALTY[np.uint64(x)], base)


@jit
def choose_move(M, c, user):
    """``user`` picks one of two or more options of Steal, Swap or Discard."""
    if M[np.uint64(PTYPE + user)] == POL_MCTS:
        return mcts_move(M, c, user)
    if M[RL + R_SCRIPTED]:
        d = scripted(M)
        if d < 0:
            return -1, -1, -1, -1
        return (d >> 4) & 63, (d >> 10) & 31, (d >> 15) & 63, (d >> 21) & 31
    p = M[np.uint64(PTYPE + user)]
    n = M[S_N]
    s1 = c1 = s2 = c2 = -1
    if p == POL_RANDOM or (p == POL_THRESHOLD and c != DISCARD):
        total = count_moves(M, c, user, 1 << 40)
        s1, c1, s2, c2 = nth_move(M, c, user, below(M, total))
    elif p == POL_THRESHOLD:
        # A Discard aimed at another seat's card when there is one (a line holds no
        # Action: its bits are its cards).
        aimed = 0
        for s in range(n):
            if s != user and M[np.uint64(STATUS + s)] != BUSTED:
                aimed += bit_count(M[np.uint64(MASK + s)])
        if aimed == 0:
            total = count_moves(M, c, user, 1 << 40)
            s1, c1, s2, c2 = nth_move(M, c, user, below(M, total))
        else:
            k = below(M, aimed)
            for s in range(n):
                if s != user and M[np.uint64(STATUS + s)] != BUSTED and s1 < 0:
                    m = M[np.uint64(MASK + s)]
                    here = bit_count(m)
                    if k >= here:
                        k -= here
                    else:
                        for _ in range(k):
                            m &= m - 1
                        s1 = s
                        c1 = low_bit(m)
    else:
        leader = leader_among(M, user, K_TARGET)
        best = -1e18
        # What an option is worth to the user: the change to its own line less the
        # changes to the others' lines, by weight (the leader's most: weight()); each line
        # scored only when one of its cards is judged, its weight once per line.
        if c != SWAP:
            # A Steal: the card's gain to the user's line (scored too) and its loss to the
            # line it leaves; a Discard: that loss only.
            steal = c == STEAL
            if steal:
                M[np.uint64(OPTS + user)] = move_value(M, user, -1, -1)
            for s in range(n):
                if M[np.uint64(STATUS + s)] == BUSTED or (steal and s == user):
                    continue
                m = M[np.uint64(MASK + s)]
                if m == 0:
                    continue
                M[np.uint64(OPTS + s)] = move_value(M, s, -1, -1)
                w = weight(M, user, leader, s)
                while m:
                    x = low_bit(m)
                    m &= m - 1
                    if steal:
                        v = gain_delta(M, user, x, -1) + w * lose_delta(M, s, x)
                    else:
                        v = w * lose_delta(M, s, x)
                    if v > best:
                        best = v
                        s1, c1 = s, x
        elif leader >= 0 and M[np.uint64(MASK + user)] and M[np.uint64(MASK + leader)]:
            # Swaps between its own line and the leader's (any other pair at random).
            # Each side's loss of its card and gain of the other's, with each card's own
            # parts worked out once per card, not once per pair: only these two lines are
            # judged, so only their scores are needed.
            a, b = (user, leader) if user < leader else (leader, user)
            M[np.uint64(OPTS + a)] = move_value(M, a, -1, -1)
            M[np.uint64(OPTS + b)] = move_value(M, b, -1, -1)
            wa = weight(M, user, leader, a)
            wb = weight(M, user, leader, b)
            cross = M[RL + R_CROSS]
            mb = M[np.uint64(MASK + b)]
            # Per card y of b's line, in scratch past the seats: 2 * its lose_delta from b,
            # plus 1 when it would bust a's line.
            m2 = mb
            while m2:
                y = low_bit(m2)
                m2 &= m2 - 1
                bust_a = 1 if y < FIRST_MOD and busts(M, a, y) else 0
                M[np.uint64(OPTS + MAXP + y)] = 2 * lose_delta(M, b, y) + bust_a
            m = M[np.uint64(MASK + a)]
            while m:
                x = low_bit(m)
                m &= m - 1
                lose_a = lose_delta(M, a, x)
                bust_b = x < FIRST_MOD and busts(M, b, x)
                m2 = mb
                while m2:
                    y = low_bit(m2)
                    m2 &= m2 - 1
                    if not cross and (x < FIRST_MOD) != (y < FIRST_MOD):
                        continue
                    packed = M[np.uint64(OPTS + MAXP + y)]
                    d1 = lose_a + gain_known(M, a, y, x, (packed & 1) != 0)
                    d2 = (packed >> 1) + gain_known(M, b, x, y, bust_b)
                    v = wa * d1 + wb * d2
                    if v > best:
                        best = v
                        s1, c1, s2, c2 = a, x, b, y
        if s1 < 0:
            total = count_moves(M, c, user, 1 << 40)
            s1, c1, s2, c2 = nth_move(M, c, user, below(M, total))
    if c == STEAL:
        log_decision(M, enc(K_STEAL, s1, c1, 0, 0))
    elif c == DISCARD:
        log_decision(M, enc(K_DISCARD, s1, c1, 0, 0))
    else:
        log_decision(M, enc(K_SWAP, s1, c1, s2, c2))
    return s1, c1, s2, c2


@jit
def cnt_any(M, s):
    return M[np.uint64(NNUM + s)] + M[np.uint64(NMOD + s)] > 0


# ------------------------------------------------------------------ the engine loop


@jit_inline
def offer_turn(M):
    """Hit/Stay turns (§3.2), one after another while each leaves nothing to resolve: a
    Stay, or a Hit that brings a plain Number card the line can hold short of Flip 7 (the
    hot path of every simulation, as the engine's ``_threshold_turns``). Anything else
    goes to the general machinery and back to the engine loop."""
    n = np.uint64(M[S_N])
    seat = np.uint64(M[S_TURN])
    scripted_game = M[RL + R_SCRIPTED] != 0
    logged = M[RL + R_LOG] != 0
    fast_draws = not scripted_game and not logged
    empty_may_stay = M[RL + R_EMPTY] != 0
    # The generator's state and the pile's size in registers, and the state of the next
    # draw worked out one draw ahead: a draw's card then waits on a multiply and a load,
    # not on the generator's steps behind a store and a reload (the loop's longest chain,
    # restarted after every branch guessed wrong). Both are stored as they change, and
    # read again after each call that may draw.
    ahead = xorshift(np.uint64(M[RNG]))
    npile = np.uint64(M[S_NPILE])
    # The Active seats as bits, read once per call and kept here as turns end in a Stay or
    # a bust: the next Active seat is then a count of trailing zeros, not a walk around the
    # table whose every step is a branch the processor guesses wrong about as often as not.
    live = U0
    for s in range(n):
        live |= np.uint64(M[U_STATUS + s] == ACTIVE) << s
    while True:
        if live == U0:
            end_round(M)  # no Active player left (S_TURN stays on the last one to play)
            return
        later = live & (np.uint64(0xFFFFFFFFFFFFFFFE) << seat)  # Active seats after this one
        seat = np.uint64(low_bit(later if later != U0 else live))
        M[S_TURN] = np.int64(seat)
        row = U_CNT + U_NCODES * seat
        # One branch, not three (| and & evaluate both sides).
        if (M[row + U_ZERO] > 0) | (
            (M[U_NNUM + seat] + M[U_NMOD + seat] == 0) & (not empty_may_stay)
        ):
            hit = True  # The Zero (§4.3.3) or an empty line (§3.2.3): no choice
        else:
            p = M[U_PTYPE + seat]
            if not scripted_game and (p == POL_THRESHOLD or p == POL_TARGETING):
                hit = M[U_SUMS + seat] < M[U_PPARAM + seat]
                if logged:
                    log_decision(M, K_HIT if hit else K_STAY)
            else:
                hit = choose_hit(M, np.int64(seat))
                if M[S_HALT]:
                    return
                ahead = xorshift(np.uint64(M[RNG]))
        if not hit:
            M[U_STATUS + seat] = STAYED
            live &= ~(U1 << seat)
            continue
        if npile > U0 and fast_draws:
            c, ahead = draw_ahead(M, ahead, npile)
            npile -= U1
        else:
            c = take(M)
            ahead = xorshift(np.uint64(M[RNG]))
            npile = np.uint64(M[S_NPILE])
        uc = np.uint64(c)
        if uc < U_FIRST_MOD and uc != U_U7:
            # A Number card that cannot wipe: a bust, or a card short of the seventh. The
            # stack is empty here, so a bust has no set-aside cards to drop. busts() without
            # its branches on the kind of Number (each one a coin toss to the processor):
            # the copies of this number the line holds, against 2 where a Lucky 13 is about.
            held = M[row + uc] + M[row + np.uint64(SAME_AS[uc])]
            lucky = (c == L13) | ((c == THIRTEEN) & (M[row + U_L13] > 0))
            if held > np.int64(lucky):
                M[np.uint64(row + uc)] += 1
                M[U_MASK + seat] |= 1 << c
                M[U_NNUM + seat] += 1
                M[U_STATUS + seat] = BUSTED
                M[S_NLIVE] -= 1
                live &= ~(U1 << seat)
                continue
            if M[U_NNUM + seat] < 6:
                M[np.uint64(row + uc)] += 1
                M[U_MASK + seat] |= 1 << c
                M[U_NNUM + seat] += 1
                M[U_SUMS + seat] += VALUE[np.uint64(uc)]
                continue
        arrive(M, P_HIT, np.int64(seat), 0, c)
        return


@jit_inline
def deal_next(M):
    n = M[S_N]
    i = M[S_DEAL_I]
    first = M[S_DEALER] + 1
    fast_draws = M[RL + R_SCRIPTED] == 0 and M[RL + R_LOG] == 0
    # As in offer_turn: the next draw's state worked out ahead, read again after a call.
    ahead = xorshift(np.uint64(M[RNG]))
    npile = np.uint64(M[S_NPILE])
    while i < n:
        seat = first + i if first + i < n else first + i - n  # first <= n, i < n
        i += 1
        if M[np.uint64(STATUS + seat)] == ACTIVE:
            M[S_DEAL_I] = i
            if npile > U0 and fast_draws:
                c, ahead = draw_ahead(M, ahead, npile)
                npile -= U1
            else:
                c = take(M)
                ahead = xorshift(np.uint64(M[RNG]))
                npile = np.uint64(M[S_NPILE])
            us = np.uint64(seat)
            if c >= 0 and c < U7 and M[U_NNUM + us] == 0:
                # A first Number worth its code: nothing to check (the engine's shortcut).
                M[U_CNT + U_NCODES * us + np.uint64(c)] = 1
                M[U_MASK + us] |= 1 << c
                M[U_NNUM + us] = 1
                M[U_SUMS + us] += c
                continue
            arrive(M, P_DEAL, seat, 0, c)
            if M[S_SP] or M[S_PHASE] != PH_DEAL or M[S_HALT]:
                return
            ahead = xorshift(np.uint64(M[RNG]))
            npile = np.uint64(M[S_NPILE])
            continue
        if not M[RL + R_SKIPS]:
            M[S_DEAL_I] = i
            draw_for(M, P_BURN if M[np.uint64(STATUS + seat)] == BUSTED else P_DEAL, seat, 0)
            return
    M[S_DEAL_I] = i
    M[S_PHASE] = PH_TURNS
    M[S_TURN] = M[S_DEALER]


@jit
def run_game(M):
    """Play the game set up in ``M`` to its end (or, scripted, to where the script stops)."""
    while not M[S_HALT]:
        sp = M[S_SP]
        if sp:
            sp -= 1
            M[S_SP] = sp
            t = M[np.uint64(STK + 4 * (sp) + 0)]
            a = M[np.uint64(STK + 4 * (sp) + 1)]
            b = M[np.uint64(STK + 4 * (sp) + 2)]
            c = M[np.uint64(STK + 4 * (sp) + 3)]
            if t == T_DRAW:
                draw_for(M, a, b, c)
            elif t == T_STEP:
                f = a
                if M[np.uint64(FR + 8 * (f) + 2)]:
                    M[np.uint64(FR + 8 * (f) + 2)] -= 1
                    push(M, T_STEP, f, 0, 0)
                    push(M, T_DRAW, P_F4, M[np.uint64(FR + 8 * (f) + 0)], f)
                else:
                    # §6.3.4: the set-aside cards resolve in the order they appeared; the
                    # Flip Four card itself goes once all it caused has resolved (§6.1.5).
                    target = M[np.uint64(FR + 8 * (f) + 0)]
                    push(M, T_FINISH, M[np.uint64(FR + 8 * (f) + 1)], target, 0)
                    for k in range(M[np.uint64(FR + 8 * (f) + 3)] - 1, -1, -1):
                        push(M, T_RESOLVE, M[np.uint64(FR + 8 * (f) + 4 + k)], target, 0)
                    M[np.uint64(FR + 8 * (f) + 3)] = 0
                    M[S_FTOP] = f
            elif t == T_FORCE:
                # Its Just One More card to the discard pile (off the stack: discards()).
                if M[np.uint64(STATUS + a)] == ACTIVE:
                    M[np.uint64(STATUS + a)] = STAYED
            elif t == T_RESOLVE:
                resolve(M, a, b)
            # (T_FINISH: the Flip Four card, off the stack, is in the discard pile.)
        else:
            ph = M[S_PHASE]
            if ph == PH_TURNS:
                offer_turn(M)
            elif ph == PH_DEAL:
                deal_next(M)
            elif ph == PH_ROUND_END:
                if M[RL + R_ROUND]:
                    return  # a rollout of one round (flip7.fast.rollout)
                next_round(M)
            else:
                return


@jit
def new_game(M, dealer):
    """Set up a new game: full deck in the draw pile, empty lines, ``dealer`` deals."""
    n = M[S_N]
    decks = M[RL + R_DECKS]
    k = 0
    for c in range(NCODES):
        m = ONE_DECK[c] * decks
        M[np.uint64(PCNT + c)] = m
        k += m
    if decks == 1:
        for i in range(k):
            M[U_PILE + np.uint64(i)] = PILE1[np.uint64(i)]
    elif decks == 2:
        for i in range(k):
            M[U_PILE + np.uint64(i)] = PILE2[np.uint64(i)]
    else:
        k = 0
        for c in range(NCODES):
            for _ in range(ONE_DECK[c] * decks):
                M[np.uint64(PILE + k)] = c
                k += 1
    M[S_NPILE] = k
    M[S_SP] = 0
    M[S_FTOP] = 0
    M[S_ROUND] = 0
    M[S_HALT] = 0
    M[S_ERROR] = 0
    M[S_MINUS15] = -1
    for s in range(n):
        for c in range(NCODES):
            M[np.uint64(CNT + NCODES * (s) + c)] = 0
        M[np.uint64(NNUM + s)] = 0
        M[np.uint64(NMOD + s)] = 0
        M[np.uint64(MASK + s)] = 0
        M[np.uint64(SUMS + s)] = 0
        M[np.uint64(STATUS + s)] = ACTIVE
        M[np.uint64(TOTALS + s)] = 0
    M[S_DEALER] = dealer
    start_round(M)


@jit
def run_batch(M, seed, g0, g1, dealer, wins, out, offs):
    """Play games ``g0`` … ``g1 - 1`` of the run seeded ``seed``. ``wins[s]`` counts the
    games seat ``s`` won (each co-winner of a shared win), ``out`` gets (rounds, shared
    wins, games) added. With logging on, each game's draws, decisions and rounds go on
    after the previous game's, ``offs[g - g0]`` getting where they end; the batch stops
    before a game that overflows the logs. Returns how many games were played."""
    n = M[S_N]
    M[S_ND] = 0
    M[S_NC] = 0
    M[S_NR] = 0
    for g in range(g0, g1):
        seed_game(M, seed, g)
        d = dealer if dealer >= 0 else below(M, n)
        nd, nc, nr = M[S_ND], M[S_NC], M[S_NR]
        M[S_OVERFLOW] = 0
        new_game(M, d)
        run_game(M)
        if M[S_ERROR]:
            return -(g - g0) - 1
        if M[S_OVERFLOW]:
            M[S_ND], M[S_NC], M[S_NR] = nd, nc, nr
            return g - g0
        if M[RL + R_LOG]:
            i = g - g0
            offs[i, 0] = M[S_ND]
            offs[i, 1] = M[S_NC]
            offs[i, 2] = M[S_NR]
            offs[i, 3] = d
        best = M[TOTALS + 0]
        for s in range(1, n):
            if M[np.uint64(TOTALS + s)] > best:
                best = M[np.uint64(TOTALS + s)]
        k = 0
        for s in range(n):
            if M[np.uint64(TOTALS + s)] == best:
                wins[s] += 1
                k += 1
        out[0] += M[S_ROUND]
        if k > 1:
            out[1] += 1
        out[2] += 1
    return g1 - g0


@jit
def run_script(M, dealer):
    """Replay a scripted game (its draws and decisions given): the state it reaches."""
    new_game(M, dealer)
    M[S_ND] = 0
    M[S_NC] = 0
    M[S_NR] = 0
    run_game(M)
    return M[S_ERROR]


# ------------------------------------------------------------------ mcts's rollout policy
# R5's rollout players (flip7.bots.mcts: _Other, _FastOther, _Me and _aim), compiled for
# flip7.fast.rollout. Each choice is the Python one's, with ties between equally valued
# uses of an Action broken the same way on both sides (lower seat, then lower card code:
# lines here are counts, with no order of arrival). Their settings are in the MB_* slots.


@jit_inline
def mcts_forced(M):
    """The searching seat's decision under search (once), or -1."""
    blob = M[RL + R_NETS]
    d = M[np.uint64(blob + MB_FORCED)]
    if d >= 0:
        M[np.uint64(blob + MB_FORCED)] = -1
    return d


@jit
def mcts_lead(M, me):
    """The non-busted seat other than ``me`` with the most points, line included (the
    lowest such seat); -1 if none."""
    n = M[S_N]
    best = -1
    value = 0
    for s in range(n):
        if s == me or M[np.uint64(STATUS + s)] == BUSTED:
            continue
        v = M[np.uint64(TOTALS + s)] + M[np.uint64(SUMS + s)]
        if best < 0 or v > value:
            best = s
            value = v
    return best


@jit
def mcts_chase(M, seat):
    """The end of the game (mcts's _chase): 1, Hit, when a seat done for the round ends
    it at or over the target ahead of this line; 0, Stay, when this line would end it on
    top; -1 otherwise."""
    n = M[S_N]
    target = M[RL + R_TARGET]
    brutal = M[RL + R_BRUTAL]
    mine = M[np.uint64(TOTALS + seat)] + round_score_now(M, seat)
    best = -(1 << 62)
    for s in range(n):
        if s == seat:
            continue
        status = M[np.uint64(STATUS + s)]
        final = M[np.uint64(TOTALS + s)]
        if status == ACTIVE:
            final += round_score_now(M, s)
        else:
            if brutal or status != BUSTED:
                final += round_score_now(M, s)
            if final >= target and final >= mine:
                return 1
        if final > best:
            best = final
    if mine >= target and mine > best:
        return 0
    return -1


@jit_inline
def mcts_score(total, divides, penalty, zero, flip7):
    """flip7.bots.lines.score outside Brutal: halve, subtract, clamp, +15 or The Zero."""
    for _ in range(divides):
        total //= 2
    total -= penalty
    if total < 0:
        total = 0
    if flip7:
        return total + 15
    if zero:
        return 0
    return total


@jit
def mcts_hit_once(M, seat):
    """The searching seat's Hit when one more card, then Stay, scores more on average
    over the draw pile's Number cards than staying now (flip7.bots.lines.hit_once; an
    empty draw pile: Stay)."""
    if M[S_NPILE] == 0:
        return False
    row = CNT + NCODES * seat
    divides = M[np.uint64(row + DIV2)]
    penalty = 0
    for c in range(17, 22):
        penalty += PENALTY[np.uint64(c)] * M[np.uint64(row + c)]
    total = M[np.uint64(SUMS + seat)]
    zero = M[np.uint64(row + ZERO)] > 0
    seventh = M[np.uint64(NNUM + seat)] + 1 >= 7
    acc = 0
    cards = 0
    for c in range(16):
        k = M[np.uint64(PCNT + c)]
        if k == 0:
            continue
        cards += k
        if c == U7:
            acc += k * 7  # the wipe takes the Modifiers too
        elif not busts(M, seat, c):
            acc += k * mcts_score(total + VALUE[np.uint64(c)], divides, penalty,
                                  zero or c == ZERO, seventh)  # fmt: skip
    stay = mcts_score(total, divides, penalty, zero, False)
    # hit_once's mean beats the stay: compared in integers, exactly.
    return cards > 0 and acc > stay * cards


@jit
def mcts_hit(M, seat):
    """Hit (True) or Stay for a POL_MCTS seat."""
    d = mcts_forced(M)
    if d >= 0:
        return (d & 15) == K_HIT
    blob = M[RL + R_NETS]
    who = M[np.uint64(PPARAM + seat)]
    if who != MCTS_FAST:
        chase = mcts_chase(M, seat)
        if chase >= 0:
            return chase == 1
        if who == MCTS_SEARCH:
            return mcts_hit_once(M, seat)
    return M[np.uint64(SUMS + seat)] < M[np.uint64(blob + MB_HIT_BELOW)]


@jit
def mcts_seat(M, kind, user, c):
    """A Give, Target or Pass of a POL_MCTS seat: Modifiers, Just One More and Flip Four
    to the leader (Just One More on itself when Active with a high line), a Pass kept;
    the first option when the one wanted is not among them."""
    d = mcts_forced(M)
    if d >= 0:
        return (d >> 4) & 63
    lead = mcts_lead(M, user)
    want = user
    if kind == K_TARGET:
        blob = M[RL + R_NETS]
        mine = c == JOM and M[np.uint64(STATUS + user)] == ACTIVE and (
            M[np.uint64(SUMS + user)] >= M[np.uint64(blob + MB_JOM_SELF)] or lead < 0
        )
        if not mine and lead >= 0:
            want = lead
    elif kind == K_GIVE and lead >= 0:
        want = lead
    k = seat_options(M, kind, user, c)
    for i in range(k):
        if M[np.uint64(OPTS + i)] == want:
            return want
    return M[OPTS + 0]


@jit
def mcts_flip7(M, seat):
    """Brutal Flip 7 of a POL_MCTS seat: the −15 on the leader when it is not behind,
    else the +15 (-1)."""
    d = mcts_forced(M)
    if d >= 0:
        return -1 if (d & 15) == K_BONUS else (d >> 4) & 63
    lead = mcts_lead(M, seat)
    if lead >= 0 and M[np.uint64(TOTALS + lead)] >= M[np.uint64(TOTALS + seat)]:
        return lead
    return -1


@jit_inline
def mcts_worth(M, x):
    """What card ``x`` is worth to the line holding it (mcts's _worth)."""
    if x < FIRST_MOD:
        return VALUE[np.uint64(x)]
    cost = M[np.uint64(M[RL + R_NETS] + MB_DIVIDE_COST)] if x == DIV2 else 0
    return -PENALTY[np.uint64(x)] - cost


@jit
def mcts_gain(M, s, x, out):
    """What card ``x`` adds to seat ``s``'s line less its card ``out`` (-1: none): its
    value, or minus the line's number sum if it busts it (mcts's _gain)."""
    if x >= FIRST_MOD:
        return mcts_worth(M, x)
    row = CNT + NCODES * s
    total = M[np.uint64(SUMS + s)]
    gone = 0 <= out < FIRST_MOD
    if gone:
        total -= VALUE[np.uint64(out)]
    if PLAIN[np.uint64(x)]:
        dup = M[np.uint64(row + x)] - (1 if out == x else 0) > 0
    elif x == SEVEN or x == U7:
        sevens = M[np.uint64(row + SEVEN)] + M[np.uint64(row + U7)]
        dup = sevens - (1 if out == SEVEN or out == U7 else 0) > 0
    else:
        lucky_out = 1 if out == L13 else 0
        same = 1 + M[np.uint64(row + THIRTEEN)] + M[np.uint64(row + L13)]
        same -= 1 if out == THIRTEEN or out == L13 else 0
        lucky = (1 if x == L13 else 0) + M[np.uint64(row + L13)] - lucky_out
        dup = same > 2 or (same == 2 and lucky == 0)
    return -total if dup else VALUE[np.uint64(x)]


@jit
def mcts_move(M, c, user):
    """A Steal, Swap or Discard of a POL_MCTS seat (mcts's _aim): the first best option,
    in the order seat, then card code (a Swap: both seats, then both cards)."""
    d = mcts_forced(M)
    if d >= 0:
        return (d >> 4) & 63, (d >> 10) & 31, (d >> 15) & 63, (d >> 21) & 31
    n = M[S_N]
    blob = M[RL + R_NETS]
    bonus = M[np.uint64(blob + MB_LEAD_BONUS)]
    lead = mcts_lead(M, user)
    best = -(1 << 62)
    s1, c1, s2, c2 = nth_move(M, c, user, 0)  # a Swap between two others: the first
    if c != SWAP:
        for s in range(n):
            if M[np.uint64(STATUS + s)] == BUSTED or (c == STEAL and s == user):
                continue
            m = M[np.uint64(MASK + s)]
            while m:
                x = low_bit(m)
                m &= m - 1
                if c == STEAL:
                    v = mcts_gain(M, user, x, -1)
                elif s == user:
                    if x >= FIRST_MOD:
                        v = PENALTY[np.uint64(x)]
                    else:
                        v = M[np.uint64(blob + MB_OWN_NUMBER)]
                elif x < FIRST_MOD:
                    v = VALUE[np.uint64(x)]
                else:
                    v = -PENALTY[np.uint64(x)]
                if s == lead and (c == STEAL or (s != user and x < FIRST_MOD)):
                    v += bonus
                if v > best:
                    best = v
                    s1, c1 = s, x
        return s1, c1, -1, -1
    cross = M[RL + R_CROSS]
    for s in range(n):
        if M[np.uint64(STATUS + s)] == BUSTED or M[np.uint64(MASK + s)] == 0:
            continue
        for t in range(s + 1, n):
            if M[np.uint64(STATUS + t)] == BUSTED or M[np.uint64(MASK + t)] == 0:
                continue
            if s != user and t != user:
                continue
            m = M[np.uint64(MASK + s)]
            while m:
                x = low_bit(m)
                m &= m - 1
                m2 = M[np.uint64(MASK + t)]
                while m2:
                    y = low_bit(m2)
                    m2 &= m2 - 1
                    if not cross and (x < FIRST_MOD) != (y < FIRST_MOD):
                        continue
                    give, take = (x, y) if s == user else (y, x)
                    v = mcts_gain(M, user, take, give) - mcts_worth(M, give)
                    if v > best:
                        best = v
                        s1, c1, s2, c2 = s, x, t, y
    return s1, c1, s2, c2


# ------------------------------------------------------------------ mcts's rollouts
# A searched decision's rest of the round, played many times from one loaded state
# (flip7.fast.rollout is the interface). ``M0`` holds the position (every seat playing
# POL_MCTS, its settings where rule slot R_NETS points, rule slot R_ROUND set); ``M`` is
# the state each rollout plays in. ``pend`` = (entry, card, user) says where the decision
# was asked, so that the loop asks it again and the searching seat's policy answers with
# the candidate (MB_FORCED): E_TURN a Hit or Stay (at the next turn), E_RESOLVE a Give,
# Target or Pass (the card resolves again), E_USE a Steal, Swap or Discard (the card is
# used again), E_FLIP7 the Brutal Flip 7 choice (the round ends again).

E_TURN, E_RESOLVE, E_USE, E_FLIP7 = 0, 1, 2, 3
_SQRT1_2 = math.sqrt(0.5)


@jit
def restore(M, M0):
    """M as M0 again: its fixed part up to the stack, the stack items M0 holds and the
    Flip Four frames (whatever lies above them is written before it is read)."""
    top = STK + 4 * M0[S_SP]
    for i in range(top):
        M[np.uint64(i)] = M0[np.uint64(i)]
    for i in range(FR, FIXED):
        M[np.uint64(i)] = M0[np.uint64(i)]


@jit
def value(M, me):
    """The searching seat's value at the end of a rollout's round (mcts's _rollout): its
    share of the win when the game is over, else its chance to win from the totals by
    R4's normal model with mcts's spread (winprob's calibrated_chance), or by R6's
    network where the settings hold one (mcts's value=1)."""
    n = M[S_N]
    target = M[RL + R_TARGET]
    blob = M[RL + R_NETS]
    F = M.view(np.float64)
    top = M[TOTALS + 0]
    for s in range(1, n):
        if M[np.uint64(TOTALS + s)] > top:
            top = M[np.uint64(TOTALS + s)]
    mine = M[np.uint64(TOTALS + me)]
    leaders = 0
    for s in range(n):
        if M[np.uint64(TOTALS + s)] == top:
            leaders += 1
    if M[S_PHASE] == PH_OVER:
        return 1.0 / leaders if mine == top else 0.0
    if top >= target and leaders == 1:
        return 1.0 if mine == top else 0.0
    off = M[np.uint64(blob + MB_NET)]
    if off > 0:
        # R6's network (mcts's value=1): ValueNet.chance of these totals.
        net = blob + off
        for s in range(n):
            M[np.uint64(OPTS + s)] = M[np.uint64(TOTALS + s)]
        t1, t2, t3, k = top_others(M, me)
        net_base(M, net, t1, t2, t3, k)
        return net_chance(M, net, mine, t1, t2, k)
    need = target - top if top < target else 0
    spread = math.sqrt(
        (n - 1) * (F[np.uint64(blob + MB_SPREAD_END)] + F[np.uint64(blob + MB_SPREAD_POINT)] * need)
    )
    scale = 1.0 / spread
    nodes = M[np.uint64(blob + MB_NODES)]
    acc = 0.0
    for j in range(nodes):
        z = F[np.uint64(blob + MB_NODES + 1 + j)]
        p = F[np.uint64(blob + MB_NODES + 1 + nodes + j)]
        for s in range(n):
            if s != me:
                g = (mine - M[np.uint64(TOTALS + s)]) * scale
                p *= 0.5 * math.erfc(-(z + g) * _SQRT1_2)
        acc += p
    return acc


@jit
def rollout_end(M, M0, seed, i, cand, pend):
    """Rollout ``i`` of the run seeded ``seed``: ``cand`` (an enc code) made where ``pend``
    says, then the rest of the round; leaves its end in M and returns its value. Every
    candidate of one ``i`` meets the same cards until their games part (common random
    numbers: the same generator state and the same draw pile)."""
    restore(M, M0)
    seed_game(M, seed, i)
    blob = M[RL + R_NETS]
    M[np.uint64(blob + MB_FORCED)] = cand
    entry = pend[0]
    if entry == E_RESOLVE:
        resolve(M, pend[1], pend[2])
    elif entry == E_USE:
        use(M, pend[1], pend[2])
    elif entry == E_FLIP7:
        end_round(M)
    if entry != E_TURN:
        # Asked again with the same options, so answered by now; a Hit or Stay is asked
        # at the next turn, in the loop.
        M[np.uint64(blob + MB_FORCED)] = -1
    run_game(M)
    return value(M, M[np.uint64(blob + MB_SEAT)])


@jit
def rollouts(M, M0, seed, i0, i1, cands, pend, diffs, squares):
    """Rollouts ``i0`` … ``i1 - 1`` of every candidate (``cands``, the first the one to
    beat), adding each candidate's paired difference to the first's, and its square, into
    ``diffs`` and ``squares``. Returns -1 if a game broke a limit of the loop, else 0."""
    k = len(cands)
    for i in range(i0, i1):
        base = 0.0
        for j in range(k):
            v = rollout_end(M, M0, seed, i, cands[j], pend)
            if M[S_ERROR]:
                return -1
            if j == 0:
                base = v
            diffs[j] += v - base
            squares[j] += (v - base) * (v - base)
    return 0
