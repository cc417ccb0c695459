"""Grading throughput: a class of N notebooks graded by `python -m autograder`, by nbgrader and
by Otter-Grader, and the command's start-up.

First the start-up: `import autograder.cli` and `python -m autograder --help` in fresh
interpreters beside a bare `python -c pass` (target: at most 0.3 s). Then the class, built in a
temporary nbgrader course from the example class: each student's code (the code cells of one
`examples/class` notebook, students taken round-robin from `MIX`) is put into the solution cell
of the released assignment notebook, which also holds one autograded "autograder tests" cell
checking `minimax_value` on a few tic-tac-toe positions. The graders then grade the very same
files, one after the other, alternated `--rounds` times in the same run:

- `python -m autograder grade COURSE/submitted --out OUT --workers W` (the hidden tests:
  every rule, 81 calls and about 2,900 served states for a correct student, on the instances
  `autograder.grading.coverage` chose by what they catch; with `--every-candidate`, also on
  every candidate they were chosen from, 138 calls and about 11,100 states, and the scores
  must be the same);
- `nbgrader autograde bench` in the course folder (one kernel per notebook, running the cells);
- Otter-Grader's local grading, `otter.api.grade_submission`, W notebooks at a time, against a
  test file of the same five checks (`_peers.py`).

Each peer's fastest round is divided by the grader's (target: 20x), beside the CPU seconds
of each run and its processes (less disturbed by a shared machine's load). `--breakdown` then
re-grades in this process with a timer on each stage, times the serial phases of a class run
with the workers, and shows where the served states go.
nbgrader and Otter are optional (the `nbgrader` and `otter` extras); without them the class is
built by hand with the same cells and only the autograder side is timed:

    .venv/bin/pip install -e '.[nbgrader,otter]'
    python benchmarks/bench_grading.py [--n 50] [--workers 2] [--rounds 3] [--breakdown]
        [--every-candidate]
"""

from __future__ import annotations

import argparse
import compileall
import copy
import csv
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from _common import REPO, PhaseClock, StageTimer, TreeCpu, console, machine, ratio, table
from _peers import (
    STARTUP_TARGET,
    otter_autograder,
    otter_installed,
    startup_times,
    time_otter,
)

from autograder import cli
from games import TicTacToe
from solutions import minimax_value

CLASS = REPO / "examples" / "class"
ASSIGNMENT = "bench"

MIX = (
    "alice_correct",
    "bob_last_ties",
    "carol_negamax",
    "dan_strict_cutoff",
    "erin_max_starts_at_zero",
    "heidi_root_picks_min",
    "peggy_last_child",
    "quentin_partial",
)
"""Students copied round-robin: four correct (dan loses 5 points of pruning on ties) and four
with a cheap mistake. Left out: trent_infinite_loop (its time-outs alone take 20-100 s),
wendy_noisy_but_correct (its top-level input() stops nbgrader's kernel) and the mistakes that
make the grader serve 3-4x a correct student's states (fresh window, MIN never cuts, no
alternation): a class of those is slower, see benchmarks/README.md."""

TEST_POSITIONS = ("XOX.O.X..", "XO..X..O.", "X.O.OX..X", "OX.XO.X..", "XXO.O....")
"""Mid-game tic-tac-toe positions for the notebook's own test cell: cheap for plain minimax."""


def student_code(name: str) -> str:
    """The code cells of one example notebook, joined into one cell's source."""
    notebook = nbformat.read(CLASS / f"{name}.ipynb", as_version=4)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")


def source_notebook() -> nbformat.NotebookNode:
    """The instructor's version: a solution cell and one autograded test cell (nbgrader v3)."""
    game = TicTacToe()
    checks = "\n".join(
        f"assert minimax_value(game, {picture!r}) == {minimax_value(game, picture)!r}"
        for picture in TEST_POSITIONS
    )
    solution = nbformat.v4.new_code_cell(
        "### BEGIN SOLUTION\n" + student_code("alice_correct") + "\n### END SOLUTION",
        metadata={"nbgrader": _cell("answer", solution=True)},
    )
    tests = nbformat.v4.new_code_cell(
        f"from games import TicTacToe\n\ngame = TicTacToe()\n{checks}\n",
        metadata={"nbgrader": _cell("autograder_tests", grade=True, locked=True, points=10)},
    )
    intro = nbformat.v4.new_markdown_cell(
        "# Minimax\n\nWrite the search functions in the cell below.",
        metadata={"nbgrader": _cell("intro", locked=True)},
    )
    notebook = nbformat.v4.new_notebook(cells=[intro, solution, tests])
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


def _cell(grade_id: str, grade=False, solution=False, locked=False, points=None) -> dict:
    metadata = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if points is not None:
        metadata["points"] = points
    return metadata


def release(course: Path, nbgrader: bool) -> nbformat.NotebookNode:
    """The student version: from `nbgrader generate_assignment` if available, else by hand."""
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(source_notebook(), source)
    if not nbgrader:
        released = nbformat.read(source, as_version=4)
        released.cells[1].source = "# YOUR CODE HERE\nraise NotImplementedError()"
        return released
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        "c.CourseDirectory.course_id = 'bench'\n"
        "c.CourseDirectory.root = '.'\n"
        "c.Execute.timeout = 60\n"
    )
    run = subprocess.run(
        ["nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
        cwd=course,
        env=venv_environment(),
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise SystemExit(f"nbgrader generate_assignment failed:\n{run.stdout}{run.stderr}")
    return nbformat.read(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)


def build_class(course: Path, n: int, nbgrader: bool) -> list[str]:
    """Write N student notebooks under COURSE/submitted/<student>/bench/; return the ids."""
    released = release(course, nbgrader)
    solution = next(
        index
        for index, cell in enumerate(released.cells)
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution")
    )
    codes = {name: student_code(name) for name in MIX}
    students = []
    for index in range(n):
        name = MIX[index % len(MIX)]
        student = f"s{index:03d}_{name}"
        notebook = copy.deepcopy(released)
        notebook.cells[solution].source = codes[name]
        path = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)
        students.append(student)
    return students


def compile_bytecode() -> str:
    """Compile the project's packages to bytecode beside their sources (`__pycache__`, as the
    first run of an editable install or `pip install` itself does) and say so.

    Under PYTHONDONTWRITEBYTECODE nothing is ever cached, and every `python -m autograder`
    compiles its hundred modules from source again (a tenth of a second of CPU before any
    work): a cost an installed grader does not pay, nor nbgrader or Otter, whose bytecode pip
    wrote when they were installed.
    """
    packages = ("autograder", "games", "solutions")
    for package in packages:
        compileall.compile_dir(REPO / package, quiet=1, force=False)
    unset = " (PYTHONDONTWRITEBYTECODE is set here)" if sys.dont_write_bytecode else ""
    return (
        f"bytecode of {', '.join(packages)} compiled first, as an installed package has it{unset}"
    )


def venv_environment() -> dict[str, str]:
    """This environment with the venv's bin folder first: nbgrader runs alembic from PATH."""
    environment = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    environment["PATH"] = bin_dir + os.pathsep + environment.get("PATH", "")
    return environment


EVERY_CANDIDATE = "python -m autograder grade, every candidate"
"""The grader on every candidate instance (`--every-candidate`): the instances before
`autograder.grading.coverage` chose them by what they catch."""

_ON_EVERY_CANDIDATE = (
    "import sys; from autograder.grading import rules; rules.EVERY_CANDIDATE = True; "
    "from autograder import cli; sys.exit(cli.main(sys.argv[1:]))"
)


def time_autograder(course: Path, out: Path, workers: int, every: bool = False) -> float:
    """Grade the class with the command; with `every`, on every candidate instance (the flag
    is set before the rules are built, and the forked workers inherit it)."""
    command = [
        sys.executable,
        *(("-c", _ON_EVERY_CANDIDATE) if every else ("-m", "autograder")),
        "grade",
        str(course / "submitted"),
        "--out",
        str(out),
        "--workers",
        str(workers),
        "--quiet",
    ]
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=venv_environment())
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"the autograder failed:\n{run.stdout}{run.stderr}")
    return seconds


def time_nbgrader(course: Path) -> float:
    started = time.perf_counter()
    run = subprocess.run(
        ["nbgrader", "autograde", ASSIGNMENT],
        cwd=course,
        env=venv_environment(),
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"nbgrader autograde failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    return seconds


def breakdown(course: Path, out: Path) -> None:
    """Grade the class again in this process with stage timers, and print where time goes.

    The same `autograder.cli.main` as the command, with the grader's stages wrapped (see
    `StageTimer`), with one worker: with more, the stages run in forked worker processes, where
    these timers cannot see them. Per submission: start (the process, its cells), the served
    states (the graded calls), judging, and the pages (feedback drawn, files written).
    """
    from autograder import grade_command, sandbox
    from autograder.grading import grade as grading
    from autograder.grading import pool
    from autograder.reports import files

    stages = StageTimer()
    calls = "graded calls (states served over the pipe)"
    for owner, name, label in (
        (grading, "warm_up", "reference answers, warm_up (once)"),
        (grade_command, "build_import_view", "import view for the sandbox (once)"),
        (pool, "load", "read the notebook"),
        (sandbox.StudentProcess, "start", "start the student process, run its cells"),
        (sandbox.StudentProcess, "call", calls),
        (sandbox.StudentProcess, "close", "stop the process, clean up"),
        (grading, "judged", "judge the calls, total the record"),
        (grading, "feedback", "feedback page (tree drawings)"),
        (files, "save_student", "write results.json and feedback.html"),
    ):
        stages.watch(owner, name, label)
    cpu, children = time.process_time(), _children_cpu()
    started = time.perf_counter()
    try:
        arguments = [str(course / "submitted"), "--out", str(out), "--workers", "1"]
        cli.main(["grade", *arguments, "--quiet"])
    finally:
        stages.restore()
    wall = time.perf_counter() - started
    cpu, children = time.process_time() - cpu, _children_cpu() - children
    n = max(stages.calls["read the notebook"], 1)
    grid = table(
        "Where the autograder's time goes (in-process re-run, one worker)",
        "stage",
        "calls",
        "s",
        "ms / submission",
    )
    for label, seconds in stages.seconds.items():
        grid.add_row(
            label, f"{stages.calls[label]:,}", f"{seconds:.2f}", f"{1000 * seconds / n:.0f}"
        )
    timed = sum(stages.seconds.values())
    grid.add_row(
        "(not in a stage above)", "", f"{wall - timed:.2f}", f"{1000 * (wall - timed) / n:.0f}"
    )
    console.print(grid)
    served, call_seconds = stages.states[calls], stages.seconds[calls]
    console.print(
        f"wall {wall:.1f} s; CPU: grader process {cpu:.1f} s, once-per-run stages included "
        f"({cpu / n:.2f} s per submission), "
        f"student processes {children:.1f} s "
        f"({children / n:.2f} s per submission); {served / n:,.0f} states served per "
        f"submission, {1e6 * call_seconds / max(served, 1):.1f} us of call time per state"
    )


def class_timeline(course: Path, out: Path, workers: int) -> None:
    """Grade the class again in this process with `workers` workers, and print when the main
    process's phases start and how long they take: what is serial (before the workers start
    and after the last one ends) costs its full wall time, whatever the number of workers.

    The interpreter's start and the command's imports are not in it (they are done here
    already): see the start-up table's `import autograder.grade_command`.
    """
    from autograder import grade_command
    from autograder.grading import cases
    from autograder.grading import grade as grading
    from autograder.reports import class_report, files

    cases.reference.cache_clear()  # else the breakdown's run has computed the answers already
    clock = PhaseClock()
    for owner, name, label in (
        (grade_command, "discover", "find the submissions"),
        (grade_command, "jail_support", "check the jail can be used"),
        (grading, "warm_up", "reference answers (warm_up, in a thread)"),
        (grade_command, "build_import_view", "import view (and the font cache it waits for)"),
        (files, "unchanged_records", "look for unchanged saved records"),
        (grade_command.pool, "grade_in_workers", f"grade in {workers} worker processes"),
        (files, "save_student", "save a student's results.json and page (main process)"),
        (files, "whole_class", "read the class's saved records"),
        (class_report, "write_class_files", "write the class files (class.html, summary.csv)"),
        (grade_command, "reap_orphans", "collect orphaned processes"),
        (grade_command.sandbox, "sweep", "sweep cgroups and scratch folders (start, end)"),
        (cli, "main", "the whole command, in-process"),
    ):
        clock.watch(owner, name, label)
    cpu, children = time.process_time(), _children_cpu()
    clock.start()
    try:
        cli.main(["grade", str(course / "submitted"), "--out", str(out), "--workers",
                  str(workers), "--quiet"])  # fmt: skip
    finally:
        clock.restore()
    cpu, children = time.process_time() - cpu, _children_cpu() - children
    grid = table(
        f"The class run's phases in the main process ({workers} workers, in-process re-run)",
        "phase",
        "calls",
        "first starts at s",
        "last ends at s",
        "s in all",
    )
    phases: dict[str, list] = {}
    for label, started, ended in clock.phases:
        entry = phases.setdefault(label, [0, started, ended, 0.0])
        entry[0] += 1
        entry[2] = max(entry[2], ended)
        entry[3] += ended - started
    for label, (calls, first, last, seconds) in sorted(phases.items(), key=lambda i: i[1][1]):
        grid.add_row(label, f"{calls}", f"{first:.3f}", f"{last:.3f}", f"{seconds:.3f}")
    console.print(grid)
    pool, whole = (
        phases[f"grade in {workers} worker processes"],
        phases["the whole command, in-process"],
    )
    console.print(
        f"serial: {pool[1]:.2f} s before the workers start, {whole[2] - pool[2]:.2f} s after "
        f"the last one ends, of {whole[2]:.2f} s; CPU: main process {cpu:.2f} s, its children "
        f"(workers and students) {children:.2f} s"
    )


def served_states_by_function() -> None:
    """Print where a correct student's served states go: per graded function, its calls and the
    states the reference solutions generate in them, on the instances chosen by what they
    catch (`autograder.grading.coverage`) and on every candidate they are chosen from."""
    from autograder.grading import rules
    from autograder.grading.coverage import served_states
    from autograder.grading.grade import planned_calls

    chosen: dict[str, list] = {}
    for function, instance in planned_calls(rules.selected_rules(rules.RULE_IDS)):
        calls, total, largest = chosen.setdefault(function, [0, 0, (0, "")])
        states = served_states(function, instance)
        chosen[function] = [calls + 1, total + states, max(largest, (states, instance.name))]
    every: dict[str, list] = {}
    for function, pool in {(g.function, g.pool) for r in rules.rules() for g in r.groups}:
        if function in chosen:
            candidates = rules.candidates(pool)
            total = every.setdefault(function, [0, 0])
            total[0] += len(candidates)
            total[1] += sum(served_states(function, c) for c in candidates)
    grid = table(
        "Served states of a correct student, by graded function (the reference's counts)",
        "function",
        "calls",
        "states",
        "on every candidate",
        "largest instance",
    )
    for function, (calls, total, (most, name)) in sorted(chosen.items(), key=lambda i: -i[1][1]):
        grid.add_row(
            function,
            f"{calls}",
            f"{total:,}",
            f"{every[function][1]:,} in {every[function][0]} calls",
            f"{most:,}: {name[:50]}",
        )
    console.print(grid)
    served = sum(total for _, total, _ in chosen.values())
    candidates = sum(total for _, total in every.values())
    console.print(
        f"{served:,} states served to a correct student on the chosen instances, "
        f"{candidates:,} on every candidate ({served / max(candidates, 1):.0%})"
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def same_scores(chosen: Path, every: Path) -> list[str]:
    """Students whose score on the chosen instances differs from that on every candidate."""
    scores = []
    for out in (chosen, every):
        with open(out / "grades.csv", newline="") as handle:
            scores.append({row["student"]: row["score"] for row in csv.DictReader(handle)})
    return [
        f"{student} scores {score} on the chosen instances, {scores[1].get(student)} on every "
        "candidate"
        for student, score in scores[0].items()
        if scores[1].get(student) != score
    ]


def check_outputs(out: Path, course: Path, students: list[str], nbgrader: bool) -> list[str]:
    """Problems with what the graders wrote (a run that graded nothing must not look fast)."""
    problems = []
    with open(out / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != len(students):
        problems.append(f"grades.csv has {len(rows)} rows for {len(students)} students")
    for row in rows:
        if row["status"] != "graded":
            problems.append(f"the autograder could not grade {row['student']}: {row['status']}")
    if nbgrader:
        missing = [
            student
            for student in students
            if not (course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()
        ]
        if missing:
            problems.append(f"nbgrader did not autograde {len(missing)}: {missing[:5]}")
    return problems


TARGET = 20
"""How many times faster than each peer the grader should grade the class (issue 35)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="students in the class (default 50)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--rounds", type=int, default=3,
        help="alternate the graders N times and keep each one's fastest (one round's ratio "
        "moves by a quarter with the machine's moment)",
    )  # fmt: skip
    parser.add_argument("--skip-nbgrader", action="store_true", help="leave nbgrader out")
    parser.add_argument("--skip-otter", action="store_true", help="leave Otter-Grader out")
    parser.add_argument("--keep", type=Path, help="build the course here and keep it")
    parser.add_argument(
        "--breakdown", action="store_true", help="then re-grade in-process, timing each stage"
    )
    parser.add_argument(
        "--every-candidate",
        action="store_true",
        help="also grade on every candidate instance (before the choice by coverage), alternated",
    )
    args = parser.parse_args(argv)
    if args.n < 1 or args.workers < 1 or args.rounds < 1:
        parser.error("--n, --workers and --rounds must be at least 1")
    nbgrader = not args.skip_nbgrader and importlib.util.find_spec("nbgrader") is not None
    otter = not args.skip_otter and otter_installed()

    console.print(f"machine: {machine()}")
    console.print(compile_bytecode(), highlight=False)
    startup = startup_times(venv_environment())
    grid = table("Start-up (fastest of 7 fresh interpreters, alternated)", "command", "wall s")
    for label, seconds in startup.items():
        grid.add_row(label, f"{seconds:.3f}")
    console.print(grid)
    slowest = max(startup["import autograder.cli"], startup["python -m autograder --help"])
    console.print(
        f"start-up: {slowest:.3f} s (target: at most {STARTUP_TARGET} s) -> "
        + ("[green]met[/green]" if slowest <= STARTUP_TARGET else "[red]not met[/red]")
    )
    times: dict[str, list[float]] = {"python -m autograder grade": []}
    cpu = ChildrenCpu()
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as scratch:
        root = args.keep or Path(scratch)
        course, out = root / "course", root / "grades"
        for folder in (course, out, root / "otter"):
            if folder.exists():
                shutil.rmtree(folder)
        course.mkdir(parents=True)
        students = build_class(course, args.n, nbgrader)
        notebooks = [
            course / "submitted" / s / ASSIGNMENT / f"{ASSIGNMENT}.ipynb" for s in students
        ]
        console.print(
            f"class of {args.n} notebooks in {course} "
            f"({len(MIX)} kinds of student round-robin: {', '.join(MIX)})"
        )
        autograder_zip = None
        if otter:
            checks = [(p, repr(minimax_value(TicTacToe(), p))) for p in TEST_POSITIONS]
            autograder_zip = otter_autograder(root / "otter", checks, venv_environment())
        for round_number in range(args.rounds):
            graded = out / f"round-{round_number}"
            console.print(f"round {round_number + 1}: python -m autograder grade ... "
                          f"--workers {args.workers} ...")  # fmt: skip
            times["python -m autograder grade"].append(
                cpu.timed("python -m autograder grade", time_autograder, course, graded,
                          args.workers)
            )  # fmt: skip
            if args.every_candidate:
                console.print(f"round {round_number + 1}: the same on every candidate ...")
                every = out / f"every-{round_number}"
                times.setdefault(EVERY_CANDIDATE, []).append(
                    cpu.timed(EVERY_CANDIDATE, time_autograder, course, every, args.workers, True)
                )
                problems += check_outputs(every, course, students, False)
                problems += same_scores(graded, every)
            if nbgrader:
                console.print(f"round {round_number + 1}: nbgrader autograde bench ...")
                shutil.rmtree(course / "autograded", ignore_errors=True)  # else it skips them
                times.setdefault("nbgrader autograde", []).append(
                    cpu.timed("nbgrader autograde", time_nbgrader, course)
                )
            problems += check_outputs(graded, course, students, nbgrader)
            if otter:
                console.print(f"round {round_number + 1}: Otter-Grader, {args.workers} workers ...")
                seconds, scores = cpu.timed("otter grade_submission", time_otter, notebooks,
                                            autograder_zip, args.workers)  # fmt: skip
                failed, wrong = otter_failures(notebooks, scores)
                problems += wrong
                if failed:  # a round Otter did not finish is not timed (it waited on a kernel)
                    console.print(f"[yellow]round {round_number + 1}: Otter itself failed on "
                                  f"{len(failed)} notebook(s), so this round is not timed: "
                                  f"{failed[0]}[/yellow]")  # fmt: skip
                else:
                    times.setdefault("otter grade_submission", []).append(seconds)
        if otter and "otter grade_submission" not in times:
            problems.append("Otter-Grader did not finish a round: no comparison with it")
        if args.breakdown:
            console.print("re-grading in this process with stage timers ...")
            breakdown(course, root / "grades-breakdown")
            class_timeline(course, root / "grades-timeline", args.workers)
            served_states_by_function()
    console.print(f"CPU seconds of {cpu.meter}", highlight=False)
    cpu.tree.close()
    return report(args, times, nbgrader, otter, problems, cpu.seconds)


def otter_failures(notebooks: list[Path], scores: list) -> tuple[list[str], list[str]]:
    """Otter's round, read: the notebooks Otter itself failed on (a kernel that never answered:
    the round is then not timed) and the ones it graded short of full marks (a problem)."""
    failed, wrong = [], []
    for notebook, (points, possible) in zip(notebooks, scores, strict=True):
        if isinstance(possible, str):
            failed.append(f"{notebook.parents[1].name}: {possible}")
        elif possible != 10:
            wrong.append(f"Otter could not grade {notebook}: {(points, possible)}")
    return failed, wrong


class ChildrenCpu:
    """The CPU seconds (user + system) of the processes a timed run started: less disturbed by
    other work on a shared machine than the wall time. Every descendant where a cpuacct cgroup
    can be had (`TreeCpu`), else those the run waited for."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}
        self.tree = TreeCpu()
        self.meter = (
            "every process a run started (a cpuacct cgroup)"
            if self.tree.seconds() is not None
            else "the processes a run waited for (RUSAGE_CHILDREN)"
        )

    def _now(self) -> float:
        seconds = self.tree.seconds()
        return _children_cpu() if seconds is None else seconds

    def timed(self, name: str, run, *args):
        before = self._now()
        result = run(*args)
        self.seconds.setdefault(name, []).append(self._now() - before)
        return result


def report(
    args, times: dict[str, list[float]], nbgrader: bool, otter: bool, problems, cpu=None
) -> int:
    """Print each grader's fastest round, the ratios to the peers, and any problem."""
    grid = table(
        f"Grading a class of {args.n} notebooks, {args.workers} workers (fastest of "
        f"{args.rounds} alternated round(s))",
        "grader",
        "wall s",
        "s / submission",
        "submissions / s",
        "x autograder",
        "CPU s",
        "CPU x autograder",
    )
    ours = min(times["python -m autograder grade"])
    cpu = cpu or {}
    our_cpu = min(cpu.get("python -m autograder grade", [0.0]))
    for name, rounds in times.items():
        seconds, used = min(rounds), min(cpu.get(name, [0.0]))
        grid.add_row(
            name,
            f"{seconds:.1f}",
            f"{seconds / args.n:.3f}",
            f"{args.n / seconds:.2f}",
            ratio(seconds, ours),
            f"{used:.1f}",
            ratio(used, our_cpu),
        )
    console.print(grid)
    per_200 = 200 * ours / args.n
    how = "measured" if args.n == 200 else f"extrapolated linearly from {args.n}"
    console.print(f"a class of 200 ({how}): {per_200:.0f} s")
    for name in times:
        if name == EVERY_CANDIDATE:
            console.print(
                f"the chosen instances against every candidate: {min(times[name]) / ours:.2f}x "
                "faster"
            )
        if name in ("python -m autograder grade", EVERY_CANDIDATE):
            continue
        speedup = min(times[name]) / ours
        console.print(
            f"{name} / autograder wall time: {speedup:.1f}x (target: at least {TARGET}x) -> "
            + ("[green]met[/green]" if speedup >= TARGET else "[red]not met[/red]")
        )
    for peer, present, extra in (
        ("nbgrader", nbgrader, "nbgrader"),
        ("Otter-Grader", otter, "otter"),
    ):
        if not present and not getattr(args, f"skip_{extra}"):
            console.print(
                f"{peer} is not installed, so there is no comparison with it: "
                f"`{Path(sys.executable).parent}/pip install -e '.[{extra}]'` and run again"
            )
    for problem in problems:
        console.print(f"[red]problem:[/red] {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
