"""What a record's rules say once judged: a decision confirmed right for its own value function's
values points at that function's diagnosis, and a function's diagnosis is said in full under the
first rule that finds it."""

from __future__ import annotations

from dataclasses import replace

from autograder.grading.records import RuleResult
from autograder.grading.together import OWN_VALUES, value_function


def values_first(results: tuple[RuleResult, ...]) -> tuple[RuleResult, ...]:
    """A decision confirmed right for the values its own value function gives (the line
    `together.judge_decisions` writes) points at what that function's diagnosis found:
    minimax, alpha-beta, depth-limited, expectiminimax and max-n alike."""
    lost = {rule.id: rule for rule in results if rule.points < rule.max_points}
    graded = {rule.id for rule in results}
    kept = []
    for rule in results:
        lines = []
        for line in rule.diagnosis.split("\n") if rule.diagnosis else ():
            function = line.partition(": ")[0]
            value = value_function(function)
            if function.endswith("_decision") and OWN_VALUES.format(value=value) in line:
                line += _see(value, lost.get(value), value in graded)
            lines.append(line)
        kept.append(replace(rule, diagnosis="\n".join(lines)))
    return tuple(kept)


def _see(value: str, rule: RuleResult | None, graded: bool) -> str:
    """Where the value function's own mistake is said."""
    if rule is None:
        passes = "it passes its own instances, but not these children: " if graded else ""
        return f" ({passes}each instance below shows the values it gives)"
    found = rule.diagnosis.partition("\n")[0].removeprefix(f"{value}: ")
    return f" (see {value} above: {found})" if found else f" (see {value} above)"


def said_once(results: tuple[RuleResult, ...]) -> tuple[RuleResult, ...]:
    """A function's diagnosis in full under the first rule that finds it; a later rule (the
    pruning rule judges the same answers) points back to it."""
    first: dict[tuple[str, str], str] = {}
    kept = []
    for rule in results:
        lines = []
        for line in filter(None, rule.diagnosis.split("\n")):
            function, _, said = line.partition(": ")
            key = (function, said.partition(" failed instance")[2].partition(": ")[2] or said)
            if OWN_VALUES.format(value=value_function(function)) in said:
                key = (function, OWN_VALUES)  # the count differs from rule to rule
            if key in first:
                line = f"{function}: the same mistake as under {first[key]} above"
            else:
                first[key] = rule.id
            lines.append(line)
        kept.append(replace(rule, diagnosis="\n".join(lines)))
    return tuple(kept)
