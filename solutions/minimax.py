"""Minimax: back values up from the leaves; the decision is the action with the best value."""

from __future__ import annotations

from games import MAX, Game
from games.protocol import Action, State


def minimax_value(game: Game, state: State) -> float:
    """Return the minimax value of `state` from MAX's point of view.

    MAX nodes take the largest value of their children, MIN nodes the smallest; a terminal
    state is worth its utility. Children are examined in the order of `game.actions`.
    """
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def minimax_decision(game: Game, state: State) -> Action:
    """Return an optimal action for the player to move in `state`.

    For MAX the action whose child has the largest minimax value, for MIN the smallest. Of
    several optimal actions the first in `game.actions(state)` order is returned.

    Raises:
        ValueError: `state` is terminal, so there is no move to choose.
    """
    _require_a_move(game, state)
    sign = 1 if game.to_move(state) == MAX else -1
    best_action, best_score = None, None
    for action in game.actions(state):
        score = sign * minimax_value(game, game.result(state, action))
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action


def _require_a_move(game: Game, state: State) -> None:
    if game.is_terminal(state):
        raise ValueError(f"state {state!r} is terminal: there is no move to decide")
