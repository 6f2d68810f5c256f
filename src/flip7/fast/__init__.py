"""The compiled batch simulator: many games of *Flip 7: With a Vengeance* per call, with
built-in policies, at hundreds of thousands of games a second (numba).

It plays the full rules of RULES.md with every option of §13, 1 or 2 decks, 3 to 36
players (2 with ``allow_two_players``), and mirrors :mod:`flip7.engine.game` step for step:
every record it writes (``records=True``) replays through :func:`flip7.engine.record.replay`
to the same rounds, totals and winners (``tests/fast/test_fast.py`` checks thousands).

Policies, one per seat (a spec string; ``name:t=25`` or ``name:25`` sets ``t``):

- ``random``: a uniformly random legal option, Hit and Stay alike.
- ``threshold`` (``t`` = 27): Hit while the number sum is below ``t``; every other
  choice at random among the options aimed at others (as ``flip7.bots.ladder.ThresholdBot``:
  a Target, Give, Discard or −15 on another seat, any Steal or Swap, a Pass to itself).
- ``targeting`` (``t`` = 27): the same Hit/Stay; Modifiers, Just One More and Flip Four on
  the leader (the other seat with the highest total), Steal, Swap and Discard by a quick
  judge of each option (its own line's gain, less the leader's and a third of the others'),
  a Pass kept for itself, the Brutal −15 on the leader when the leader is not behind.
- ``ev``: ``targeting``'s choices, and Hit while one more card's expected gain over the
  draw pile's exact contents beats what a bust would throw away.
- ``learned`` (``reach`` = 70, ``weights`` = the shipped value network): the first R6's
  value network (:class:`flip7.bots.learned.ValueNet`, played in Python by
  :class:`~flip7.bots.learned.ValueNetBot`; today's R6 plays a Hit/Stay network instead)
  on ``ev``'s play. Near the end of the game (a
  total within ``reach`` of the target, R6's ``endgame``; unless a Modifier would stay in
  its own line, R6's ``keeps_modifiers``) it hits when the network's chance to win after
  one more card beats staying. One more card: each Number card of the draw pile's exact
  contents, weighted by its count (a bust scores as a busted line does: 0, or the
  Modifiers' penalty under Brutal's ``modifiers_only``; Unlucky 7 makes 7, The Zero 0, the
  seventh +15); every other seat's round ends at its line's score now; the game-over rule
  is exact (:func:`learned_chance` is the compiled network's chance). A tie, and every Hit
  or Stay before the end, is ``ev``'s; every other choice ``targeting``'s. That bot looks
  three cards ahead, spreads each Active line over a bust or its expected score, breaks
  ties and aims Actions and Modifiers with its judge weighed by the network's slopes: the
  compiled policy does none of that. ``learned:weights=PATH`` plays another ``flip7
  train`` network, ``learned:reach=50`` another reach (``learned:reach=50,weights=PATH``:
  both); a file is read once per process (``FLIP7_LEARNED_WEIGHTS`` is not read). Each
  endgame Hit/Stay values a dozen or so ends of round (about 1 µs each): one ``learned``
  seat among three ``targeting`` plays 10,000–13,000 games a second (docs/strength.md).

Each game is seeded from (``seed``, its index), so results do not depend on batching.
:func:`play_record` runs a record's draws and decisions through the same compiled loop
(a scripted game): the conformance scenarios check it against their expected results.

Speed: 269,000–278,000 games per CPU-second on one core of the project's 2-core machine for
4 players to 200 with ``targeting`` (t = 27), records off, 304,000–333,000 with ``threshold``
(2026-12-06, a fast day for that machine; the README's "flip7.fast" gives the peers beside
it; the tests do not time it: read ``games_per_second``, or run ``flip7 bench --fast``).

Start: the compiled loop is built once ahead of time (``numba.pycc``, for this CPU) into an
extension module and cached: in ``__pycache__`` next to the sources when that is writable,
otherwise in ``~/.cache/flip7``, or wherever ``FLIP7_CACHE_DIR`` says, under a name that
changes with the sources, numba's and numpy's versions, the interpreter and the CPU
(:mod:`flip7.fast._aot`). The first build takes about 50 s there (as long as numba's first
compile, which it takes the place of); a later process loads it in a few milliseconds
without importing numba, so that a new process imports :mod:`flip7.fast` and plays its first
games in about 0.3 s, most of it numpy's import and flip7's own (about 1.4 s through numba's
cache; 0.4–0.55 s against 2.1–2.3 s while the other core is busy). Where the build cannot
run (no C compiler, a numba without ``pycc``) the loop is numba's JIT, cached by numba as
before, with a warning saying so; ``FLIP7_FAST_AOT=0`` asks for the JIT; :func:`kernel_kind`
says which this process has. :func:`warm` makes it ready (loads, builds or compiles it).

Wins: each winner of a game counts one win (a shared win, possible with
``tie_break="shared_win"``, counts for every co-winner; ``shared`` says how many games
ended so).

>>> parse_policy("threshold:t=25"), parse_policy("ev"), parse_policy("learned")
(('threshold', 25), ('ev', 27), ('learned', 70))
>>> parse_policy("nobody")
Traceback (most recent call last):
...
flip7.fast.FastError: unknown policy 'nobody'; policies are random, threshold, targeting, ev, ...
"""

from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from flip7.core.cards import CODE, Card
from flip7.core.decisions import (
    Decision,
    Discard,
    Give,
    Hit,
    Minus,
    Pass,
    Stay,
    Steal,
    Swap,
    Target,
)
from flip7.core.errors import Flip7Error
from flip7.core.machine import lower_priority
from flip7.core.rules import Rules, decks_for, players_problem
from flip7.core.scoring import add_round, game_winners

try:
    import numpy as np

    from flip7.fast import _layout as _l

    # numba is imported only to build the loop (or to run it by its JIT), not here: a
    # process that finds the precompiled loop in the cache never imports it.
    if importlib.util.find_spec("numba") is None:
        raise ModuleNotFoundError("No module named 'numba'", name="numba")
except ImportError as exc:  # pragma: no cover - only without the extra
    raise ImportError(
        f"flip7.fast needs numba and numpy ({exc.name} is missing): pip install flip7[fast]"
    ) from exc

from flip7.fast import _aot

__all__ = [
    "POLICIES",
    "FastError",
    "FastResult",
    "build_unless_built",
    "kernel_kind",
    "learned_chance",
    "parse_policy",
    "play_record",
    "ready",
    "simulate",
    "warm",
]

POLICIES: dict[str, int] = {
    "random": _l.POL_RANDOM,
    "threshold": _l.POL_THRESHOLD,
    "targeting": _l.POL_TARGETING,
    "ev": _l.POL_EV,
    "learned": _l.POL_LEARNED,
}
_DEFAULT_T = 27
_MAX_T = 200
_DEFAULT_REACH = 70  # R6's (LearnedBot's reach)
_MAX_REACH = 1000
# Log capacities per call (games are played on in further calls when they fill).
_DRAWS_CAP = 1 << 20
_ROUNDS_CAP = 1 << 20
_CHUNK = 1 << 16  # games per compiled call without records


class FastError(Flip7Error):
    """A bad argument to the compiled simulator: a policy spec, a player count, a seed."""


@dataclass(frozen=True)
class FastResult:
    """What :func:`simulate` played.

    ``wins[s]``: games seat ``s`` won (a shared win counts for each co-winner);
    ``shared``: games won by several seats; ``mean_rounds``: rounds per game;
    ``seconds``: time in the compiled loop (records conversion excluded);
    ``records``: with ``records=True``, each game's ``flip7-record/1`` object, and
    ``results`` its replay result (RECORD.md §6) as the simulator scored it."""

    games: int
    players: int
    wins: tuple[int, ...]
    shared: int
    mean_rounds: float
    seconds: float
    games_per_second: float
    records: tuple[dict[str, Any], ...] | None = None
    results: tuple[dict[str, Any], ...] | None = None


class _Policy(NamedTuple):
    """A parsed policy spec: its name, its integer parameter (``t``, or ``learned``'s
    reach) and, for ``learned``, the network file (``None``: R6's shipped one)."""

    name: str
    t: int
    weights: str | None = None


def parse_policy(spec: str) -> tuple[str, int]:
    """A policy spec (``threshold``, ``threshold:t=25``, ``threshold:25``) as (name, t);
    for ``learned`` (``learned:reach=50``, ``learned:weights=PATH``, both with a comma), t
    is its reach, and a weights file is read and checked here."""
    policy = _parse(spec)
    return policy.name, policy.t


def _parse(spec: str) -> _Policy:
    if not isinstance(spec, str):
        raise FastError(f"a policy spec must be a string, not {spec!r}")
    name, _, arg = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in POLICIES:
        raise FastError(
            f"unknown policy {spec!r}; policies are {', '.join(POLICIES)} "
            "(threshold, targeting take t: 'threshold:t=25'; "
            "learned takes reach and weights: 'learned:weights=PATH')"
        )
    if name == "learned":
        return _parse_learned(spec, arg)
    t = _DEFAULT_T
    if arg:
        key, eq, value = arg.partition("=")
        if not eq:
            key, value = "t", key
        if key.strip() != "t" or name == "random":
            raise FastError(
                f"policy {spec!r}: {name} takes "
                + ("no parameter" if name == "random" else "only t (an integer 0-200)")
            )
        try:
            t = int(value)
        except ValueError:
            raise FastError(f"policy {spec!r}: t must be an integer 0-{_MAX_T}") from None
        if not 0 <= t <= _MAX_T:
            raise FastError(f"policy {spec!r}: t must be an integer 0-{_MAX_T}, got {t}")
    return _Policy(name, t)


def _parse_learned(spec: str, arg: str) -> _Policy:
    reach = _DEFAULT_REACH
    weights: str | None = None
    for part in arg.split(",") if arg.strip() else ():
        key, eq, value = part.partition("=")
        if not eq:
            key, value = "reach", key
        key = key.strip()
        if key == "reach":
            try:
                reach = int(value)
            except ValueError:
                reach = -1
            if not 0 <= reach <= _MAX_REACH:
                got = value.strip()
                raise FastError(
                    f"policy {spec!r}: reach must be an integer 0-{_MAX_REACH}, got {got!r}"
                )
        elif key == "weights" and value.strip():
            weights = value.strip()
        else:
            raise FastError(
                f"policy {spec!r}: learned takes reach (an integer 0-{_MAX_REACH}) and "
                "weights (a network file): 'learned:reach=70,weights=PATH'"
            )
    _network(spec, weights)  # a bad file is said now, not in the middle of a run
    return _Policy("learned", reach, weights)


def _network(spec: str, weights: str | None) -> list[tuple[Any, Any]]:
    """The layers of a learned seat's network (R6's shipped one when ``weights`` is
    ``None``), read by R6's own loader and checked to chain."""
    from flip7.bots.learned import FEATURES, WEIGHTS, LearnedBotError, load_net

    try:
        net = load_net(WEIGHTS if weights is None else weights)
    except LearnedBotError as exc:
        raise FastError(f"policy {spec!r}: {exc}") from None
    width = FEATURES
    for i, (w, b) in enumerate(net.layers):
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise FastError(
                f"policy {spec!r}: not R6's value network: layer {i} is {w.shape} with "
                f"biases {b.shape} after a layer of {width}"
            )
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise FastError(f"policy {spec!r}: layer {i} of the network is not finite")
        width = int(w.shape[1])
    return net.layers


def _rules_array(rules: Rules, decks: int, scripted: bool, log: bool) -> Any:
    rl = np.zeros(_l.NRL, dtype=np.int64)
    rl[_l.R_BRUTAL] = rules.brutal
    rl[_l.R_TARGET] = rules.target_score
    rl[_l.R_L13] = rules.lucky13_pair_flip7_count
    rl[_l.R_U7T] = rules.unlucky7_triggers_on_transfer
    rl[_l.R_EMPTY] = rules.can_stay_with_empty_line
    rl[_l.R_SKIPS] = rules.deal_skips_inactive
    rl[_l.R_SHARED] = rules.tie_break == "shared_win"
    rl[_l.R_BMODS] = rules.busted_modifiers_count
    rl[_l.R_M15ANY] = rules.minus15_may_hit_busted
    rl[_l.R_CROSS] = rules.swap_allow_cross_type
    rl[_l.R_PASS] = rules.pass_actions
    rl[_l.R_DECKS] = decks
    rl[_l.R_SCRIPTED] = scripted
    rl[_l.R_LOG] = log
    return rl


def _policies(policies: str | Sequence[str] | None, players: int) -> list[_Policy]:
    if policies is None:
        policies = "threshold"
    if isinstance(policies, str):
        return [_parse(policies)] * players
    specs = list(policies)
    if len(specs) != players:
        raise FastError(f"{players} players need {players} policies, got {len(specs)}")
    return [_parse(spec) for spec in specs]


def _spec_text(policy: _Policy) -> str:
    """A parsed policy as the spec a record's meta names it by."""
    if policy.name == "random":
        return "random"
    if policy.name == "learned":
        weights = "" if policy.weights is None else f",weights={policy.weights}"
        return f"learned:reach={policy.t}{weights}"
    return f"{policy.name}:t={policy.t}"


def _state(
    n: int, rl: Any, pols: list[_Policy], dcap: int, rcap: int,
    sdraws: Any = None, sdecs: Any = None,
) -> Any:  # fmt: skip
    ptype = np.array([POLICIES[p.name] for p in pols], dtype=np.int64)
    # A learned seat's t is where its network lies among the networks (one per file and
    # reach), which follow everything else in the state.
    pparam = np.zeros(n, dtype=np.int64)
    blobs: list[Any] = []
    where: dict[tuple[str | None, int], int] = {}
    size = 0
    for s, p in enumerate(pols):
        if p.name != "learned":
            pparam[s] = p.t
            continue
        key = (p.weights, p.t)
        if key not in where:
            where[key] = size
            blobs.append(_l.net_blob(_network(p.weights or "learned", p.weights), p.t))
            size += len(blobs[-1])
        pparam[s] = where[key]
    nets = np.concatenate(blobs) if blobs else None
    if sdraws is None:
        sdraws = np.zeros(0, dtype=np.int64)
        sdecs = np.zeros(0, dtype=np.int64)
    return _l.make_state(n, rl, ptype, pparam, dcap, dcap, rcap, sdraws, sdecs, nets)


def learned_chance(
    totals: Sequence[int], seat: int, target: int = 200, weights: str | None = None
) -> float:
    """``seat``'s chance to win from ``totals`` at the end of a round by the compiled
    network of a ``learned`` seat (R6's :meth:`flip7.bots.learned.ValueNet.chance`: the
    network, or 1 or 0 when a total at or over ``target`` is the only highest);
    ``weights``: a network file (default: R6's shipped one)."""
    n = len(totals)
    if not 2 <= n <= _l.MAXP or not all(type(t) is int for t in totals):
        raise FastError(f"totals must be 2 to {_l.MAXP} integers, got {totals!r}")
    if type(seat) is not int or not 0 <= seat < n:
        raise FastError(f"seat must be a seat from 0 to {n - 1}, got {seat!r}")
    if type(target) is not int or target < 1:
        raise FastError(f"target must be an integer >= 1, got {target!r}")
    spec = "learned" if weights is None else f"learned:weights={weights}"
    rl = np.zeros(_l.NRL, dtype=np.int64)
    rl[_l.R_TARGET] = target
    nets = _l.net_blob(_network(spec, weights), _DEFAULT_REACH)
    none = np.zeros(0, dtype=np.int64)
    zeros = np.zeros(n, dtype=np.int64)
    M = _l.make_state(n, rl, zeros, zeros, 1, 1, 1, none, none, nets)
    M[_l.OPTS : _l.OPTS + n] = totals
    return float(_loop().finals_chance(M, M[_l.RL + _l.R_NETS], seat))


def simulate(
    n_games: int,
    players: int = 4,
    rules: Rules | None = None,
    policies: str | Sequence[str] | None = None,
    seed: int = 0,
    records: bool = False,
    dealer: int | None = None,
    decks: int | None = None,
) -> FastResult:
    """Play ``n_games`` games of ``players`` seats under ``rules`` (default: standard),
    seat ``s`` following ``policies[s]`` (one spec for all seats, or one per seat; default
    ``threshold``). ``dealer``: every game's first dealer (default: random per game);
    ``decks``: 1 or 2 (default: 1 up to 18 players). ``records=True`` also returns each
    game's record and result (slower: for checking and for data)."""
    rules = rules if rules is not None else Rules()
    if type(n_games) is not int or n_games < 0:
        raise FastError(f"n_games must be an integer >= 0, got {n_games!r}")
    if type(players) is not int:
        raise FastError(f"players must be an integer, got {players!r}")
    problem = players_problem(players, rules, decks)
    if problem is not None:
        raise FastError(problem)
    decks = decks if decks is not None else decks_for(players)
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer < players):
        raise FastError(f"dealer must be a seat from 0 to {players - 1}, got {dealer!r}")
    if type(seed) is not int or seed < 0:
        raise FastError(f"seed must be an integer >= 0, got {seed!r}")
    seed &= (1 << 63) - 1
    pols = _policies(policies, players)
    rl = _rules_array(rules, decks, False, records)
    dcap = _DRAWS_CAP if records else 1
    rcap = _ROUNDS_CAP if records else 1
    S = _state(players, rl, pols, dcap, rcap)
    wins = np.zeros(players, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    first = -1 if dealer is None else dealer
    recs: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    spent = 0.0
    g = 0
    while g < n_games:
        g1 = min(n_games, g + _CHUNK)
        offs = np.zeros((g1 - g, 4), dtype=np.int64)
        start = time.perf_counter()
        done = int(_loop().run_batch(S, seed, g, g1, first, wins, out, offs))
        spent += time.perf_counter() - start
        if done < 0:  # pragma: no cover - a kernel limit (stack depth) was exceeded
            raise FastError(f"game {g - done - 1}: the simulator's stack overflowed")
        if records:
            if done == 0:  # one game longer than the logs: give it more room
                dcap *= 4
                rcap *= 4
                S = _state(players, rl, pols, dcap, rcap)
                continue
            _collect(S, offs[:done], players, rules, decks, pols, seed, g, recs, results)
        g += done
    games = int(out[2])
    return FastResult(
        games=games,
        players=players,
        wins=tuple(int(w) for w in wins),
        shared=int(out[1]),
        mean_rounds=float(out[0]) / games if games else 0.0,
        seconds=spent,
        games_per_second=games / spent if spent > 0 else 0.0,
        records=tuple(recs) if records else None,
        results=tuple(results) if records else None,
    )


def _decision_text(code: int) -> str:
    kind = code & 15
    s1, c1, s2, c2 = (code >> 4) & 63, (code >> 10) & 31, (code >> 15) & 63, (code >> 21) & 31
    if kind == _l.K_HIT:
        return "hit"
    if kind == _l.K_STAY:
        return "stay"
    if kind == _l.K_BONUS:
        return "bonus"
    if kind == _l.K_STEAL:
        return f"steal {s1} {CODE[c1]}"
    if kind == _l.K_DISCARD:
        return f"discard {s1} {CODE[c1]}"
    if kind == _l.K_SWAP:
        if s2 < s1:
            s1, c1, s2, c2 = s2, c2, s1, c1
        return f"swap {s1} {CODE[c1]} {s2} {CODE[c2]}"
    word = {_l.K_TARGET: "target", _l.K_GIVE: "give", _l.K_PASS: "pass", _l.K_MINUS: "minus"}
    return f"{word[kind]} {s1}"


def _rounds_json(rlog: Any, n: int) -> list[dict[str, Any]]:
    rows = []
    width = 3 + 2 * n
    for r in range(0, len(rlog), width):
        row = [int(x) for x in rlog[r : r + width]]
        rows.append(
            {
                "dealer": row[0],
                "scores": row[3 : 3 + n],
                "busted": [s for s in range(n) if row[3 + n + s]],
                "flip7": None if row[1] < 0 else row[1],
                "minus15": None if row[2] < 0 else row[2],
            }
        )
    return rows


def _result_json(rounds: list[dict[str, Any]], n: int, rules: Rules, over: bool) -> dict[str, Any]:
    # The totals and the winners by core's own rules (§3.4.2, §10.3, §9), as replay has them.
    totals: tuple[int, ...] = (0,) * n
    for row in rounds:
        totals = add_round(totals, row["scores"], row["minus15"])
    winners = list(game_winners(totals, rules)) if over else []
    return {"over": over, "rounds": rounds, "totals": list(totals), "winners": winners}


def _collect(
    S: Any, offs: Any, n: int, rules: Rules, decks: int, pols: list[_Policy],
    seed: int, g0: int, recs: list[dict[str, Any]], results: list[dict[str, Any]],
) -> None:  # fmt: skip
    dlog, clog, rlog = _l.logs(S)
    names = [f"Player {s + 1}" for s in range(n)]
    specs = [_spec_text(p) for p in pols]
    d0 = c0 = r0 = 0
    for i, (d1, c1, r1, dealer) in enumerate(offs.tolist()):
        recs.append(
            {
                "format": "flip7-record/1",
                "players": names,
                "rules": rules.to_json(),
                "decks": decks,
                "dealer": dealer,
                "draws": [CODE[c] for c in dlog[d0:d1].tolist()],
                "decisions": [_decision_text(c) for c in clog[c0:c1].tolist()],
                "meta": {"generator": "flip7.fast", "seed": seed, "game": g0 + i,
                         "policies": specs},
            }
        )  # fmt: skip
        results.append(_result_json(_rounds_json(rlog[r0:r1], n), n, rules, True))
        d0, c0, r0 = d1, c1, r1


def _decision_code(text: str) -> int:
    from flip7.core.decisions import parse_decision

    return _code_of(parse_decision(text))


def _code_of(d: Decision) -> int:
    """A decision as the compiled loop's int code (kind, seat, card, seat, card)."""
    enc = _l.enc
    if isinstance(d, Hit):
        return int(enc(_l.K_HIT, 0, 0, 0, 0))
    if isinstance(d, Target):
        return int(enc(_l.K_TARGET, d.seat, 0, 0, 0))
    if isinstance(d, Give):
        return int(enc(_l.K_GIVE, d.seat, 0, 0, 0))
    if isinstance(d, Pass):
        return int(enc(_l.K_PASS, d.seat, 0, 0, 0))
    if isinstance(d, Minus):
        return int(enc(_l.K_MINUS, d.seat, 0, 0, 0))
    if isinstance(d, Steal):
        return int(enc(_l.K_STEAL, d.seat, int(d.card), 0, 0))
    if isinstance(d, Discard):
        return int(enc(_l.K_DISCARD, d.seat, int(d.card), 0, 0))
    if isinstance(d, Swap):
        return int(enc(_l.K_SWAP, d.seat1, int(d.card1), d.seat2, int(d.card2)))
    kind = _l.K_STAY if isinstance(d, Stay) else _l.K_BONUS
    return int(enc(kind, 0, 0, 0, 0))


def play_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """Play a ``flip7-record/1`` object's draws and decisions through the compiled loop
    (scripted mode: the draws are the card order, the decisions the choices) and return
    the replay result of RECORD.md §6 as the compiled loop reaches it. Only for valid
    records: entries are not checked the way :func:`flip7.engine.record.replay` checks
    them (a draw that is not in the draw pile is a :class:`FastError`)."""
    from flip7.engine.record import Record

    rec = Record.from_json(dict(record))
    n = len(rec.players)
    sdraws = np.array([int(Card.parse(c)) for c in rec.draws], dtype=np.int64)
    sdecs = np.array([_decision_code(d) for d in rec.decisions], dtype=np.int64)
    rl = _rules_array(rec.rules, rec.decks, True, True)
    pols = [_Policy("threshold", _DEFAULT_T)] * n
    S = _state(n, rl, pols, max(1, len(sdraws)), 64 * (3 + 2 * n) + 4096, sdraws, sdecs)
    error = int(_loop().run_script(S, rec.dealer))
    if error > 0:
        raise FastError(f"draws[{error - 1}]: {rec.draws[error - 1]} is not in the draw pile")
    sc = S
    over = int(sc[_l.S_PHASE]) == _l.PH_OVER and not sc[_l.S_HALT]
    rounds = _rounds_json(_l.logs(S)[2][: int(sc[_l.S_NR])], n)
    return _result_json(rounds, n, rec.rules, over)


# ---------------------------------------------------------------------- the compiled loop

_LOOP: Any = None  # the module with run_batch and run_script, once loaded
_KIND = ""
_BUILDER: subprocess.Popen[bytes] | None = None  # the build ready(build=True) started


def _loop() -> Any:
    global _LOOP, _KIND
    if _LOOP is None:
        _LOOP, _KIND = _aot.load()
    return _LOOP


def kernel_kind() -> str:
    """How the compiled loop this process uses was compiled (loading it if need be):
    ``"aot"``, precompiled and loaded without numba, or ``"jit"``, numba's JIT (when
    ``FLIP7_FAST_AOT=0``, or when the precompiled one cannot be built here)."""
    _loop()
    return _KIND


@functools.cache
def _cache_key() -> str:
    # The sources' hash, read once a process: ready() asks at every search until the build
    # is done.
    return _aot.cache_key()


def ready(build: bool = False) -> bool:
    """Whether the compiled loop can be used now without waiting for a build: loaded
    already, built and cached by an earlier process, or numba's JIT asked for. False while
    another process builds it, and with ``build`` where no one has built it yet: then that
    build is started in a process of its own, at a lower priority (about 50 s of one
    core on a fresh install), for a caller that must not wait (a server's bot, a few
    seconds a move), which plays in Python meanwhile. Otherwise True: the first use builds
    it, as a command that plays many games wants."""
    global _LOOP, _KIND, _BUILDER
    if _LOOP is None and _aot.aot_wanted():
        key = _cache_key()
        module = _aot.find(key)
        if module is not None:
            _LOOP, _KIND = module, "aot"
        elif _aot.building(key) or (_BUILDER is not None and _BUILDER.poll() is None):
            return False
        elif build and _BUILDER is None:
            # Its output goes nowhere: a server's log may be a pipe its reader closes at
            # any time, and a write to it would end the build. A build that fails leaves
            # no loop; the next search then builds it itself and warns there.
            _BUILDER = subprocess.Popen(
                [sys.executable, "-c", "import flip7.fast; flip7.fast.build_unless_built()"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            print(
                "flip7: building the search bots' compiled rollouts (about a minute, once); "
                "until then they search in Python",
                file=sys.stderr,
                flush=True,
            )
            return False
    return True


def build_unless_built() -> bool:
    """Build the compiled loop, at a bot worker's priority, where it is not built yet;
    whether it did (what :func:`ready` starts in a process of its own)."""
    if not _aot.aot_wanted() or _aot.find(_cache_key()) is not None:
        return False
    # A server's bot workers' priority (flip7.server.table.thinking): at nice 19 a busy
    # machine left the build a few percent of a core, minutes of Python searches.
    lower_priority(5, own_session=True)
    warm()
    return True


def warm() -> float:
    """Make sure the compiled loop is ready (load the precompiled one, or build it, or
    compile it by numba's JIT) and play one tiny game of every kind through it; returns
    the seconds it took."""
    start = time.perf_counter()
    _loop()
    simulate(1, 3, policies=("random", "targeting", "ev"), records=True)
    simulate(1, 3, Rules(brutal=True, pass_actions=True), seed=1)
    return time.perf_counter() - start
