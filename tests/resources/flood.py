"""Every call returns almost a megabyte: the grader must keep only a little of each reply."""


def minimax_value(game, state):
    return "x" * 900_000


def minimax_decision(game, state):
    return ["y" * 100_000] * 5


def alphabeta_value(game, state, alpha=None, beta=None):
    raise ValueError("z" * 900_000)
