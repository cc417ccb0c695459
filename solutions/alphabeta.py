"""Alpha-beta pruning: minimax that skips the children which cannot change the decision."""

from __future__ import annotations

import math

from games import MAX, Game
from games.protocol import Action, State
from solutions.minimax import _require_a_move


def alphabeta_value(
    game: Game, state: State, alpha: float = -math.inf, beta: float = math.inf
) -> float:
    """Return the minimax value of `state`, pruning with the window (`alpha`, `beta`).

    alpha is the value MAX is already assured of on the path to `state`, beta the value MIN is
    assured of. A node stops examining children as soon as alpha >= beta (ties prune too).

    The result is fail-soft: if the true value v lies inside the window it is returned
    exactly; if v <= alpha the result r satisfies v <= r <= alpha; if v >= beta then
    beta <= r <= v.
    """
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in game.actions(state):
            value = max(value, alphabeta_value(game, game.result(state, action), alpha, beta))
            if value >= beta:
                return value  # MIN above will never let play reach here
            alpha = max(alpha, value)
        return value
    value = math.inf
    for action in game.actions(state):
        value = min(value, alphabeta_value(game, game.result(state, action), alpha, beta))
        if value <= alpha:
            return value  # MAX above already has something at least this good
        beta = min(beta, value)
    return value


def alphabeta_decision(game: Game, state: State) -> Action:
    """Return an optimal action for the player to move, searching with alpha-beta.

    The root is treated like any other node: the best value found so far narrows the window
    given to the later children, so the decision prunes exactly as much as `alphabeta_value`
    would on the same state. Of several optimal actions the first is returned.

    Raises:
        ValueError: `state` is terminal, so there is no move to choose.
    """
    _require_a_move(game, state)
    maximising = game.to_move(state) == MAX
    alpha, beta = -math.inf, math.inf
    best_action = None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action), alpha, beta)
        if maximising and (best_action is None or value > alpha):
            best_action, alpha = action, value
        elif not maximising and (best_action is None or value < beta):
            best_action, beta = action, value
    return best_action
