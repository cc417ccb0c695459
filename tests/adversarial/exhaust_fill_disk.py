"""Attack: fill the disk through the working directory and $HOME.

On its first call minimax_value writes 100 files of 256 KiB into the working directory and
100 into $HOME/.cache (50 MiB in all), then tries one file of 1 MiB and returns how many bytes
of it were written: the file-size limit caps it at the output limit. The sandbox's directory
must be deleted after grading. Bounded at 50 MiB. Other answers are 0 and the first action.
"""

import os
from pathlib import Path

KIB = 1024
written = []


def _fill():
    cache = Path(os.environ["HOME"]) / ".cache"
    cache.mkdir(exist_ok=True)
    for folder in (Path.cwd(), cache):
        for index in range(100):
            try:
                (folder / f"filler-{index}.bin").write_bytes(b"\0" * (256 * KIB))
            except OSError:
                break
    big = Path.cwd() / "big.bin"
    try:
        with open(big, "wb") as stream:
            stream.write(b"\1" * (1024 * KIB))
    except OSError:
        pass
    return big.stat().st_size


def minimax_value(game, state):
    if not written:
        written.append(_fill())
    return written[0]


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
