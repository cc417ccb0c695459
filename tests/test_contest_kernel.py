"""Assignment 5's hidden tests in the notebook's kernel give the points the sandboxed grader gives.

The cells come from `nbgrader_export.hidden_test_cells`, run after the grading helpers' cell in a
fresh namespace, as nbgrader runs a notebook; the same agent source is graded by
`autograder.grading.grade` in the sandbox, and every cell must pass exactly when its group earns
full points there.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import inspect
import itertools
import json
import subprocess
import sys
import textwrap
from dataclasses import replace
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

import pytest

import solutions.agent
from autograder.contest import grade as contest_grade
from autograder.contest import opponents
from autograder.contest.referee import GRACE, LEVELS, RandomPlayer, play_game
from autograder.contest.student_agent import StudentAgent
from autograder.grading.grade import Settings, grade
from autograder.grading.load import Submission, load
from autograder.grading.rules import PLAYED_RULE_IDS
from autograder.platforms import contest_checks, nbgrader_export
from autograder.platforms.contest_checks import KernelAgent
from autograder.sandbox import Limits, build_import_view
from games import ConnectFour
from solutions.connect_four import ConnectFourSolver

GAME = ConnectFour()
LIMITS = Limits(load_timeout=20)

FIXED_DEPTH = """
import math

ORDER = (4, 3, 5, 2, 6, 1, 7)


def value(game, state, depth, alpha, beta):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return game.evaluate(state)
    maximising = game.to_move(state) == "MAX"
    best = -math.inf if maximising else math.inf
    for column in sorted(game.actions(state), key=ORDER.index):
        child = value(game, game.result(state, column), depth - 1, alpha, beta)
        best = max(best, child) if maximising else min(best, child)
        if maximising:
            alpha = max(alpha, best)
        else:
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best


def connect_four_agent(game, state, seconds):
    sign = 1 if game.to_move(state) == "MAX" else -1
    columns = sorted(game.actions(state), key=ORDER.index)
    values = [value(game, game.result(state, c), 2, -math.inf, math.inf) for c in columns]
    return max(zip(columns, values), key=lambda pair: sign * pair[1])[0]
"""

SEEDED_RANDOM = """
import random

CHOICES = random.Random(2024)


def connect_four_agent(game, state, seconds):
    return CHOICES.choice(game.actions(state))
"""

RAISES = """
def connect_four_agent(game, state, seconds):
    raise ValueError("no idea")
"""

RETURNS_TRUE = """
def connect_four_agent(game, state, seconds):
    return True
"""

RETURNS_A_FLOAT = """
def connect_four_agent(game, state, seconds):
    return 4.0
"""

LOOPS = """
def connect_four_agent(game, state, seconds):
    while True:
        pass
"""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def run_cells(agent_source: str | None, seconds: float | None = None) -> dict[str, str]:
    """Run the hidden cells after `agent_source` in a fresh namespace, as nbgrader does: each
    cell's grade id -> "" if it passed, else its AssertionError's message."""
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    if agent_source is not None:
        exec(textwrap.dedent(agent_source), namespace)
    failures = {}
    # A kernel nbgrader starts is fresh; this test process holds every earlier test's objects,
    # and a full collection of them in the middle of a move (100 ms and more) would time the
    # agent on pytest's heap. Frozen, they are never scanned; what the games make still is.
    gc.collect()
    gc.freeze()
    try:
        for cell in nbgrader_export.hidden_test_cells(PLAYED_RULE_IDS, move_seconds=seconds):
            try:
                exec(cell.source, namespace)
            except AssertionError as failure:
                failures[cell.grade_id] = str(failure) or "failed"
            else:
                failures[cell.grade_id] = ""
    finally:
        gc.unfreeze()
    return failures


def sandbox_full(agent_source: str, seconds: float | None, view: Path, folder: Path) -> dict:
    """Grade `agent_source` with the grader: each group's grade id -> whether it earned it all."""
    path = folder / "agent.py"
    path.write_text(textwrap.dedent(agent_source), encoding="utf-8")
    submission = Submission("student", (path,))
    settings = Settings(LIMITS, view, rule_ids=PLAYED_RULE_IDS, move_seconds=seconds)
    record = grade(submission, load(submission), settings)
    return {
        f"{rule.id}__{nbgrader_export.slug(group.name)}": group.full
        for rule in record.rules
        for group in rule.groups
    }


# --- Parity with the sandbox -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "seconds"),
    [
        (FIXED_DEPTH, None),  # the grader's thinking time, as the notebook's cells use
        (SEEDED_RANDOM, 0.05),
        (RAISES, 0.05),
        (RETURNS_TRUE, 0.05),
    ],
    ids=["fixed_depth", "seeded_random", "raises", "returns_true"],
)
def test_each_cell_passes_exactly_when_the_grader_gives_its_group_full_points(
    agent: str, seconds: float | None, view: Path, tmp_path: Path
) -> None:
    kernel = {grade_id: not failure for grade_id, failure in run_cells(agent, seconds).items()}
    assert kernel == sandbox_full(agent, seconds, view, tmp_path)


def test_the_reference_agent_earns_every_point_in_the_kernel_as_in_the_sandbox(
    view: Path, tmp_path: Path
) -> None:
    """At the grader's thinking time: at 0.1 s a busy machine can make the sandbox's round trips
    late, and the reference forfeit a move there."""
    reference = inspect.getsource(solutions.agent)
    failures = run_cells(reference)
    summary = dict(nbgrader_export.grading_summary(PLAYED_RULE_IDS))
    assert list(failures) == list(summary) and sum(summary.values()) == 100
    assert not any(failures.values()), failures
    assert all(sandbox_full(reference, None, view, tmp_path).values())


# --- Agents that lose ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "why"),
    [
        (RAISES, "crashed: ValueError: no idea"),
        (RETURNS_TRUE, "returned True, not a legal column"),
        (RETURNS_A_FLOAT, "returned 4.0, not a legal column"),
    ],
    ids=["raises", "returns_true", "returns_a_float"],
)
def test_an_agent_that_raises_or_answers_no_column_loses_every_game(agent: str, why: str) -> None:
    failures = run_cells(agent, 0.05)
    assert all(failures.values()), failures
    assert why in failures["agent_beats_random__random"]
    assert why in failures["agent_moves_in_time__legal_moves_in_time"]


def test_an_agent_that_never_answers_has_every_move_forfeited() -> None:
    failures = run_cells(LOOPS, 0.05)
    assert all(failures.values()), failures
    in_time = failures["agent_moves_in_time__legal_moves_in_time"]
    assert "moves forfeited" in in_time and "no move within 0.05 s" in in_time
    assert "the grader played column 4" in in_time


def test_a_missing_agent_fails_every_cell_with_the_reason() -> None:
    failures = run_cells(None)
    assert all("connect_four_agent is not defined" in failure for failure in failures.values())


def test_a_kernel_agent_turns_each_answer_into_the_choice_the_sandbox_does(view: Path) -> None:
    answers = [True, 4.0, 9, "4", None, [4], 3, "raise"]
    source = f"""
        ANSWERS = {answers!r}

        def connect_four_agent(game, state, seconds):
            answer = ANSWERS.pop(0)
            if answer == "raise":
                raise ValueError("no idea")
            return answer
        """
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)
    kernel = KernelAgent("kernel", namespace["connect_four_agent"])
    sandbox = StudentAgent("sandbox", [[1, textwrap.dedent(source)]], view, LIMITS)
    state = ConnectFour.from_moves("4453")
    try:
        for answer in answers:
            here, there = kernel.choose(state, 0.5), sandbox.choose(state, 0.5)
            assert replace(here, seconds=0) == replace(there, seconds=0), answer
    finally:
        sandbox.close()


def test_a_kernel_agent_interrupts_a_move_at_its_deadline() -> None:
    def sleepy(game, state, seconds):
        while True:
            pass

    choice = KernelAgent("sleepy", sleepy).choose(GAME.initial_state(), 0.05)
    assert choice.status == "timeout" and choice.column is None
    assert 0.05 + GRACE <= choice.seconds < 0.05 + GRACE + 0.5  # interrupted, not left to run


def test_the_kernel_plays_the_grader_s_games() -> None:
    """The same deterministic agent gets the very same moves in the kernel and by `play_game`."""
    played = {}
    for name, player in [("kernel", KernelAgent), ("grader", opponents.FunctionPlayer)]:
        agent = player("agent", lambda game, state, seconds: opponents.alphabeta_move(state, 2)[0])
        game = play_game(agent, RandomPlayer(seed=3), "4453", seconds=0.25)
        played[name] = [move.column for move in game.moves], game.ended
    assert played["kernel"] == played["grader"]


# --- What the notebook carries ------------------------------------------------------------------


RELEASE = """
import json, sys
import nbformat
from nbgrader.preprocessors import ClearHiddenTests

clear = ClearHiddenTests(enforce_metadata=False)
released = []
for source in json.load(sys.stdin):
    cell = nbformat.v4.new_code_cell(source)
    clear._remove_hidden_test_region(cell)
    released.append(cell.source)
json.dump(released, sys.stdout)
"""


def released(sources: list[str]) -> list[str]:
    """The cells as nbgrader releases them, the hidden regions taken out. In a process of its
    own: nbgrader's quarter of a million objects would slow the garbage collector of this one,
    whose pauses can make a sandboxed agent's move late in the tests that follow."""
    if find_spec("nbgrader") is None:
        pytest.skip("nbgrader is not installed")
    run = subprocess.run(
        [sys.executable, "-c", RELEASE], input=json.dumps(sources), capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_released_notebook_carries_none_of_the_contest_s_code() -> None:
    cells = nbgrader_export.hidden_test_cells(PLAYED_RULE_IDS)
    for shown in released([cell.source for cell in cells]):
        assert shown.count("\n") == 0 and shown.startswith("# Hidden test, "), shown
    first = cells[0].source
    assert nbgrader_export.contest_source()[0] in first  # the modules' own code, not retyped
    for pasted in (
        opponents.AlphaBetaPlayer,
        opponents.RandomPlayer,
        ConnectFourSolver,
        KernelAgent,
    ):
        assert inspect.getsource(pasted) in first
    assert all("grade_contest_rule(" in cell.source for cell in cells)
    assert not any("CONTEST_SOURCE" in cell.source for cell in cells[1:])


def test_the_contest_s_code_leaves_the_notebook_s_names_alone() -> None:
    agent = """
        CENTRE_FIRST, GAME, evaluation, Move, Level = "mine", "mine", "mine", "mine", "mine"

        def connect_four_agent(game, state, seconds):
            return game.actions(state)[0]
        """
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    exec(textwrap.dedent(agent), namespace)
    first = nbgrader_export.hidden_test_cells(PLAYED_RULE_IDS, move_seconds=0.05)[0]
    with contextlib.suppress(AssertionError):  # this agent loses; only its names matter here
        exec(first.source, namespace)
    for name in ("CENTRE_FIRST", "GAME", "evaluation", "Move", "Level"):
        assert namespace[name] == "mine", name
    assert "ConnectFourSolver" not in namespace and "play_contest" not in namespace


def test_the_pasted_modules_define_each_name_once() -> None:
    """They run in one namespace: a name two of them define would be the later one's in both."""
    defined = {}
    for name in nbgrader_export.CONTEST_MODULES:
        module = import_module(name)
        defined[name] = set()
        for node in ast.parse(inspect.getsource(module)).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                defined[name].add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined[name] |= {
                    n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                }
    for (one, these), (other, those) in itertools.combinations(defined.items(), 2):
        assert not (these & those) - {"__all__"}, (one, other, these & those)


def test_module_source_leaves_out_the_imports_the_cell_defines() -> None:
    pasted = nbgrader_export.module_source(opponents)
    assert "from autograder" not in pasted and "from __future__" not in pasted
    assert "from solutions.connect_four import ConnectFourSolver" in pasted
    provided = nbgrader_export.module_source(opponents, frozenset({"ConnectFourSolver"}))
    assert "from solutions" not in provided and "class SolverPlayer" in provided
    multi_line = nbgrader_export.module_source(contest_checks)
    assert "from autograder" not in multi_line and "    IN_TIME_RULE,\n" not in multi_line


def test_the_kernel_names_the_agent_as_the_grader_does() -> None:
    assert contest_checks.AGENT_NAME == contest_grade.AGENT_NAME
    assert [level.rule_id for level in LEVELS] == list(PLAYED_RULE_IDS[:-1])
