"""Judge a student's answers (plain data) against the reference, in the grader's process."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autograder import diagnosis
from autograder.instances import Instance
from autograder.notebook_checks import decision_hint, not_an_action_hint, sentinel_hint
from autograder.rules import PRUNING_SLACK, Group, Rule
from autograder.sandbox import CallOutcome
from games import MAX, CountingGame, RecordingGame
from solutions import (
    alphabeta_decision,
    alphabeta_value,
    depth_limited_value,
)
from solutions.strong import TranspositionTable, alphabeta_tt_value

DEPTH_LIMITED = ("depth_limited_value", "depth_limited_decision")


@dataclass(frozen=True)
class Expected:
    """The reference's answer to one (function, instance) call."""

    value: float | None = None
    optimal: tuple = ()
    child_values: tuple = ()
    states: int | None = None
    generated: tuple = ()
    state_cap: int = 0  # the most states a call may generate here (see `STATES_MULTIPLE`)
    fewest: int | None = None  # the fewest states a correct alpha-beta generates (`_fewest`)
    hints: tuple = ()  # (action, hint) for the wrong actions a known mistake picks


@dataclass(frozen=True)
class Verdict:
    """The judgement of one instance, as plain data for the report."""

    instance: str
    picture: str
    passed: bool
    expected: str
    got: str
    hint: str = ""
    states: int | None = None
    threshold: int | None = None
    visited: tuple = ()
    reference_visited: tuple = ()

    def to_dict(self) -> dict:
        """The fields as a dict; a shallow copy is enough, since every field is immutable."""
        return dict(vars(self))


_EXPECTED: dict[tuple[str, int], Expected] = {}


STATES_MULTIPLE = 100
STATES_FLOOR = 50_000
"""A call may generate at most STATES_MULTIPLE times the states the reference alpha-beta
generates on its instance, and never fewer than STATES_FLOOR. Plain minimax generates at most
8,515 states on any hidden instance, 44 times alpha-beta at most, so honest searches (even ones
that search some subtrees twice) stay well inside; a search that loops through `game.result` is
stopped there rather than filling the grader's memory."""


def _state_cap(game, state) -> int:
    counted = CountingGame(game)
    alphabeta_value(counted, state)
    return max(STATES_FLOOR, STATES_MULTIPLE * counted.states_generated)


def _fewest(game, state, decision: bool) -> int:
    """The fewest states a correct alpha-beta may generate here: the reference's count, or
    fewer where a transposition table (one per call, shared by the root's children) finds
    positions again by other move orders. Below this, pruning has cut off too much."""
    counted, table = CountingGame(game), TranspositionTable()
    if not decision:
        alphabeta_tt_value(counted, state, table=table)
    elif not game.is_terminal(state):
        alpha, beta, maximising = -math.inf, math.inf, game.to_move(state) == MAX
        for action in game.actions(state):
            value = alphabeta_tt_value(counted, counted.result(state, action), alpha, beta, table)
            alpha, beta = (max(alpha, value), beta) if maximising else (alpha, min(beta, value))
    return counted.states_generated


def expected(function: str, instance: Instance) -> Expected:
    """The reference answer, computed once per grading run and cached."""
    key = (function, id(instance))
    if key not in _EXPECTED:
        _EXPECTED[key] = _compute(function, instance)
    return _EXPECTED[key]


def _compute(function: str, instance: Instance) -> Expected:
    game, state = instance.game, instance.state
    if function in DEPTH_LIMITED:

        def search(s, depth=instance.depth):
            return depth_limited_value(game, s, depth, instance.evaluate)

        child_depth = instance.depth - 1 if instance.depth else 0
    else:
        search, child_depth = (lambda s: alphabeta_value(game, s)), None
    if function.endswith("_value"):
        counted = RecordingGame(game)
        if function == "alphabeta_value":
            value = alphabeta_value(counted, state)
        else:
            value = search(state)
        return Expected(
            value=value,
            states=counted.states_generated,
            generated=tuple(counted.generated),
            state_cap=_state_cap(game, state),
            fewest=min(counted.states_generated, _fewest(game, state, decision=False)),
        )
    children = []
    for action in game.actions(state):
        child = game.result(state, action)
        children.append(search(child) if child_depth is None else search(child, child_depth))
    pick = max if game.to_move(state) == MAX else min
    best = pick(children)
    optimal = tuple(a for a, v in zip(game.actions(state), children, strict=True) if v == best)
    counted = RecordingGame(game)
    alphabeta_decision(counted, state)
    hints = diagnosis.decision_hints(game, state, optimal, instance.depth, instance.evaluate)
    return Expected(
        value=best,
        optimal=optimal,
        child_values=tuple(children),
        states=counted.states_generated,
        generated=tuple(counted.generated),
        state_cap=max(STATES_FLOOR, STATES_MULTIPLE * counted.states_generated),
        fewest=min(counted.states_generated, _fewest(game, state, decision=True)),
        hints=tuple(hints.items()),
    )


def as_number(plain: Any) -> float | None:
    """A returned value as a number, or None if it is not a real number (bool is not)."""
    if type(plain) in (int, float):
        return plain
    if isinstance(plain, dict) and set(plain) == {"float"} and plain["float"] in _SPECIAL:
        return float(plain["float"])
    return None


_SPECIAL = ("inf", "-inf", "nan")
SHOWN = 200
"""The most characters of a returned value a verdict keeps: a reply of a megabyte must not
become a megabyte in every verdict of results.json."""


def too_large(number: float) -> bool:
    """An int beyond what a float can hold: comparing it as a float would raise."""
    return isinstance(number, int) and abs(number) > _LARGEST


_LARGEST = int(1.7976931348623157e308)


def decode(plain: Any) -> Any:
    """Undo the runner's tagging of tuples and lists (a tag around anything but a list, which
    only a forged reply holds, is left as it came)."""
    if isinstance(plain, dict) and len(plain) == 1:
        ((kind, items),) = plain.items()
        if kind == "tuple" and isinstance(items, list):
            return tuple(decode(item) for item in items)
        if kind == "list" and isinstance(items, list):
            return [decode(item) for item in items]
    return plain


def show(plain: Any) -> str:
    """How a returned value is printed on the feedback page, at most `SHOWN` characters."""
    if isinstance(plain, dict) and "object" in plain:
        text = f"an object of type {plain['object']} ({plain.get('repr', '')})"
    elif isinstance(plain, dict) and set(plain) == {"float"} and isinstance(plain["float"], str):
        text = plain["float"]
    elif isinstance(plain, int) and too_large(plain):
        text = f"an integer of {len(str(abs(plain)))} digits"
    else:
        text = repr(decode(plain))
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _failure(outcome: CallOutcome) -> tuple[str, str]:
    if outcome.status == "raised":
        if outcome.error.startswith("NotImplementedError"):
            return "not implemented (raises NotImplementedError)", "write the function body"
        return f"raised {outcome.error[:SHOWN]}", "the error happened inside your function"
    if outcome.status == "timeout":
        return "no answer in time", "an infinite loop, or a search far larger than needed"
    if outcome.status == "overrun":
        return "stopped: too many states generated", outcome.error
    if outcome.status == "skipped":
        return "not run", outcome.error
    return f"the process failed: {outcome.error[:SHOWN]}", "see the messages above"


def judge_value(instance: Instance, outcome: CallOutcome, want: Expected) -> Verdict:
    base = {"instance": instance.name, "picture": instance.picture(), "expected": repr(want.value)}
    if outcome.status != "returned":
        got, hint = _failure(outcome)
        return Verdict(passed=False, got=got, hint=hint, **base)
    number = as_number(outcome.value)
    got = show(outcome.value)
    if number is None:
        kind = "True/False" if isinstance(outcome.value, bool) else "that"
        return Verdict(
            passed=False,
            got=got,
            hint=f"a value must be a plain int or float; {kind} is not a number here",
            **base,
        )
    if too_large(number):
        return Verdict(
            passed=False,
            got=got,
            hint="an integer too large for any value here (beyond the range of a float): use "
            "math.inf and -math.inf for infinity",
            **base,
        )
    if math.isclose(number, want.value, rel_tol=1e-9, abs_tol=1e-9):
        return Verdict(passed=True, got=got, **base)
    return Verdict(passed=False, got=got, hint=_value_hint(instance, number), **base)


def _value_hint(instance: Instance, number: float) -> str:
    if math.isinf(number):
        return "an infinite value: a running value that was never updated (no child examined?)"
    if sentinel_hint(number):
        return sentinel_hint(number)
    game, state = instance.game, instance.state
    if instance.depth is not None:
        for shift, words in ((1, "one ply further"), (-1, "one ply less")):
            depth = instance.depth + shift
            if depth >= 0 and depth_limited_value(game, state, depth, instance.evaluate) == number:
                return (
                    f"your value is the depth-{depth} value: your search looks {words} than "
                    f"asked. Here depth counts the plies still allowed: depth 0 evaluates the "
                    f"state itself, and a decision at depth d searches children with d - 1."
                )
        if _wrong_side(instance) == number:
            return "the evaluation seems scored from the wrong side at odd depths"
        return (
            "check that terminal states use utility (even at the horizon), that a utility of 0 "
            "is not treated as missing, and that evaluate scores from MAX's point of view"
        )
    cause = diagnosis.value_cause(game, state, number)
    return cause or "compare your MAX and MIN cases with the lecture's pseudo-code"


def _wrong_side(instance: Instance) -> float:
    game = instance.game

    def search(state, depth, ply):
        if game.is_terminal(state):
            return game.utility(state)
        if depth == 0:
            value = instance.evaluate(state)
            return -value if ply % 2 else value
        values = [search(game.result(state, a), depth - 1, ply + 1) for a in game.actions(state)]
        return max(values) if game.to_move(state) == MAX else min(values)

    return search(instance.state, instance.depth, 0)


def judge_decision(instance: Instance, outcome: CallOutcome, want: Expected) -> Verdict:
    legal = instance.game.actions(instance.state)
    described = " or ".join(repr(a) for a in want.optimal)
    values = dict(zip(legal, want.child_values, strict=True))
    base = {
        "instance": instance.name,
        "picture": instance.picture(),
        "expected": f"{described} (values of the actions: {values})",
    }
    if outcome.status != "returned":
        got, hint = _failure(outcome)
        return Verdict(passed=False, got=got, hint=hint, **base)
    action = decode(outcome.value)
    got = show(outcome.value)
    matches = [a for a in legal if type(a) is type(action) and a == action]
    if not matches:
        hint = not_an_action_hint(legal, list(want.child_values), want.optimal, action)
        return Verdict(passed=False, got=got, hint=hint, **base)
    if matches[0] in want.optimal:
        return Verdict(passed=True, got=got, **base)
    to_move = instance.game.to_move(instance.state)
    hint = decision_hint(legal, to_move, list(want.child_values), matches[0], dict(want.hints))
    return Verdict(passed=False, got=got, hint=hint, **base)


def judge_pruning(
    instance: Instance, outcome: CallOutcome, want: Expected, decision: bool
) -> Verdict:
    threshold = math.floor(PRUNING_SLACK * want.states)
    answer = (
        judge_decision(instance, outcome, want)
        if decision
        else judge_value(instance, outcome, want)
    )
    base = {
        "instance": instance.name,
        "picture": instance.picture(),
        "expected": f"at most {threshold:,} states generated (the reference: {want.states:,}) "
        f"and a correct {'move' if decision else 'value'}",
        "states": outcome.states_generated,
        "threshold": threshold,
    }
    if instance.small_tree:
        base["visited"] = tuple(dict.fromkeys(outcome.generated))  # distinct: a small tree
        base["reference_visited"] = want.generated
    got = f"{outcome.states_generated:,} states generated; {answer.got}"
    if not answer.passed:
        hint = "pruning points go only with correct answers: " + (answer.hint or "see above")
        return Verdict(passed=False, got=got, hint=hint, **base)
    floor = math.ceil(want.fewest / PRUNING_SLACK)
    if outcome.states_generated < floor:
        hint = (
            f"fewer states than a correct alpha-beta generates here, even with a transposition "
            f"table (at least {floor:,}): some "
            "branch is cut off before it is proven irrelevant (for example beta = min(alpha, "
            "value) in the MIN case), so right answers here are luck"
        )
        return Verdict(passed=False, got=got, hint=hint, **base)
    if outcome.states_generated > threshold:
        cause = diagnosis.pruning_cause(
            instance.game, instance.state, decision, outcome.states_generated
        )
        return Verdict(passed=False, got=got, hint=cause, **base)
    return Verdict(passed=True, got=got, **base)


def judge_group(rule: Rule, group: Group, outcomes: dict) -> list[Verdict]:
    """Judge every instance of `group` from the outcomes of the calls."""
    verdicts = []
    for instance in group.instances:
        outcome = outcomes[(group.function, id(instance))]
        want = expected(group.function, instance)
        if rule.kind == "pruning":
            decision = group.function.endswith("_decision")
            verdicts.append(judge_pruning(instance, outcome, want, decision))
        elif rule.kind == "decision":
            verdicts.append(judge_decision(instance, outcome, want))
        else:
            verdicts.append(judge_value(instance, outcome, want))
    return verdicts
