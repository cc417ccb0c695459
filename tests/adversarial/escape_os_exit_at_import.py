"""Attack: end the student process with os._exit(0) at import, hoping for a clean "success".

The process dies before it reports its functions, so the submission cannot be loaded and
scores 0, with a status that says it exited.
"""

import os


def minimax_value(game, state):
    return 0


os._exit(0)
