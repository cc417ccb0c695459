"""Attack: flood stdout and stderr, and send the grader an over-long message.

On its first call minimax_value writes 128 MiB to stdout and stderr (print and os.write),
swallowing the errors the file-size limit raises; minimax_decision replaces json.dumps, which
the runner uses for its replies, so its reply to the grader is 2 MiB long. The output kept
must stay small and grading go on; answers are 0 and the first action.
"""

import contextlib
import json
import os
import sys

BLOCK = "x" * (1024 * 1024)
flooded = []


def minimax_value(game, state):
    if flooded:
        return 0
    flooded.append(True)
    for _ in range(32):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                print(BLOCK, file=stream, flush=True)
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                os.write(fd, BLOCK.encode())
    return 0


def minimax_decision(game, state):
    json.dumps = lambda message, *args, **kwargs: '"' + "y" * (2 * 1024 * 1024) + '"'
    return game.actions(state)[0]


def alphabeta_value(game, state, alpha=0, beta=0):
    return 0


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]
