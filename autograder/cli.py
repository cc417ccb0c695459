"""`python -m autograder grade PATH... --out DIR`: grade a class and write grades and feedback."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import NoReturn

# Every job is imported by the command that runs it, not here: `python -m autograder grade`
# then never pays for nbformat, the tournament or copy detection (see tests/test_startup.py).

COMMANDS = (
    "grade",
    "gradescope",
    "gradescope-run",
    "gradescope-try",
    "nbgrader-import",
    "export",
    "similarity",
    "nbgrader-cells",
    "tournament",
)
"""The subcommands, in the order `--help` lists them."""

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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line (the CLI reference is generated from it); with `only`, one of
    `COMMANDS`, just that command's arguments: a run imports its own command's modules only."""
    parser = _Parser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    adders = (
        (("grade",), _add_grade),
        (("gradescope", "gradescope-run", "gradescope-try"), _add_gradescope),
        (("nbgrader-import",), _add_nbgrader_import),
        (("export",), _add_export),
        (("similarity", "nbgrader-cells"), _add_similarity_and_cells),
        (("tournament",), _add_tournament),
    )
    for names, add in adders:
        if only is None or only in names:
            add(commands)
    return parser


def _add_grade(commands) -> None:
    from autograder.grading.load import MAX_BYTES
    from autograder.grading.rules import ASSIGNMENT_RULES
    from autograder.reports import roster
    from autograder.sandbox import Limits

    grade = commands.add_parser("grade", help="grade notebooks and write grades and feedback")
    grade.add_argument("paths", nargs="+", type=Path, help="notebooks, .py files or folders")
    grade.add_argument("--out", type=Path, required=True, help="folder for grades and feedback")
    grade.add_argument("--workers", type=_workers, default=os.cpu_count() or 1)
    grade.add_argument(
        "--timeout",
        type=_seconds,
        default=10.0,
        help="seconds of its own time per graded call (x3 for loading)",
    )
    grade.add_argument(
        "--budget",
        type=_seconds,
        default=Limits().budget,
        help="seconds of its own time for all of a submission's graded calls, a third of it "
        f"per function (default {Limits().budget:g}); calls past it are skipped",
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
    from autograder.platforms import gradescope

    gradescope.add_parsers(commands)


def _add_nbgrader_import(commands) -> None:
    from autograder.platforms import nbgrader_import

    nbgrader_import.add_parser(commands, seconds=_seconds, workers=_workers, memory=_memory)


def _add_export(commands) -> None:
    from autograder.platforms import lms

    lms.add_parser(commands)


def _add_tournament(commands) -> None:
    from autograder.contest import tournament

    tournament.add_parser(
        commands, seconds=_seconds, workers=_workers, memory=_memory, states=_states
    )


def _add_similarity_and_cells(commands) -> None:
    from autograder.grading.rules import ASSIGNMENT_RULES

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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a bad setting, already explained on stderr (or --help)
        return int(stop.code or 0)
    if args.command != "grade":
        return _other_command(args, parser.prog, adopt_orphans)
    from autograder.grading.load import unpacking
    from autograder.grading.outcomes import refused

    why = refused(args)
    if why:
        print(f"{parser.prog} grade: error: {why}", file=sys.stderr)
        return 2
    from autograder import grade_command

    with unpacking(args.paths) as unpack:
        return grade_command.command(args, parser.prog, adopt_orphans, unpack)


def _other_command(args: argparse.Namespace, prog: str, adopt_orphans: bool) -> int:
    """Every command but `grade`, each importing its own job."""
    if args.command == "gradescope":
        from autograder.platforms import gradescope

        try:
            built = gradescope.build_bundle(
                args.out, args.assignment, args.details, args.output_format, args.course_seed
            )
        except ValueError as error:  # the course seed's variable is no whole number
            print(f"{prog} gradescope: error: {error}", file=sys.stderr)
            return 2
        except OSError as error:
            why = gradescope.why_not_written(args.out, error)
            print(f"{prog} gradescope: error: --out {args.out} {why}", file=sys.stderr)
            return 2
        print(f"wrote {built}: upload it as the autograder")
        return 0
    if args.command == "nbgrader-cells":
        from autograder.platforms import nbgrader_export

        return nbgrader_export.cells_command(args.rules, args.json)
    if args.command == "export":
        from autograder.platforms import lms

        return lms.export_command(args)
    if args.command == "nbgrader-import":
        from autograder.platforms import nbgrader_import

        return nbgrader_import.command(args, lambda argv: main(argv, adopt_orphans=adopt_orphans))
    if args.command == "similarity":
        from autograder.reports import similarity

        return similarity.command(args)
    if args.command == "gradescope-try":
        from autograder.platforms import gradescope

        return gradescope.try_command(args)
    if args.command == "tournament":
        from autograder.contest import tournament

        return tournament.command(args, adopt_orphans)
    from autograder.grading.rules import ASSIGNMENT_RULES, RULE_IDS
    from autograder.platforms import gradescope
    from autograder.sandbox import become_subreaper

    if adopt_orphans:  # gradescope-run
        become_subreaper()
    rule_ids = ASSIGNMENT_RULES[args.assignment] if args.assignment else RULE_IDS
    results = gradescope.run_in_gradescope(
        args.root, None, rule_ids, args.details, args.output_format, args.course_seed
    )
    print(f"score {results['score']:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(adopt_orphans=True))
