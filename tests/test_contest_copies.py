"""The contest's two copies of an agent (issue 35, item 3): the second copy plays its levels in a
forked grader process when two CPUs are free, else after the first; the games and the grade are
the same either way, each copy starts from the agent's module as loaded (in the sandbox and in
nbgrader's kernel alike), and nothing of the forked process outlives the grading.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import signal
import socket
import textwrap
import threading
from pathlib import Path

import pytest
from test_contest_integrity import LIMITS

from autograder.contest import copies
from autograder.contest import grade as contest_grade
from autograder.contest.levels import LEVELS, SECOND_COPY, copy_levels
from autograder.contest.opponents import Allowance
from autograder.contest.positions import POSITIONS
from autograder.grading.grade import Settings
from autograder.grading.load import Loaded, Submission
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES
from autograder.platforms import contest_checks
from autograder.sandbox import build_import_view, pinning

SHORT_LEVELS = tuple(dataclasses.replace(level, games=level.games[:2]) for level in LEVELS[:2])
"""Two games against the random player (the second copy's) and two against depth 2 (the
first's)."""

COUNTING = """
import random

MOVES = []

def connect_four_agent(game, state, seconds):
    MOVES.append(state)  # module-level data: each copy of the agent starts with none
    legal = game.actions(state)
    for column in legal:  # a win in one, if there is one
        if game.is_terminal(game.result(state, column)):
            return column
    if len(MOVES) <= 3:  # the first moves of a copy are its own, whatever the other played
        return legal[len(legal) // 2]
    return random.choice(legal)
"""
"""An agent whose moves follow its own module-level list (its first three moves central, then
random): played by one process throughout, its later games would start otherwise."""

ALLOWANCE = {"states": 300, "seconds": 1.0}


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def graded(
    view: Path, monkeypatch: pytest.MonkeyPatch, source: str, forked: bool
) -> tuple[GradeRecord, list]:
    """`source` graded on the short contest (two games a copy, four positions), its second copy
    forked if `forked` (two CPUs free) or not (none free); with what each `played()` gave."""
    monkeypatch.setattr(contest_grade, "LEVELS", SHORT_LEVELS)
    monkeypatch.setattr(contest_grade, "course_positions", lambda seed: POSITIONS[:4])
    monkeypatch.setattr(copies, "_claim_two_free_cpus", two_claims if forked else list)
    seen, played = [], copies.SecondCopy.played
    monkeypatch.setattr(
        copies.SecondCopy, "played", lambda self: seen.append(played(self)) or seen[-1]
    )
    settings = Settings(
        LIMITS,
        view,
        ASSIGNMENT_RULES["connect_four"],
        move_seconds=ALLOWANCE["seconds"],
        move_states=ALLOWANCE["states"],
    )
    loaded = Loaded(cells=[(1, textwrap.dedent(source))], digest="counting")
    return contest_grade.grade_agent(Submission("counting", ()), loaded, settings), seen


def games_of(record: GradeRecord) -> list:
    """Every game's and position's verdict of `record`, the moves' pictures included."""
    return [
        (rule.id, rule.points, [(v.instance, v.got, v.picture) for v in group.verdicts])
        for rule in record.rules
        for group in rule.groups
    ]


NAMES = itertools.count()


def two_claims() -> list[tuple[int, socket.socket]]:
    """Two CPUs' claims as `pinning._claim_two_free_cpus` gives them when two are free, under
    names of this test's own: the fork is tested whatever other gradings hold (the suite's other
    worker), on the first two CPUs this process may use (one twice on a machine of one)."""
    cpus = sorted(os.sched_getaffinity(0))
    claims = []
    for cpu in (cpus[0], cpus[-1]):
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        claim.bind(f"\0autograder-test-copies-{os.getpid()}-{next(NAMES)}")
        claims.append((cpu, claim))
    return claims


def test_the_copies_split_the_levels_and_the_second_plays_the_heaviest_half() -> None:
    first, second = copy_levels(LEVELS, second=False), copy_levels(LEVELS, second=True)
    assert {level.name for level in second} == set(SECOND_COPY)
    assert sorted(first + second, key=LEVELS.index) == list(LEVELS)
    assert not set(first) & set(second)


def test_forked_or_not_the_second_copy_plays_the_same_games(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one_by_one, seen_alone = graded(view, monkeypatch, COUNTING, forked=False)
    at_once, seen_forked = graded(view, monkeypatch, COUNTING, forked=True)
    assert seen_alone[0].process == os.getpid()
    assert seen_forked[0].process not in (0, os.getpid())  # played by the forked process
    assert games_of(at_once) == games_of(one_by_one)
    assert at_once.score == one_by_one.score and at_once.status == "graded"


def test_each_copy_starts_from_the_module_as_loaded(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second copy's games are those of the agent loaded afresh for them alone, whatever
    the first copy's games left in its module."""
    record, seen = graded(view, monkeypatch, COUNTING, forked=False)
    alone = copies.play_levels(
        [(1, textwrap.dedent(COUNTING))],
        Settings(LIMITS, view, ASSIGNMENT_RULES["connect_four"]),
        Allowance(ALLOWANCE["states"], ALLOWANCE["seconds"]),
        copy_levels(SHORT_LEVELS, second=True),
    )
    name = SHORT_LEVELS[0].name
    moves = [[move.column for move in game.moves] for game in alone.games[name]]
    assert [[m.column for m in g.moves] for g in seen[0].games[name]] == moves
    assert record.status == "graded"


def test_a_forked_copy_that_dies_is_played_again_by_the_grader(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forked process's failure is the grader's: the parent plays those games itself, and the
    grade is the one a run without a fork gives."""
    parent, play = os.getpid(), copies.play_levels

    def dies_in_the_child(*args):
        if os.getpid() != parent:
            os._exit(3)  # as if killed
        return play(*args)

    expected, _ = graded(view, monkeypatch, COUNTING, forked=False)
    monkeypatch.setattr(copies, "play_levels", dies_in_the_child)
    record, seen = graded(view, monkeypatch, COUNTING, forked=True)
    assert seen[0].process == parent
    assert games_of(record) == games_of(expected)


def test_nothing_of_the_forked_copy_outlives_a_submission_that_cannot_load(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first copy cannot load: the second, forked already, is stopped and reaped, and the
    grader's thread may use its CPUs again."""
    affinity, forks = os.sched_getaffinity(0), []
    start = copies.SecondCopy._fork
    monkeypatch.setattr(
        copies.SecondCopy,
        "_fork",
        lambda self, claims: (start(self, claims), forks.append(self.pid)),
    )
    record, _ = graded(view, monkeypatch, "raise SystemExit('no agent here')", forked=True)
    assert record.status != "graded" and record.score == 0
    assert any(message.endswith("no game could be played") for message in record.messages)
    assert len(forks) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)
    assert not Path(f"/proc/{forks[0]}").exists()
    assert os.sched_getaffinity(0) == affinity  # the grader's thread is unpinned again


def test_a_forked_copy_that_does_not_end_when_asked_is_killed_not_waited_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A copy stuck in its own cleanup (it ignores the grader's SIGTERM here) is killed once
    `STOP_WAIT` has passed: the grading goes on, and nothing of it is left."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the stuck copy
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.close(reader)
        os.write(writer, b"x")
        while True:
            signal.pause()
    os.close(writer)
    assert os.read(reader, 1) == b"x"  # its SIGTERM is ignored from here on
    os.close(reader)
    monkeypatch.setattr(copies, "STOP_WAIT", 0.5)
    second = copies.SecondCopy([], None, None, ())  # no levels: nothing forked of its own
    second.pid = pid
    closing = threading.Thread(target=second.close, daemon=True)
    closing.start()
    closing.join(timeout=30)  # half a second here; without the limit, forever
    try:
        assert not closing.is_alive()
        assert second.pid is None and not Path(f"/proc/{pid}").exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_two_free_cpus_are_claimed_whole_or_not_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another grading holds CPU 0 of two: nothing is claimed, and CPU 1's claim is let go."""
    held, taken = {0}, []

    def claim(cpu: int, share: int) -> socket.socket | None:
        if cpu in held:
            return None
        taken.append(socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
        return taken[-1]

    monkeypatch.setattr(pinning.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(pinning, "_claim", claim)
    assert pinning._claim_two_free_cpus() == []
    assert len(taken) == 1 and taken[0].fileno() == -1  # closed
    held.clear()
    claims = pinning._claim_two_free_cpus()
    assert [cpu for cpu, _ in claims] == [0, 1]
    for _, each in claims:
        each.close()


def test_the_kernel_plays_each_copy_from_the_module_as_loaded(
    view: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nbgrader's hidden cells, run in the kernel in the notebook's order (the random level's
    cell, then depth 2's, then the in-time cell), give each rule the points the grader gives,
    with the same games: the kernel keeps each copy's module-level data apart."""
    allowance = Allowance(ALLOWANCE["states"], ALLOWANCE["seconds"])
    monkeypatch.setattr(contest_checks, "LEVELS", SHORT_LEVELS)
    monkeypatch.setattr(contest_checks, "PLAYED", {})
    monkeypatch.setattr(contest_checks, "KERNEL_AGENTS", {})
    monkeypatch.setattr(contest_checks, "PLAYING", {})
    namespace: dict = {}
    exec(textwrap.dedent(COUNTING), namespace)  # noqa: S102 - the notebook's cell, in a kernel
    function = namespace["connect_four_agent"]
    kernel = {}
    for rule_id in ("agent_beats_random", "agent_beats_depth_2", "agent_moves_in_time"):
        kernel[rule_id] = contest_checks.contest_rule(function, rule_id, allowance)
    record, _ = graded(view, monkeypatch, COUNTING, forked=False)
    sandbox = {rule.id: rule for rule in record.rules if rule.id in kernel}
    for rule_id, rule in kernel.items():
        got = [(v.instance, v.got, v.picture) for v in rule.groups[0].verdicts]
        assert got == [(v.instance, v.got, v.picture) for v in sandbox[rule_id].groups[0].verdicts]
        assert rule.points == sandbox[rule_id].points
