"""Grade Assignment 5 (`--assignment connect_four`): play the submission's agent, total the games.

The other assignments call functions and judge answers (`autograder.grading.grade`); this one plays
games (`autograder.contest.levels`) and asks for a move in the suite's positions
(`autograder.contest.positions`), and turns them into the same `GradeRecord`, so the reports,
the class files and Gradescope's results show it like any other assignment.
"""

from __future__ import annotations

import time

from autograder.contest import integrity
from autograder.contest.copies import AGENT_NAME, Played, SecondCopy, contest_seconds, new_agent
from autograder.contest.levels import LEVELS, copy_levels, play_contest
from autograder.contest.positions import course_positions, graded_rules, play_positions
from autograder.contest.referee import AGENT_FUNCTION, DEFAULT_SECONDS, DEFAULT_STATES, Allowance
from autograder.contest.student_agent import StudentAgent
from autograder.grading.load import Loaded, Submission
from autograder.grading.records import GradeRecord, RuleResult
from autograder.sandbox.pipe import without_collection

__all__ = ["AGENT_NAME", "contest_seconds", "grade_agent", "instructor_flags", "no_games"]


def grade_agent(submission: Submission, loaded: Loaded, settings) -> GradeRecord:
    """Play the contest with `submission`'s `connect_four_agent` in the sandbox and grade it.

    `settings` is the run's `autograder.grading.grade.Settings`: each move may generate
    `settings.move_states` states (default `referee.DEFAULT_STATES`) and use
    `settings.move_seconds` of CPU time (default `referee.DEFAULT_SECONDS`). Two copies of the
    agent, each loaded afresh, play it (`copies`): the second the levels of
    `levels.SECOND_COPY`, the first the others and the suite of positions. An agent that cannot
    play (the notebook does not load, the function is missing) scores 0 with the reason.
    """
    started = time.monotonic()
    allowance = Allowance(
        settings.move_states or DEFAULT_STATES, settings.move_seconds or DEFAULT_SECONDS
    )
    messages = list(loaded.notes)
    if loaded.error:
        return _record(submission, loaded, loaded.error, messages, no_games(), started)
    positions = course_positions(settings.course_seed)
    levels = copy_levels(LEVELS, second=False)
    second = SecondCopy(loaded.cells, settings, allowance, copy_levels(LEVELS, second=True))
    agent = new_agent(loaded.cells, settings, allowance, levels, len(positions))
    try:
        why = agent.load_error
        report = agent.load_report
        for error in report.cell_errors if report else ():
            line = f", line {error['line']}" if error.get("line") else ""
            messages.append(f"code cell {error['cell']}{line}: {error['error']}")
        if why:
            messages.append(f"{why}: no game could be played")
            return _record(submission, loaded, why, messages, no_games(), started)
        with without_collection():  # the contest makes no reference cycles to collect
            games = play_contest(agent, allowance, levels)
            choices = play_positions(agent, allowance, positions)
        other = second.played()
        games = {level.name: {**games, **other.games}[level.name] for level in LEVELS}
        rules = graded_rules(games, choices, AGENT_NAME, positions=positions)
        charges = agent.charges + other.charges
        flags = instructor_flags(agent, allowance, positions, choices, charges)
        output = agent.process.output() + other.output
    finally:
        agent.close()
        second.close()
    for used, total in ((agent.used, agent.total_seconds), (other.used, other.total)):
        if total is not None and used >= total:
            messages.append(
                f"a copy of the agent used all of its {total:g} s for its part of the contest "
                "(every move's allowance added up): the moves it was not asked are forfeited, "
                "in the games named below"
            )
    messages.append(
        f"every move could generate {allowance.states:,} states through game.result (past "
        f"them it raises OutOfStates) and use {allowance.seconds:g} s of CPU time for "
        "whatever it computes besides (time asleep or blocked counts as CPU time; waiting for "
        "a CPU on a busy machine does not)"
    )
    messages.append(
        f"{sum(len(level.games) for level in LEVELS)} games and {len(positions)} positions "
        f"were played{_by_copies(other)}; each rule pays by its share of them (a win 1, a draw "
        "1/2, a position whose value your move kept 1), in proportion between the share that "
        "earns nothing and the one that earns every point"
    )
    flagged = tuple(f"{flag} ({KEPT_POINTS})" for flag in flags)
    return _record(submission, loaded, "graded", messages, rules, started, output, flagged)


def _by_copies(other: Played) -> str:
    """How the copies of the agent shared the contest, for the student's messages."""
    if not other.games:
        return ""
    names = " and ".join(sorted(other.games))
    return (
        f" by two copies of your agent, each loaded afresh (one played the games against "
        f"{names}, the other the rest): no module-level data carries from one to the other"
    )


KEPT_POINTS = (
    "the points stand as graded: a move's seconds of CPU time are the allowance for what an "
    "agent computes outside game.result"
)

REPLAYED = 20
"""Positions of the suite asked again of an agent flagged as searching outside the served
game, to see whether its moves depend on its own clock."""


def instructor_flags(
    agent: StudentAgent,
    allowance: Allowance,
    positions: tuple,
    choices: tuple,
    charges: list | None = None,
) -> list[str]:
    """What the instructor is told about the agent's use of its allowance (`integrity`): a
    search outside the served game (in `charges`, by default `agent`'s), and then whether
    `agent`, which answered `choices`, answers the same positions twice alike."""
    used = integrity.usage(agent.charges if charges is None else charges)
    if not used.searches_outside:
        return []
    again = play_positions(agent, allowance, positions[:REPLAYED])
    differs = any(
        first.status == second.status == "moved" and first.column != second.column
        for first, second in zip(choices, again, strict=False)
    )
    return integrity.usage_flags(used, differs)


def no_games() -> tuple[RuleResult, ...]:
    """Every rule of the contest at 0 points: the agent played no game."""
    return graded_rules({level.name: () for level in LEVELS}, (), AGENT_NAME)


def _record(
    submission: Submission,
    loaded: Loaded,
    status: str,
    messages: list[str],
    rules: tuple[RuleResult, ...],
    started: float,
    output: str = "",
    flags: tuple[str, ...] = (),
) -> GradeRecord:
    """The record; `flags` are the instructor's alone (never among the student's messages)."""
    return GradeRecord(
        student=submission.student,
        files=tuple(str(path) for path in submission.files),
        digest=loaded.digest,
        status=status,
        messages=tuple(messages),
        functions=(AGENT_FUNCTION,) if status == "graded" else (),
        output=output,
        rules=rules,
        score=sum(rule.points for rule in rules),
        max_score=sum(rule.max_points for rule in rules),
        seconds=round(time.monotonic() - started, 3),
        flags=flags,
    )
