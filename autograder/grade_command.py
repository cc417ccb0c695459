"""`python -m autograder grade`: grade a class, write its files, print its table.

Imported by `cli.py` only when the command is `grade`, with every module it needs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from autograder import sandbox
from autograder.grading import grade as grading
from autograder.grading import pool
from autograder.grading.assignment_of import assignment_of
from autograder.grading.load import discover
from autograder.grading.outcomes import Terminated, terminated
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES, RULE_IDS
from autograder.reports import class_report, files, ownership, roster, similarity, terminal
from autograder.sandbox import (
    Limits,
    become_subreaper,
    build_import_view,
    jail_support,
    reap_orphans,
    start_font_cache,
)

Scratch = tuple[Path, "Beside"]
"""A run's scratch folder, and its import view being built there (`sandbox.build_import_view`,
which waits for matplotlib's font cache to be copied beside it)."""


def command(args, prog: str, adopt_orphans: bool, unpack: Path | None) -> int:
    """Grade the class `args` names (its archives unpacked in `unpack`); the exit code."""
    # A folder that cannot be emptied (a stop while the view is being built) is left to the
    # next run's sweep, rather than raise over the run's own outcome.
    with tempfile.TemporaryDirectory(
        prefix=f"autograder-run-{os.getpid()}-", ignore_cleanup_errors=True
    ) as scratch:
        # Copying matplotlib's font cache for the submissions takes a process of its own half a
        # second (importing matplotlib) unless the cache is fresh: started first, it is ready
        # when the workers start.
        fonts = start_font_cache(Path(scratch))
        # The import view (file system calls, a few hundred links) is built in a thread from
        # the start, beside finding the submissions, the jail's probe and the answers.
        view = Beside(_view_for, Path(scratch), fonts, args.isolation)
        view.start()
        try:
            return _graded(args, prog, adopt_orphans, unpack, (Path(scratch), view))
        except (KeyboardInterrupt, Terminated) as stop:  # outside the grading, which says so
            print(f"{prog} grade: interrupted; every student graded before keeps her results",
                  file=sys.stderr)  # fmt: skip
            return 143 if isinstance(stop, Terminated) else 130
        finally:
            if fonts.poll() is None:  # a run that stopped before the view was built
                fonts.kill()
            with contextlib.suppress(Exception):  # else raised where the run needed the view
                view.result()  # done before its folder is removed
            fonts.wait()


def _view_for(scratch: Path, fonts, isolation: str) -> Path:
    """The run's import view: for jailed submissions only (no links to make) when they will
    be jailed, else the linked one."""
    jailed = isolation != "process" and jail_support()[0]
    return build_import_view(scratch, fonts, jailed=jailed)


def _graded(args, prog: str, adopt_orphans: bool, unpack, scratch: Scratch) -> int:
    """`command` in its scratch folder, with the import view being built (`scratch`)."""
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
    # The reference answers take a CPU for a tenth of a second or more; computed beside the
    # jail's probe (a process of its own), the sweep and the import view (file system calls),
    # they no longer add to the wait before the workers start.
    answers = Beside(
        grading.warm_up, ASSIGNMENT_RULES[args.assignment] if args.assignment else RULE_IDS
    )
    answers.start()
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
        return run_and_report(args, found, limits, jailed, console, scratch, answers)
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        sandbox.sweep(only_this_run=True)  # every cgroup this run made, its processes killed


class Beside(threading.Thread):
    """`function(*args)` run in a thread while the run gets ready (the reference answers, the
    import view); `result()` waits for it, then returns its value or raises its error. Every
    one is waited for before a worker is forked: no thread is left running at a fork."""

    def __init__(self, function, *args) -> None:
        super().__init__(name=function.__name__, daemon=True)  # a refused run does not wait
        self.function, self.args = function, args
        self.value = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.function(*self.args)
        except BaseException as error:  # noqa: BLE001 - raised again in the waiting thread
            self.error = error

    def result(self):
        self.join()
        if self.error is not None:
            raise self.error
        return self.value


def run_and_report(
    args,
    found,
    limits: Limits,
    jailed: bool,
    console: Console,
    scratch: Scratch,
    answers: Beside | None = None,
) -> int:
    """Grade what was found (in the scratch folder, with the import view being built there:
    `scratch` is both; the reference answers being computed: `answers`), then write the class
    files and print the table."""
    try:
        lock = files.OutputLock(args.out)
    except OSError as error:  # what `refused` cannot see coming: a full disk, a long name
        print(f"python -m autograder grade: error: --out {args.out} cannot be used: "
              f"{error.strerror or error}", file=sys.stderr)  # fmt: skip
        return 2
    with lock:
        files.remove_temporary_files(args.out)
        known = files.saved_students(args.out)  # before any submission runs
        submissions = _given(args, found.submissions, known, console)
        similar = (
            similarity.SimilarPairs(
                args.out,
                similarity.class_submissions(args.out, known, submissions),
                similarity.assignment_limits(args.assignment),
            )
            if args.similarity
            else None
        )
        isolation = "jail" if jailed else "process"
        students = roster.class_roster(args.out, args.roster)
        names = roster.roster_names(students)
        try:
            graded = run(submissions, args, limits, scratch, console, isolation, answers)
            _remember_places(args.out, submissions, graded, console)
            records = files.whole_class(args.out, known, graded)
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
    if not console.quiet:  # rich renders a table even to a quiet console: a tenth of a second
        _print_results(console, graded, records, summary, students, names, args.out)
    return 0


def _print_results(console: Console, graded, records, summary, students, names, out) -> None:
    """The grade table and the closing lines, printed after a run that was not --quiet."""
    lone = len(graded) == 1  # one notebook graded alone: report it, not the folder's class
    console.print(terminal.terminal_table(graded if lone else records, names=names))
    if lone:
        lines = terminal.lone_lines(graded[0], len(records) - 1, out)
    else:
        lines = terminal.closing_lines(summary, out)
    for line in lines:
        console.print(line, highlight=False)
    unknown = sorted(r.student for r in records if students and r.student not in students)
    if unknown:
        ids = ", ".join(map(terminal.plain_text, unknown))
        console.print(f"not in the roster (check their ids): {ids}", highlight=False)
    console.print(terminal.where_lines(graded, out), highlight=False, soft_wrap=True)


def _given(args, submissions: list, known: set[str], console: Console) -> list:
    """The submissions to grade: all of them with `--force`; else every one but those of saved
    students this run was not given (`reports.ownership`), which keep their results."""
    if args.force:
        return list(submissions)
    left = ownership.not_given(args.out, submissions, known, args.paths, args.student)
    for student, why in sorted(left.items()):
        console.print(
            f"[yellow]left as saved[/yellow] {terminal.plain_text(student)}: "
            f"{terminal.plain_text(why)}; give her file or folder alone, or --student, or "
            "use --force to grade this one as her",
            highlight=False,
        )
    return [submission for submission in submissions if submission.student not in left]


def _remember_places(out: Path, submissions: list, graded: list, console: Console) -> None:
    """Where each student this run saved was found (`reports.ownership`); if it cannot be
    written, the grades stand and the run says so."""
    saved = {record.student for record in graded}
    try:
        ownership.remember_places(out, [s for s in submissions if s.student in saved])
    except OSError as error:
        console.print(f"[yellow]{ownership.PLACES} could not be written[/yellow]: {error}")


def run(
    submissions,
    args,
    limits: Limits,
    scratch: Scratch,
    console: Console,
    isolation: str = "process",
    answers: Beside | None = None,
) -> list[GradeRecord]:
    """Grade every submission (reusing unchanged results) and return their records. `scratch`
    is the run's scratch folder and its import view being built there; `answers`, the
    reference answers being computed (else they are computed here)."""

    rule_ids = ASSIGNMENT_RULES[args.assignment] if args.assignment else RULE_IDS
    move, states = getattr(args, "move_seconds", None), getattr(args, "move_states", None)
    course = getattr(args, "course_seed", None)
    stamp = files.grading_stamp(rule_ids, isolation, limits, args.max_size, move, states, course)
    view = scratch[1].result()  # the thread has ended (and waited for the font cache)
    if answers is None:
        grading.warm_up(rule_ids)
    else:
        answers.result()  # in this process, thread ended: the workers fork with the answers
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
