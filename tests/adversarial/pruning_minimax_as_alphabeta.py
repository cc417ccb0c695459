"""Attack: hand in plain minimax under the names of the alpha-beta functions.

The values and moves are right, so alphabeta_value and alphabeta_decision earn their 15 + 10
points honestly; pruning is not done, so `alphabeta_pruning` must score 0. Nothing else is
written.
"""

from games import MAX


def _minimax(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_minimax(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def alphabeta_value(game, state, alpha=-float("inf"), beta=float("inf")):
    return _minimax(game, state)


def alphabeta_decision(game, state):
    pick = max if game.to_move(state) == MAX else min
    return pick(game.actions(state), key=lambda a: _minimax(game, game.result(state, a)))
