"""Attack: answer alphabeta_value from a cache filled by earlier test cases.

minimax_value is honest and remembers each answer under the state itself (a position is the
same state in every call of a run, as in the notebook's kernel) and under a cheap fingerprint
of the root (player to move, legal actions). alphabeta_value answers from that cache without
generating a single state when the state or the fingerprint was seen before, and otherwise runs
minimax; it also tries to reuse the game objects and the states of earlier test cases, which
are refused unless this call reaches their positions. minimax_value earns its 15 points;
alphabeta_value at most the 15 of minimax under its name, and `alphabeta_pruning` nothing: an
answer from the cache comes with fewer states than any search of the position generates, and
the feedback says the table carries positions over from an earlier call.
"""

import contextlib

from games import MAX

CACHE = {}
BY_STATE = {}
PREVIOUS = []


def _fingerprint(game, state):
    return game.to_move(state), tuple(game.actions(state)), game.is_terminal(state)


def _reuse_previous():
    for old_game, old_state in PREVIOUS[-3:]:
        with contextlib.suppress(Exception):  # a state of another test case must be refused
            old_game.result(old_state, old_game.actions(old_state)[0])


def _minimax(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_minimax(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def minimax_value(game, state):
    CACHE[_fingerprint(game, state)] = BY_STATE[state] = value = _minimax(game, state)
    PREVIOUS.append((game, state))
    return value


def alphabeta_value(game, state, alpha=-float("inf"), beta=float("inf")):
    _reuse_previous()
    if state in BY_STATE:
        return BY_STATE[state]
    key = _fingerprint(game, state)
    return CACHE[key] if key in CACHE else minimax_value(game, state)
