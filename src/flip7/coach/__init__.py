"""The coach: a seat's decisions in a recorded game, each graded against the best move.

``analyse(record, seat)`` replays a ``flip7-record/1`` record and grades every decision of
``seat`` that had two or more legal options: ``best``, ``inaccuracy``, ``mistake`` or
``blunder``, by the chance to win the move made left against the best option's, each
option valued from what the seat could see at the time (:mod:`flip7.coach.evaluate`).
``CoachReport.to_json()`` is the ``flip7-coach/1`` JSON; ``decision_count`` says how many
decisions a report will hold, cheaply.

>>> from flip7.engine.record import Record
>>> record = Record(players=("Ann", "Bob", "Cyd", "Dan"), dealer=3,
...                 draws=("3", "12", "11", "10"), decisions=("hit",))
>>> report = analyse(record, 0)
>>> report.to_json()["summary"]["best"], report.decisions[0].grade
(1, 'best')
"""

from __future__ import annotations

from flip7.coach.analyse import CoachError, analyse, decision_count, grade_position, positions
from flip7.coach.evaluate import GRADES, THRESHOLDS, Thresholds
from flip7.coach.report import FORMAT, CoachReport, GradedDecision, GradedOption

__all__ = [
    "FORMAT",
    "GRADES",
    "THRESHOLDS",
    "CoachError",
    "CoachReport",
    "GradedDecision",
    "GradedOption",
    "Thresholds",
    "analyse",
    "decision_count",
    "grade_position",
    "positions",
]
