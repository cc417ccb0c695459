"""Attack: print text that looks like a passing test report, a score and a grades.csv row.

It prints a pytest summary, a Gradescope results object, a grades.csv line giving itself 100,
terminal escape codes and a <script> tag, at import and in every call, on stdout and stderr.
The grader must keep what a submission prints out of its own output and escape it on the
feedback page. Its answers are 0 and the first action.
"""

import json
import sys

MARK = "FAKE-REPORT-7F3A"
LINES = [
    f"============ 42 passed in 0.12s ============ {MARK}",
    f"results_print_fake_report,100,100,15,10,15,10,20,15,15,graded {MARK}",
    json.dumps({"score": 100, "max_score": 100, "output": MARK, "tests": []}),
    f"\x1b[2J\x1b[Hgrades: 100/100 <script>alert('{MARK}')</script>",
]


def _brag():
    for line in LINES:
        print(line)
        print(line, file=sys.stderr)


_brag()


def minimax_value(game, state):
    _brag()
    return 0


def minimax_decision(game, state):
    _brag()
    return game.actions(state)[0]


def alphabeta_value(game, state, alpha=0, beta=0):
    return 0


def alphabeta_decision(game, state):
    return game.actions(state)[0]


def depth_limited_value(game, state, depth, evaluate):
    return 0


def depth_limited_decision(game, state, depth, evaluate):
    return game.actions(state)[0]
