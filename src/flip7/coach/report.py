"""The coach's report: every graded decision of one seat, and its ``flip7-coach/1`` JSON.

>>> report = CoachReport(seat=0, name="Ann", decisions=())
>>> data = report.to_json()
>>> data["format"], data["summary"]
('flip7-coach/1', {'decisions': 0, 'best': 0, 'inaccuracy': 0, 'mistake': 0, 'blunder': 0, \
'accuracy': 100.0, 'loss': 0.0})
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flip7.coach.evaluate import GRADES, THRESHOLDS, Thresholds
from flip7.core.jsontypes import JSONObject

__all__ = ["FORMAT", "CoachReport", "GradedDecision", "GradedOption"]

FORMAT = "flip7-coach/1"


@dataclass(frozen=True, slots=True)
class GradedOption:
    """One legal option: its win chance (percent) and the seat's expected round points."""

    decision: str
    value: float
    points: float
    samples: int

    def to_json(self) -> JSONObject:
        return {
            "decision": self.decision,
            "value": self.value,
            "points": self.points,
            "samples": self.samples,
        }


@dataclass(frozen=True, slots=True)
class GradedDecision:
    """One decision of the seat, graded.

    ``index`` is the decision's 0-based index in the record's ``decisions``, ``draw`` the
    cards drawn before it and ``step`` the replay step that shows the table as the seat saw
    it when deciding (``draw + index``: :func:`flip7.engine.record.replay_steps`' index).
    Values are win chances in percent; ``loss`` is ``value_best - value_made`` and ``error``
    its standard error. A move graded ``best`` has ``best == made`` and no loss, whatever
    option came out on top by a margin within the noise.
    """

    index: int
    round: int
    draw: int
    step: int
    kind: str
    made: str
    best: str
    grade: str
    value_made: float
    value_best: float
    loss: float
    error: float
    options: tuple[GradedOption, ...]
    note: str
    measure: str = "win"
    # What a reader needs to see why (the web app's one-line reason): the card the decision
    # is about (an Action or a Flip 7 to aim, by its code), the seat's round score and bust
    # risk (percent) at a hit or stay, and the game's leader by total then, with their lead
    # (over this seat, or over the next when this seat leads). None where it does not apply,
    # and in reports made before they were kept.
    card: str | None = None
    score: int | None = None
    bust_risk: float | None = None
    leader: int | None = None
    lead: int | None = None

    def to_json(self) -> JSONObject:
        return {
            "index": self.index,
            "round": self.round,
            "draw": self.draw,
            "step": self.step,
            "kind": self.kind,
            "made": self.made,
            "best": self.best,
            "grade": self.grade,
            "measure": self.measure,
            "value_made": self.value_made,
            "value_best": self.value_best,
            "loss": self.loss,
            "error": self.error,
            "options": [o.to_json() for o in self.options],
            "note": self.note,
            "card": self.card,
            "score": self.score,
            "bust_risk": self.bust_risk,
            "leader": self.leader,
            "lead": self.lead,
        }


@dataclass(frozen=True)
class CoachReport:
    """Every graded decision of ``seat`` in one game (see :func:`flip7.coach.analyse`)."""

    seat: int
    name: str
    decisions: tuple[GradedDecision, ...]
    thresholds: Thresholds = field(default=THRESHOLDS)
    seed: int = 0
    over: bool = False

    def count(self, grade: str) -> int:
        """How many decisions got ``grade``."""
        return sum(1 for d in self.decisions if d.grade == grade)

    @property
    def accuracy(self) -> float:
        """The share of graded decisions graded ``best``, in percent (100 with none)."""
        if not self.decisions:
            return 100.0
        return round(100.0 * self.count("best") / len(self.decisions), 1)

    @property
    def loss(self) -> float:
        """The win chance lost over the game, in percentage points (the sum of the losses)."""
        return round(float(sum(d.loss for d in self.decisions)), 2)

    def summary(self) -> JSONObject:
        out: JSONObject = {"decisions": len(self.decisions)}
        for grade in GRADES:
            out[grade] = self.count(grade)
        out["accuracy"] = self.accuracy
        out["loss"] = self.loss
        return out

    def to_json(self) -> JSONObject:
        """The ``flip7-coach/1`` JSON object (README, "The coach")."""
        return {
            "format": FORMAT,
            "seat": self.seat,
            "name": self.name,
            "measure": "win",
            "unit": "percentage points of the chance to win the game",
            "seed": self.seed,
            "over": self.over,
            "thresholds": dict(self.thresholds.to_json()),
            "summary": self.summary(),
            "decisions": [d.to_json() for d in self.decisions],
        }
