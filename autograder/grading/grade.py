"""Grade one submission: run its functions in the sandbox, judge the answers, total the points."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path

from autograder.grading.cases import case_numbers, judge_rule, reference
from autograder.grading.cases import (
    warm_up as warm_up,  # the commands compute the cases before forking
)
from autograder.grading.choice import status_note
from autograder.grading.explain import said_once, values_first
from autograder.grading.judge import Verdict
from autograder.grading.load import MAX_BYTES, Loaded, Submission
from autograder.grading.own_values import own_values
from autograder.grading.records import GradeRecord, GroupResult, RuleResult
from autograder.grading.rules import PLAYED_RULE_IDS, RULE_IDS, Group, Rule, rules, selected_rules
from autograder.reports import feedback_page
from autograder.sandbox import CallOutcome, Limits, StudentProcess
from games import GameTree, tree_svg
from solutions.trees import backed_up_values

MAX_RESTARTS = 5


@dataclass(frozen=True)
class Settings:
    limits: Limits
    view: Path
    rule_ids: tuple[str, ...] = RULE_IDS
    max_bytes: int = MAX_BYTES
    move_seconds: float | None = None  # Assignment 5's CPU seconds per move (None: default)
    move_states: int | None = None  # Assignment 5's budget of states per move (None: default)
    course_seed: int | None = None  # Assignment 5's suite of positions (None: the variable's,
    # else the default course's; see `autograder.contest.positions.course_seed`)

    @property
    def plays_games(self) -> bool:
        """Whether these are Assignment 5's rules, earned by playing rather than by answers."""
        return set(self.rule_ids) <= set(PLAYED_RULE_IDS)

    @property
    def functions(self) -> tuple[str, ...]:
        """The functions the rules call: what tells a student's notebook from her other files."""
        if self.plays_games:
            from autograder.contest import grade as contest_grade

            return (contest_grade.AGENT_FUNCTION,)
        return tuple(sorted({g.function for r in selected_rules(self.rule_ids) for g in r.groups}))


@dataclass(frozen=True)
class Ran:
    """What running a submission gave: each call's outcome, keyed by (function, case number),
    and what the student is told about the run itself."""

    status: str
    messages: tuple[str, ...]
    functions: tuple[str, ...] = ()
    output: str = ""
    outcomes: Mapping[tuple[str, int], CallOutcome] = field(default_factory=dict)
    own_values: Mapping[tuple[str, int], tuple[CallOutcome, ...]] = field(default_factory=dict)
    # (decision, case number) -> its value function's calls on the root's children, made only
    # for a wrong decision (`explain.own_values_calls`)


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


def grade(submission: Submission, loaded: Loaded, settings: Settings) -> GradeRecord:
    """Grade one loaded submission: run its calls, judge them, and cap the record's size. Of a
    student's several files, the record names the one `load` chose, and its status every other
    one."""
    if loaded.passed_over:
        submission = replace(submission, files=tuple(loaded.files), pick_one=False)
    if settings.plays_games:
        from autograder.contest import grade as contest_grade  # needs the opponents: only here

        record = contest_grade.grade_agent(submission, loaded, settings)
    else:
        started = time.monotonic()
        ran = run(submission, loaded, settings)
        record = judged(submission, loaded.digest, ran, settings.rule_ids, started)
    if loaded.passed_over:
        record = replace(record, status=f"{record.status}; {status_note(loaded.passed_over)}")
    return cap_size(record)


def failed(
    submission: Submission, loaded: Loaded, error: str, rule_ids: tuple[str, ...] = RULE_IDS
) -> GradeRecord:
    """The record of a submission the grader itself could not grade: zero, with the reason.

    Its digest is left empty, so the next run grades the submission again.
    """
    ran = Ran(
        f"the grader failed on this submission ({error}); please report it",
        (f"grading stopped with an internal error: {error}",),
    )
    return judged(submission, "", ran, rule_ids, time.monotonic())


def cap_size(record: GradeRecord, limit: int = RECORD_BYTES) -> GradeRecord:
    """`record`, trimmed to at most about `limit` bytes of JSON if it is larger."""
    if len(json.dumps(record.to_json())) <= limit:
        return record
    rules_kept = tuple(
        replace(
            rule,
            groups=tuple(
                replace(group, verdicts=_first_failed(group.verdicts)) for group in rule.groups
            ),
        )
        for rule in record.rules
    )
    note = (
        f"the feedback was shortened to stay under {limit // 1024} KiB: only the first failed "
        "instances of each group are kept"
    )
    return replace(
        record,
        rules=rules_kept,
        output=record.output[:1000],
        messages=(*(message[:500] for message in record.messages[:20]), note),
    )


def _first_failed(verdicts: tuple[Verdict, ...]) -> tuple[Verdict, ...]:
    """The first three failed verdicts, without the states drawn and with short answers."""
    failed_first = [verdict for verdict in verdicts if not verdict.passed][:3]
    return tuple(
        replace(verdict, visited=(), reference_visited=(), got=verdict.got[:200])
        for verdict in failed_first
    )


# -- running the calls ------------------------------------------------------------------------


def run(submission: Submission, loaded: Loaded, settings: Settings) -> Ran:
    """Start the submission in the sandbox and make every planned call of the selected rules."""
    notes = tuple(loaded.notes)
    if loaded.error:
        return Ran(loaded.error, (*notes, f"{loaded.error}: no function could be graded"))
    selected = selected_rules(settings.rule_ids)
    wanted = sorted({group.function for rule in selected for group in rule.groups})
    process = StudentProcess(loaded.cells, wanted, settings.view, settings.limits)
    try:
        loading = process.start()
        messages = [
            *notes,
            *(_cell_message(submission, error, loaded.cells) for error in loading.cell_errors),
        ]
        if loading.status != "loaded":
            messages.append(
                f"loading the submission failed ({loading.error}); nothing could be graded"
            )
            status = f"could not load the submission: {loading.error}"
            return Ran(status, tuple(messages), output=process.output())
        status = "graded"
        if not loading.functions:
            status = (
                "none of the graded functions is defined: is this the notebook of this assignment?"
            )
        for missing in sorted(set(wanted) - set(loading.functions)):
            messages.append(
                f"{missing} is not defined (or not a function) in your notebook: its rules score 0"
            )
        calls = planned_calls(selected)
        outcomes = _run_calls(process, loading.functions, calls, messages)
        own = own_values(process, loading.functions, calls, outcomes)
        return Ran(
            status, tuple(messages), tuple(loading.functions), process.output(), outcomes, own
        )
    finally:
        process.close()


def _run_calls(process: StudentProcess, defined: list[str], calls: list, messages: list) -> dict:
    """Make the calls in order, skipping what cannot run; what went wrong goes to `messages`."""
    outcomes: dict[tuple[str, int], CallOutcome] = {}
    broken: dict[str, str] = {}
    spent: dict[str, float] = {}
    limits, restarts = process.limits, 0
    for function, instance in calls:
        key = (function, case_numbers()[id(instance)])
        skip = _why_not_run(function, defined, broken, spent, limits)
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
        spent[function] = spent.get(function, 0.0) + outcome.own_seconds
        if outcome.status in ("timeout", "crashed", "overrun"):
            broken[function] = (
                f"not run: {function} already failed on '{instance.name}' ({outcome.error})"
            )
            messages.append(
                f"{function} on '{instance.name}': {outcome.error}; its other instances were "
                "not run, and the other functions were still graded"
            )
    messages.extend(sorted({o.error for o in outcomes.values() if "budget" in o.error}))
    return outcomes


def _why_not_run(function: str, defined: list, broken: dict, spent: dict, limits: Limits) -> str:
    """Why the next call of `function` is skipped ("" if it is made): not defined, already
    broken, or a time budget spent (the submission's, or the function's third of it: own
    time, `spent` by function)."""
    if function not in defined:
        return f"{function} is not defined"
    if function in broken:
        return broken[function]
    if sum(spent.values()) > limits.budget:
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


def _cell_message(submission: Submission, error: dict, cells: tuple = ()) -> str:
    """Where a cell failed, why, and the line itself, so a student finds it at once."""
    where = f"code cell {error['cell']}"
    if error.get("line"):
        where += f", line {error['line']}"
    name = submission.files[0].name if submission.files else submission.student
    kind = "has a syntax error" if error["kind"] == "syntax" else "raised an exception"
    said = f"{where} of {name} {kind}: {error['error']}"
    source = dict(cells).get(error["cell"], "") if error.get("line") else ""
    lines = source.splitlines() if isinstance(source, str) else []
    if 0 < (error.get("line") or 0) <= len(lines) and lines[error["line"] - 1].strip():
        said += f" (the line: {lines[error['line'] - 1].strip()[:200]})"
    return said + "; the other cells were still run"


# -- judging and totalling --------------------------------------------------------------------


def judged(
    submission: Submission, digest: str, ran: Ran, rule_ids: tuple[str, ...], started: float
) -> GradeRecord:
    """The record of a run: every selected rule judged on its outcomes, and the total (the
    played rules of Assignment 5 score 0 here: a run without games)."""
    if set(rule_ids) <= set(PLAYED_RULE_IDS):
        from autograder.contest import grade as contest_grade

        results = contest_grade.no_games()
    else:
        results = tuple(
            _rule_result(rule, ran.outcomes, ran.own_values) for rule in selected_rules(rule_ids)
        )
        results = said_once(values_first(results))
    return GradeRecord(
        student=submission.student,
        files=tuple(str(path) for path in submission.files),
        digest=digest,
        status=ran.status,
        messages=ran.messages,
        functions=ran.functions,
        output=ran.output,
        rules=results,
        score=sum(result.points for result in results),
        max_score=sum(result.max_points for result in results),
        seconds=round(time.monotonic() - started, 3),
    )


def _rule_result(rule: Rule, outcomes: Mapping, own: Mapping | None = None) -> RuleResult:
    said, judged = judge_rule(rule, outcomes, own) if outcomes else ("", [[] for _ in rule.groups])
    groups = tuple(
        _group_result(group, tuple(verdicts))
        for group, verdicts in zip(rule.groups, judged, strict=True)
    )
    return RuleResult(
        id=rule.id,
        description=rule.description,
        points=sum(group.points for group in groups),
        max_points=rule.points,
        groups=groups,
        diagnosis=said,
    )


def _group_result(group: Group, verdicts: tuple[Verdict, ...]) -> GroupResult:
    """A group earns its points only when every instance passes; a run that made no call at all
    (the submission did not load) has no verdicts."""
    passed = bool(verdicts) and all(verdict.passed for verdict in verdicts)
    return GroupResult(
        name=group.name,
        function=group.function,
        points=group.points if passed else 0,
        max_points=group.points,
        verdicts=verdicts,
    )


# -- the feedback page ------------------------------------------------------------------------


def feedback(record: GradeRecord) -> str:
    """The feedback page, with a tree drawing for each lost pruning group.

    The drawing shows the first small tree of the group on which the student's search generated
    different states from the reference, even if that instance stayed under the threshold: it
    is the clearest picture of what the search does differently.
    """
    figures = {}
    for rule in record.rules:
        for group in rule.groups:
            if group.full:
                continue
            for verdict in group.verdicts:
                yours, reference_states = verdict.visited, verdict.reference_visited
                if reference_states and yours and set(yours) != set(reference_states):
                    figures[(rule.id, group.name)] = (verdict, _drawing(verdict))
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


def _drawing(verdict: Verdict) -> str:
    yours = frozenset(tuple(path) for path in verdict.visited)
    reference_states = frozenset(tuple(path) for path in verdict.reference_visited)
    return _draw(verdict.picture, yours, reference_states)


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
