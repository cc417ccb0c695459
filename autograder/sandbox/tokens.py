"""The tokens that stand for states on the wire: one per position for a whole run, as on the
real game, and random, so a submission can name only the states it was sent; and what was served
under them (`Tokens.served_table`), so a position served again costs the grader a look-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autograder.sandbox.connect_four_children import child_info, child_position
from autograder.sandbox.wire import (
    _CHILDREN,
    _random_tokens,
    _stored_child,
    child_frame,
    from_the_parent,
)

POSITIONS = 1 << 18
"""The most positions a run's table keeps between calls: a grading run of the reference on
lectures 1-4 serves under 4,000, a contest's agent may meet far more. Past it, the next call
starts a new table: every position gets a new token, as in a new run, so a table the submission
keeps from earlier calls stops finding them, and never finds a wrong one."""

SERVED_MOST = 100_000
"""The most positions a table of served entries (`Tokens.served_table`) holds; past it, the next
child found missing starts the table again (its positions keep their tokens, and are served
again as before, at the price of computing their entries again)."""

TABLES = 64
"""The most tables (pairs of a game and an evaluation) kept between calls."""

Entry = tuple
"""A served position, as `Tokens.served_table` keeps it: (state, legal actions, each action's
child entry or None until it is asked for, the position's frame as a child, its token). The
first two are what `StudentProcess.call`'s `served` promised; the frame is what the grader
writes to the student to serve it (b"" for a root never served as a child)."""


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
        self._tables: dict[tuple, ServedTable] = {}  # see `served_table`

    def start_call(
        self, state: Any, actions: list, table: ServedTable | None = None
    ) -> tuple[int, dict[int, tuple]]:
        """A new call from `state`: its token, and the call's `served` map with only the root
        (its `Entry` in `table`, the call's `served_table`, if given; else (state, actions)).

        The table starts again here, never inside a call, once it holds `most` positions.
        """
        if len(self.named) >= self.most:
            self.named.clear()
            self.states.clear()
            self._expanded.clear()
            self._evaluated.clear()
            self._rooted.clear()
            for served in self._tables.values():  # their entries hold the tokens just forgotten
                served.clear()
        root = self.named.get(state)
        if root is None:
            root = self.new(state)
        if table is None:
            return root, {root: (state, actions)}
        entry = table.get(root)
        if entry is None:
            entry = table[root] = (state, actions, [None] * len(actions), b"", root)
        return root, {root: entry}

    def new(self, state: Any) -> int:
        """A token for a position never served in this run (`named` does not hold it)."""
        token = next(self._fresh)
        while token in self.states:  # 64 random bits: never in practice
            token = next(self._fresh)
        self.named[state], self.states[token] = token, state
        return token

    def served_table(self, game: Any, evaluate: Any) -> ServedTable:
        """The entries of the positions served so far with `game` and `evaluate`, by token.

        An entry keeps its position's frame and links to its children's entries once they are
        asked for, so a child asked for again (in this call or a later one: a deepening search
        asks for the same children at every depth) costs the grader one list look-up and one
        write: no hashing of a state, no new bytes. The frame depends on the game and the
        evaluation served, hence one table per pair; it is the same from any parent (the token
        is the position's), so a transposition shares it.
        """
        key = (game, evaluate)
        table = self._tables.get(key)
        if table is None:
            if len(self._tables) >= TABLES:  # an evaluation made anew for every call
                self._tables.clear()
            table = self._tables[key] = ServedTable(game, evaluate)
        return table

    def child(self, table: ServedTable, found: Entry, index: int) -> Entry:
        """The entry of the child of `found` (an entry of `table`) by its action number `index`,
        the first time it is asked for from `found`: named, kept in `table` and linked from
        `found`. A position `table` holds already (a transposition, or a position of an earlier
        call) is that entry; else its info is computed, from its parent's in the contest's game
        (`connect_four_children`), or taken from `wire._CHILDREN`, which every run shares."""
        if table.from_the_parent:
            entry = self._child_from_the_parent(table, found, index)
        else:
            key = (table.game, table.evaluate, found[0], index)
            state, actions, header, encoded = _CHILDREN.get(key) or _stored_child(key, found, index)
            token = self.named.get(state)
            if token is None:
                token = self.new(state)
            entry = table.get(token)
            if entry is None or not entry[3]:  # new, or known only as a root: it needs its frame
                frame = header + token.to_bytes(8, "big") + encoded
                entry = self._kept(table, state, actions, frame, token, entry)
        found[2][index] = entry
        return entry

    def _child_from_the_parent(self, table: ServedTable, found: Entry, index: int) -> Entry:
        """`child` in the contest's game: the position first, and what is served of it computed
        from its parent's only if `table` lacks it (a search meets many transpositions)."""
        parent, legal = found[0], found[1]
        token = self.named.get(child_position(parent, legal[index]))
        entry = None if token is None else table.get(token)
        if entry is None or not entry[3]:
            state, info = child_info(parent, legal, index, table.evaluate is not None)
            if token is None:
                token = self.new(state)
            entry = self._kept(table, state, info[1], child_frame(token, info), token, entry)
        return entry

    @staticmethod
    def _kept(
        table: ServedTable, state: Any, actions: list, frame: bytes, token: int, known: Entry | None
    ) -> Entry:
        """A new entry kept in `table`: with the children of `known` (the position's entry as
        a root, without a frame) if any, else with none asked for yet."""
        if len(table) >= SERVED_MOST:
            table.clear()  # entries the call holds stay right: tokens do not change here
        children = [None] * len(actions) if known is None else known[2]
        table[token] = entry = (state, actions, children, frame, token)
        return entry

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
                state, actions = served[token][:2]
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


class ServedTable(dict):
    """The entries of the positions served with one game and one evaluation, by token (see
    `Tokens.served_table`), and how their children are computed (`Tokens.child`)."""

    __slots__ = ("game", "evaluate", "from_the_parent")

    def __init__(self, game: Any, evaluate: Any) -> None:
        super().__init__()
        self.game, self.evaluate = game, evaluate
        self.from_the_parent = from_the_parent(game, evaluate)
