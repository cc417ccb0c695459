"""Sandbox overhead: the time to grade an empty submission, against a full one and a bare Python.

Three things are timed N times each in one run, one after the other on one core:

- a bare `python -I -S -c pass`: the floor any process-per-submission grader pays;
- an empty submission (a .py holding `pass`): start the sandboxed process, load the cells,
  find no function and total the points: the fixed cost of the sandbox per submission (as a
  fresh interpreter, and, where the jail can be had, jailed: forked from the zygote);
- the reference submission (`autograder.grading.reference.reference_source()` written to a
  .py): every graded call, every state generated served over the pipe: a correct student's full
  cost.

The reference answers are computed once before timing (`grade.warm_up`), as the command line
does once per run, and shown separately.

    python benchmarks/bench_sandbox.py [--n 20]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import StageTimer, console, machine, ratio, table

from autograder.grading import grade as grading
from autograder.grading.load import Submission, load
from autograder.grading.records import GradeRecord
from autograder.grading.reference import reference_source
from autograder.sandbox import Limits, StudentProcess, build_import_view, jail_support


@dataclass
class Runs:
    """Wall time of each run, and the CPU time used in all of them: here and in children."""

    seconds: list[float]
    grader_cpu: float
    child_cpu: float


def time_runs(n: int, run) -> Runs:
    """Time `n` calls of `run()`; the children's CPU counts the processes they waited for."""
    times = []
    cpu, children = time.process_time(), _children_cpu()
    for _ in range(n):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return Runs(times, time.process_time() - cpu, _children_cpu() - children)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bare_python() -> None:
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)


def grader_for(path: Path, settings: grading.Settings):
    """A function grading the submission in `path` from scratch (reading included)."""
    submission = Submission(path.stem, (path,))

    def run() -> GradeRecord:
        record = grading.grade(submission, load(submission), settings)
        # An empty submission is graded with a status saying it defines no function; only a
        # submission that did not load (or broke the grader) would make the timing meaningless.
        if record.status.startswith(("could not load", "the grader failed")):
            raise SystemExit(f"{path.name} could not be graded: {record.status}")
        return record

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="gradings of each submission")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n must be at least 1")

    console.print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as scratch:
        root = Path(scratch)
        empty, reference = root / "empty.py", root / "reference.py"
        empty.write_text("pass\n")
        reference.write_text(reference_source())
        started = time.perf_counter()
        # A plain process: the CPU of a jailed submission runs in a process the grader never
        # waits for (it is killed with its namespace), so it would not be counted. The jail's
        # own cost is the extra row "empty submission, jailed".
        settings = grading.Settings(Limits(isolation="process"), build_import_view(root))
        view_seconds = time.perf_counter() - started
        started = time.perf_counter()
        grading.warm_up()
        warm_up_seconds = time.perf_counter() - started

        reference_record = grader_for(reference, settings)()  # first run: imports, caches
        if reference_record.score != reference_record.max_score:
            raise SystemExit(f"the reference scored {reference_record.score}, not full marks")
        console.print(f"timing {args.n} runs of each, one at a time ...")
        rows = {
            "bare python -I -S -c pass": time_runs(args.n, bare_python),
            "empty submission (pass)": time_runs(args.n, grader_for(empty, settings)),
        }
        if jail_support()[0]:
            jailed = grading.Settings(Limits(isolation="jail"), settings.view)
            rows["empty submission, jailed"] = time_runs(args.n, grader_for(empty, jailed))
        stages = StageTimer()
        stages.watch(StudentProcess, "start", "start")
        stages.watch(StudentProcess, "call", "call")
        try:
            rows["reference submission"] = time_runs(args.n, grader_for(reference, settings))
        finally:
            stages.restore()

    grid = table(
        f"Grading one submission ({args.n} runs each, one at a time)",
        "what",
        "mean s",
        "median s",
        "min s",
        "per second",
        "grader CPU s",
        "student CPU s",
    )
    for name, runs in rows.items():
        mean = statistics.fmean(runs.seconds)
        grid.add_row(
            name,
            f"{mean:.3f}",
            f"{statistics.median(runs.seconds):.3f}",
            f"{min(runs.seconds):.3f}",
            f"{1 / mean:.1f}",
            f"{runs.grader_cpu / args.n:.3f}",
            f"{runs.child_cpu / args.n:.3f}",
        )
    console.print(grid)
    console.print(
        "(CPU per run; grader CPU is this process; student CPU is the sandboxed processes, "
        "uncounted when jailed)"
    )

    means = {name: statistics.fmean(runs.seconds) for name, runs in rows.items()}
    bare, empty_mean = means["bare python -I -S -c pass"], means["empty submission (pass)"]
    full = means["reference submission"]
    if "empty submission, jailed" in means:
        jailed = means["empty submission, jailed"]
        console.print(
            f"jailed / plain empty submission: {ratio(jailed, empty_mean)} (a jailed process is "
            "forked from the zygote, which has already started Python and imported; a plain one "
            "starts a fresh interpreter)"
        )
    console.print(
        f"empty submission / bare python: {ratio(empty_mean, bare)}; "
        f"reference / empty submission: {ratio(full, empty_mean)}; "
        f"sandbox overhead per submission: {empty_mean:.3f} s "
        f"({100 * empty_mean / full:.0f}% of a correct submission's {full:.2f} s)"
    )
    per, calls, states = args.n, stages.calls["call"], stages.states["call"]
    console.print(
        f"where a reference submission's {full:.2f} s go: starting the process and running its "
        f"cells {stages.seconds['start'] / per:.3f} s; {calls / per:.0f} graded calls "
        f"{stages.seconds['call'] / per:.2f} s, serving {states / per:,.0f} states over the "
        f"pipe ({1e6 * stages.seconds['call'] / max(states, 1):.0f} us per state, "
        "one round trip each); the rest is judging and totalling"
    )
    console.print(
        f"once per run, not per submission: import view {view_seconds:.2f} s (with "
        "matplotlib's font cache, copied by a process of its own), "
        f"reference answers (warm_up) {warm_up_seconds:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
