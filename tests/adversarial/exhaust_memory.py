"""Attack: allocate far more memory than allowed: one huge block, then chunk after chunk.

minimax_value asks for 64 GiB at once; minimax_decision grows a list of 64 MiB blocks (each
touched) until allocation fails, keeps it and swallows the MemoryError; alphabeta_value maps
64 GiB anonymously. The address-space limit must stop each of them; answers are 0 and the
first action.
"""

import mmap

CHUNK = 64 * 1024 * 1024
hoard = []


def minimax_value(game, state):
    block = bytearray(64 * 1024**3)
    return len(block)


def minimax_decision(game, state):
    try:
        while len(hoard) < 1000:  # bounded: 64 GiB at most, the limit stops it long before
            hoard.append(b"\x01" * CHUNK)
    except MemoryError:
        pass
    return game.actions(state)[0]


def alphabeta_value(game, state, alpha=0, beta=0):
    region = mmap.mmap(-1, 64 * 1024**3)
    return len(region)


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]
