"""A submission's agent in the contest: `connect_four_agent` run in the sandbox, move by move.

The grader's side of the sandbox lives here, apart from the opponents (`opponents.py`), so that
the opponents and the referee need only the game, the solver and the judge, and the notebook's
hidden tests can run them in the kernel (`contest_checks.KernelAgent` plays the agent there).
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

from autograder.contest.opponents import (
    AGENT_FUNCTION,
    GAME,
    Agent,
    Allowance,
    Choice,
    agent_choice,
)
from autograder.grading.judge import Outcome
from autograder.grading.plain import decode
from autograder.sandbox import Limits, LoadReport, StudentProcess
from autograder.sandbox.cpu import cpu_meter, cpu_seconds_meter
from games.connect_four import ConnectFourState

MAX_RESTARTS = 6
"""Times an agent's process is started again (after a move stopped for time, which kills it, or
after it died) before its moves are no longer played: a count, not a clock, so that an agent
that loads slowly and dies on every move cannot hold a grading run for long, and the machine's
load decides nothing."""


class StudentAgent(Agent):
    """A submission's `connect_four_agent`, run in the sandbox on the served game.

    The process starts at the first move, and is held (frozen) between moves. Each move is one
    call on the served game: the grader generates and counts every state the agent's search
    asks for and refuses the one past `allowance.states` (the search sees `OutOfStates`), and
    reads the CPU time of the submission's processes while the move runs, stopping it (the
    process is killed) once it passes `allowance.seconds`, or at the wall-clock safety net. A
    stopped or dead process is started again for the next move, at most `MAX_RESTARTS` times,
    and its `random` seeded again from the game's seed. `load_error` says why the agent cannot
    play at all ("" when it can).

    A move's time is the agent's CPU time, and its sleep as well (`sandbox.cpu`); the CPU its
    processes use after returning a move, before the freeze lands, is taken from its next move's
    seconds. `total_seconds`, if given, bounds the agent's time over all its moves (the
    allowances of every move it can be asked, added up): past it, its later moves are forfeited
    without asking it, and the process-wide CPU limit is raised to fit it, so that no agent
    within its moves' allowances is ever killed by that limit.

    Everything its process sends is checked (`StudentProcess` takes only the reply the protocol
    expects, of the right shape); whatever the grader cannot make sense of is this agent's
    crash, on its own move: it loses that game, its process is started again for the next one,
    and the match goes on.
    """

    def __init__(
        self,
        name: str,
        cells: list,
        view: Path,
        limits: Limits,
        total_seconds: float | None = None,
    ) -> None:
        super().__init__(name)
        if total_seconds is not None:
            limits = fitting_limits(limits, total_seconds)
        self.process = StudentProcess(cells, [AGENT_FUNCTION], view, limits)
        self.load_report: LoadReport | None = None
        self.restarts = 0
        self.total_seconds = total_seconds
        self.used = 0.0  # seconds charged to its moves so far
        self.debt = 0.0  # CPU seconds used after its last move returned, before it was held
        self.charges: list[tuple[int, float]] = []  # (states, seconds) of each move answered

    @property
    def load_error(self) -> str:
        """Why the agent cannot play ("" if it can); starts the process to find out."""
        if self.load_report is None:
            self._start()
        report = self.load_report
        if report.status != "loaded":
            return f"the submission could not be loaded: {report.error}"
        if AGENT_FUNCTION not in report.functions:
            return f"{AGENT_FUNCTION} is not defined (or not a function) in the submission"
        return ""

    def _start(self) -> None:
        self.restarts += self.load_report is not None
        self.load_report = self.process.start()
        self.process.pause()  # what the cells started waits for the first move
        self.seeded = False  # a fresh process draws this game's random numbers from the start
        self.debt = 0.0  # what the old process used after its last move died with it

    def play(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        try:
            return self._move(state, allowance)
        except Exception as error:  # noqa: BLE001 - what its process sent: its crash, not ours
            self.process.stop()
            why = f"the grader could not read its reply ({type(error).__name__}: {error})"
            return Choice(None, 0, "crashed", why[:2000])

    def _move(self, state: ConnectFourState, allowance: Allowance) -> Choice:
        if self.total_seconds is not None and self.used >= self.total_seconds:
            why = (
                f"not asked: the agent used all of its {self.total_seconds:g} s for the contest "
                "(every move's allowance added up)"
            )
            return Choice(None, 0, "forfeited", why)
        if self.load_report is None or not self.process.alive:  # a failed load is retried too
            if self.restarts >= MAX_RESTARTS:
                why = f"not played: its process was started again {MAX_RESTARTS} times already"
                return Choice(None, 0, "crashed", why)
            self._start()
        if self.load_error:
            again = "after a restart, " if self.restarts else ""
            return Choice(None, 0, "crashed", again + self.load_error)
        self._discard_stale_replies()
        self.process.resume()
        seconds = max(allowance.seconds - self.debt, allowance.seconds / 100)
        meter = self._meter(cpu_meter)
        charged_from = meter() if meter else 0.0
        try:
            called = self.process.call(
                AGENT_FUNCTION,
                GAME,
                state,
                (allowance.seconds,),
                evaluate=GAME.evaluate,  # served as game.evaluate(state), not passed
                timeout=allowance.safety_net,
                evaluate_argument=False,
                state_budget=allowance.states,
                cpu_seconds=seconds,
                seed=self.seed(),
                meter=meter,  # the move's one meter: its cap and its charge
            )
        finally:
            charged = self._hold(meter, charged_from)
        if called.status == "timeout":  # stopped at its time: what it had, whatever was read
            charged = max(charged, seconds)
        self.used += charged
        if called.status == "returned":  # what its answered moves used, for the instructor
            self.charges.append((called.states_generated, round(charged, 4)))
        outcome = Outcome(
            called.status, decode(called.value), called.error, called.states_generated
        )
        choice = agent_choice(outcome, GAME.actions(state), allowance)
        return dataclasses.replace(choice, seconds=round(charged, 4))

    def _discard_stale_replies(self) -> None:
        """Drop whatever the held agent sent after its last answer was read: nothing sent before
        a move is asked answers it, so an extra reply is never read as the next move's."""
        self.process._buffer = b""  # a frame read along with the last answer
        descriptor = self.process._read_fd
        if descriptor is None:
            return
        try:
            os.set_blocking(descriptor, False)
            while os.read(descriptor, 1 << 16):  # frozen: what is there is all there will be
                pass
        except OSError:  # empty (BlockingIOError), or the pipe is gone: nothing stale left
            return

    def _meter(self, kind):
        process = self.process.process
        if process is None or not self.process.alive:
            return None
        try:
            return kind(process.pid, self.process.cgroups)
        except OSError:
            return None

    def _hold(self, meter, charged_from: float) -> float:
        """Hold the agent (no thinking on the opponent's time); return the move's time, and
        keep as debt, for the next move, the CPU it used between returning and being held."""
        charged = max(0.0, _reading(meter) - charged_from) if meter else 0.0
        cpu = self._meter(cpu_seconds_meter)
        returned = _reading(cpu)
        self.process.pause()
        self.debt = max(0.0, _reading(cpu) - returned) if cpu else 0.0
        return charged + self.debt

    def close(self) -> None:
        self.process.close()


def _reading(meter) -> float:
    try:
        return meter() if meter else 0.0
    except (OSError, ValueError):  # the process is gone: nothing more to read
        return 0.0


def most_seconds(openings: list[str], seconds: float) -> float:
    """The most time one agent's moves can use in a game from each of `openings`, every move
    at its `seconds`: a side plays at most half the cells the opening leaves, rounded up."""
    return sum((42 - len(opening) + 1) // 2 for opening in openings) * seconds


LOAD_MARGIN = 30
"""CPU seconds the process-wide limit allows beyond the contest's moves: its load, and the
grader's side of each move that runs in its processes (unpickling what it is sent)."""


def fitting_limits(limits: Limits, total_seconds: float) -> Limits:
    """`limits` with a process-wide CPU limit (`RLIMIT_CPU`) no lower than an agent within its
    moves' allowances can reach: `total_seconds`, its load's CPU and `LOAD_MARGIN`."""
    load = limits.load_cpu_seconds or 0.0
    fitting = math.ceil(total_seconds + load + LOAD_MARGIN)
    return dataclasses.replace(limits, cpu_seconds=max(limits.cpu_seconds, fitting))
