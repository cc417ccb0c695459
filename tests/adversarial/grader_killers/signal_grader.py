"""Attack: send SIGTERM to the grading process (the parent) at import.

It first starts `sleep 987607.<tag>`, which is left behind if the grader dies before cleaning
up. The grader must survive, grade the honest submission next to it, and kill the sleeper.
Answers are 0 and the first action.
"""

import os
import shutil
import signal
import subprocess
import sys
import zlib

# The tag ties these processes to this grading run, so that a test can tell them from those of
# another run on the same machine: sys.path[0] is the run's import view, <TMPDIR>/autograder-*/site,
# at the same path inside the jail as outside.
TAG = zlib.crc32(os.path.dirname(os.path.dirname(sys.path[0])).encode()) % 10**6
subprocess.Popen([shutil.which("sleep"), f"987607.{TAG}"], start_new_session=True)
os.kill(os.getppid(), signal.SIGTERM)


def minimax_value(game, state):
    return 0


def minimax_decision(game, state):
    return game.actions(state)[0]
