"""The reference side of judging: a `Case` for every graded call, with known mistakes' hints.

Computed once per grading run (in the main process, before the workers fork) and by
`autograder.platforms.nbgrader_export` for the notebooks' hidden tests, so both judge against the
same cases. What only the grader needs beside a case (how many states a call may take, which states
the reference generates on a small tree) is kept in a `Reference`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from functools import cache

from autograder.grading import beyond, diagnosis
from autograder.grading.instances import Instance
from autograder.grading.judge import PRUNING_SLACK, Case, Outcome, Verdict, judge
from autograder.grading.mistakes import mistake
from autograder.grading.plain import decode
from autograder.grading.rules import Group, Rule, rules
from autograder.grading.together import (
    ROOT_FORM,
    judge_counts_together,
    judge_decisions,
    judge_together,
    own_scores,
)
from autograder.sandbox import CallOutcome
from games import MAX, CountingGame, RecordingGame
from solutions import alphabeta_decision, alphabeta_value, depth_limited_value
from solutions.strong import TranspositionTable, alphabeta_tt_value

STATES_MULTIPLE = 100
STATES_FLOOR = 50_000
"""A call may generate at most STATES_MULTIPLE times the states the reference alpha-beta
generates on its instance, and never fewer than STATES_FLOOR. Plain minimax generates at most
8,515 states on any hidden instance, 44 times alpha-beta at most, so honest searches (even ones
that search some subtrees twice) stay well inside; a search that loops through `game.result` is
stopped there rather than filling the grader's memory."""


@dataclass(frozen=True)
class Reference:
    """A case and what only the grader needs: the most states a call may generate here, and
    the states the reference generates (drawn on the feedback page for a small tree)."""

    case: Case
    state_cap: int
    generated: tuple = ()


@cache
def case_numbers() -> dict[int, int]:
    """A stable number for each instance: its place in the order the grader first calls it."""
    numbers: dict[int, int] = {}
    for rule in rules():
        for group in rule.groups:
            for instance in group.instances:
                numbers.setdefault(id(instance), len(numbers) + 1)
    return numbers


@cache
def _pruned_calls() -> frozenset:
    """The (function, instance id) calls some pruning group judges: only they need the fewest
    states and the counts of the mistakes (a whole minimax among them)."""
    return frozenset(
        (group.function, id(instance))
        for rule in rules()
        if rule.kind == "pruning"
        for group in rule.groups
        for instance in group.instances
    )


def case(function: str, instance: Instance) -> Case:
    """The case of calling `function` on `instance` (computed once per run)."""
    return reference(function, instance).case


@cache
def reference(function: str, instance: Instance) -> Reference:
    """The reference's answers for `function` on `instance`, with every hint precomputed."""
    game, state, depth = instance.game, instance.state, instance.depth
    key = case_numbers().get(id(instance), 0)
    if function in beyond.FUNCTIONS:  # lecture 06: chance nodes, several players
        found = beyond.beyond_case(function, instance, Case(key, instance.name))
        return Reference(found, max(STATES_FLOOR, STATES_MULTIPLE * beyond.state_count(instance)))
    base = Case(key, instance.name, game.to_move(state), depth_limited=depth is not None)
    decision = function.endswith("_decision")
    counted = RecordingGame(game)
    if decision:
        found = _decision_case(base, instance, windows=not function.startswith("minimax"))
        alphabeta_decision(counted, state)
    else:
        if function == "alphabeta_value" or depth is None:
            value = alphabeta_value(counted, state)
        else:
            value = depth_limited_value(counted, state, depth, instance.evaluate)
        named = value_suspects(instance, value, function)
        found = replace(
            base,
            value=value,
            value_hints=tuple(hints_of(named).items()),
            suspects=tuple((answer, tuple(words)) for answer, words in named.items()),
        )
    states = counted.states_generated
    found = replace(found, states=states, fewest=states)
    if (function, id(instance)) in _pruned_calls():
        fewest = min(states, _fewest(game, state, decision))
        named = pruning_suspects(instance, decision, states)
        causes = tuple(causes_of(named).items())
        counts = tuple((count, tuple(words)) for count, words in named.items())
        found = replace(found, fewest=fewest, causes=causes, count_suspects=counts)
    cap = _state_cap(game, state) if not decision else STATES_MULTIPLE * states
    return Reference(found, max(STATES_FLOOR, cap), tuple(counted.generated))


def _decision_case(base: Case, instance: Instance, windows: bool = True) -> Case:
    game, state, depth = instance.game, instance.state, instance.depth
    legal = tuple(game.actions(state))
    children = []
    for action in legal:
        child = game.result(state, action)
        if depth is None:
            children.append(alphabeta_value(game, child))
        else:
            children.append(depth_limited_value(game, child, max(depth - 1, 0), instance.evaluate))
    best = (max if base.to_move == MAX else min)(children)
    optimal = tuple(a for a, v in zip(legal, children, strict=True) if v == best)
    hints = diagnosis.decision_hints(game, state, optimal, depth, instance.evaluate, windows)
    return replace(
        base,
        legal=legal,
        value=best,
        optimal=optimal,
        child_values=tuple(children),
        decision_hints=tuple(hints.items()),
        suspects=tuple((action, (hint,)) for action, hint in hints.items()),
    )


def _state_cap(game, state) -> int:
    counted = CountingGame(game)
    alphabeta_value(counted, state)
    return STATES_MULTIPLE * counted.states_generated


def _fewest(game, state, decision: bool) -> int:
    """The fewest states a correct alpha-beta may generate here: fewer than the reference's
    where a transposition table (one per call, shared by the root's children) finds positions
    again by other move orders. Below this, pruning has cut off too much."""
    counted, table = CountingGame(game), TranspositionTable()
    if not decision:
        alphabeta_tt_value(counted, state, table=table)
    elif not game.is_terminal(state):
        alpha, beta, maximising = -math.inf, math.inf, game.to_move(state) == MAX
        for action in game.actions(state):
            value = alphabeta_tt_value(counted, counted.result(state, action), alpha, beta, table)
            alpha, beta = (max(alpha, value), beta) if maximising else (alpha, min(beta, value))
    return counted.states_generated


# -- hints: what each known mistake would have answered ---------------------------------------


def value_hints(instance: Instance, correct: float, function: str = "") -> dict[float, str]:
    """Wrong values a known mistake gives on `instance`, with the hint that names it: one hint
    per value, naming every mistake that gives it ("either ... or ..."), and only mistakes
    `function`'s lectures have taught (no window before alpha-beta)."""
    return hints_of(value_suspects(instance, correct, function))


def hints_of(named: dict) -> dict:
    """The hint for each wrong value of `value_suspects`, naming every mistake that gives it."""
    return {
        value: diagnosis.either("your value equals what a search gives", words)
        for value, words in named.items()
    }


def value_suspects(instance: Instance, correct: float, function: str = "") -> dict[float, list]:
    """Wrong values a known mistake gives on `instance`, each with the words of every mistake
    that gives it."""
    game, state, depth = instance.game, instance.state, instance.depth
    named: dict[float, list[str]] = {}
    if depth is None:
        taught = [
            (mistake_id, variant)
            for mistake_id, variant in diagnosis.VALUE_VARIANTS.items()
            if not function.startswith("minimax") or not diagnosis.needs_a_window(variant)
        ]
        for mistake_id, variant in taught:
            value = diagnosis.variant_value(game, state, variant)
            named.setdefault(value, []).append(mistake(mistake_id).hint)
    else:
        for searched, words in ((depth + 1, "one ply further"), (depth - 1, "one ply less")):
            if searched >= 0:
                named.setdefault(
                    depth_limited_value(game, state, searched, instance.evaluate), []
                ).append(
                    f"the search looks {words} than asked (it gives the depth-{searched} value; "
                    "here depth counts the plies still allowed: depth 0 evaluates the state "
                    "itself, and a decision at depth d searches children with d - 1)"
                )
        for mistake_id, value in (
            ("wrong_side_evaluation",
             diagnosis.wrong_side_value(game, state, depth, instance.evaluate)),
            ("horizon_at_max_only",
             diagnosis.max_only_horizon_value(game, state, depth, instance.evaluate)),
        ):  # fmt: skip
            named.setdefault(value, []).append(mistake(mistake_id).hint)
    return {
        value: words
        for value, words in named.items()
        if isinstance(value, int | float) and math.isfinite(value) and value != correct
    }


def pruning_causes(instance: Instance, decision: bool, reference_states: int) -> dict[int, str]:
    """State counts a known mistake generates on `instance` above the threshold, with the hint
    that names it, or every mistake that generates that count ("either ... or ...")."""
    return causes_of(pruning_suspects(instance, decision, reference_states))


def causes_of(named: dict[int, list[str]]) -> dict[int, str]:
    """The hint for each count of `pruning_suspects`, naming every mistake that gives it."""
    named = {
        count: list(dict.fromkeys(said.removesuffix(ROOT_FORM) for said in words))
        for count, words in named.items()
    }
    return {
        count: "your count equals that of a search where "
        + (words[0] if len(words) == 1 else "either " + ", or ".join(words) + ": look for each")
        for count, words in sorted(named.items())
    }


def pruning_suspects(
    instance: Instance, decision: bool, reference_states: int
) -> dict[int, list[str]]:
    """State counts a known mistake generates on `instance` above the threshold, each with the
    words of every mistake that generates it."""
    game, state = instance.game, instance.state
    most = math.floor(reference_states * PRUNING_SLACK)
    named: dict[int, list[str]] = {}
    for mistake_id, variant in diagnosis.PRUNING_VARIANTS.items():
        words = mistake(mistake_id).hint
        carried = diagnosis.count_states(game, state, variant, decision)
        fresh = diagnosis.count_states(game, state, variant, decision, False) if decision else 0
        # The mistake in a value function shows in a decision that carries the root's window
        # into it, or in one that calls it with a fresh window: two forms, judged apart.
        for count, said in ((carried, words), (fresh or carried, words + ROOT_FORM)):
            if count > most:
                named.setdefault(count, []).append(said)
    if decision:
        fresh = CountingGame(game)
        diagnosis.decide(fresh, state, diagnosis.Variant(), carry_window=False)
        if fresh.states_generated > most:
            words = "a decision " + mistake("fresh_root_window").hint
            named.setdefault(fresh.states_generated, []).insert(0, words)
    return named


# -- judging a group in the grader ------------------------------------------------------------


def outcome_of(call: CallOutcome) -> Outcome:
    """The judge's view of a call made in the sandbox."""
    value = decode(call.value)
    return Outcome(call.status, value, call.error, call.states_generated, call.where, call.carried)


def judge_group(rule: Rule, group: Group, outcomes: dict) -> list[Verdict]:
    """Judge every instance of `group` from the calls' outcomes, keyed by (function, case key)."""
    verdicts = []
    for instance in group.instances:
        found = reference(group.function, instance)
        call = outcomes[(group.function, found.case.key)]
        verdict = judge(rule.kind, group.function, found.case, outcome_of(call))
        verdict = replace(verdict, picture=instance.picture())
        if rule.kind == "pruning" and instance.small_tree:
            visited = tuple(dict.fromkeys(call.generated))  # distinct: a small tree
            verdict = replace(verdict, visited=visited, reference_visited=found.generated)
        verdicts.append(verdict)
    return verdicts


def judge_rule(
    rule: Rule, outcomes: dict, own: Mapping | None = None
) -> tuple[str, list[list[Verdict]]]:
    """Judge every group of `rule`, then each function's instances together: the diagnosis of
    each function whose failed answers one mistake explains (a line each; "" if none), and each
    group's verdicts with hints that name only the mistakes no instance rules out. A wrong
    decision is first weighed against the student's own value function: `own` holds, by
    (decision, case key), that function's calls on the root's children (`own_values_calls`).
    A pruning rule's state counts are then judged together too (see `_counts_together`)."""
    groups = [judge_group(rule, group, outcomes) for group in rule.groups]
    said, judged = [], {}
    for function in dict.fromkeys(group.function for group in rule.groups):
        places, calls, scores = [], [], []
        for number, group in enumerate(rule.groups):
            if group.function != function:
                continue
            for index, instance in enumerate(group.instances):
                found = reference(function, instance).case
                places.append((number, index))
                calls.append((found, outcome_of(outcomes[(function, found.key)])))
                children = (own or {}).get((function, found.key))
                scores.append(_scores(instance, children) if children else None)
        verdicts = [groups[number][index] for number, index in places]
        if function.endswith("_decision"):
            header, verdicts = judge_decisions(function, _with(calls, verdicts), scores)
        else:
            header, verdicts = judge_together(function, _with(calls, verdicts), False)
        said += [header] if header else []
        judged[function] = (places, calls, verdicts, bool(header))
    if rule.kind == "pruning":
        said += _counts_together(judged)
    for places, _, verdicts, _ in judged.values():
        for (number, index), verdict in zip(places, verdicts, strict=True):
            groups[number][index] = verdict
    return "\n".join(said), groups


def _scores(instance: Instance, children: tuple) -> list | None:
    """The student's own values of `instance`'s root children (at a max-n node, the mover's
    component), from the calls of its value function on them."""
    mover = instance.game.to_move(instance.state)
    return own_scores(
        [outcome_of(call) for call in children], mover if type(mover) is int else None
    )


def _with(calls: list, verdicts: list) -> list:
    return [
        (case, outcome, verdict) for (case, outcome), verdict in zip(calls, verdicts, strict=True)
    ]


def _counts_together(judged: dict) -> list[str]:
    """The state counts of a pruning rule's functions whose answers no mistake explains,
    judged together: first all of them at once (a decision searches with its value function's
    code, so one mistake shows in both), else each function alone."""
    functions = [function for function, (*_, named) in judged.items() if not named]
    if not functions:
        return []
    calls = [call for f in functions for call in judged[f][1]]
    verdicts = [verdict for f in functions for verdict in judged[f][2]]
    header, rewritten = judge_counts_together(" and ".join(functions), _with(calls, verdicts))
    if header or len(functions) == 1:
        for function in functions:
            places, own, _, named = judged[function]
            judged[function] = (places, own, rewritten[: len(own)], named)
            rewritten = rewritten[len(own) :]
        return [header] if header else []
    said = []
    for function in functions:
        places, own, verdicts, named = judged[function]
        header, verdicts = judge_counts_together(function, _with(own, verdicts))
        judged[function] = (places, own, verdicts, named)
        said += [header] if header else []
    return said


def warm_up(rule_ids: Collection[str] | None = None) -> None:
    """Compute every case of the rules `rule_ids` (default: every rule) now, once, before any
    worker starts. Only the graded rules': Assignment 6's expectiminimax cases take a third of
    the time of all, and a run that does not grade them never needs them."""
    for rule in rules():
        if rule_ids is not None and rule.id not in rule_ids:
            continue
        for group in rule.groups:
            for instance in group.instances:
                reference(group.function, instance)
