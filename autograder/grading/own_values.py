"""A wrong decision weighed against the student's own value function: that function called on
the root's children, in the sandbox, so the feedback says "your decision is right for the
values X_value returns" only when the decision picks a best child by them."""

from __future__ import annotations

from autograder.grading.cases import case_numbers, outcome_of, reference
from autograder.grading.instances import Instance
from autograder.grading.judge import judge
from autograder.grading.plain import decode
from autograder.grading.together import legal_action, value_function
from autograder.sandbox import CallOutcome, StudentProcess

BROKEN = ("timeout", "crashed", "overrun", "skipped")
"""A graded call that ended so: its function's calls on the children are not made."""


def children_calls(function: str, instance: Instance, outcome: CallOutcome) -> list[tuple]:
    """The calls that weigh a wrong decision against the student's own value function: that
    function on each child of the root (one ply less for a depth-limited search: `d - 1`), as
    (value function, child, args). None for a right move or an answer that is not an action:
    only a failing decision costs these calls, never a correct one."""
    if not function.endswith("_decision") or (instance.depth is not None and instance.depth < 1):
        return []
    found = reference(function, instance).case
    if outcome.status != "returned" or legal_action(found, decode(outcome.value)) is None:
        return []
    if judge("decision", function, found, outcome_of(outcome)).passed:
        return []
    args = () if instance.depth is None else (instance.depth - 1,)
    game, state = instance.game, instance.state
    return [(value_function(function), game.result(state, a), args) for a in found.legal]


def own_values(
    process: StudentProcess, defined: list[str], calls: list, outcomes: dict
) -> dict[tuple[str, int], tuple[CallOutcome, ...]]:
    """Each wrong decision's value function called on the root's children, keyed by (decision,
    case number). Made after every graded call, so they change no graded call's outcome, time
    or table; each counts its own states, none charged to the decision's. A decision whose
    value function is not defined, broke on a graded call, or whose calls on the children do not
    all return (or the submission's time budget, of its calls' own time, is spent) is judged
    on its own."""
    used = sum(outcome.own_seconds for outcome in outcomes.values())
    own: dict[tuple[str, int], tuple[CallOutcome, ...]] = {}
    broken = {key[0] for key, outcome in outcomes.items() if outcome.status in BROKEN}
    for function, instance in calls:
        key = (function, case_numbers()[id(instance)])
        children = children_calls(function, instance, outcomes[key]) if key in outcomes else []
        if not children or children[0][0] not in defined or children[0][0] in broken:
            continue
        made: list[CallOutcome] = []
        for value, child, args in children:
            if not process.alive or used > process.limits.budget:
                break
            outcome = process.call(
                value,
                instance.game,
                child,
                args,
                evaluate=instance.evaluate,
                max_states=reference(function, instance).state_cap,
            )
            made.append(outcome)
            used += outcome.own_seconds
            if outcome.status != "returned":
                break
        if len(made) == len(children) and all(o.status == "returned" for o in made):
            own[key] = tuple(made)
        elif made and made[-1].status in BROKEN:
            broken.add(children[0][0])  # its next calls would fail the same way
    return own
