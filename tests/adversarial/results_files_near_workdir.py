"""Attack: write results.json, grades.csv and a Gradescope results folder near the sandbox.

Writes forged result files giving itself 100 into the working directory, $HOME and the
working directory's parent, hoping the grader or an upload step picks them up. Its answers are
0 and the first action.
"""

import json
import os
from pathlib import Path

MARK = "NEAR-WORKDIR-FORGERY"
RESULTS = json.dumps({"score": 100, "max_score": 100, "output": MARK, "tests": []})
CSV = f"student,score,max_score,status\nresults_files_near_workdir,100,100,graded {MARK}\n"

for folder in (Path.cwd(), Path(os.environ["HOME"]), Path.cwd().parent):
    try:
        (folder / "results").mkdir(exist_ok=True)
        (folder / "results" / "results.json").write_text(RESULTS)
        (folder / "results.json").write_text(RESULTS)
        (folder / "grades.csv").write_text(CSV)
    except OSError as error:
        print("could not write into", folder, error)


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
