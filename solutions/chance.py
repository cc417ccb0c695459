"""Expectiminimax: minimax with chance nodes, which take the probability-weighted average."""

from __future__ import annotations

from games import CHANCE, MAX, MIN, Game
from games.protocol import Action, State
from solutions.minimax import _require_a_move


def expectiminimax_value(game: Game, state: State) -> float:
    """Return the expectiminimax value of `state` from MAX's point of view.

    A terminal state is worth its utility; a MAX node the largest value of its children, a MIN
    node the smallest; a chance node the sum of `probability * value` over
    `game.chance_outcomes(state)`. Children are examined in the game's order.

    The value has the type the arithmetic gives: exact `Fraction` probabilities and integer
    utilities give an exact `Fraction`.
    """
    if game.is_terminal(state):
        return game.utility(state)
    player = game.to_move(state)
    if player == CHANCE:
        return sum(
            probability * expectiminimax_value(game, game.result(state, outcome))
            for outcome, probability in game.chance_outcomes(state)
        )
    values = [
        expectiminimax_value(game, game.result(state, action)) for action in game.actions(state)
    ]
    return max(values) if player == MAX else min(values)


def expectiminimax_decision(game: Game, state: State) -> Action:
    """Return the action with the best expectiminimax value for the player to move.

    MAX takes the action whose child has the largest value, MIN the smallest. Of several
    optimal actions the first in `game.actions(state)` order is returned.

    Raises:
        ValueError: `state` is terminal, or it is a chance node: nature moves there, at
            random, so there is nothing to decide.
    """
    _require_a_move(game, state)
    player = game.to_move(state)
    if player not in (MAX, MIN):
        raise ValueError(
            f"state {state!r} is a {player} node: only MAX and MIN decide; nature's move is "
            "drawn from chance_outcomes(state)"
        )
    sign = 1 if player == MAX else -1
    best_action, best_score = None, None
    for action in game.actions(state):
        score = sign * expectiminimax_value(game, game.result(state, action))
        if best_score is None or score > best_score:
            best_action, best_score = action, score
    return best_action
