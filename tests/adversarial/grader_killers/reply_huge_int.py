"""Attack: return -10**400 as "minus infinity", an int no float can hold.

Comparing it with the expected value as floats raises OverflowError inside the grader. It must
be a wrong answer for that instance (0 points, a hint that names the problem), never "the grader
failed" for the whole submission.
"""


def minimax_value(game, state):
    return -(10**400)
