"""Every call sleeps 1.6 s, within the per-call limit: only the time budgets can stop it."""

import time


def minimax_value(game, state):
    time.sleep(1.6)
    return 0


def minimax_decision(game, state):
    time.sleep(1.6)
    return game.actions(state)[0]
