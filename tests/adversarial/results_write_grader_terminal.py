"""Attack: write a fake grade line straight into the grader's own stdout and stderr.

The sandbox captures what the submission prints, but /proc/<parent>/fd/1 and fd/2 are the
grading command's own output streams, and a process of the same user may open them. Whoever
reads the grading command's output (a terminal, a CI log) then sees a line the grader never
wrote. Its answers are 0 and the first action.
"""

import os

MARK = "TERMINAL-FORGERY-5C1E"
for fd in (1, 2):
    try:
        with open(f"/proc/{os.getppid()}/fd/{fd}", "w") as stream:
            stream.write(f"results_write_grader_terminal 100/100 all tests passed {MARK}\n")
    except OSError as error:
        print("could not reach the grader's output:", error)


def minimax_value(game, state):
    return 0


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
