"""Assignment 5's grades do not depend on the machine's load (issue 26).

The example class's agents (see examples/README.md: the reference, which deepens until its
budget of states is spent, two fixed-depth searches, a greedy one, an agent with its own evaluation
of `game.board` that draws equal moves at random, a random one and one stuck in a loop) are
graded twice by `python -m autograder grade --assignment connect_four` at a small allowance, both
runs at once and beside a third run of the same agents at the grading's allowance (all three
with two workers: `tests/graded_agents.py`, whose long run `test_contest_grades.py` and
`test_contest_kernel.py` read). Each short run competes for the two cores with the other's
workers and the long run's, the whole time, and never in the same way. Both must give every
agent the very same games, verdicts and points: no rule reads the wall clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_class import make_class
from graded_agents import GROUP, SMALL_ALLOWANCE, STOPPED_EVERYWHERE, ContestRuns, contest_runs

pytestmark = pytest.mark.slow


def _agents() -> list[str]:
    return sorted(make_class.AGENTS)


def _graded(out: Path, students: list[str]) -> dict[str, dict]:
    """Each student's record as saved, without what may differ between runs: how long it took."""
    records = {}
    for student in students:
        saved = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        record = saved["extra_data"]["record"]
        records[student] = {key: value for key, value in record.items() if key != "seconds"}
    return records


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> ContestRuns:
    return contest_runs(tmp_path_factory)


@pytest.mark.xdist_group(GROUP)
def test_the_example_agents_get_the_same_games_and_grades_on_a_busy_machine(
    runs: ContestRuns,
) -> None:
    students = _agents()
    assert all(runs.beside_the_grading_run)  # the long run went on to each short run's end
    graded = [((out / "grades.csv").read_text(), _graded(out, students)) for out in runs.small]
    assert graded[0] == graded[1]  # any difference between two runs under load fails the test
    grades, records = graded[0]
    scores = {student: record["score"] for student, record in records.items()}
    assert scores["alice_correct"] == max(scores.values()) and scores[STOPPED_EVERYWHERE] == 0
    seconds = SMALL_ALLOWANCE[SMALL_ALLOWANCE.index("--move-seconds") + 1]
    assert f"it used more than {seconds} s of CPU time" in json.dumps(records[STOPPED_EVERYWHERE])
    assert grades.count("\n") == len(students) + 1
