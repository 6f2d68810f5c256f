"""The OpenSpiel game ``python_flip7``, registered with ``pyspiel.register_game`` on import.

The engine deals explicitly (``Game.new(..., explicit=True)``): every card taken from the
draw pile is a **chance node** whose outcomes are the card codes still in the pile (the
discard pile when a reshuffle is due), each with its exact probability from
``Game.chance_outcomes()``; a chance action is a card's value (:class:`~flip7.core.cards.Card`,
0–26). The first dealer (RULES.md §3.1.1) is a chance node too, uniform over the seats
(action = seat). Players' actions are :class:`~flip7.envs.encoding.ActionEncoding`'s
indices; decisions with one legal option are made by the engine and are not nodes.

Game type: sequential, explicit stochastic, **perfect information** — every card in Flip 7 is
dealt face up and every decision is made in the open; the one thing hidden at the table, the
draw pile's order, is not part of the state here but drawn at each chance node. Utility:
**constant-sum**, terminal: a sole winner gets 1, ``k`` players sharing a win
(``tie_break="shared_win"``) 1/k each, the others 0 (the returns sum to 1), as the rewards of
the Gymnasium and PettingZoo environments.

Parameters (``pyspiel.load_game("python_flip7", {...})`` or
``"python_flip7(players=3,target_score=50)"``): ``players`` (4), ``decks`` (0: one deck up to
18 players, two from 19), every rule option of RULES.md §13 under its own name and default
(choices as strings: ``lucky13_pair_flip7_count`` is an int), and ``max_game_length``
(10,000): a game still running after that many decisions stops there and the players share
it equally, 1/n each. Random play to 200 takes about 110 decisions with four players (at most
152 in 200 games), so the cap is never reached in practice, but it makes OpenSpiel's
``max_game_length`` a true bound.

Observations (``observation_tensor``, ``information_state_tensor``): the seat's vector of
:class:`~flip7.envs.encoding.ObservationEncoding`, from ``Game.view(seat)``; before the first
dealer is drawn, only the viewer's mark and the rules. The information state *string* is the
full history of actions (perfect recall); the tensor is the current public position, not the
history. ``observation_string`` is the table as text.

The doctest needs OpenSpiel; tests/envs/test_envs.py runs ``pyspiel.random_sim_test``.

>>> import pyspiel
>>> import flip7.envs.openspiel
>>> game = pyspiel.load_game("python_flip7", {"players": 3, "target_score": 50})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 3)
>>> state.apply_action(0)
>>> state.chance_outcomes()[13]
(13, 0.1111111111111111)
>>> state.apply_action(13)
>>> state.action_to_string(pyspiel.PlayerId.CHANCE, 5)
'Card:5'
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]

from flip7.core.cards import Card
from flip7.core.errors import Flip7Error
from flip7.core.rules import MAX_PLAYERS, Rules, decks_for, decks_problem, players_problem
from flip7.engine.game import Game
from flip7.envs.common import render_view, win_shares
from flip7.envs.encoding import ActionEncoding, ObservationEncoding

__all__ = ["GAME_TYPE", "SHORT_NAME", "Flip7Game", "Flip7Observer", "Flip7State"]

SHORT_NAME = "python_flip7"
DEFAULT_PLAYERS = 4
DEFAULT_MAX_GAME_LENGTH = 10_000

_RULE_PARAMS: dict[str, bool | int | str] = {o.name: o.default for o in Rules.options()}
_PARAMS: dict[str, bool | int | str] = {
    "players": DEFAULT_PLAYERS,
    "decks": 0,
    "max_game_length": DEFAULT_MAX_GAME_LENGTH,
    **_RULE_PARAMS,
}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Flip 7: With a Vengeance",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


@functools.cache
def _actions(players: int) -> ActionEncoding:
    return ActionEncoding(players)


@functools.cache
def _observations(players: int) -> ObservationEncoding:
    return ObservationEncoding(players)


class Flip7Game(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """``python_flip7`` with the given parameters (module doc)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        unknown = sorted(set(given) - set(_PARAMS))
        if unknown:
            raise Flip7Error(
                f"unknown parameter(s) {', '.join(unknown)}; parameters are {', '.join(_PARAMS)}"
            )
        values = {**_PARAMS, **given}
        rules = Rules.from_json({name: values[name] for name in _RULE_PARAMS})
        players = int(values["players"])
        problem = players_problem(players, rules)
        if problem is not None:
            raise Flip7Error(problem)
        decks = int(values["decks"]) or decks_for(players)
        problem = decks_problem(decks)
        if problem is not None:
            raise Flip7Error(problem)
        problem = players_problem(players, rules, decks)
        if problem is not None:
            raise Flip7Error(problem)
        max_length = int(values["max_game_length"])
        if max_length < 1:
            raise Flip7Error(f"max_game_length must be at least 1, got {max_length}")
        info = pyspiel.GameInfo(
            num_distinct_actions=_actions(players).size,
            max_chance_outcomes=max(len(Card), players),
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=max_length,
        )
        super().__init__(GAME_TYPE, info, given)
        self.rules = rules
        self.players = players
        self.decks = decks
        self.max_length = max_length

    def new_initial_state(self) -> Flip7State:
        """Before the first chance node: the first dealer is drawn next."""
        return Flip7State(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Flip7Observer:
        """The observer of the seat's view (the same tensor for observation and information
        state; the information-state string is the history)."""
        if params:
            raise Flip7Error(f"python_flip7's observer takes no parameters, got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return Flip7Observer(self.players, perfect_recall)


class _Table:
    """The engine's game inside a state. OpenSpiel clones a Python state by deep-copying
    its attributes; this one copies itself with the engine's :meth:`Game.clone`."""

    __slots__ = ("game",)

    def __init__(self, game: Game | None) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        return _Table(None if self.game is None else self.game.clone())


class Flip7State(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no type information
    """A position of ``python_flip7``: the engine's game with explicit dealing."""

    def __init__(self, game: Flip7Game) -> None:
        super().__init__(game)
        # Only small values and the _Table: OpenSpiel deep-copies them all on clone.
        self._players = game.players
        self._rules = game.rules
        self._decks = game.decks
        self._max_length = game.max_length
        self._table = _Table(None)
        self._decisions = 0
        self._cut = False  # stopped at max_game_length

    @property
    def game_of_flip7(self) -> Game | None:
        """The engine's game (None before the first dealer is drawn)."""
        return self._table.game

    def current_player(self) -> int:
        game = self._table.game
        if game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if game.over or self._cut:
            return int(pyspiel.PlayerId.TERMINAL)
        if game.needs_card:
            return int(pyspiel.PlayerId.CHANCE)
        seat = game.to_decide
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        game = self._table.game
        assert game is not None and player == game.to_decide
        return _actions(self._players).indices(game.legal_decisions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        game = self._table.game
        if game is None:
            return [(seat, 1.0 / self._players) for seat in range(self._players)]
        return [(int(card), float(p)) for card, p in game.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        game = self._table.game
        if game is None:
            self._table.game = Game.new(
                self._players, self._rules, decks=self._decks, dealer=int(action),
                explicit=True, events=False,
            )  # fmt: skip
        elif game.needs_card:
            game.draw(Card(action))
        else:
            game.apply(_actions(self._players).decision(action))
            self._decisions += 1
            self._cut = not game.over and self._decisions >= self._max_length

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._table.game is None:
                return f"Dealer:{action}"
            return f"Card:{Card(action).code}"
        return str(_actions(self._players).decision(action))

    def is_terminal(self) -> bool:
        game = self._table.game
        return game is not None and (game.over or self._cut)

    def returns(self) -> list[float]:
        game = self._table.game
        if game is None or not self.is_terminal():
            return [0.0] * self._players
        if not game.over:
            return [1.0 / self._players] * self._players
        return win_shares(game)

    def view_text(self, seat: int | None) -> str:
        game = self._table.game
        if game is None:
            return "the first dealer is to be drawn"
        return render_view(game.view(seat))

    def __str__(self) -> str:
        return self.view_text(None) + f"\ndecisions: {self._decisions}"


class Flip7Observer:
    """OpenSpiel's Python observer: ``tensor`` (and ``dict``, its named parts) from a seat's
    view; ``string_from`` the table as text, or the history for perfect recall."""

    def __init__(self, players: int, perfect_recall: bool) -> None:
        self.encoding = _observations(players)
        self.perfect_recall = perfect_recall
        self.tensor: npt.NDArray[np.float32] = np.zeros(self.encoding.size, np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        at = 0
        for name, size, shape in self.encoding.fields():
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: Flip7State, player: int) -> None:
        game = state.game_of_flip7
        if game is None:
            self.tensor[:] = self.encoding.blank(state._rules, state._decks, player)
        else:
            self.tensor[:] = self.encoding.encode(game.view(player))

    def string_from(self, state: Flip7State, player: int) -> str:
        if self.perfect_recall:
            return f"p{player}:" + ",".join(str(a) for a in state.history())
        return f"p{player}\n" + state.view_text(player)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, Flip7Game)
