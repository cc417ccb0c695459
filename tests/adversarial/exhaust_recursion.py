"""Attack: unbounded recursion, plain and with the recursion limit raised to a million.

minimax_value recurses forever (RecursionError); minimax_decision raises the limit and
recurses through C calls (map), which overflows the C stack and kills the process with
SIGSEGV. Each must lose only its own points; answers are 0 and the first action.
"""

import sys


def minimax_value(game, state):
    return minimax_value(game, state)


def _deeper(depth):
    return list(map(_deeper, [depth + 1]))


def minimax_decision(game, state):
    sys.setrecursionlimit(1_000_000)
    return _deeper(0)


def alphabeta_value(game, state, alpha=0, beta=0):
    return 0


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]
