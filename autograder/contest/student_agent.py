"""A submission's agent in the contest: `connect_four_agent` run in the sandbox, move by move.

The grader's side of the sandbox lives here, apart from the opponents (`opponents.py`), so that
the opponents and the referee need only the game, the solver and the judge, and the notebook's
hidden tests can run them in the kernel (`contest_checks.KernelAgent` plays the agent there).
"""

from __future__ import annotations

import gc
import time
from pathlib import Path

from autograder.contest.opponents import AGENT_FUNCTION, GAME, GRACE, Choice, Player, agent_choice
from autograder.grading.judge import Outcome
from autograder.grading.plain import decode
from autograder.sandbox import Limits, LoadReport, StudentProcess
from games.connect_four import ConnectFourState


class StudentAgent(Player):
    """A submission's `connect_four_agent`, run in the sandbox on the served game.

    The process starts at the first move and is started again after a move that ran out of
    time (the sandbox kills it) or crashed. Each move is one call with a deadline of `seconds
    + GRACE`; its time is measured here, on the grader's side. `load_error` says why the agent
    cannot play at all ("" when it can). Everything it does, restarts included, fits in
    `limits.budget` seconds from its first start: past it every move is lost at once, so an
    agent that loads slowly and forfeits every move cannot hold a grading run for an hour.
    """

    def __init__(self, name: str, cells: list, view: Path, limits: Limits) -> None:
        self.name = name
        self.process = StudentProcess(cells, [AGENT_FUNCTION], view, limits)
        self.load_report: LoadReport | None = None
        self.restarts = 0
        self.started_at: float | None = None

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
        if self.started_at is None:
            self.started_at = time.monotonic()
        self.restarts += self.load_report is not None
        self.load_report = self.process.start()
        self.process.pause()  # what the cells started waits for the first move

    def choose(self, state: ConnectFourState, seconds: float) -> Choice:
        if self.load_error:
            return Choice(None, 0.0, "crashed", self.load_error)
        spent = time.monotonic() - self.started_at
        if spent > self.process.limits.budget:  # e.g. a slow start after every forfeited move
            why = (
                f"not played: the agent used its {self.process.limits.budget:g} s budget "
                "(--budget) for all its moves and restarts"
            )
            return Choice(None, 0.0, "crashed", why)
        if not self.process.alive:
            self._start()
            if self.load_error:
                return Choice(None, 0.0, "crashed", f"after a restart, {self.load_error}")
        collecting = gc.isenabled()
        gc.disable()  # a full collection in the grader (100 ms here) must not eat the agent's clock
        self.process.resume()
        try:
            called = self.process.call(
                AGENT_FUNCTION,
                GAME,
                state,
                (seconds,),
                evaluate=GAME.evaluate,  # served as game.evaluate(state), not passed
                timeout=seconds + GRACE,
                evaluate_argument=False,
            )
        finally:
            self.process.pause()  # no thinking on the opponent's time
            if collecting:
                gc.enable()
        outcome = Outcome(called.status, decode(called.value), called.error)
        return agent_choice(outcome, GAME.actions(state), called.seconds)

    def close(self) -> None:
        self.process.close()
