"""The hidden instances chosen by what they catch (autograder/grading/coverage.py): the cover
itself, and what the frozen choice must keep whatever it saves.

That each example student, mutant and mistaken function still loses exactly the same points,
filed under the same diagnosis, is checked where they are graded (tests/test_grader_class.py,
test_rule_mutants.py, test_diagnosis_names.py, test_states_are_values.py); here the mistakes the
diagnosis re-enacts are checked in-process, on the choice against every candidate.
"""

from __future__ import annotations

import math

import pytest

from autograder.grading import coverage, diagnosis, instances, rules
from autograder.grading.cases import case
from autograder.grading.coverage_corpus import Graded
from autograder.grading.judge import PRUNING_SLACK
from autograder.grading.positions import TTT
from autograder.reports.diagnoses import CARRIED_LABEL
from games import CountingGame
from solutions import minimax_value

GRADED = [rule for rule in rules.rules() if rule.id in rules.RULE_IDS]


def test_the_cover_fails_every_element_with_the_fewest_states() -> None:
    caught = [{"a", "b"}, {"a"}, {"b"}, {"c"}, set()]
    # The first fails a and b for 10 states; the second and third fail them for 2 together.
    assert coverage.cover_places([10, 1, 1, 5, 0], [1.0] * 5, caught, set()) == [1, 2, 3]
    assert coverage.cover_places([1, 1, 1, 5, 0], [1.0] * 5, caught, set()) == [0, 3]


def test_the_cover_keeps_the_pinned_places_and_counts_what_they_fail() -> None:
    caught = [{"a"}, {"a", "b"}, {"b"}]
    assert coverage.cover_places([1, 9, 1], [1.0] * 3, caught, {1}) == [1]


def test_the_cover_adds_decisions_until_a_random_move_rarely_passes() -> None:
    caught = [{"a"}, set(), set(), set(), set(), set(), set()]
    shares = [1 / 2, 1 / 4, 1 / 4, 1 / 4, 1 / 4, 1 / 4, 1 / 2]
    kept = coverage.cover_places([1] * 7, shares, caught, set())
    assert math.prod(shares[p] for p in kept) <= coverage.GUESS_CHANCE
    assert kept == [0, 1, 2, 3, 4, 5]  # the rarest guesses first; the last is not needed


def test_every_chosen_slot_is_a_function_and_pool_the_rules_use() -> None:
    used = {rules.slot(g.function, g.pool) for r in GRADED for g in r.groups}
    chosen = instances.chosen_data()
    assert set(chosen) == used
    for key, picks in chosen.items():
        pool, places = key.partition(" on ")[2], [place for place, _ in picks]
        assert places and places == sorted(set(places)), key
        assert all(rules.candidates(pool)[p].name == name for p, name in picks), key


def test_a_choice_made_on_other_candidates_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    key = rules.slot("minimax_value", "trees")
    monkeypatch.setattr(instances, "chosen_data", lambda: {key: ((0, "another tree"),)})
    with pytest.raises(RuntimeError, match="coverage --write"):
        rules.chosen("minimax_value", "trees")


def test_the_choice_serves_a_correct_submission_well_under_half_the_states() -> None:
    served = {
        (g.function, id(i)): coverage.served_states(g.function, i)
        for r in GRADED
        for g in r.groups
        for i in g.instances
    }
    every = {
        (g.function, id(i)): coverage.served_states(g.function, i)
        for r in GRADED
        for g in r.groups
        for i in rules.candidates(g.pool)
    }
    assert sum(served.values()) < 0.45 * sum(every.values())


def test_the_pinned_positions_and_the_hand_made_trees_are_kept() -> None:
    for r in GRADED:
        for group in r.groups:
            states = [i.state for i in group.instances]
            for place in range(coverage.HAND_MADE.get(group.pool, 0)):
                assert rules.candidates(group.pool)[place] in group.instances, group.name
            for state in coverage.PINNED.get(group.pool, ()):
                assert state in states, (r.id, group.name, state)
    decisions = rules.rule("alphabeta_decision").groups[1].instances
    assert set(instances.table_bound_states()) <= {i.state for i in decisions}


@pytest.mark.parametrize(
    "group", [g for r in GRADED if r.kind == "decision" for g in r.groups], ids=lambda g: g.name
)
def test_a_random_move_rarely_passes_a_decision_group(group) -> None:
    chance = math.prod(
        len(case(group.function, i).optimal) / len(case(group.function, i).legal)
        for i in group.instances
    )
    assert chance <= coverage.GUESS_CHANCE


@pytest.mark.parametrize("group", rules.rule("alphabeta_pruning").groups, ids=lambda g: g.name)
def test_each_pruning_group_has_a_position_where_minimax_is_over_the_threshold(group) -> None:
    over = []
    for instance in group.instances:
        counted = CountingGame(instance.game)
        minimax_value(counted, instance.state)
        threshold = math.floor(PRUNING_SLACK * case(group.function, instance).states)
        over.append(counted.states_generated > threshold)
    assert any(over)


@pytest.mark.parametrize("mistake_id", list(coverage.reenacted()))
def test_each_reenacted_mistake_fails_the_groups_it_fails_on_every_candidate(mistake_id):
    variant = coverage.reenacted()[mistake_id]
    for group in coverage.reenacted_groups():
        if group.function.startswith("minimax") and diagnosis.needs_a_window(variant):
            continue  # not a mistake minimax can make
        on_every = [coverage.variant_fails(group, i, variant) for i in rules.candidates(group.pool)]
        on_choice = [coverage.variant_fails(group, i, variant) for i in group.instances]
        assert any(on_choice) == any(on_every), (mistake_id, group.function, group.name)


def test_the_pinned_table_decisions_flip_a_bound_as_exact_table_in_every_form_that_flips() -> None:
    """`select_table_bound_decisions`: one best move, and in each re-enacted form of a table that
    stores bounds as exact (window carried or fresh, one table or one per child) that flips the
    move on any tic-tac-toe position with 5 to 8 empty squares and one best move, some pinned
    position is flipped: the cheapest such set (one position, 186 states, in November 2026)."""
    exact = diagnosis.Variant(bound_as_exact=True)
    forms = [(carry, shared) for carry in (True, False) for shared in (True, False)]
    pinned = instances.table_bound_states()
    flipped = set()
    for instance in instances.table_bound_decisions():
        state, optimal = instance.state, case("alphabeta_decision", instance).optimal
        assert state in pinned and len(optimal) == 1
        flipped |= {
            form for form in forms
            if diagnosis.decide(TTT, state, exact, form[0], shared_table=form[1]) not in optimal
        }  # fmt: skip
    assert flipped == {(True, True), (False, True), (False, False)}  # none flips (True, False)
    assert sum(coverage.served_states("alphabeta_decision", i)
               for i in instances.table_bound_decisions()) <= 200  # fmt: skip


@pytest.mark.parametrize("pool", ["ttt_moves", "ttt_moves_deep"])
def test_the_cheap_decisions_have_one_best_move_and_cost_less_than_the_others(pool) -> None:
    function = "minimax_decision" if pool == "ttt_moves" else "alphabeta_decision"
    cheap = [i for i in rules.candidates(pool) if i.name.startswith("one best move, a small")]
    others = [i for i in rules.candidates(pool) if i not in cheap]
    assert len(cheap) >= 6 and {TTT.to_move(i.state) for i in cheap} == {"MAX", "MIN"}
    for instance in cheap:
        found = case(function, instance)
        assert len(found.optimal) == 1 and found.optimal[0] != found.legal[0]

    def price(instance: instances.Instance) -> float:
        states = coverage.served_states(function, instance)
        return states / math.log(len(TTT.actions(instance.state)))

    for player in ("MAX", "MIN"):  # the cheapest of each player's, against the pool's others
        mine = [price(i) for i in cheap if TTT.to_move(i.state) == player]
        theirs = [price(i) for i in others if TTT.to_move(i.state) == player]
        assert max(mine) <= min(theirs), (player, mine, theirs)


def _graded(points: tuple, named: tuple = ()) -> Graded:
    return Graded((("alphabeta_decision", points),), (("alphabeta_decision", ""),), named, {})


def test_a_table_kept_between_calls_may_lose_more_on_the_choice_and_nothing_else_may() -> None:
    """Its answers depend on the calls made before: every candidate's calls may happen to let it
    pass a group that the choice's fewer calls fail, and no instance added brings that back."""
    carried = (CARRIED_LABEL,)
    assert (
        coverage.differences({"t": _graded((0, 5), carried)}, {"t": _graded((0, 0), carried)}) == []
    )
    assert coverage.differences(
        {"t": _graded((0, 0), carried)}, {"t": _graded((0, 5), carried)}
    ) == [("t", "alphabeta_decision")]
    assert coverage.differences({"s": _graded((0, 5))}, {"s": _graded((0, 0))}) == [
        ("s", "alphabeta_decision")
    ]
