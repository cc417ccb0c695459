"""Attack: loop forever inside a call, ignoring SIGTERM, SIGINT and every exception.

Only the wall-clock limit per call can stop it: minimax_value must time out, the process be
killed, and the other functions (0 and the first action) still be graded.
"""

import signal


def minimax_value(game, state):
    for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGALRM"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    while True:
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001, S110 - nothing may stop this loop
            pass


def minimax_decision(game, state):
    return game.actions(state)[0]


def alphabeta_value(game, state, alpha=0, beta=0):
    return 0


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]
