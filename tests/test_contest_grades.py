"""Assignment 5's grades order the example agents as their games do (issue 26).

A stronger agent head to head must not be graded lower: dan (bob's three-ply search, one ply
deeper) beats bob over the eight openings with both colours, and is graded above him, though
the rules that paid all or nothing over two games a level graded him 5 points below. The
example class's agents are graded at the grading's allowance and must get the grades
`examples/make_class.py` states (`CONTEST_GRADES`, written into examples/README.md): that run is
`tests/graded_agents.py`'s, shared with `test_contest_kernel.py` and `test_contest_load.py`.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from example_class import make_class
from graded_agents import GROUP, STOPPED_EVERYWHERE, contest_runs, record

from autograder.contest.referee import OPENINGS, Allowance, FunctionPlayer, play_game
from games import MAX, MIN, OutOfStates

ROOT = Path(__file__).resolve().parents[1]


MAKE_CLASS = make_class


def _agent(student: str):
    """The student's `connect_four_agent`, defined as the notebook's cells define it."""
    namespace = {"math": math, "random": random, "MAX": MAX, "MIN": MIN}
    namespace["OutOfStates"] = OutOfStates
    exec(compile(MAKE_CLASS.AGENTS[student], student, "exec"), namespace)
    return namespace["connect_four_agent"]


def _head_to_head(one: str, other: str, allowance: Allowance) -> float:
    """`one`'s points against `other` (a win 1, a draw 1/2), each opening from both sides."""
    first, second = FunctionPlayer(one, _agent(one)), FunctionPlayer(other, _agent(other))
    points = 0.0
    for opening in OPENINGS:
        for side in (0, 1):
            players = (first, second) if side == 0 else (second, first)
            played = play_game(*players, opening, allowance)
            assert not any(move.note for move in played.moves), played.moves  # none forfeited
            points += played.score(side)
    return points


def test_an_agent_stronger_head_to_head_is_graded_higher() -> None:
    # fixed-depth searches: the allowance only has to hold their states (dan's stay under 2,000)
    points = _head_to_head("dan_strict_cutoff", "bob_last_ties", Allowance(2000, seconds=3.0))
    assert points == 13 and points > len(OPENINGS)  # of 16: dan is the stronger
    grades = MAKE_CLASS.CONTEST_GRADES
    assert grades["dan_strict_cutoff"] > grades["bob_last_ties"]


def test_the_example_class_expects_a_grade_of_every_agent() -> None:
    assert set(MAKE_CLASS.CONTEST_GRADES) == set(MAKE_CLASS.AGENTS)
    readme = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    for student, grade in MAKE_CLASS.CONTEST_GRADES.items():
        assert f"| `{student}` | {grade:g} |" in readme


@pytest.fixture(scope="module")
def agents_graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return contest_runs(tmp_path_factory).grading


@pytest.mark.slow
@pytest.mark.xdist_group(GROUP)
def test_the_example_agents_get_their_stated_grades_at_the_grading_allowance(
    agents_graded: Path,
) -> None:
    # trent's 0 is checked in the short runs, at any allowance the same (STOPPED_EVERYWHERE)
    stated = {s: g for s, g in MAKE_CLASS.CONTEST_GRADES.items() if s != STOPPED_EVERYWHERE}
    graded = sorted(path.name for path in agents_graded.iterdir() if path.is_dir())
    assert graded == sorted(stated)
    assert {student: record(agents_graded, student)["score"] for student in stated} == stated
