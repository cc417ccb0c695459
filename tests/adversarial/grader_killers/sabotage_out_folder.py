"""Attack: plant directories where the grader will write its output files.

It finds the --out folder from /proc/<parent>/cmdline and creates `grades.csv/` and
`sabotage_out_folder/results.json/` there as directories. Writing a file over a directory
fails; the grader must report this student's result as best it can and still write every other
student's grade. Answers are 0 and the first action.
"""

import os
from pathlib import Path

arguments = Path(f"/proc/{os.getppid()}/cmdline").read_bytes().split(b"\0")
out = Path(f"/proc/{os.getppid()}/cwd") / os.fsdecode(arguments[arguments.index(b"--out") + 1])
(out / "grades.csv").mkdir(parents=True, exist_ok=True)
(out / "sabotage_out_folder" / "results.json").mkdir(parents=True, exist_ok=True)


def minimax_value(game, state):
    return 0


def minimax_decision(game, state):
    return game.actions(state)[0]
