"""The contest's second copy of an agent: played at once in a forked grader process on a CPU of
its own when two CPUs are free, else after the first copy, in this process.

Each copy is the submission loaded afresh (`levels.SECOND_COPY` names the levels the second
plays), so what it plays depends on its own games alone, never on where or when it runs: the
games, the moves and the grade are the same either way. A grader process serving one agent
keeps one CPU busy (the agent and the grader take turns on it, `sandbox.pinning`), so two copies
on two CPUs take about half the time of one agent playing everything. A class graded on as many
workers as CPUs leaves none free, and its copies play one after the other.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from autograder.contest.levels import Level, play_contest
from autograder.contest.student_agent import StudentAgent, most_seconds
from autograder.sandbox import (
    _ACTIVE,
    _ACTIVE_LOCK,
    become_subreaper,
    die_with_parent,
    is_subreaper,
)
from autograder.sandbox.pinning import _claim_two_free_cpus
from autograder.sandbox.pipe import without_collection

STOP_WAIT = 30.0
"""Seconds the forked copy has to end once it has sent its games or is asked to stop (it closes
its agent first, `KILLED_WAIT` at most): past them it is killed, and never waited on forever."""

AGENT_NAME = "your agent"
"""The agent's name in its games and on its feedback page (no opponent has it, whatever the
student's file is called)."""


def contest_seconds(allowance: Any, levels: tuple, positions: int) -> float:
    """The most time an agent's moves can use in `levels` and `positions` positions, every move
    at its allowance: the bound on a copy's whole contest (`StudentAgent.total_seconds`)."""
    openings = [opening for level in levels for opening, _ in level.games]
    return most_seconds(openings, allowance.seconds) + positions * allowance.seconds


def new_agent(
    cells: list, settings: Any, allowance: Any, levels: tuple, positions: int
) -> StudentAgent:
    """A copy of the submission's agent (not started yet) for `levels` and `positions`
    positions, its time bounded by theirs (`contest_seconds`)."""
    total = contest_seconds(allowance, levels, positions)
    return StudentAgent(AGENT_NAME, cells, settings.view, settings.limits, total)


@dataclass
class Played:
    """What a copy of the agent played, and what its grade needs of it: its games by level, its
    answered moves' charges (`StudentAgent.charges`), its time against its bound, what its
    process printed, and the grader process that played it."""

    games: dict[str, tuple]
    charges: list[tuple[int, float]] = field(default_factory=list)
    used: float = 0.0
    total: float = 0.0
    output: str = ""
    process: int = 0


def play_levels(cells: list, settings: Any, allowance: Any, levels: tuple[Level, ...]) -> Played:
    """Load the submission afresh and play `levels` with it; the agent is closed after."""
    agent = new_agent(cells, settings, allowance, levels, 0)
    try:
        with without_collection():  # the contest makes no reference cycles to collect
            games = play_contest(agent, allowance, levels)
        output = agent.process.output()
        return Played(games, agent.charges, agent.used, agent.total_seconds, output, os.getpid())
    finally:
        agent.close()


class SecondCopy:
    """The second copy's games: started in a forked process at once if two CPUs are free (this
    thread is then pinned to the other until `close`), else played by `played` when asked."""

    def __init__(self, cells: list, settings: Any, allowance: Any, levels: tuple[Level, ...]):
        self.work = (cells, settings, allowance, levels)
        self.pid: int | None = None
        self.reader: int | None = None
        self.allowed: set[int] | None = None
        self.claim = None  # this thread's CPU's claim while the copies play at once
        claims = _claim_two_free_cpus() if levels and hasattr(os, "fork") else []
        if claims:
            self._fork(claims)

    def _fork(self, claims: list) -> None:
        (mine, my_claim), (its, its_claim) = claims
        reader, writer = os.pipe()
        with _ACTIVE_LOCK:  # the child is not an orphan for this process's reaper to kill
            pid = os.fork()
            if pid == 0:
                _ACTIVE_LOCK.release()  # held by the thread that forked, which is this one
                os.close(reader)
                my_claim.close()
                _serve(writer, its, self.work)  # never returns
            _ACTIVE.add(pid)
        os.close(writer)
        its_claim.close()  # the child holds that CPU's claim now
        self.pid, self.reader, self.claim = pid, reader, my_claim
        try:
            self.allowed = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {mine})  # the first copy's agent inherits it at its start
        except OSError:
            self.allowed = None

    def played(self) -> Played:
        """The second copy's games: the forked process's, else played here and now (also when
        that process failed, which is the grader's failure, never the submission's)."""
        if self.reader is not None:
            data = b""
            with contextlib.suppress(OSError), os.fdopen(self.reader, "rb") as pipe:
                self.reader = None
                data = pipe.read()
            self._reap()
            with contextlib.suppress(Exception):
                played = pickle.loads(data)  # noqa: S301 - written by the grader's own child
                if isinstance(played, Played):
                    return played
        return play_levels(*self.work)

    def _reap(self) -> None:
        """Collect the forked process: within `STOP_WAIT` seconds, else killed (what it leaves
        dies with it: its zygote, and its agent with the zygote, `sandbox.zygote`)."""
        if self.pid is None:
            return
        deadline = time.monotonic() + STOP_WAIT
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > deadline:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                    break
                time.sleep(0.01)
        with _ACTIVE_LOCK:
            _ACTIVE.discard(self.pid)
        self.pid = None

    def close(self) -> None:
        """Stop the forked process if it still plays (it closes its agent), and unpin."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            self._reap()
        if self.reader is not None:
            os.close(self.reader)
            self.reader = None
        if self.allowed is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, self.allowed)
            self.allowed = None
        if self.claim is not None:
            self.claim.close()
            self.claim = None


def _serve(writer: int, cpu: int, work: tuple) -> None:
    """The forked process: play the second copy's levels on `cpu`, write them, and exit."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grading command's
        signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(1))  # close the agent
        die_with_parent(signal.SIGTERM)  # and close its agent on the way out
        if is_subreaper():  # not inherited: adopt what its own jails leave, as its parent does
            become_subreaper()
        os.sched_setaffinity(0, {cpu})
        data = pickle.dumps(play_levels(*work))
        with os.fdopen(writer, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:  # noqa: BLE001 - the parent plays these games itself instead
        code = 1
    finally:
        os._exit(code)
