"""Attack: signal its own process group from inside calls: SIGKILL, SIGSTOP, SIGSEGV, SIGTERM.

`os.killpg(0, SIGKILL)` kills everything in the submission's process group (the grader is not
in it); SIGSTOP freezes the process until its time-out. minimax_value and depth_limited_value
are honest and earn 15 + 15; the other functions lose only their own points.
"""

import os
import signal

from games import MAX


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def minimax_decision(game, state):
    os.killpg(0, signal.SIGKILL)


def alphabeta_value(game, state, alpha=-float("inf"), beta=float("inf")):
    os.kill(os.getpid(), signal.SIGSTOP)
    return 0


def alphabeta_decision(game, state):
    os.kill(os.getpid(), signal.SIGSEGV)


def depth_limited_value(game, state, depth, evaluate):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    children = [game.result(state, action) for action in game.actions(state)]
    values = [depth_limited_value(game, child, depth - 1, evaluate) for child in children]
    return max(values) if game.to_move(state) == MAX else min(values)


def depth_limited_decision(game, state, depth, evaluate):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.killpg(0, signal.SIGTERM)
    os.killpg(0, signal.SIGKILL)
