"""States are values inside the grader too: transposition tables, ties at cut-offs, hints.

Within one run the grader serves a position as the same state in every call, as the notebook's
kernel does, so a transposition table works on the served game as on the real one, and a table
kept between calls finds positions of earlier calls in both (each run draws its own tokens). A
correct table earns full marks from the grader and from the notebooks' hidden tests alike; a
table that stores a cut-off's bound as exact loses the same groups in both, and so does one kept
between calls, whose feedback says it carries positions over. The decision hints name the depth
convention, a value returned for an action, a tie with a cut-off's bound and a starting
sentinel.
"""

from __future__ import annotations

import math
from pathlib import Path

import nbformat
import pytest
from example_class import make_class

from autograder.grading import cases, diagnosis, judge
from autograder.grading import rules as rules_module
from autograder.grading.grade import Settings, grade
from autograder.grading.instances import Instance
from autograder.grading.load import Submission, load
from autograder.grading.positions import tictactoe_evaluation
from autograder.grading.records import GradeRecord
from autograder.grading.reference import reference_source
from autograder.grading.rules import rule, rules
from autograder.platforms import kernel_calls, notebook_checks
from autograder.platforms.nbgrader_export import grade_id
from autograder.reports.diagnoses import diagnosed
from autograder.sandbox import Limits, StudentProcess, build_import_view
from autograder.sandbox.tokens import Tokens
from games import MAX, GameTree, TicTacToe
from solutions import depth_limited_value

ROOT = Path(__file__).resolve().parents[1]
GROUPS = {grade_id(r, g): (r.id, g.name) for r in rules() for g in r.groups}
FAST = Limits(timeout=5.0, load_timeout=5.0, memory_mb=512, output_kb=64)


def _student(name: str) -> str:
    """The functions an example student overrides, from examples/make_class.py."""
    return "\n\n" + "\n\n".join(make_class.OVERRIDES[name].values())


# A correct alpha-beta with a transposition table: one table per call of alphabeta_value, each
# entry marked exact, lower or upper; the decision is abel's (below), which shares one table
# across the root's children.
TABLE_VALUE = """
def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf, table=None):
    table = {} if table is None else table
    if game.is_terminal(state):
        return game.utility(state)
    stored = table.get(state)
    if stored is not None:
        value, kind = stored
        if kind == "exact" or (kind == "lower" and value >= beta) or (
            kind == "upper" and value <= alpha
        ):
            return value
        if kind == "lower":
            alpha = max(alpha, value)
        else:
            beta = min(beta, value)
    low, high = alpha, beta
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        found = alphabeta_value(game, game.result(state, action), alpha, beta, table)
        if maximising:
            value = max(value, found)
            if value >= beta:
                break
            alpha = max(alpha, value)
        else:
            value = min(value, found)
            if value <= alpha:
                break
            beta = min(beta, value)
    kind = "upper" if value <= low else "lower" if value >= high else "exact"
    table[state] = (value, kind)
    return value

"""


# The classic bug: a fail-hard result stored as exact, whatever window produced it.
BOUND_AS_EXACT = _student("abel_table_bound_as_exact")
TABLE = TABLE_VALUE + make_class.OVERRIDES["abel_table_bound_as_exact"]["alphabeta_decision"]

# Every child built first, then a later action kept when its value only ties the best: with the
# window carried, that value may be a cut-off's bound (the reference's searches are fail-soft).
LATER_TIES = _student("bea_later_tie_at_a_bound")


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def _grade(source: str, directory: Path, view: Path) -> GradeRecord:
    path = directory / "student.py"
    path.write_text(source, encoding="utf-8")
    submission = Submission("student", (path,))
    return grade(submission, load(submission), Settings(FAST, view))


def _lost_by_grader(record: GradeRecord) -> set[tuple[str, str]]:
    return {(r.id, g.name) for r in record.rules for g in r.groups if g.points < g.max_points}


def _lost_by_hidden_cells(source: str) -> set[tuple[str, str]]:
    """The rule groups the bug hunt's hidden test cells fail, run as nbgrader's kernel runs
    them: the student's code, the helper cell, then each graded cell in one namespace."""
    notebook = nbformat.read(ROOT / "assignments/source/bug_hunt/bug_hunt.ipynb", as_version=4)
    namespace: dict = {"__name__": "__main__"}
    exec(source, namespace)
    lost = set()
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade_id", "").endswith("_grading_helpers"):
            exec(cell.source, namespace)
        elif cell.cell_type == "code" and meta.get("grade") and meta.get("points"):
            try:
                exec(cell.source, namespace)
            except AssertionError:
                lost.add(GROUPS[meta["grade_id"]])
    return lost


def _groups(rule_id: str, *prefixes: str) -> set[tuple[str, str]]:
    return {(rule_id, g.name) for g in rule(rule_id).groups if g.name.startswith(prefixes)}


# Two move orders to one position, and what the function kept from its earlier calls: the
# position's token as text (a returned token would be read as a state, not a number).
ONE_POSITION = """
SEEN = []
def minimax_value(game, state):
    a, b, c = game.actions(state)[:3]  # X a, O b, X c and X c, O b, X a
    one = game.result(game.result(game.result(state, a), b), c)
    two = game.result(game.result(game.result(state, c), b), a)
    SEEN.append((state, one))
    same = [seen == (state, one) for seen in SEEN]
    return [one == two, hash(one) == hash(two), one != game.result(state, a), all(same),
            str(state), str(one)]
"""


def _calls(cells: list, function: str, calls: list, view: Path) -> list:
    """The outcomes of `calls` ((game, state) pairs) of `function`, in one process's life."""
    process = StudentProcess(cells, [function], view, FAST)
    try:
        process.start()
        return [process.call(function, game, state) for game, state in calls]
    finally:
        process.close()


def test_a_position_is_one_state_in_every_call_of_a_run_and_another_in_the_next_run(view: Path):
    game = TicTacToe()
    runs = [_calls([(1, ONE_POSITION)], "minimax_value", [(game, game.initial_state())] * 2, view)
            for _ in range(2)]  # fmt: skip
    tokens = []
    for outcomes in runs:
        for outcome in outcomes:
            assert outcome.value["list"][:4] == [True, True, True, True], outcome
            assert outcome.states_generated == 7  # every `result` call counts, repeats too
        assert outcomes[0].value == outcomes[1].value  # the same tokens in both calls
        tokens.append(outcomes[0].value["list"][4:])
    assert tokens[0][0] != tokens[1][0] and tokens[0][1] != tokens[1][1]  # a run draws its own
    assert all(int(token) >= 2**32 for token in tokens[0] + tokens[1])  # 64 random bits


# A state kept from the first call: read in the second before it is reached, asked for past the
# proxy (the grader must refuse it), then reached and read again.
KEPT = """
KEPT = []
def minimax_value(game, state):
    if not KEPT:
        KEPT.append(game.result(state, 4))
        return "kept"
    said = []
    try:
        game.actions(KEPT[0])
    except ValueError as error:
        said.append(str(error))
    said.append(str(game._channel.request_child(KEPT[0], 0)))
    again = game.result(state, 4)
    return [*said, again == KEPT[0], len(game.actions(KEPT[0]))]
"""


def test_a_state_of_an_earlier_call_is_answered_only_once_this_call_reaches_it(view: Path):
    game = TicTacToe()
    outcomes = _calls([(1, KEPT)], "minimax_value", [(game, game.initial_state())] * 2, view)
    refused, asked, same, actions = outcomes[1].value["list"]
    assert "is not a state of this game" in refused and "once this call reaches it" in refused
    assert "refused a request for an unknown state" in asked
    assert same is True and actions == 8
    assert outcomes[1].states_generated == 1  # the refused request generated nothing


def test_a_correct_transposition_table_earns_full_marks_from_the_grader_and_the_kernel(
    tmp_path: Path, view: Path
) -> None:
    source = reference_source() + TABLE
    record = _grade(source, tmp_path, view)
    assert record.score == record.max_score == 100, _lost_by_grader(record)
    assert _lost_by_hidden_cells(source) == set()


def test_a_table_that_stores_a_bound_as_exact_loses_the_tictactoe_groups_in_both_graders(
    tmp_path: Path, view: Path
) -> None:
    source = reference_source() + TABLE + BOUND_AS_EXACT
    record = _grade(source, tmp_path, view)
    lost = _lost_by_grader(record)
    assert lost == (
        _groups("alphabeta_value", "tic-tac-toe")
        | _groups("alphabeta_pruning", "tic-tac-toe")
        | _groups("alphabeta_decision", "tic-tac-toe")  # its decision shares the table
    )
    assert lost == _lost_by_hidden_cells(source)
    hints = [v.hint for r in record.rules for g in r.groups for v in g.verdicts if not v.passed]
    assert any("transposition table stores a result as exact" in hint for hint in hints), hints


def test_the_same_position_by_two_move_orders_is_a_graded_instance() -> None:
    game, careless = TicTacToe(), diagnosis.Variant(bound_as_exact=True)
    traps = [
        i
        for i in rule("alphabeta_value").groups[2].instances
        if i.name.startswith("positions reached again")
    ]
    assert {game.to_move(i.state) for i in traps} == {"MAX", "MIN"}
    for instance in traps:
        want = cases.case("alphabeta_value", instance)
        assert diagnosis.search(game, instance.state, careless) != want.value


def test_a_later_move_kept_on_a_tie_with_a_bound_loses_both_decision_rules(
    tmp_path: Path, view: Path
) -> None:
    source = reference_source() + LATER_TIES
    record = _grade(source, tmp_path, view)
    lost = _lost_by_grader(record)
    assert ("depth_limited_decision", "tic-tac-toe with a heuristic") in lost
    assert ("alphabeta_decision", "tic-tac-toe: one best move") in lost
    assert {rule_id for rule_id, _ in lost} == {"alphabeta_decision", "depth_limited_decision"}
    assert lost == _lost_by_hidden_cells(source)
    hints = [
        v.hint
        for r in record.rules
        if r.id == "depth_limited_decision"
        for g in r.groups
        for v in g.verdicts
        if not v.passed
    ]
    assert hints and all("a cut-off's bound" in hint for hint in hints), hints


def test_a_transposition_table_may_generate_fewer_states_than_plain_alpha_beta() -> None:
    """The pruning floor allows what a correct table saves, and no more."""
    saving = [
        cases.case("alphabeta_value", instance)
        for instance in rule("alphabeta_pruning").groups[2].instances
        if cases.case("alphabeta_value", instance).fewest
        < cases.case("alphabeta_value", instance).states / 1.25
    ]
    assert saving, "some graded position must be one where a table saves more than the slack"
    want = saving[0]
    fewest = math.ceil(want.fewest / 1.25)
    outcome = judge.Outcome("returned", want.value, states=fewest)
    assert judge.judge_pruning(want, outcome, decision=False).passed
    outcome = judge.Outcome("returned", want.value, states=fewest - 1)
    verdict = judge.judge_pruning(want, outcome, decision=False)
    assert not verdict.passed and "fewer states than a correct alpha-beta" in verdict.hint


def _decision_verdict(function: str, instance, returned) -> judge.Verdict:
    return judge.judge_decision(cases.case(function, instance), judge.Outcome("returned", returned))


def test_a_decision_one_ply_too_deep_is_told_the_depth_convention() -> None:
    group = rule("depth_limited_decision").groups[0]
    instance = next(i for i in group.instances if i.name == "tree 1 at depth 1")
    verdict = _decision_verdict("depth_limited_decision", instance, 1)
    assert not verdict.passed
    assert "one ply further than asked" in verdict.hint and "depth > limit" in verdict.hint
    assert "max/min" not in verdict.hint


def test_a_decision_that_returns_a_value_is_told_whose_value_it_is() -> None:
    instance = rule("minimax_decision").groups[0].instances[0]
    want = cases.case("minimax_decision", instance)
    legal = instance.game.actions(instance.state)
    value = next(v for v in want.child_values if v not in legal)
    action = legal[list(want.child_values).index(value)]
    verdict = _decision_verdict("minimax_decision", instance, value)
    assert f"{value!r} is the value of action {action!r}" in verdict.hint


@pytest.mark.parametrize("sentinel", [-9999, 1000, 10**9, -(2**31 - 1)])
def test_a_finite_sentinel_at_a_finished_game_is_named_as_such(sentinel: int) -> None:
    instance = next(
        i for i in rule("minimax_value").groups[0].instances if i.name.startswith("a terminal")
    )
    want = cases.case("minimax_value", instance)
    verdict = judge.judge_value(want, judge.Outcome("returned", sentinel))
    assert "looks like a starting sentinel" in verdict.hint and "utility" in verdict.hint
    assert "MAX and MIN cases" not in verdict.hint


@pytest.mark.parametrize("value", [999.5, 500, -22, 4000])
def test_ordinary_numbers_are_not_taken_for_sentinels(value: float) -> None:
    assert judge.sentinel_hint(value) == ""


def test_the_strict_cut_off_hint_reads_as_a_sentence() -> None:
    game = GameTree([[3, 3], [3, 1]])
    strict = diagnosis.count_states(game, (), diagnosis.Variant(strict=True), False)
    instance = Instance("a tree with ties", game, ())
    hint = cases.pruning_causes(instance, False, 1)[strict]
    # alpha never raised generates the same count on this tree: both are named, strict first
    assert hint.startswith("your count equals that of a search where either cut-offs are strict")
    assert hint.endswith("the MAX branch never raises alpha, so no MIN node below it cuts off on "
                         "it: look for each")  # fmt: skip


def test_a_textbook_depth_decision_is_never_told_it_picks_the_worst_move() -> None:
    case = judge.Case(0, "", MAX, (0, 1, 2), 5, (0,), (5, 1, 3),
                      decision_hints=((1, diagnosis.depth_convention(2, 3)),))  # fmt: skip
    hint = judge.decision_hint(case, 1)
    assert "one ply further" in hint and "worst" not in hint


# Public code as it circulates: one module-level table for every search, each result stored as
# exact, whatever window produced it (and whatever game: a tree's paths are equal in every tree).
ACROSS_CALLS = """
TRANSPOSITIONS = {}

def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if state in TRANSPOSITIONS:
        return TRANSPOSITIONS[state]
    if game.is_terminal(state):
        return game.utility(state)
    if game.to_move(state) == MAX:
        value = -math.inf
        for action in game.actions(state):
            value = max(value, alphabeta_value(game, game.result(state, action), alpha, beta))
            if value >= beta:
                break
            alpha = max(alpha, value)
    else:
        value = math.inf
        for action in game.actions(state):
            value = min(value, alphabeta_value(game, game.result(state, action), alpha, beta))
            if value <= alpha:
                break
            beta = min(beta, value)
    TRANSPOSITIONS[state] = value
    return value
"""

# A correct table kept between calls: only exact values (a result strictly inside its window),
# so every answer is right; it is keyed by the position alone, so only one game may use it.
EXACT_ACROSS_CALLS = """
EXACT = {}

def alphabeta_value(game, state, alpha=-math.inf, beta=math.inf):
    if state in EXACT:
        return EXACT[state]
    if game.is_terminal(state):
        return game.utility(state)
    low, high = alpha, beta
    maximising = game.to_move(state) == MAX
    value = -math.inf if maximising else math.inf
    for action in game.actions(state):
        found = alphabeta_value(game, game.result(state, action), alpha, beta)
        if maximising:
            value = max(value, found)
            if value >= beta:
                break
            alpha = max(alpha, value)
        else:
            value = min(value, found)
            if value <= alpha:
                break
            beta = min(beta, value)
    if low < value < high:
        EXACT[state] = value
    return value
"""


def test_a_table_kept_between_calls_loses_in_the_grader_what_it_loses_in_the_kernel(
    tmp_path: Path, view: Path
) -> None:
    source = reference_source() + ACROSS_CALLS
    record = _grade(source, tmp_path, view)
    lost = _lost_by_grader(record)
    # every search after the first finds what earlier ones stored: a bound, or another tree's
    assert _groups("alphabeta_value", "hand-made", "seeded", "tic-tac-toe") <= lost
    assert _groups("alphabeta_pruning", "") <= lost
    assert {rule_id for rule_id, _ in lost} == {
        "alphabeta_value", "alphabeta_decision", "alphabeta_pruning"
    }  # fmt: skip
    assert lost == _lost_by_hidden_cells(source)
    hints = [v.hint for r in record.rules for g in r.groups for v in g.verdicts if not v.passed]
    # a wrong decision right for the student's own (table-spoiled) values points at them
    own = "your decision is right for the values alphabeta_value returns"
    named = [hint for hint in hints if own not in hint]
    carried = [hint for hint in named if "carries positions over from an earlier call" in hint]
    assert len(carried) > len(named) / 2, hints
    assert diagnosed(record) == {"a table kept between calls"}  # the class page's entry


def test_the_sandbox_and_the_kernel_count_a_table_kept_between_calls_alike(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Call by call, the same states and the same positions carried over; a position searched
    in an earlier call generates nothing the second time, and loses the pruning instance."""
    monkeypatch.setattr(kernel_calls, "EXPANDED_STATES", set())
    monkeypatch.setattr(kernel_calls, "EXPANDED_ROOTS", {})
    source = "import math\nfrom games import MAX\n" + EXACT_ACROSS_CALLS
    # Every candidate of the tie group's pool: positions that share many sub-positions.
    instances = rules_module.candidates("ttt_values_deep")
    instances = [*instances, instances[0]]  # the first position, asked again
    namespace: dict = {"__name__": "__main__"}
    exec(source, namespace)
    sandboxed = [
        cases.outcome_of(outcome)
        for outcome in _calls([(1, source)], "alphabeta_value",
                              [(i.game, i.state) for i in instances], view)
    ]  # fmt: skip
    in_kernel = [
        notebook_checks.call_function(namespace["alphabeta_value"], i.game, i.state)
        for i in instances
    ]
    assert [(o.states, o.carried) for o in sandboxed] == [(o.states, o.carried) for o in in_kernel]
    assert sandboxed[0].carried == 0 and sum(o.carried for o in sandboxed) > 1
    again = sandboxed[-1]
    assert again.states == 0 and again.carried == 1
    verdict = judge.judge_pruning(cases.case("alphabeta_value", instances[-1]), again, False)
    assert not verdict.passed
    assert "your table carries positions over from an earlier call" in verdict.hint


def test_only_a_search_that_expanded_a_position_can_carry_it_to_a_later_call() -> None:
    """`Tokens.carried`, as the kernel's `_carried` counts: what an earlier call expanded
    (generated a child of) and this call meets without expanding."""
    tokens = Tokens()
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("minimax_value", served, set()) == 0  # a stub: expands nothing
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("alphabeta_value", served, set()) == 0  # nothing searched it yet
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("minimax_decision", served, {root}) == 0  # a decision expands it
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("alphabeta_value", served, set()) == 0  # a decision's root: no table
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("minimax_value", served, {root}) == 0  # a value search expands it
    root, served = tokens.start_call("root", ["a"])
    assert tokens.carried("alphabeta_value", served, set()) == 1  # answered from a table
    inner = tokens.new("inner")
    root, served = tokens.start_call("other", ["b"])
    served[inner] = ("inner", [])  # a leaf here, though an inner node elsewhere
    assert tokens.carried("minimax_value", served, {root}) == 0
    root, served = tokens.start_call("other", ["b"])
    served[inner] = ("inner", ["c"])
    tokens.carried("minimax_value", served, {root, inner})  # searched below: remembered
    root, served = tokens.start_call("third", ["d"])
    served[inner] = ("inner", ["c"])
    assert tokens.carried("minimax_value", served, {root}) == 1  # met again, not searched


# A table of depth-limited values kept between calls without the depth each was searched to.
DEPTHLESS_TABLE = """
from games import MAX

TABLE = {}


def depth_limited_value(game, state, depth, evaluate):
    if state in TABLE:
        return TABLE[state]
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return evaluate(state)
    values = [
        depth_limited_value(game, game.result(state, action), depth - 1, evaluate)
        for action in game.actions(state)
    ]
    TABLE[state] = max(values) if game.to_move(state) == MAX else min(values)
    return TABLE[state]
"""


def test_a_depthless_table_is_counted_at_any_node_alike_in_the_sandbox_and_the_kernel(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A position searched to depth 1, met again one ply below the root of a depth-3 search,
    is answered from the table: carried (it lies within the horizon, where a search expands
    every position that is not terminal). Met at the horizon of a depth-1 search it is not:
    there a search only evaluates it. The sandbox and the kernel count the same, call by call."""
    _fresh_kernel(monkeypatch)
    game = TicTacToe()
    parent = TicTacToe.from_picture("X..\n.O.\n...")
    other_parent = TicTacToe.from_picture("...\n.O.\n..X")
    child = game.result(parent, 8)
    assert child == game.result(other_parent, 0)
    unrelated = TicTacToe.from_picture(".X.\n.XO\n...")  # below neither parent
    plan = [(unrelated, 2), (child, 1), (other_parent, 1), (parent, 3), (parent, 1)]
    sandboxed, in_kernel = _both_roads(DEPTHLESS_TABLE, game, plan, view)
    assert [(o.states, o.carried) for o in sandboxed] == [(o.states, o.carried) for o in in_kernel]
    # at the horizon of other_parent's depth-1 search: not counted; one ply below parent's
    # depth-3 root: counted; parent again, answered at its root: counted (the root's rule)
    assert [o.carried for o in sandboxed] == [0, 0, 0, 1, 1]
    right = depth_limited_value(game, parent, 3, tictactoe_evaluation)
    assert sandboxed[3].value != right  # the table's depth-1 value of the child spoilt it
    case = cases.Case(0, "parent at depth 3", value=right, depth_limited=True)
    hint = judge.judge_value(case, sandboxed[3]).hint
    assert "your table carries positions over from an earlier call (1 position" in hint


def _fresh_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EXPANDED_STATES", "EVALUATED_STATES"):
        monkeypatch.setattr(kernel_calls, name, set())
    monkeypatch.setattr(kernel_calls, "EXPANDED_ROOTS", {})


def _both_roads(source: str, game, plan: list, view: Path) -> tuple[list, list]:
    """`depth_limited_value` called on each (state, depth) of `plan`, in one sandboxed
    process's life and in one kernel's: the outcomes, as the judge reads them."""
    process = StudentProcess([(1, source)], ["depth_limited_value"], view, FAST)
    try:
        process.start()
        sandboxed = [
            cases.outcome_of(
                process.call("depth_limited_value", game, s, (d,), evaluate=tictactoe_evaluation)
            )
            for s, d in plan
        ]
    finally:
        process.close()
    namespace: dict = {"__name__": "__main__"}
    exec(source, namespace)
    in_kernel = [
        kernel_calls.call_function(
            namespace["depth_limited_value"], game, s, (d, tictactoe_evaluation)
        )
        for s, d in plan
    ]
    return sandboxed, in_kernel


def test_a_table_of_evaluations_is_counted_where_a_later_search_needs_more_depth(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that stores evaluate's score at the horizon too: a later search that meets
    that position one ply below its depth-3 root answers it from there. Counted though no call
    expanded it (the first evaluated it), alike in the sandbox and the kernel."""
    _fresh_kernel(monkeypatch)
    source = DEPTHLESS_TABLE.replace(
        "        return evaluate(state)",
        "        TABLE[state] = evaluate(state)\n        return TABLE[state]",
    )
    game = TicTacToe()
    searched = TicTacToe.from_picture("X..\n.O.\n..X")  # its children evaluated, then stored
    parent = TicTacToe.from_picture("X.O\n...\n..X")  # O to move: O in the centre is one
    assert game.result(parent, 4) == game.result(searched, 2)
    sandboxed, in_kernel = _both_roads(source, game, [(searched, 1), (parent, 3)], view)
    assert [(o.states, o.carried) for o in sandboxed] == [(o.states, o.carried) for o in in_kernel]
    assert [o.carried for o in sandboxed] == [0, 1]


def test_within_a_horizon_a_position_counts_by_its_plies_below_the_root() -> None:
    """`Tokens.carried` with a depth: a position an earlier call expanded, met here without
    being expanded, counts only fewer plies below the root than the depth (by the positions
    this call expanded); without a depth, below the root nothing counts."""

    def result(state: str, action: str) -> str:
        return action  # a chain r -> a -> b -> c: an action names the child

    tokens = Tokens()
    root, served = tokens.start_call("b", ["c"])
    served[tokens.new("c")] = ("c", [])
    tokens.carried("depth_limited_value", served, {root}, (2,), result)  # b searched
    # b is two plies below r: within depth 3, at the horizon of depth 2; a contest's move
    # (its seconds, not a depth) counts the root only, a call without a horizon everything
    expected = [
        ("depth_limited_value", (2,), 0),
        ("depth_limited_decision", (3,), 1),
        ("depth_limited_value", (3.0,), 0),
        ("choose_move", (3,), 0),
        ("depth_limited_value", (), 1),
    ]
    for function, args, counted in expected:
        root, served = tokens.start_call("r", ["a"])
        a, b = tokens.named.get("a") or tokens.new("a"), tokens.named["b"]
        served[a], served[b] = ("a", ["b"]), ("b", ["c"])
        assert tokens.carried(function, served, {root, a}, args, result) == counted, args
