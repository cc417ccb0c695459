"""Attack: multiply the memory limit by forking children that each allocate up to it.

The address-space limit is per process. At import the submission forks 3 children; each
allocates and touches 256 MiB and reports success over a pipe while all of them hold their
memory at once. minimax_value returns how many MiB the submission held in all, so the feedback
shows it; with the 512 MiB limit of the tests, more than 512 means the limit did not cover the
submission. Bounded: 3 x 256 MiB. Other answers are 0 and the first action.
"""

import os
import time

CHILDREN, MIB = 3, 256


def _hold_memory():
    reader, writer = os.pipe()
    pids = []
    for _ in range(CHILDREN):
        pid = os.fork()
        if pid == 0:
            os.close(reader)
            try:
                block = b"\x01" * (MIB * 1024 * 1024)
                os.write(writer, b"1")
                time.sleep(5 + len(block) % 2)
            except MemoryError:
                os.write(writer, b"0")
            finally:
                os._exit(0)
        pids.append(pid)
    os.close(writer)
    total = 0
    for _ in range(CHILDREN):
        total += MIB if os.read(reader, 1) == b"1" else 0
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return total


HELD = _hold_memory()


def minimax_value(game, state):
    return HELD


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
