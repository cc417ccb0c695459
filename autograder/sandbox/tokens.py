"""The tokens that stand for states on the wire: one per position for a whole run, as on the
real game, and random, so a submission can name only the states it was sent."""

from __future__ import annotations

from typing import Any

from autograder.sandbox.wire import _random_tokens

POSITIONS = 1 << 18
"""The most positions a run's table keeps between calls: a grading run of the reference on
lectures 1-4 serves under 4,000, a contest's agent may meet far more. Past it, the next call
starts a new table: every position gets a new token, as in a new run, so a table the submission
keeps from earlier calls stops finding them, and never finds a wrong one."""


class Tokens:
    """The states served by one submission's process, from its start to `close`: each position
    gets one token, the same in every call (and through restarts), as a position is the same
    value in every call of the notebook's kernel. A table the submission keeps between calls
    finds a position again, as it would there.

    A token is 64 random bits from the operating system, never derived from the state, and
    each run draws its own. What a call may ask for is still only what it was sent in that
    call (`StudentProcess.call`'s `served`): a token from an earlier call names a state of
    that call's game, which the grader does not vouch for in this one.
    """

    def __init__(self, most: int = POSITIONS) -> None:
        self.named: dict[Any, int] = {}  # position -> token
        self.states: dict[int, Any] = {}  # token -> position
        self.most = most
        self._fresh = _random_tokens()
        self._new: set[int] = set()  # the tokens first drawn in the current call

    def start_call(self, state: Any, actions: list) -> tuple[int, dict[int, tuple[Any, list]]]:
        """A new call from `state`: its token, and the call's `served` map with only the root.

        The table starts again here, never inside a call, once it holds `most` positions.
        """
        if len(self.named) >= self.most:
            self.named.clear()
            self.states.clear()
        self._new = set()
        root = self.named.get(state)
        if root is None:
            root = self.new(state)
        return root, {root: (state, actions)}

    def new(self, state: Any) -> int:
        """A token for a position never served in this run (`named` does not hold it)."""
        token = next(self._fresh)
        while token in self.states:  # 64 random bits: never in practice
            token = next(self._fresh)
        self.named[state], self.states[token] = token, state
        self._new.add(token)
        return token

    def carried(self, served: dict[int, tuple[Any, list]], parents: set[int]) -> int:
        """How many positions of this call came from an earlier call and were not searched:
        served here (the root first), first served in an earlier call, never the parent of a
        `result` in this call, and the root or not terminal (they have actions).

        A correct search without a table expands every position it generates (or stops at
        its horizon), and a table kept within one call has searched a position by the time it
        finds it again; so in a search without a horizon, these are positions a table kept
        from an earlier call answered.
        """
        return sum(
            1
            for number, (token, (_, actions)) in enumerate(served.items())
            if (actions or number == 0) and token not in parents and token not in self._new
        )
