"""Attack: forge replies whose tags hold the wrong shapes, so that decoding them raises.

The runner tags tuples and lists as {"tuple": [...]} and {"list": [...]}; this file replaces
its `plain` so that answers arrive as {"tuple": 5}, {"list": {"a": 1}} or {"object": 7}. Each
must be a wrong answer reported as such (0 points), not a crash of the grader.
"""

import itertools
import sys

_SHAPES = itertools.cycle([{"tuple": 5}, {"list": {"a": 1}}, {"object": 7}, {"float": [1]}])
sys.modules["__main__"].plain = lambda value, depth=0: next(_SHAPES)


def minimax_value(game, state):
    return 0


def minimax_decision(game, state):
    return game.actions(state)[0]
