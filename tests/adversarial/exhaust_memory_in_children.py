"""Attack: multiply the memory limit by forking children that each allocate up to it.

The address-space limit is per process. At import the submission forks 3 children; each
allocates and touches 256 MiB, reports success over a pipe and holds it; once all have
reported, those still alive hold their memory at once. minimax_value returns how many MiB the
submission held at once, so the feedback shows it; with the 512 MiB limit of the tests, more
than 512 means the limit did not cover the submission. Bounded: 3 x 256 MiB. Other answers
are 0 and the first action.
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
                # Held until the parent has every report and kills it; at most 2 s, for which
                # the parent waits when a sibling was killed before it could report.
                time.sleep(2 + len(block) % 2)
            except MemoryError:
                os.write(writer, b"0")
            finally:
                os._exit(0)
        pids.append(pid)
    os.close(writer)
    held = sum(os.read(reader, 1) == b"1" for _ in range(CHILDREN))
    # A child that reported and was then killed (the memory cgroup's OOM killer takes the
    # largest process, often one that already holds its block) held nothing at the same time
    # as the last: count only the children still alive once all have reported.
    living = [pid for pid in pids if os.waitpid(pid, os.WNOHANG) == (0, 0)]
    for pid in living:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    return MIB * min(held, len(living))


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
