"""Attack: forge the reply the grader decodes, so that decoding it raises inside the grader.

The runner that talks to the grader runs in the student's process, as the `__main__` module;
this file replaces its `plain` function so every returned value is sent as
{"float": "not a number"}, a tag the grader turns into a float without checking. The grader
must judge it as a wrong answer (0 points), not crash.
"""

import sys

sys.modules["__main__"].plain = lambda value, depth=0: {"float": "not a number"}


def minimax_value(game, state):
    return 0
