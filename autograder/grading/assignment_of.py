"""Which assignment one notebook is, when `grade` is given it alone and no `--assignment`.

A student who grades their finished minimax notebook expects 25/25, not 25 of the 100 points of
every lecture's rules. The assignment is read from the functions the file defines (its code is
parsed, never run): the largest assignment all of whose functions it defines.
"""

from __future__ import annotations

from pathlib import Path

from autograder.grading.choice import defined_functions
from autograder.grading.load import MAX_BYTES, Submission, load
from autograder.grading.rules import ASSIGNMENT_RULES, PLAYED_RULE_IDS

AGENT_FUNCTION = "connect_four_agent"


def assignment_functions() -> dict[str, frozenset[str]]:
    """The functions each assignment grades (a pruning rule judges the value and decision)."""
    functions = {}
    for assignment, rule_ids in ASSIGNMENT_RULES.items():
        if set(rule_ids) <= set(PLAYED_RULE_IDS):
            functions[assignment] = frozenset({AGENT_FUNCTION})
        else:
            functions[assignment] = frozenset(r for r in rule_ids if not r.endswith("_pruning"))
    return functions


def assignment_of(
    paths: list[Path], submissions: list[Submission], max_bytes: int = MAX_BYTES
) -> tuple[str | None, str]:
    """The assignment of a lone file given to `grade` without `--assignment`, and a line that
    says so; (None, "") for a class, or a file whose functions match no assignment whole."""
    if len(paths) != 1 or not paths[0].is_file() or len(submissions) != 1:
        return None, ""
    everything = assignment_functions()
    wanted = frozenset().union(*everything.values())
    loaded = load(submissions[0], max_bytes, wanted)
    defined = defined_functions((source for _, source in loaded.cells), wanted)
    whole = [a for a, functions in everything.items() if functions <= defined]
    if not whole:
        return None, ""
    chosen = max(whole, key=lambda a: (len(ASSIGNMENT_RULES[a]), a))
    return chosen, (
        f"assignment: {chosen} (the functions {paths[0].name} defines; --assignment to choose "
        "another)"
    )
