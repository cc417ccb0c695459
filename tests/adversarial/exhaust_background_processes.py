"""Attack: start background processes that try to outlive grading.

At import: a plain `sleep 987603.<tag>`. In its first call: a daemon that double-forks, leaves
its session, clears its environment, moves to / and becomes `sleep 987604.<tag>`;
`sleep 987605.<tag>` started by a shell in a new session with an empty environment; a
`nohup sleep 987606.<tag>` in its own process group. All must be gone once grading ends.
minimax_value returns how many were started (4), so the feedback shows they were; other answers
are 0 and the first action. The <tag> names the grading run (see TAG).
"""

import os
import shutil
import subprocess
import sys
import zlib

SLEEP = shutil.which("sleep")
# The tag ties these processes to this grading run, so that a test can tell them from those of
# another run on the same machine: sys.path[0] is the run's import view, <TMPDIR>/autograder-*/site,
# at the same path inside the jail as outside.
TAG = zlib.crc32(os.path.dirname(os.path.dirname(sys.path[0])).encode()) % 10**6
subprocess.Popen([SLEEP, f"987603.{TAG}"])
started = [SLEEP]


def _daemon():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork():
            os._exit(0)
        os.chdir("/")
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, 1024)
        os.execve(SLEEP, [SLEEP, f"987604.{TAG}"], {})
    os.waitpid(pid, 0)


def minimax_value(game, state):
    if len(started) == 1:
        _daemon()
        subprocess.Popen(
            ["/bin/sh", "-c", f"{SLEEP} 987605.{TAG} &"], env={}, start_new_session=True
        )
        subprocess.Popen(["nohup", SLEEP, f"987606.{TAG}"], process_group=0)
        started.extend(["daemon", "sh", "nohup"])
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
