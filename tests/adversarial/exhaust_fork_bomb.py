"""Attack: a fork bomb, bounded to 200 processes so that a failure cannot take the machine down.

At import it starts up to 192 `sleep 987601.<tag>` processes (half in new sessions, a quarter
with an empty environment) and 8 forked copies of itself that loop in new sessions, stopping at
the first refusal (a process limit). All must be gone once grading ends. minimax_value returns
how many it started, so the feedback shows how far the bomb went; other answers are 0 and the
first action. The <tag> names the grading run (see TAG).
"""

import os
import shutil
import subprocess
import sys
import time
import zlib

SLEEP = shutil.which("sleep")
# The tag ties these processes to this grading run, so that a test can tell them from those of
# another run on the same machine: sys.path[0] is the run's import view, <TMPDIR>/autograder-*/site,
# at the same path inside the jail as outside.
TAG = zlib.crc32(os.path.dirname(os.path.dirname(sys.path[0])).encode()) % 10**6
started = []


def _bomb():
    for index in range(192):
        started.append(True)
        subprocess.Popen(
            [SLEEP, f"987601.{TAG}"],
            start_new_session=index % 2 == 0,
            env={} if index % 4 == 0 else None,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    for _ in range(8):
        started.append(True)
        if os.fork() == 0:
            os.setsid()
            while True:
                time.sleep(1)


try:
    _bomb()
except OSError:  # the limit on processes: started[-1] was refused
    started.pop()


def minimax_value(game, state):
    return len(started)


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
