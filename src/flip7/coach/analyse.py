"""The coach: every decision one seat made in a recorded game, graded.

:func:`analyse` replays a ``flip7-record/1`` record through the engine and stops at every
decision of the chosen seat. Each is graded by :func:`flip7.coach.evaluate.evaluate`: every
legal option valued by the chance to win it leaves, from what the seat could see at that
moment only (sampled games with the hidden pile re-shuffled from its public composition).

Only decisions with two or more legal options are graded: a choice with one legal option
(a Hit forced by The Zero or by an empty line, the only target, a Modifier the seat must
keep) is made by the engine, is not written in the record, and is not counted.

Each decision gets its own random generator, seeded from ``seed`` and the decision's index
in the record, so a report is the same for a given seed whether the decisions are graded in
one process or spread over ``jobs`` worker processes. The workers are started with
``spawn``, not ``fork``: safe from a process with threads, such as a web server (a script
that passes ``jobs`` > 1 needs the usual ``if __name__ == "__main__":`` guard).

>>> from flip7.engine.record import Record
>>> record = Record(players=("Ann", "Bob", "Cyd", "Dan"), dealer=3,
...                 draws=("3", "12", "11", "10"), decisions=("stay",))
>>> decision_count(record, 0), decision_count(record, 1)
(1, 0)
>>> report = analyse(record, 0)
>>> [(d.made, d.grade, d.best) for d in report.decisions]
[('stay', 'mistake', 'hit')]
>>> print(report.decisions[0].note)
stay at 3 points (bust risk 1.9%): a mistake, 5.3 points of win chance lost; hit was better \
(win chance 25.9% against 20.6%; round points 20.0 against 3.0)
"""

from __future__ import annotations

import multiprocessing
import random
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from flip7.analysis.advisor import bust_risk
from flip7.bots.public import PublicView
from flip7.coach.evaluate import THRESHOLDS, Evaluation, Thresholds, evaluate
from flip7.coach.report import CoachReport, GradedDecision, GradedOption
from flip7.core.decisions import Decision, DecisionKind, parse_decision
from flip7.core.errors import Flip7Error
from flip7.core.explain import card_name
from flip7.core.jsontypes import JSONObject
from flip7.core.seeds import derive_seed
from flip7.engine.game import Game
from flip7.engine.record import Record, replay_game

__all__ = ["CoachError", "Position", "analyse", "decision_count", "grade_position", "positions"]

Progress = Callable[[int, int], None]


class CoachError(Flip7Error):
    """A bad argument to the coach (a seat the record does not have, a bad ``jobs``)."""


@dataclass(frozen=True)
class Position:
    """One decision of the seat: where it is in the record, and the game just before it."""

    index: int  # in the record's decisions
    round: int
    draw: int  # cards drawn before it
    kind: DecisionKind
    made: Decision
    game: Game | None  # a copy of the game at the decision (None when not kept)

    @property
    def step(self) -> int:
        """The replay step showing the table at this decision (``replay_steps``' index)."""
        return self.draw + self.index


def _record(record: Record | Mapping[str, object] | str) -> Record:
    if isinstance(record, Record):
        return record
    if isinstance(record, str):
        return Record.loads(record)
    return Record.from_json(dict(record))  # type: ignore[arg-type]


def _check_seat(rec: Record, seat: object) -> int:
    n = len(rec.players)
    if type(seat) is not int or not 0 <= seat < n:
        raise CoachError(f"seat must be a seat of the record, 0 to {n - 1}, not {seat!r}")
    return seat


def positions(
    record: Record | Mapping[str, object] | str, seat: int, *, keep: bool = True
) -> list[Position]:
    """Every decision ``seat`` made in ``record`` (all have two or more legal options),
    with a copy of the game just before it if ``keep``. An invalid record raises the
    :class:`~flip7.core.errors.RecordError` that replay raises."""
    rec = _record(record)
    seat = _check_seat(rec, seat)
    replay_game(rec)  # checks every entry, with replay's own errors
    game = Game.new(
        list(rec.players), rec.rules, decks=rec.decks, dealer=rec.dealer, explicit=True,
        events=False,
    )  # fmt: skip
    draws, decisions = rec.draws, rec.decisions
    di = ci = 0
    out: list[Position] = []
    while not game.over:
        if game.needs_card:
            if di == len(draws):
                break
            game.draw(draws[di])
            di += 1
            continue
        if ci == len(decisions):
            break
        made = parse_decision(decisions[ci])
        kind = game.decision_kind
        if game.to_decide == seat and kind is not None:
            copy = game.clone() if keep else None
            out.append(Position(ci, game.round, di, kind, made, copy))
        game.apply(made)
        ci += 1
    return out


def decision_count(record: Record | Mapping[str, object] | str, seat: int) -> int:
    """How many decisions of ``seat`` :func:`analyse` grades (one replay: cheap)."""
    return len(positions(record, seat, keep=False))


# ---------------------------------------------------------------------------- one decision


def _pct(x: float) -> str:
    return f"{x:.1f}%"


def _note(game: Game, seat: int, kind: DecisionKind, grade: str, ev: Evaluation) -> str:
    """A short English sentence for the command line (the browser builds its own)."""
    made = ev.options[ev.made]
    top = ev.options[ev.top]
    what = str(made.decision)
    if kind is DecisionKind.HIT_OR_STAY:
        view = PublicView(game, seat)
        risk = float(bust_risk(game, seat))
        score = view.scores[seat]
        what = f"{what} at {score} point{'' if score in (1, -1) else 's'} (bust risk {risk:.1%})"
    elif game.pending_card is not None and kind is not DecisionKind.FLIP7_CHOICE:
        what = f"{what} ({card_name(game.pending_card)})"
    if grade == "best":
        return f"{what}: best (win chance {_pct(made.value)})"
    article = "an" if grade == "inaccuracy" else "a"
    return (
        f"{what}: {article} {grade}, {ev.loss:.1f} points of win chance lost; "
        f"{top.decision} was better (win chance {_pct(top.value)} against {_pct(made.value)}; "
        f"round points {top.points:.1f} against {made.points:.1f})"
    )


def grade_position(
    game: Game,
    made: Decision | str,
    *,
    seed: int = 0,
    thresholds: Thresholds = THRESHOLDS,
    index: int = 0,
    draw: int = 0,
) -> GradedDecision:
    """Grade ``made`` at the decision ``game`` waits for (the seat deciding is
    ``game.to_decide``), from that seat's public view only, with chance from ``seed``."""
    decision = parse_decision(made) if isinstance(made, str) else made
    seat = game.to_decide
    kind = game.decision_kind
    if seat is None or kind is None:
        raise CoachError("the game waits for no decision")
    ev = evaluate(game, decision, random.Random(seed), thresholds)
    grade = ev.grade(thresholds)
    made_opt = ev.options[ev.made]
    best_opt = made_opt if grade == "best" else ev.options[ev.top]
    value_made = round(made_opt.value, 2)
    value_best = round(best_opt.value, 2)
    hit_or_stay = kind is DecisionKind.HIT_OR_STAY
    leader, lead = _leader(game.totals, seat)
    return GradedDecision(
        index=index,
        round=game.round,
        draw=draw,
        step=draw + index,
        kind=kind.value,
        made=str(decision),
        best=str(best_opt.decision),
        grade=grade,
        value_made=value_made,
        value_best=value_best,
        loss=0.0 if grade == "best" else round(value_best - value_made, 2),
        error=round(ev.error, 2) if grade != "best" else 0.0,
        options=tuple(
            GradedOption(str(o.decision), round(o.value, 2), round(o.points, 2), o.samples)
            for o in ev.options
        ),
        note=_note(game, seat, kind, grade, ev),
        card=None if hit_or_stay or game.pending_card is None else game.pending_card.code,
        score=PublicView(game, seat).scores[seat] if hit_or_stay else None,
        bust_risk=round(100 * float(bust_risk(game, seat)), 1) if hit_or_stay else None,
        leader=leader,
        lead=lead,
    )


def _leader(totals: tuple[int, ...], seat: int) -> tuple[int, int]:
    """The seat leading by total (``seat`` among equals) and its lead: over ``seat``, or
    over the next best when ``seat`` leads.

    >>> _leader((40, 90, 70), 0), _leader((40, 90, 70), 1), _leader((90, 90), 1)
    ((1, 50), (1, 20), (1, 0))
    """
    leader = max(range(len(totals)), key=lambda s: (totals[s], s == seat))
    others = [t for s, t in enumerate(totals) if s != leader]
    return leader, totals[leader] - (totals[seat] if leader != seat else max(others, default=0))


def _grade(pos: Position, seed: int) -> GradedDecision:
    assert pos.game is not None
    return grade_position(
        pos.game, pos.made, seed=derive_seed("coach", seed, pos.index), index=pos.index,
        draw=pos.draw,
    )  # fmt: skip


# ---------------------------------------------------------------------------- worker processes

_WORK: tuple[list[Position], int] | None = None


def _init_worker(record: JSONObject, seat: int, seed: int) -> None:
    global _WORK
    _WORK = (positions(record, seat), seed)


def _work(i: int) -> tuple[int, GradedDecision]:
    assert _WORK is not None
    found, seed = _WORK
    return i, _grade(found[i], seed)


def analyse(
    record: Record | Mapping[str, object] | str,
    seat: int,
    *,
    jobs: int = 1,
    seed: int = 0,
    progress: Progress | None = None,
) -> CoachReport:
    """Grade every decision ``seat`` made in ``record`` (a :class:`Record`, its JSON object
    or its text); ``progress(done, total)`` is called after each graded decision. With
    ``jobs`` > 1 the decisions are graded in that many worker processes; the report is the
    same for a given ``seed`` either way. An invalid record raises replay's
    :class:`~flip7.core.errors.RecordError`, a bad seat or ``jobs`` a :class:`CoachError`.
    """
    if type(jobs) is not int or jobs < 1:
        raise CoachError(f"jobs must be 1 or more, not {jobs!r}")
    rec = _record(record)
    found = positions(rec, seat)
    total = len(found)
    graded: dict[int, GradedDecision] = {}
    workers = min(jobs, total)
    if workers <= 1:
        for i, pos in enumerate(found):
            graded[i] = _grade(pos, seed)
            if progress is not None:
                progress(i + 1, total)
    else:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_init_worker,
            initargs=(rec.to_json(), seat, seed),
        ) as pool:  # fmt: skip
            futures = [pool.submit(_work, i) for i in range(total)]
            for done, future in enumerate(as_completed(futures), 1):
                i, result = future.result()
                graded[i] = result
                if progress is not None:
                    progress(done, total)
    game = replay_game(rec)
    return CoachReport(
        seat=seat,
        name=rec.players[seat],
        decisions=tuple(graded[i] for i in range(total)),
        thresholds=THRESHOLDS,
        seed=seed,
        over=game.over,
    )
