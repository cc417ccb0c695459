"""Attack: run minimax as alphabeta_value and reset the node counters after each search.

After each search it sets every counter-like attribute of the game object and its class to 0,
calls reset(), zeroes integers held in the closures of the game's methods, zeroes the counters
of every counting-looking object gc.get_objects() finds, and patches games.counting so later
counting would see nothing. The counting happens in the grader, so `alphabeta_pruning` must
still score 0; the honest values earn alphabeta_value's 15 points.
"""

import contextlib
import gc

import games.counting
from games import MAX

COUNTERS = ("states_generated", "leaf_evaluations", "nodes", "count", "calls", "expanded")
COUNTING = ("CountingGame", "RecordingGame", "CallOutcome", "ProxyGame", "StudentProcess")


def _tamper(game):
    for target in (game, type(game)):
        for name in COUNTERS:
            with contextlib.suppress(Exception):
                setattr(target, name, 0)
    with contextlib.suppress(Exception):
        game.reset()
    for name in dir(game):
        function = getattr(getattr(game, name, None), "__func__", None)
        for cell in getattr(function, "__closure__", None) or ():
            if type(cell.cell_contents) is int:
                cell.cell_contents = 0
    for obj in gc.get_objects():
        if type(obj).__name__ in COUNTING:
            for name in COUNTERS:
                with contextlib.suppress(Exception):
                    setattr(obj, name, 0)


games.counting.CountingGame.result = lambda self, state, action: self.game.result(state, action)


def _minimax(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_minimax(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def alphabeta_value(game, state, alpha=-float("inf"), beta=float("inf")):
    value = _minimax(game, state)
    _tamper(game)
    return value
