"""A wrong decision weighed against the student's own value function, on every road.

The grader calls the student's `X_value` on the root's children (in the sandbox, after every
graded call) and tells the decision "your decision is right for the values X_value returns; fix
X_value (...)" only where its move is a best child by those values; the notebook's hidden cells
and self-checks do the same in the kernel. The mutants: a value function with one catalogued
mistake under a decision that is the right argmax over it (told, for every family), and a
decision wrong on its own over a wrong value function (judged on its own). The words change,
never the points.
"""

from __future__ import annotations

import html
import time
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.grading import cases
from autograder.grading import grade as grading
from autograder.grading.grade import Settings
from autograder.grading.load import Submission, load
from autograder.grading.mistakes import mistake
from autograder.grading.reference import ALL_MODULES, reference_source
from autograder.grading.rules import ASSIGNMENT_RULES, CHANCE_AND_MAXN_RULE_IDS, rule
from autograder.platforms import gradescope, kernel_calls, nbgrader_export
from autograder.reports.diagnoses import diagnosed
from autograder.reports.feedback_page import feedback_html
from autograder.sandbox import Limits, build_import_view
from games import MAX, GameTree, MultiplayerTree

OWN = "your decision is right for the values {value} returns; fix {value}"


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def _mutated(old: str, new: str, modules=ALL_MODULES) -> str:
    """The reference with one line of a value function changed (its first occurrence)."""
    source = reference_source(modules)
    assert old in source
    return source.replace(old, new, 1)


MAX_AT_ZERO = _mutated(
    "return max(values) if game.to_move(state) == MAX else min(values)",
    "return max([0, *values]) if game.to_move(state) == MAX else min(values)",
)
ALPHABETA_MAX_AT_ZERO = _mutated("        value = -math.inf\n", "        value = 0\n")
PLAIN_MEAN = _mutated(
    """        return sum(
            probability * expectiminimax_value(game, game.result(state, outcome))
            for outcome, probability in game.chance_outcomes(state)
        )""",
    """        outcomes = game.chance_outcomes(state)
        return sum(
            expectiminimax_value(game, game.result(state, outcome)) for outcome, _ in outcomes
        ) / len(outcomes)""",
)
WRONG_COMPONENT = _mutated(
    "return max(values, key=lambda utilities: utilities[player])",
    "return max(values, key=lambda utilities: utilities[player - 1])",
)
WORST_BY_OWN_VALUES = (
    MAX_AT_ZERO
    + '''

def minimax_decision(game, state):
    """The worst action by the student's own values: wrong on its own, whatever they are."""
    pick = min if game.to_move(state) == MAX else max
    return pick(game.actions(state), key=lambda a: minimax_value(game, game.result(state, a)))
'''
)

RIGHT_OVER_WRONG = [
    (MAX_AT_ZERO, ASSIGNMENT_RULES["minimax"], "minimax", "max_starts_at_zero"),
    (ALPHABETA_MAX_AT_ZERO, ("alphabeta_value", "alphabeta_decision"), "alphabeta",
     "max_starts_at_zero"),
    (PLAIN_MEAN, CHANCE_AND_MAXN_RULE_IDS, "expectiminimax", "chance_plain_average"),
    (WRONG_COMPONENT, CHANCE_AND_MAXN_RULE_IDS, "maxn", "maxn_wrong_component"),
]  # fmt: skip


def _ran(source: str, rule_ids: tuple, directory: Path, view: Path):
    path = directory / "student.py"
    path.write_text(source, encoding="utf-8")
    submission = Submission("student", (path,))
    loaded = load(submission)
    settings = Settings(Limits(isolation="process"), view, rule_ids)
    ran = grading.run(submission, loaded, settings)
    record = grading.judged(submission, loaded.digest, ran, rule_ids, time.monotonic())
    return ran, record


def _groups(record, rule_id: str) -> tuple:
    return next(r for r in record.rules if r.id == rule_id).groups


def _failed(record, rule_id: str) -> list:
    return [v for g in _groups(record, rule_id) for v in g.verdicts if not v.passed]


def _instance(function: str, key: int):
    return next(
        instance
        for found in rule(function).groups
        for instance in found.instances
        if cases.case(function, instance).key == key
    )


@pytest.mark.parametrize(
    ("source", "rule_ids", "family", "mistake_id"),
    RIGHT_OVER_WRONG,
    ids=[family for _, _, family, _ in RIGHT_OVER_WRONG],
)
def test_a_right_decision_over_a_wrong_value_function_is_told_to_fix_the_value_function(
    tmp_path: Path, view: Path, source: str, rule_ids: tuple, family: str, mistake_id: str
) -> None:
    ran, record = _ran(source, rule_ids, tmp_path, view)
    decision, value = f"{family}_decision", f"{family}_value"
    said = OWN.format(value=value)
    failed = _failed(record, decision)
    assert failed, "the mutant must lose some decision instance"
    assert all(said in verdict.hint for verdict in failed), [v.hint for v in failed]
    lines = next(r for r in record.rules if r.id == decision).diagnosis.split("\n")
    assert lines[0].startswith(f"{decision}: on all {len(failed)} failed instances, {said}")
    assert mistake(mistake_id).hint in lines[0], "it points at what the value function does"
    assert diagnosed(record) == {mistake(mistake_id).label}  # the class page: the value's
    # the feedback page and Gradescope's output say it, from the same record
    assert html.escape(said) in feedback_html(record)
    shown = gradescope.gradescope_results(record, "", "visible", "md")
    test = next(t for t in shown["tests"] if t["name"].startswith(decision))
    assert f"diagnosis: {lines[0]}" in test["output"].replace("\\", "")
    # The decision's points are what the rules give its answers: the confirmation changes
    # the words only, and only failing decisions cost the extra calls.
    alone = grading.judged(
        Submission("student", ()), "", replace(ran, own_values={}), rule_ids, time.monotonic()
    )
    assert [r.points for r in record.rules] == [r.points for r in alone.rules]
    wrong = {
        (decision, cases.case(decision, instance).key)
        for group, judged in zip(rule(decision).groups, _groups(record, decision), strict=True)
        for instance, verdict in zip(group.instances, judged.verdicts, strict=True)
        if not verdict.passed
    }
    assert set(ran.own_values) == wrong  # the wrong decisions' calls, and no other
    for (function, key), children in ran.own_values.items():
        legal = cases.case(function, _instance(function, key)).legal
        assert len(children) == len(legal) and all(c.status == "returned" for c in children)


def test_a_decision_wrong_on_its_own_is_judged_on_its_own_though_its_value_function_fails(
    tmp_path: Path, view: Path
) -> None:
    """It picks the worst action by its own values: told to fix minimax_value only where the
    worst is also a best (every child tied by those values), as an in-process run of the same
    code says; elsewhere it is judged as any decision is (no word of minimax_value)."""
    ran, record = _ran(WORST_BY_OWN_VALUES, ASSIGNMENT_RULES["minimax"], tmp_path, view)
    namespace: dict = {"__name__": "oracle"}
    exec(WORST_BY_OWN_VALUES, namespace)
    told = untold = 0
    found = next(r for r in record.rules if r.id == "minimax_decision")
    for group, judged in zip(rule("minimax_decision").groups, found.groups, strict=True):
        for instance, verdict in zip(group.instances, judged.verdicts, strict=True):
            if verdict.passed:
                continue
            game, state = instance.game, instance.state
            own = [
                namespace["minimax_value"](game, game.result(state, a)) for a in game.actions(state)
            ]
            best = (max if game.to_move(state) == MAX else min)(own)
            chosen = namespace["minimax_decision"](game, state)
            right_for_them = own[game.actions(state).index(chosen)] == best
            assert (OWN.format(value="minimax_value") in verdict.hint) == right_for_them
            told, untold = told + right_for_them, untold + (not right_for_them)
            assert verdict.hint.startswith("that action is worth")  # its own evidence
    assert untold >= 2
    assert mistake("max_starts_at_zero").label in diagnosed(record)


def test_a_correct_submission_makes_no_extra_call(tmp_path: Path, view: Path) -> None:
    ran, record = _ran(reference_source(), ASSIGNMENT_RULES["bug_hunt"], tmp_path, view)
    assert record.score == record.max_score and ran.own_values == {}


def _hidden_cells_say(source: str, rule_id: str) -> list[list[str]]:
    """What nbgrader's hidden cells of `rule_id` say of each failed instance (a list a group),
    run in one namespace as in the kernel."""
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    exec(source, namespace)
    said = []
    for group in rule(rule_id).groups:
        try:
            exec(nbgrader_export.hidden_test_source(rule(rule_id), group), namespace)
        except AssertionError as failure:
            said.append([line for line in str(failure).split("\n") if line.startswith("- ")])
        else:
            said.append([])
    return said


@pytest.mark.parametrize(
    ("source", "told"), [(MAX_AT_ZERO, True), (WORST_BY_OWN_VALUES, False)], ids=["told", "not"]
)
def test_the_hidden_cells_weigh_a_decision_as_the_grader_does(
    tmp_path: Path, view: Path, source: str, told: bool
) -> None:
    """Instance by instance, a hidden cell points the decision at minimax_value exactly where
    the grader's page does, in the same words."""
    _, record = _ran(source, ASSIGNMENT_RULES["minimax"], tmp_path, view)
    own = OWN.format(value="minimax_value")
    said = _hidden_cells_say(source, "minimax_decision")
    pointed, total = 0, sum(len(lines) for lines in said)
    for judged, lines in zip(_groups(record, "minimax_decision"), said, strict=True):
        failed = [verdict for verdict in judged.verdicts if not verdict.passed]
        assert len(failed) == len(lines)
        for verdict, line in zip(failed, lines, strict=True):
            assert (own in verdict.hint) == (own in line), (verdict.hint, line)
            if own in verdict.hint:
                assert line.endswith(f"Hint: {verdict.hint}."), (verdict.hint, line)
                pointed += 1
    assert total > 0 and (pointed == total if told else pointed < total)


def test_the_self_check_weighs_a_max_n_decision_by_the_movers_component() -> None:
    """A right argmax over maxn_value's wrong component (player - 1) is told to fix
    maxn_value, with the values it gives the children (the mover's component)."""
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.self_check_helpers_source(), namespace)
    exec(WRONG_COMPONENT, namespace)
    # player 0 moves at the root, player 1 below: max-n gives player 0 (0, 2), the wrong
    # component (player 1 maximising player 0's utility) (9, 2)
    tree = MultiplayerTree([[(9, 0, 0), (0, 5, 0)], [(2, 1, 0), (0, 0, 0)]])
    root = tree.initial_state()
    assert namespace["maxn_decision"](tree, root) == 0
    with pytest.raises(AssertionError) as failed:
        namespace["check_decision"](namespace["maxn_decision"], "three players", tree, root,
                                    (1,), [0, 2])  # fmt: skip
    said = str(failed.value)
    assert OWN.format(value="maxn_value") in said
    assert "(it gives the actions {0: 9, 1: 2}, where their values are {0: 0, 1: 2})" in said


def test_the_kernels_calls_on_the_children_leave_what_later_calls_carry_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kernel_calls, "EXPANDED_STATES", {"kept"})
    monkeypatch.setattr(kernel_calls, "EXPANDED_ROOTS", {"value": {"root"}})
    tree = GameTree([[3, 12], [2, 4]])

    def minimax_value(game, state):
        if game.is_terminal(state):
            return game.utility(state)
        return max(minimax_value(game, game.result(state, a)) for a in game.actions(state))

    outcome = kernel_calls.call_aside(minimax_value, tree, tree.initial_state())
    assert outcome.status == "returned" and outcome.value == 12
    assert {"kept"} == kernel_calls.EXPANDED_STATES
    assert {"value": {"root"}} == kernel_calls.EXPANDED_ROOTS
