"""`python -m autograder grade PATH... --out DIR`: grade a class and write grades and feedback."""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from autograder import sandbox
from autograder.contest import tournament
from autograder.grading import grade as grading
from autograder.grading import pool
from autograder.grading.assignment_of import assignment_of
from autograder.grading.load import MAX_BYTES, discover, unpacking
from autograder.grading.outcomes import Terminated, refused, terminated
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES, RULE_IDS
from autograder.platforms import gradescope, lms, nbgrader_import
from autograder.reports import class_report, files, roster, similarity, terminal
from autograder.sandbox import (
    Limits,
    become_subreaper,
    build_import_view,
    jail_support,
    reap_orphans,
    start_font_cache,
)

MEMORY_FLOOR_MB = 64
"""The least --memory accepted: a submission's Python needs about 16 MiB to start, and more to
import what notebooks import; below this, every submission would fail to load."""


class _Parser(argparse.ArgumentParser):
    """Refuses bad settings in one line on stderr (exit code 2), without the usage text."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _setting(convert, what: str, allowed, why: str):
    """An argparse type: `convert` the text (naming `what` it should be if it cannot), then
    refuse it with `why` unless `allowed(value)`."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not allowed(value):
            raise argparse.ArgumentTypeError(why.format(value=text))
        return value

    return parse


def _positive(value: float) -> bool:
    return value > 0 and math.isfinite(value)


_seconds = _setting(float, "a number of seconds", _positive,
                    "{value} must be a positive number of seconds")  # fmt: skip
_megabytes = _setting(float, "a number of MiB", _positive,
                      "{value} must be a positive number of MiB")  # fmt: skip
_fraction = _setting(float, "a number", lambda v: 0 <= v <= 1, "{value} must be between 0 and 1")
_states = _setting(int, "a whole number of states", lambda v: v >= 1,
                   "{value}: a move needs at least one state")  # fmt: skip
_workers = _setting(int, "a whole number", lambda v: v >= 1,
                    "{value}: at least one worker is needed")  # fmt: skip
_memory = _setting(int, "a whole number of MiB", lambda v: v >= MEMORY_FLOOR_MB,
                   "{value} MiB is too small: a submission's Python needs at least "
                   f"{MEMORY_FLOOR_MB} MiB to start and import its modules (the default is 2048)",
                   )  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_grade(commands)
    _add_gradescope(commands)
    _add_course_tools(commands)
    tournament.add_parser(
        commands, seconds=_seconds, workers=_workers, memory=_memory, states=_states
    )
    return parser


def _add_grade(commands) -> None:
    grade = commands.add_parser("grade", help="grade notebooks and write grades and feedback")
    grade.add_argument("paths", nargs="+", type=Path, help="notebooks, .py files or folders")
    grade.add_argument("--out", type=Path, required=True, help="folder for grades and feedback")
    grade.add_argument("--workers", type=_workers, default=os.cpu_count() or 1)
    grade.add_argument(
        "--timeout", type=_seconds, default=10.0, help="seconds per graded call (x3 for loading)"
    )
    grade.add_argument(
        "--budget",
        type=_seconds,
        default=Limits().budget,
        help="seconds for all of a submission's graded calls, a third of it per function "
        f"(default {Limits().budget:g}); calls past it are skipped",
    )
    grade.add_argument(
        "--memory", type=_memory, default=2048, help=f"MiB per submission (>= {MEMORY_FLOOR_MB})"
    )
    grade.add_argument(
        "--isolation",
        choices=("auto", "jail", "process"),
        default="auto",
        help="jail: namespaces, chroot and a user per submission (root on Linux; refuse to run "
        "without); process: a plain child process; auto (default): the jail where possible",
    )
    grade.add_argument(
        "--max-size",
        type=_megabytes,
        default=MAX_BYTES / 2**20,
        help=f"MiB per notebook, refused unread above (default {MAX_BYTES // 2**20})",
    )
    grade.add_argument(
        "--similarity",
        action="store_true",
        help="also compare the submissions with each other and the reference (similarity.html "
        "and a section of class.html)",
    )
    grade.add_argument("--force", action="store_true", help="regrade unchanged submissions")
    grade.add_argument("--student", help="the student every PATH belongs to (default: its name)")
    grade.add_argument(
        "--assignment",
        choices=sorted(ASSIGNMENT_RULES),
        help="grade only this assignment's rules (and, in an nbgrader course, its folder)",
    )
    grade.add_argument(
        "--roster",
        type=roster.roster_argument,
        help="CSV of LMS id, name and e-mail: names beside the ids in every report (kept in "
        "--out for later runs and `export`)",
    )
    grade.add_argument("--quiet", action="store_true", help="no progress bar or table")
    from autograder.contest.options import add_contest_options

    add_contest_options(grade, _seconds, _states)


def _add_gradescope(commands) -> None:
    bundle = commands.add_parser("gradescope", help="build a Gradescope autograder bundle (zip)")
    bundle.add_argument("--out", type=Path, default=Path("autograder.zip"))
    bundle.add_argument(
        "--assignment",
        choices=sorted(ASSIGNMENT_RULES),
        help="grade only this assignment's rules (default: every rule)",
    )
    bundle.add_argument(
        "--details",
        choices=gradescope.DETAILS,
        default="after_published",
        help="when students see expected answers and hints (Gradescope visibility; default "
        "after_published: once the instructor publishes the grades)",
    )
    bundle.add_argument("--output-format", choices=("html", "markdown"), default="html")
    inside = commands.add_parser(
        "gradescope-run", help="grade /autograder/submission (what the bundle's script runs)"
    )
    inside.add_argument("--root", type=Path, default=Path("/autograder"))
    inside.add_argument("--assignment", choices=sorted(ASSIGNMENT_RULES))
    inside.add_argument("--details", choices=gradescope.DETAILS, default="after_published")
    inside.add_argument("--output-format", choices=("html", "markdown"), default="html")


def _add_course_tools(commands) -> None:
    """nbgrader-import, export, similarity and nbgrader-cells."""
    nbgrader_import.add_parser(commands, seconds=_seconds, workers=_workers, memory=_memory)
    lms.add_parser(commands)
    similar = commands.add_parser(
        "similarity", help="list submissions that look alike, or like the reference solutions"
    )
    similar.add_argument("paths", nargs="+", type=Path, help="notebooks, .py files or folders")
    similar.add_argument("--out", type=Path, required=True, help="folder for similarity.html")
    similar.add_argument(
        "--threshold", type=_fraction, default=0.6, help="score listed first (0 to 1)"
    )
    similar.add_argument("--assignment", choices=sorted(ASSIGNMENT_RULES))
    cells = commands.add_parser(
        "nbgrader-cells", help="list nbgrader's hidden test cells, one per rule group"
    )
    cells.add_argument("rules", nargs="*", help="rule ids (default: every rule)")
    cells.add_argument("--json", type=Path, help="write the cells, sources included, as JSON")


def main(argv: list[str] | None = None, adopt_orphans: bool = False) -> int:
    """Run the command line. `adopt_orphans` is for a process whose only children are graded
    submissions (the `python -m autograder` command): see `sandbox.become_subreaper`."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a bad setting, already explained on stderr (or --help)
        return int(stop.code or 0)
    if args.command == "gradescope":
        try:
            built = gradescope.build_bundle(
                args.out, args.assignment, args.details, args.output_format
            )
        except OSError as error:
            why = gradescope.why_not_written(args.out, error)
            print(f"{parser.prog} gradescope: error: --out {args.out} {why}", file=sys.stderr)
            return 2
        print(f"wrote {built}: upload it as the autograder")
        return 0
    if args.command == "nbgrader-cells":
        from autograder.platforms import nbgrader_export

        return nbgrader_export.cells_command(args.rules, args.json)
    if args.command == "export":
        return lms.export_command(args)
    if args.command == "nbgrader-import":
        return nbgrader_import.command(args, lambda argv: main(argv, adopt_orphans=adopt_orphans))
    if args.command == "similarity":
        return similarity.command(args)
    if args.command == "tournament":
        return tournament.command(args, adopt_orphans)
    if args.command == "gradescope-run":
        if adopt_orphans:
            become_subreaper()
        rule_ids = ASSIGNMENT_RULES[args.assignment] if args.assignment else RULE_IDS
        results = gradescope.run_in_gradescope(
            args.root, None, rule_ids, args.details, args.output_format
        )
        print(f"score {results['score']:g}")
        return 0
    why = refused(args)
    if why:
        print(f"{parser.prog} grade: error: {why}", file=sys.stderr)
        return 2
    with unpacking(args.paths) as unpack:
        return _grade_command(args, parser.prog, adopt_orphans, unpack)


def _grade_command(args, prog: str, adopt_orphans: bool, unpack: Path | None) -> int:
    console = Console(quiet=args.quiet, width=None if sys.stdout.isatty() else 140)
    found = discover(args.paths, args.assignment, unpack, args.student)
    if args.assignment is None:  # a lone notebook is graded on its own assignment's rules
        args.assignment, note = assignment_of(args.paths, found.submissions)
        if note:
            console.print(note, highlight=False)
    for path, reason in found.skipped:
        console.print(
            f"[yellow]skipped[/yellow] {terminal.plain_text(str(path))}: "
            f"{terminal.plain_text(reason)}"
        )
    if not found.submissions:
        print(
            f"{prog} grade: error: no submissions found: give notebooks, .py files or "
            "folders of them",
            file=sys.stderr,
        )
        return 2
    load_timeout = max(10.0, 3 * args.timeout)  # importing plotting libraries takes seconds
    limits = Limits(
        timeout=args.timeout,
        load_timeout=load_timeout,
        memory_mb=args.memory,
        isolation=args.isolation,
        budget=args.budget,
    )
    jailed, how = jail_support() if args.isolation != "process" else (False, "--isolation process")
    if args.isolation == "jail" and not jailed:
        console.print(f"[red]--isolation jail[/red]: the jail cannot be used here: {how}")
        return 2
    console.print(
        f"isolation: {'jail (' + how + ')' if jailed else 'process only (' + how + ')'}",
        highlight=False,
    )
    if adopt_orphans:
        become_subreaper()
    sandbox.start_run()
    sandbox.sweep()  # what a killed earlier run left: its cgroups and scratch folders
    previous_term = signal.signal(signal.SIGTERM, terminated)
    try:
        return _grade_run(args, found, limits, jailed, console)
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        sandbox.sweep(only_this_run=True)  # every cgroup this run made, its processes killed


def _grade_run(args, found, limits: Limits, jailed: bool, console: Console) -> int:
    scratch_prefix = f"autograder-run-{os.getpid()}-"
    try:
        lock = files.OutputLock(args.out)
    except OSError as error:  # what `refused` cannot see coming: a full disk, a long name
        print(f"python -m autograder grade: error: --out {args.out} cannot be used: "
              f"{error.strerror or error}", file=sys.stderr)  # fmt: skip
        return 2
    with lock, tempfile.TemporaryDirectory(prefix=scratch_prefix) as scratch:
        files.remove_temporary_files(args.out)
        known = files.saved_students(args.out)  # before any submission runs
        similar = (
            similarity.SimilarPairs(
                args.out, similarity.class_submissions(args.out, known, found.submissions)
            )
            if args.similarity
            else None
        )
        isolation = "jail" if jailed else "process"
        students = roster.class_roster(args.out, args.roster)
        names = roster.roster_names(students)
        try:
            records = run(found.submissions, args, limits, Path(scratch), console, isolation)
            records = files.whole_class(args.out, known, records)
            try:
                files.write_atomically(args.out / "grades.csv", files.grades_csv(records, names))
                summary = class_report.write_class_files(args.out, records, similar, names)
            except OSError as error:
                console.print(f"[red]grades.csv could not be written[/red]: {error}")
                return 1
        finally:
            if similar is not None:
                similar.close()  # an interrupted run leaves no comparison running
    reap_orphans()
    console.print(terminal.terminal_table(records, names=names))
    for line in terminal.closing_lines(summary, args.out):
        console.print(line, highlight=False)
    unknown = sorted(r.student for r in records if students and r.student not in students)
    if unknown:
        ids = ", ".join(map(terminal.plain_text, unknown))
        console.print(f"not in the roster (check their ids): {ids}", highlight=False)
    console.print(
        f"grades: {args.out / 'grades.csv'}; feedback: {args.out}/<student>/feedback.html"
    )
    return 0


def run(
    submissions, args, limits: Limits, scratch: Path, console: Console, isolation: str = "process"
) -> list[GradeRecord]:
    """Grade every submission (reusing unchanged results) and return their records."""
    rule_ids = ASSIGNMENT_RULES[args.assignment] if args.assignment else RULE_IDS
    move, states = getattr(args, "move_seconds", None), getattr(args, "move_states", None)
    course = getattr(args, "course_seed", None)
    stamp = files.grading_stamp(rule_ids, isolation, limits, args.max_size, move, states, course)
    fonts = start_font_cache(scratch)  # in a process of its own, while the answers are computed
    grading.warm_up()
    view = build_import_view(scratch, fonts)
    settings = grading.Settings(
        limits, view, rule_ids, int(args.max_size * 2**20), move, states, course
    )
    records: dict[str, GradeRecord] = {}
    pending = list(submissions)
    if not args.force:
        records, pending = files.unchanged_records(args.out, pending, stamp, settings.max_bytes)
    if len(records):
        console.print(
            f"{len(records)} unchanged submission(s) already graded (use --force to regrade)"
        )
    columns = (TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("grading", total=len(pending))

        def finished(record: GradeRecord, page: str) -> None:
            try:
                files.save_student(args.out, record, stamp, page)
            except OSError as error:
                status = f"graded, but its results could not be saved: {error}"
                record = replace(record, status=status)
            records[record.student] = record
            progress.advance(task)

        try:
            if args.workers == 1:
                for item in pending:
                    finished(*pool.grade_one(item, settings))
            else:
                pool.grade_in_workers(pending, settings, args.workers, finished)
        except (KeyboardInterrupt, Terminated) as stop:
            console.print("interrupted: the students finished so far keep their results")
            files.write_atomically(
                args.out / "grades.csv", files.grades_csv(list(records.values()))
            )
            raise SystemExit(143 if isinstance(stop, Terminated) else 130) from None
    return list(records.values())


if __name__ == "__main__":
    sys.exit(main(adopt_orphans=True))
