"""The tokens that stand for states on the wire: one per position for a whole run, as on the
real game, and random, so a submission can name only the states it was sent."""

from __future__ import annotations

from collections.abc import Callable
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
        self._expanded: set[int] = set()  # positions an earlier call generated a child of
        self._evaluated: set[int] = set()  # met unexpanded by an earlier depth-limited call
        self._rooted: dict[str, set[int]] = {}  # "value" or "decision" -> roots expanded

    def start_call(self, state: Any, actions: list) -> tuple[int, dict[int, tuple[Any, list]]]:
        """A new call from `state`: its token, and the call's `served` map with only the root.

        The table starts again here, never inside a call, once it holds `most` positions.
        """
        if len(self.named) >= self.most:
            self.named.clear()
            self.states.clear()
            self._expanded.clear()
            self._evaluated.clear()
            self._rooted.clear()
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
        return token

    def carried(
        self,
        function: str,
        served: dict[int, tuple[Any, list]],
        parents: set[int],
        args: tuple = (),
        result: Callable[[Any, Any], Any] | None = None,
    ) -> int:
        """How many positions a call of `function` answered from a table kept between calls,
        then remember what this call searched (call it once a call, whatever its end).

        Counted: a position generated in this call, not terminal here, that an earlier call
        expanded (generated a child of) and this call did not (a tree's paths are alike in
        every tree, so a leaf here may have been an inner node there); and the root, if an
        earlier call of the same kind (a `*_value` function, or a `*_decision`, of any
        algorithm) expanded it as its root and this call did not. A correct search without a
        horizon expands every position it generates that is not terminal, and a table kept
        within one call finds only what this call has expanded; so these are positions a table
        kept from an earlier search answered. A function that never searches (a stub, a
        random move) expands nothing, so it carries nothing, however often its positions
        come back; nor does a value function whose root only a decision expanded before (the
        decision may have searched its children with a stub). A call with `args` has a horizon:
        a graded depth-limited search's first argument is its depth (`depth_of`), and there a
        position below the root counts only fewer plies below it than the depth, by the
        positions this call expanded (`within`, with the game's `result`), since a position at
        the horizon is evaluated, not expanded; it counts too if an earlier depth-limited call
        met it without expanding it (evaluated it at its horizon): a table without the depth
        stores that value. Any other horizon (a contest's move, given its seconds) counts the
        root only.
        """
        root, *below = served
        depth = depth_of(function, args) if args and result is not None else None
        evaluated = self._evaluated if depth is not None else ()
        searched = below if not args or (depth or 0) > 1 else ()  # else only the root counts
        found = [
            token
            for token in searched
            if served[token][1]
            and token not in parents
            and (token in self._expanded or token in evaluated)
        ]
        if found and args:
            inside = self.within(served, parents, depth, result) if depth and depth > 1 else ()
            found = [token for token in found if token in inside]
        carried = len(found)
        roots = self._rooted.setdefault(function.rpartition("_")[2], set())
        carried += root not in parents and root in roots
        self._expanded |= parents
        if depth is not None:
            self._evaluated.update(t for t in below if served[t][1] and t not in parents)
        if root in parents:
            roots.add(root)
        return carried

    def within(self, served: dict, parents: set[int], depth: int, result: Callable) -> set[int]:
        """The positions a call generated fewer than `depth` plies below its root (the first),
        reached through positions it expanded: where a depth-limited search of that depth
        must expand every position that is not terminal. Each expanded position's children
        are its legal actions' results that the call generated (the same in the kernel)."""
        root = next(iter(served))
        level, seen = [root], {root}
        for _ in range(depth - 1):
            following = []
            for token in level:
                if token not in parents:
                    continue
                state, actions = served[token]
                for action in actions:
                    child = self.named.get(result(state, action))
                    if child in served and child not in seen:
                        seen.add(child)
                        following.append(child)
            level = following
        return seen - {root}


def depth_of(function: str, args: tuple) -> int | None:
    """The depth of a graded depth-limited call (`*_value` or `*_decision` given an int depth
    first), else None."""
    graded = function.endswith(("_value", "_decision")) and type(args[0]) is int
    return args[0] if graded else None
