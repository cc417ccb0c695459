"""Assignment 5's hidden tests in the notebook's kernel give the points the sandboxed grader gives.

The cells come from `nbgrader_export.hidden_test_cells`, run after the grading helpers' cell in a
fresh namespace, as nbgrader runs a notebook; the same agent source is graded by
`autograder.grading.grade` in the sandbox, and every cell must pass exactly when its group earns
full points there.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import itertools
import json
import subprocess
import sys
import textwrap
import time
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

import pytest
from example_class import make_class
from graded_agents import GROUP, contest_runs, group_points

import solutions.agent
from autograder.contest import grade as contest_grade
from autograder.contest import opponents
from autograder.contest.levels import LEVELS
from autograder.contest.positions import POSITIONS_RULE
from autograder.contest.referee import Allowance, RandomPlayer, play_game
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

LETS_OUT_OF_STATES_ESCAPE = """
def connect_four_agent(game, state, seconds):
    while True:  # plays column after column, never catching OutOfStates
        game.result(state, game.actions(state)[0])
"""

BOARD_READER = """
import math
import random

from games import MAX, OutOfStates


def my_evaluation(board):
    \"\"\"Stones in the three middle columns, X's minus O's, read off the board.\"\"\"
    middle = "".join(row[2:5] for row in board)
    return (middle.count("X") - middle.count("O")) / 20


def value(game, state, depth):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return my_evaluation(game.board(state))
    values = [value(game, game.result(state, a), depth - 1) for a in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)


def connect_four_agent(game, state, seconds):
    \"\"\"Plain minimax, deeper and deeper until the budget is spent; equal moves drawn at
    random.\"\"\"
    sign = 1 if game.to_move(state) == MAX else -1
    best = random.choice(game.actions(state))
    for depth in range(1, 43):
        try:
            scores = {a: sign * value(game, game.result(state, a), depth - 1)
                      for a in game.actions(state)}
        except OutOfStates:
            return best
        top = max(scores.values())
        best = random.choice([a for a, score in scores.items() if score == top])
    return best
"""

QUICK = Allowance(500, seconds=0.5)
"""A small allowance for the tests' games: 500 states and half a second of CPU a move."""


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def run_cells(agent_source: str | None, allowance: Allowance | None = None) -> dict[str, str]:
    """Run the hidden cells after `agent_source` in a fresh namespace, as nbgrader does: each
    cell's grade id -> "" if it earned every point, else what it printed or raised. The moves
    have `allowance` (None: the grader's defaults, as the notebook's cells have)."""
    return {grade_id: message for grade_id, (_, message) in cell_results(agent_source, allowance)}


def cell_points(agent_source: str | None, allowance: Allowance | None = None) -> dict[str, float]:
    """Each hidden cell's grade id -> the points nbgrader gives it: 0 if it raised, else the
    number it returned (its partial credit), as `nbgrader autograde` reads the cell's output."""
    return {grade_id: points for grade_id, (points, _) in cell_results(agent_source, allowance)}


def cell_results(agent_source: str | None, allowance: Allowance | None) -> list:
    """(grade id, (points, message)) of each hidden cell run after `agent_source`."""
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    if agent_source is not None:
        exec(textwrap.dedent(agent_source), namespace)
    results = []
    seconds, states = (None, None) if allowance is None else (allowance.seconds, allowance.states)
    for cell in nbgrader_export.hidden_test_cells(PLAYED_RULE_IDS, seconds, states):
        body, last = cell.source.rsplit("\n", 2)[0], cell.source.splitlines()[-2]
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(body, namespace)
                points = eval(last, namespace)  # the cell's last line: its value is its output
        except AssertionError as failure:
            results.append((cell.grade_id, (0.0, str(failure) or "failed")))
        else:
            full = points == cell.points
            results.append((cell.grade_id, (points, "" if full else printed.getvalue())))
    return results


def sandbox_record(agent_source: str, allowance: Allowance | None, view: Path, folder: Path):
    """Grade `agent_source` with the grader, each move within `allowance` (None: defaults)."""
    path = folder / "agent.py"
    path.write_text(textwrap.dedent(agent_source), encoding="utf-8")
    submission = Submission("student", (path,))
    seconds, states = (None, None) if allowance is None else (allowance.seconds, allowance.states)
    settings = Settings(LIMITS, view, PLAYED_RULE_IDS, move_seconds=seconds, move_states=states)
    return grade(submission, load(submission), settings)


def sandbox_points(agent_source: str, allowance: Allowance | None, view: Path, folder: Path):
    """Grade `agent_source` with the grader: each group's grade id -> its points."""
    record = sandbox_record(agent_source, allowance, view, folder)
    return {
        f"{rule.id}__{nbgrader_export.slug(group.name)}": group.points
        for rule in record.rules
        for group in rule.groups
    }


# --- Parity with the sandbox -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "allowance"),
    [
        (SEEDED_RANDOM, QUICK),
        # deepens until its 150 states are spent, and earns part of the points of three groups
        # (as at 200 states, with less CPU): partial credit must match too, not only 0 and full
        (BOARD_READER, Allowance(150, seconds=3.0)),
        (LETS_OUT_OF_STATES_ESCAPE, Allowance(100, seconds=0.5)),  # each move spends them all
        (LOOPS, Allowance(500, seconds=0.05)),
        (RAISES, QUICK),
        (RETURNS_TRUE, QUICK),
    ],
    ids=[
        "seeded_random",
        "board_reader",
        "lets_out_of_states_escape",
        "loops",
        "raises",
        "returns_true",
    ],
)
def test_each_cell_earns_the_points_the_grader_gives_its_group(
    agent: str, allowance: Allowance | None, view: Path, tmp_path: Path
) -> None:
    assert cell_points(agent, allowance) == sandbox_points(agent, allowance, view, tmp_path)


@pytest.fixture(scope="module")
def agents_graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return contest_runs(tmp_path_factory).grading


NOTEBOOK_IMPORTS = "import math\nimport random\n\nfrom games import MAX, MIN, OutOfStates\n"
"""What the example notebooks' earlier cells import, which their agents' cells use."""


@pytest.mark.xdist_group(GROUP)
def test_the_reference_agent_earns_every_point_in_the_kernel_as_in_the_sandbox(
    agents_graded: Path,
) -> None:
    """With the grader's allowance, which no machine's load changes: the reference plays the
    same moves in both, within its budget of states. The sandbox's side is alice's record in the
    example agents' run at that allowance (`tests/graded_agents.py`): her notebook's cell is the
    reference agent's module."""
    reference = make_class.AGENTS["alice_correct"]
    failures = run_cells(NOTEBOOK_IMPORTS + reference)
    summary = dict(nbgrader_export.grading_summary(PLAYED_RULE_IDS))
    assert list(failures) == list(summary) and sum(summary.values()) == 100
    rules = tuple(dict.fromkeys(key.partition("__")[0] for key in summary))
    assert rules == PLAYED_RULE_IDS and len(rules) == 6  # the six rules, each with its cells
    assert not any(failures.values()), failures
    assert group_points(agents_graded, "alice_correct") == summary


@pytest.mark.xdist_group(GROUP)
def test_a_fixed_depth_agent_s_cells_earn_what_the_grader_gives_at_the_grading_allowance(
    agents_graded: Path,
) -> None:
    """bob's three plies of alpha-beta, with the allowance the notebook's cells use (the other
    agents' parity is checked above at smaller allowances): each cell earns what his record in
    the example agents' run gives its group."""
    source = NOTEBOOK_IMPORTS + make_class.AGENTS["bob_last_ties"]
    assert cell_points(source) == group_points(agents_graded, "bob_last_ties")


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
    failures = run_cells(agent, QUICK)
    assert all(failures.values()), failures
    assert why in failures["agent_beats_random__random"]
    assert why in failures["agent_moves_in_time__legal_moves_in_time"]


def test_an_agent_that_never_answers_has_every_move_forfeited() -> None:
    failures = run_cells(LOOPS, Allowance(500, seconds=0.05))
    in_time = failures["agent_moves_in_time__legal_moves_in_time"]
    assert "moves forfeited" in in_time and "more than 0.05 s of CPU time" in in_time
    assert "the grader played column 4" in in_time
    assert "not asked: 2 of its moves were already stopped for time" in str(failures)


def test_an_agent_that_lets_out_of_states_escape_forfeits_its_moves_and_loses_no_game() -> None:
    failures = run_cells(LETS_OUT_OF_STATES_ESCAPE, QUICK)
    in_time = failures["agent_moves_in_time__legal_moves_in_time"]
    assert "no move returned within its budget of 500 states" in in_time
    assert "crashed" not in str(failures) and "lost)" not in str(failures)


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
            assert kernel.choose(state, QUICK) == sandbox.choose(state, QUICK), answer
    finally:
        sandbox.close()


def test_a_kernel_agent_interrupts_a_move_at_its_cpu_time() -> None:
    def busy(game, state, seconds):
        while True:
            pass

    started = time.process_time()
    choice = KernelAgent("busy", busy).choose(GAME.initial_state(), Allowance(500, 0.05))
    assert (choice.status, choice.error) == ("stopped", "it used more than 0.05 s of CPU time")
    assert time.process_time() - started < 0.5  # interrupted, not left to run


def test_a_kernel_agent_is_charged_for_sleeping_as_the_sandbox_charges_it() -> None:
    """Sleep counts as CPU time on both roads (issue 33): stopped at its seconds where the
    kernel tells sleeping from waiting for a CPU (`/proc/thread-self/schedstat`), else at the
    safety net; a short nap within its seconds is still a move."""

    def sleepy(game, state, seconds):
        time.sleep(10 * seconds)
        return 4

    def napping(game, state, seconds):
        time.sleep(seconds / 10)
        return 4

    def asleep(game, state, seconds):
        time.sleep(3600)

    state = GAME.initial_state()
    choice = KernelAgent("sleepy", sleepy).choose(state, Allowance(500, 0.05))
    if Path("/proc/thread-self/schedstat").exists():
        assert (choice.status, choice.error) == ("stopped", "it used more than 0.05 s of CPU time")
    assert KernelAgent("napping", napping).choose(state, Allowance(500, 0.5)).column == 4
    choice = KernelAgent("asleep", asleep).choose(state, Allowance(500, 5.0, wall=0.3))
    assert (choice.status, choice.error) == ("stopped", "no answer within 0.3 s (the call)")


@pytest.mark.parametrize(
    "agent",
    [inspect.getsource(solutions.agent), BOARD_READER, SEEDED_RANDOM, FIXED_DEPTH],
    ids=["reference", "board_reader", "seeded_random", "fixed_depth"],
)
def test_one_agent_plays_one_set_of_moves_in_the_kernel_the_sandbox_and_the_grader(
    agent: str, view: Path
) -> None:
    """The same deterministic agent gets the very same moves, and spends the same states on
    each, in the kernel, in the sandbox (on the served game) and by `play_game` in-process."""

    def loaded() -> object:  # each player its own module, as each road loads the agent afresh
        namespace: dict = {}
        exec(textwrap.dedent(agent), namespace)
        return namespace["connect_four_agent"]

    players = {
        "kernel": KernelAgent("agent", loaded()),
        "sandbox": StudentAgent("agent", [[1, textwrap.dedent(agent)]], view, LIMITS),
        "grader": opponents.FunctionPlayer("agent", loaded()),
    }
    played = {}
    try:
        for name, player in players.items():
            games = [
                play_game(player, RandomPlayer(seed=3), "4453", Allowance(1000, 3.0)),
                play_game(opponents.AlphaBetaPlayer(2), player, "3526", Allowance(1000, 3.0)),
            ]
            played[name] = [(game.moves, game.ended) for game in games]
    finally:
        players["sandbox"].close()
    assert played["kernel"] == played["sandbox"] == played["grader"]


# --- What the notebook carries ------------------------------------------------------------------


RELEASE = """
import json, sys
sys.modules["rfc3987_syntax"] = None  # see RELEASE's docstring
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
"""nbgrader's release of the hidden regions, in a process of its own (see `released`). It keeps
jsonschema (which nbformat imports) from loading rfc3987-syntax, whose lark grammars, built at
import, took a second of the script's three: nothing here validates an IRI."""


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
    first = nbgrader_export.hidden_test_cells(PLAYED_RULE_IDS, 0.05, 500)[0]
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
    assert [level.rule_id for level in LEVELS] == list(PLAYED_RULE_IDS[:-2])
    assert PLAYED_RULE_IDS[-2] == POSITIONS_RULE
