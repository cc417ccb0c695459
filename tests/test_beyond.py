"""Lecture 06's functions in the grader: chance outcomes and utility vectors served through the
sandbox as the real games give them, the vector judge, and the instances that catch each mistake.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from autograder.grading import beyond, beyond_instances, cases
from autograder.grading.grade import Settings, grade
from autograder.grading.judge import Case, Outcome, judge
from autograder.grading.load import Submission, load
from autograder.grading.mistakes import mistake
from autograder.grading.plain import decode, plain
from autograder.grading.rules import CHANCE_AND_MAXN_RULE_IDS, rule
from autograder.sandbox import Limits, StudentProcess, build_import_view
from autograder.sandbox.runner import plain as sandbox_plain
from games import CHANCE, ChanceTree, MultiplayerTree, Pig, TakeAway, chance, max_

FAST = Limits(timeout=5.0)


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


PROBE = '''\
def probe(game, state):
    """What the served game says about nature's move and about a finished game."""
    seen = []
    if game.to_move(state) == "CHANCE":
        seen.append([(o, type(p).__name__, str(p)) for o, p in game.chance_outcomes(state)])
    node = state
    while not game.is_terminal(node):
        node = game.result(node, game.actions(node)[0])
    if hasattr(game, "utilities"):
        try:
            seen.append(list(game.utilities(node)))
        except TypeError as error:
            seen.append(str(error))
    seen.append(getattr(game, "players", None))
    return seen
'''


def _probe(view: Path, game, state) -> object:
    process = StudentProcess([(1, PROBE)], ["probe"], view, FAST)
    try:
        assert process.start().status == "loaded"
        outcome = process.call("probe", game, state)
        assert outcome.status == "returned", outcome.error
        return decode(outcome.value)
    finally:
        process.close()


def test_pig_serves_its_exact_fractions_to_the_sandbox(view: Path) -> None:
    pig = Pig()
    rolling = pig.result(pig.initial_state(), "roll")
    outcomes = _probe(view, pig, rolling)[0]
    assert outcomes[:2] == [(1, "Fraction", "1/6"), (2, "Fraction", "1/6")]


def test_a_chance_tree_serves_float_probabilities_as_given(view: Path) -> None:
    game = ChanceTree(chance((0.25, 1), (0.75, max_(2, 3))))
    assert _probe(view, game, ())[0] == [(0, "float", "0.25"), (1, "float", "0.75")]


def test_a_game_of_three_serves_its_utility_vectors_and_its_players(view: Path) -> None:
    utilities, players = _probe(view, TakeAway(heap=3, max_take=2), (3, 0))
    assert (utilities, players) == ([0, 0, 1], 3)  # 1, 1, 1: the third player takes the last
    tree = MultiplayerTree([[(1, 2, 3), (4, 5, 6)], (7, 8, 9)], root_player=1)
    assert _probe(view, tree, ())[0] == [1, 2, 3]


def test_a_fraction_is_judged_as_the_number_it_is_on_both_roads() -> None:
    assert plain(Fraction(1, 3)) == pytest.approx(1 / 3)
    assert sandbox_plain(Fraction(1, 3)) == pytest.approx(1 / 3)
    case = Case(1, "Pig", value=1979 / 3456)
    outcome = Outcome("returned", plain(Fraction(1979, 3456)))
    assert judge("value", "expectiminimax_value", case, outcome).passed


@pytest.mark.parametrize(
    "returned, passed, words",
    [
        ((7, 4, 1), True, ""),
        ([7, 4, 1], True, ""),
        ((7.0, 4.0, 1.0), True, ""),
        ((4, 3, 3), False, "the previous player's component"),
        ((7, 4), False, "a tuple of 3 numbers"),
        (7, False, "one player's view only"),
        ((True, 4, 1), False, "a tuple of 3 numbers"),
    ],
)
def test_the_vector_judge(returned, passed: bool, words: str) -> None:
    hint = f"your value equals ... when {mistake('maxn_wrong_component').hint}"
    case = Case(1, "three players", value=(7, 4, 1), value_hints=(((4, 3, 3), hint),))
    verdict = judge("vector", "maxn_value", case, Outcome("returned", plain(returned)))
    assert verdict.passed is passed
    assert words in verdict.hint


def test_a_decision_at_a_chance_node_is_never_graded() -> None:
    for group in rule("expectiminimax_decision").groups:
        for instance in group.instances:
            assert instance.game.to_move(instance.state) != CHANCE


@pytest.mark.parametrize("rule_id", CHANCE_AND_MAXN_RULE_IDS)
def test_every_group_names_the_mistakes_of_its_rule_except_where_a_fair_die_hides_one(
    rule_id: str,
) -> None:
    """Each group has, for each mistake that loses this rule, an instance where the re-enacted
    mistake gives another answer (so the group is lost), unless the catalogue says the mistake
    loses the rule on some groups only."""
    relevant = [m for m in map(mistake, {**beyond.CHANCE_RULES, **beyond.MAXN_RULES})
                if rule_id in m.loses]  # fmt: skip
    for group in rule(rule_id).groups:
        hints = set()
        for instance in group.instances:
            case = cases.case(group.function, instance)
            hints |= {hint for _, hint in case.value_hints + case.decision_hints}
        for entry in relevant:
            partly = dict(entry.partly).get(rule_id, "")
            caught = any(entry.hint in hint for hint in hints)
            if partly and ("Pig" in group.name or "roll or hold" in group.name):
                assert not caught, (entry.id, group.name)
            else:
                assert caught, (entry.id, group.name)


INT_LEAVES_ONLY = """
from games import CHANCE, MAX


def expectiminimax_value(game, state):
    if game.is_terminal(state):
        value = game.utility(state)
        return value if isinstance(value, int) else 0  # public code's leaf test: ints only
    if game.to_move(state) == CHANCE:
        return sum(p * expectiminimax_value(game, game.result(state, o))
                   for o, p in game.chance_outcomes(state))
    values = [expectiminimax_value(game, game.result(state, a)) for a in game.actions(state)]
    return max(values) if game.to_move(state) == MAX else min(values)
"""


def test_the_hand_made_trees_serve_what_public_code_gets_wrong() -> None:
    sets = beyond_instances.instance_sets()
    leaves = [i for i in sets["chance_hand"] if i.game.is_terminal(i.state)]
    assert [i.name for i in leaves] == ["a game already over: the root is a leaf"]
    nested = [i for i in sets["chance_hand"] if "chance under chance" in i.name]
    assert nested and nested[0].game.to_move((0, 0)) == CHANCE
    assert any(
        type(i.game.utility(path)) is float
        for i in sets["chance_hand"]
        for path in _leaves(i.game, i.state)
    )
    assert all(
        not i.game.is_terminal(i.state) for i in (*sets["chance_moves"], *sets["maxn_moves"])
    )
    assert any(i.game.is_terminal(i.state) for i in sets["maxn_hand"])


def _leaves(game, state):
    if game.is_terminal(state):
        return [state]
    return [leaf for a in game.actions(state) for leaf in _leaves(game, game.result(state, a))]


def test_an_expectiminimax_that_knows_only_int_leaves_loses_the_hand_made_trees(
    view: Path, tmp_path: Path
) -> None:
    path = tmp_path / "public.py"
    path.write_text(INT_LEAVES_ONLY, encoding="utf-8")
    submission = Submission("public", (path,))
    settings = Settings(Limits(isolation="process"), view, rule_ids=("expectiminimax_value",))
    record = grade(submission, load(submission), settings)
    (result,) = record.rules
    points = {group.name: group.points for group in result.groups}
    assert points == {
        "hand-made chance trees": 0,
        "seeded chance trees with uneven probabilities": 5,
        "Pig positions (a fair die)": 5,
    }
