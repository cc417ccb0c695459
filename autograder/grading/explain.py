"""What a record's rules say once judged: a decision points at its failing value function, and a
function's diagnosis is said in full under the first rule that finds it."""

from __future__ import annotations

from dataclasses import replace

from autograder.grading.judge import Verdict
from autograder.grading.records import RuleResult


def values_first(results: tuple[RuleResult, ...]) -> tuple[RuleResult, ...]:
    """A wrong decision points at its value function when that function lost points too: the
    decision may well be right for the values the value function gives, so the hint and the
    rule's diagnosis say so, with what the value function's diagnosis found (minimax,
    alpha-beta, depth-limited, expectiminimax and max-n alike)."""
    lost = {rule.id: rule for rule in results if rule.points < rule.max_points}
    kept = []
    for rule in results:
        value = rule.id.removesuffix("_decision") + "_value"
        if not rule.id.endswith("_decision") or value not in lost:
            kept.append(rule)
            continue
        found = lost[value].diagnosis.removeprefix(f"{value}: ")
        groups = tuple(
            replace(group, verdicts=tuple(_blamed(v, rule.id, value) for v in group.verdicts))
            for group in rule.groups
        )
        said = f"{rule.id}: {value} fails its checks too (see {value} above"
        said += f": {found})" if found else ")"
        said += (
            f". Your decision may be right for the values {value} returns: fix {value} first, "
            "and the decision's points may follow"
        )
        kept.append(replace(rule, groups=groups, diagnosis=said))
    return tuple(kept)


def said_once(results: tuple[RuleResult, ...]) -> tuple[RuleResult, ...]:
    """A function's diagnosis in full under the first rule that finds it; a later rule (the
    pruning rule judges the same answers) points back to it."""
    first: dict[str, str] = {}
    kept = []
    for rule in results:
        lines = []
        for line in filter(None, rule.diagnosis.split("\n")):
            function, _, said = line.partition(": ")
            key = (function, said.partition(" failed instance")[2].partition(": ")[2] or said)
            if key in first:
                line = f"{function}: the same mistake as under {first[key]} above"
            else:
                first[key] = rule.id
            lines.append(line)
        kept.append(replace(rule, diagnosis="\n".join(lines)))
    return tuple(kept)


def _blamed(verdict: Verdict, decision: str, value: str) -> Verdict:
    worth, _, _ = verdict.hint.partition("; ")  # "that action is worth 1, the best is worth 3"
    if verdict.passed or not worth.startswith("that action is worth"):
        return verdict
    hint = (
        f"{worth}; your {value} fails its checks too: if your {decision} picks the best "
        f"action by the values {value} gives, it is right for them: fix {value} first"
    )
    return replace(verdict, hint=hint)
