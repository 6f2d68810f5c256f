"""flip7: *Flip 7: With a Vengeance*, exact to the rules, with records, replay and bots.

The engine (this package's top level) uses only the standard library.

>>> import flip7
>>> game = flip7.Game.new(["Ann", "Bob", "Cyd"], seed=42)
>>> game.to_decide in (0, 1, 2)
True
>>> flip7.Line.parse(["3", "11", "5", "7", "10", "8", "4", "/2", "-4"]).score()
35
"""

from flip7.cards import Card, CardKind, deck_counts, new_deck, parse_cards
from flip7.decisions import (
    BONUS,
    HIT,
    STAY,
    Bonus,
    Decision,
    DecisionKind,
    Discard,
    Give,
    Hit,
    Minus,
    Pass,
    Stay,
    Steal,
    Swap,
    Target,
    parse_decision,
)
from flip7.errors import (
    CardError,
    DecisionError,
    Flip7Error,
    GameStateError,
    LineError,
    RecordError,
    RulesError,
)
from flip7.game import Game, Phase, RoundResult, Status
from flip7.record import Record, ReplayResult, replay, replay_events, replay_game
from flip7.rules import Rules
from flip7.scoring import Line, round_score
from flip7.view import GameView, SeatView

__version__ = "0.1.0"

__all__ = [
    "BONUS",
    "HIT",
    "STAY",
    "Bonus",
    "Card",
    "CardError",
    "CardKind",
    "Decision",
    "DecisionError",
    "DecisionKind",
    "Discard",
    "Flip7Error",
    "Game",
    "GameStateError",
    "GameView",
    "Give",
    "Hit",
    "Line",
    "LineError",
    "Minus",
    "Pass",
    "Phase",
    "Record",
    "RecordError",
    "ReplayResult",
    "RoundResult",
    "Rules",
    "RulesError",
    "SeatView",
    "Status",
    "Stay",
    "Steal",
    "Swap",
    "Target",
    "deck_counts",
    "new_deck",
    "parse_cards",
    "parse_decision",
    "replay",
    "replay_events",
    "replay_game",
    "round_score",
]
