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
from autograder.grading.judge import PRUNING_SLACK
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
    assert set(instances.TABLE_BOUND_DECISIONS) <= {i.state for i in decisions}


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
