"""Grade one submission: load it, run its functions in the sandbox, judge, and total the points."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from autograder import feedback_page
from autograder.cases import case_numbers, judge_group, reference
from autograder.cases import warm_up as warm_up  # the commands compute the cases before forking
from autograder.load import MAX_BYTES, Loaded, Submission
from autograder.rules import RULE_IDS, Rule, rules, selected_rules
from autograder.sandbox import CallOutcome, Limits, StudentProcess
from games import GameTree, backed_up_values, tree_svg

MAX_RESTARTS = 5


@dataclass(frozen=True)
class Settings:
    limits: Limits
    view: Path
    rule_ids: tuple[str, ...] = RULE_IDS
    max_bytes: int = MAX_BYTES


def planned_calls(selected: tuple[Rule, ...]) -> list[tuple[str, object]]:
    """Each (function, instance) pair once, in rule order: one call can serve several rules."""
    seen, calls = set(), []
    for rule in selected:
        for group in rule.groups:
            for instance in group.instances:
                key = (group.function, case_numbers()[id(instance)])
                if key not in seen:
                    seen.add(key)
                    calls.append((group.function, instance))
    return calls


RECORD_BYTES = 1 << 20
"""The most a record may take as JSON; past it, failed verdicts beyond the first few of each
group are dropped (with a note), so no submission can make results.json huge."""


def grade(submission: Submission, loaded: Loaded, settings: Settings) -> dict:
    """Grade one submission and return its result record (plain, JSON-serialisable data)."""
    return cap_size(_grade(submission, loaded, settings))


def cap_size(record: dict, limit: int = RECORD_BYTES) -> dict:
    """`record`, trimmed to at most about `limit` bytes of JSON if it is larger."""
    if len(json.dumps(record)) <= limit:
        return record
    for rule in record["rules"]:
        for group in rule["groups"]:
            failed = [v for v in group["verdicts"] if not v["passed"]][:3]
            group["verdicts"] = [
                {**v, "visited": (), "reference_visited": (), "got": v["got"][:200]} for v in failed
            ]
    record["output"] = record["output"][:1000]
    record["messages"] = [m[:500] for m in record["messages"][:20]]
    record["messages"].append(
        f"the feedback was shortened to stay under {limit // 1024} KiB: only the first failed "
        "instances of each group are kept"
    )
    return record


def _grade(submission: Submission, loaded: Loaded, settings: Settings) -> dict:
    started = time.monotonic()
    record = _new_record(submission, loaded.digest, "graded", list(loaded.notes))
    selected = selected_rules(settings.rule_ids)
    if loaded.error:
        record["status"] = loaded.error
        record["messages"].append(f"{loaded.error}: no function could be graded")
        return _total(record, selected, {}, started)
    wanted = sorted({group.function for rule in selected for group in rule.groups})
    process = StudentProcess(loaded.cells, wanted, settings.view, settings.limits)
    try:
        loading = process.start()
        for error in loading.cell_errors:
            record["messages"].append(_cell_message(submission, error))
        if loading.status != "loaded":
            record["status"] = f"could not load the submission: {loading.error}"
            record["messages"].append(
                f"loading the submission failed ({loading.error}); nothing could be graded"
            )
            record["output"] = process.output()
            return _total(record, selected, {}, started)
        record["functions"] = loading.functions
        if not loading.functions:
            record["status"] = (
                "none of the graded functions is defined: is this the notebook of this assignment?"
            )
        for missing in sorted(set(wanted) - set(loading.functions)):
            record["messages"].append(
                f"{missing} is not defined (or not a function) in your notebook: its rules score 0"
            )
        outcomes = _run_calls(process, loading.functions, planned_calls(selected), record)
        record["output"] = process.output()
    finally:
        process.close()
    return _total(record, selected, outcomes, started)


def failed(
    submission: Submission, loaded: Loaded, error: str, rule_ids: tuple[str, ...] = RULE_IDS
) -> dict:
    """The record of a submission the grader itself could not grade: zero, with the reason.

    Its digest is left empty, so the next run grades the submission again.
    """
    record = _new_record(
        submission,
        "",
        f"the grader failed on this submission ({error}); please report it",
        [f"grading stopped with an internal error: {error}"],
    )
    return _total(record, selected_rules(rule_ids), {}, time.monotonic())


def _new_record(submission: Submission, digest: str, status: str, messages: list[str]) -> dict:
    return {
        "student": submission.student,
        "files": [str(path) for path in submission.files],
        "digest": digest,
        "status": status,
        "messages": messages,
        "functions": [],
        "output": "",
    }


def _run_calls(process: StudentProcess, defined: list[str], calls: list, record: dict) -> dict:
    outcomes: dict = {}
    broken: dict[str, str] = {}
    spent: dict[str, float] = {}
    limits, started, restarts = process.limits, time.monotonic(), 0
    for function, instance in calls:
        key = (function, case_numbers()[id(instance)])
        skip = _why_not_run(function, defined, broken, spent, started, limits)
        if skip:
            outcomes[key] = CallOutcome("skipped", error=skip)
            continue
        if not process.alive:
            if restarts >= MAX_RESTARTS:
                outcomes[key] = CallOutcome("skipped", error="the submission crashed too often")
                continue
            restarts += 1
            process.start()
        outcome = process.call(
            function,
            instance.game,
            instance.state,
            instance.args,
            evaluate=instance.evaluate,
            record=isinstance(instance.game, GameTree),
            max_states=reference(function, instance).state_cap,
        )
        outcomes[key] = outcome
        spent[function] = spent.get(function, 0.0) + outcome.seconds
        if outcome.status in ("timeout", "crashed", "overrun"):
            broken[function] = (
                f"not run: {function} already failed on '{instance.name}' ({outcome.error})"
            )
            record["messages"].append(
                f"{function} on '{instance.name}': {outcome.error}; its other instances were "
                "not run, and the other functions were still graded"
            )
    for message in sorted({o.error for o in outcomes.values() if "budget" in o.error}):
        record["messages"].append(message)
    return outcomes


def _why_not_run(
    function: str, defined: list, broken: dict, spent: dict, started: float, limits: Limits
) -> str:
    """Why the next call of `function` is skipped ("" if it is made): not defined, already
    broken, or a time budget spent (the submission's, or the function's third of it)."""
    if function not in defined:
        return f"{function} is not defined"
    if function in broken:
        return broken[function]
    if time.monotonic() - started > limits.budget:
        return (
            f"not run: this submission used its {limits.budget:g} s budget for all its calls "
            "(--budget); the calls left were skipped"
        )
    if spent.get(function, 0.0) > limits.budget / 3:
        return (
            f"not run: {function} used its {limits.budget / 3:g} s budget (a third of "
            "--budget); its calls left were skipped"
        )
    return ""


def _cell_message(submission: Submission, error: dict) -> str:
    where = f"code cell {error['cell']}"
    if error.get("line"):
        where += f", line {error['line']}"
    name = submission.files[0].name if submission.files else submission.student
    kind = "has a syntax error" if error["kind"] == "syntax" else "raised an exception"
    return f"{where} of {name} {kind}: {error['error']}; the other cells were still run"


def _total(record: dict, selected: tuple[Rule, ...], outcomes: dict, started: float) -> dict:
    results = []
    for rule in selected:
        groups = []
        for group in rule.groups:
            if outcomes:
                verdicts = [v.to_dict() for v in judge_group(rule, group, outcomes)]
            else:
                verdicts = []
            passed = bool(verdicts) and all(v["passed"] for v in verdicts)
            groups.append(
                {
                    "name": group.name,
                    "function": group.function,
                    "points": group.points if passed else 0,
                    "max_points": group.points,
                    "verdicts": verdicts,
                }
            )
        results.append(
            {
                "id": rule.id,
                "description": rule.description,
                "points": sum(g["points"] for g in groups),
                "max_points": rule.points,
                "groups": groups,
            }
        )
    record["rules"] = results
    record["score"] = sum(r["points"] for r in results)
    record["max_score"] = sum(r["max_points"] for r in results)
    record["seconds"] = round(time.monotonic() - started, 3)
    return record


def feedback(record: dict) -> str:
    """The feedback page, with a tree drawing for each lost pruning group.

    The drawing shows the first small tree of the group on which the student's search generated
    different states from the reference, even if that instance stayed under the threshold: it
    is the clearest picture of what the search does differently.
    """
    figures = {}
    for rule in record["rules"]:
        for group in rule["groups"]:
            if group["points"] == group["max_points"]:
                continue
            for verdict in group["verdicts"]:
                yours, reference = verdict.get("visited"), verdict.get("reference_visited")
                if reference and yours and set(map(tuple, yours)) != set(map(tuple, reference)):
                    figures[(rule["id"], group["name"])] = (verdict, _drawing(verdict))
                    break
    return feedback_page.feedback_html(record, figures)


@cache
def _small_trees() -> dict[str, GameTree]:
    return {
        instance.picture(): instance.game
        for rule in rules()
        for group in rule.groups
        for instance in group.instances
        if instance.small_tree
    }


def _drawing(verdict: dict) -> str:
    yours = frozenset(tuple(path) for path in verdict["visited"])
    reference = frozenset(tuple(path) for path in verdict["reference_visited"])
    return _draw(verdict["picture"], yours, reference)


@lru_cache(maxsize=256)
def _draw(picture: str, yours: frozenset, reference: frozenset) -> str:
    """Draw once per distinct picture: students who make the same mistake share the figure."""
    tree = _small_trees().get(picture)
    if tree is None:
        return ""
    svg = tree_svg(  # not draw_tree: importing matplotlib in every worker costs more than grading
        tree,
        visited=yours,
        values=backed_up_values(tree),
        compare_visited=reference,
        title="your search (coloured where it differs from the reference)",
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
