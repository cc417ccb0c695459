"""Attack: leave the process from inside calls: sys.exit, os._exit, SystemExit, os.abort.

minimax_value and depth_limited_value are honest and earn 15 + 15; each of the other functions
exits or aborts on its first call and must lose only its own points, the process being
restarted for the functions graded after it.
"""

import os
import sys

from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def minimax_decision(game, state):
    sys.exit(3)


def alphabeta_value(game, state, alpha=-float("inf"), beta=float("inf")):
    os._exit(0)


def alphabeta_decision(game, state):
    raise SystemExit("grading finished")


def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    children = [game.result(state, action) for action in game.actions(state)]
    values = [depth_limited_value(game, child, depth - 1, evaluate) for child in children]
    return max(values) if game.to_move(state) == MAX else min(values)


def depth_limited_decision(game, state, depth, evaluate):
    os.abort()
