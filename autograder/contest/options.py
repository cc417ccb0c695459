"""The grade command's options for Assignment 5, which `cli.py` adds to its parser."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from autograder.contest.opponents import DEFAULT_SECONDS, DEFAULT_STATES
from autograder.contest.positions import COURSE_SEED_VARIABLE


def add_contest_options(
    grade: argparse.ArgumentParser, seconds: Callable, states: Callable
) -> None:
    """`--move-states`, `--move-seconds` and `--course-seed`; `seconds` and `states` are
    cli.py's argparse types."""
    grade.add_argument(
        "--move-states",
        type=states,
        help=f"connect_four: states a move may generate through game.result (default "
        f"{DEFAULT_STATES:,})",
    )
    grade.add_argument(
        "--move-seconds",
        type=seconds,
        help=f"connect_four: CPU seconds a move may use, sleep included (default "
        f"{DEFAULT_SECONDS:g})",
    )
    grade.add_argument(
        "--course-seed",
        type=int,
        help="connect_four: the seed that draws this term's suite of positions from the frozen "
        f"pool (default: ${COURSE_SEED_VARIABLE}, else the first term's suite); a new seed each "
        "term keeps one term's answers from the next",
    )
