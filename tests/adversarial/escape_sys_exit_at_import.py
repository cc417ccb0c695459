"""Attack: raise SystemExit at import, after an honest minimax_value, hoping to stop grading.

SystemExit in a cell is a cell error like any other: minimax_value, defined before it, must
still earn its 15 points; nothing after the exit is defined, so nothing else scores.
"""

import sys

from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


sys.exit("all tests passed")


def minimax_decision(game, state):  # never defined: the exit above ends the cell
    return game.actions(state)[0]
