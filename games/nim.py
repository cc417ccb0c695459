"""Nim with a few heaps under normal play: whoever takes the last object wins."""

from __future__ import annotations

from games.protocol import MAX, MIN, Game

NimState = tuple[tuple[int, ...], str]


class Nim(Game):
    """Nim: players alternately take one or more objects from a single heap.

    A state is `(heaps, player_to_move)`, e.g. `((1, 3, 5), "MAX")`. An action is a pair
    `(heap_index, count)`; actions are listed by heap, then by count ascending. Under normal play
    the player who takes the last object wins: utility +1 if MAX did, -1 if MIN did.

    >>> game = Nim((1, 2))
    >>> game.actions(game.initial_state())
    [(0, 1), (1, 1), (1, 2)]
    """

    def __init__(self, heaps: tuple[int, ...] = (1, 3, 5), first: str = MAX) -> None:
        if not heaps or any(not isinstance(h, int) or h < 0 for h in heaps):
            raise ValueError(f"heaps must be a non-empty sequence of non-negative ints: {heaps!r}")
        self.heaps = tuple(heaps)
        self.first = first

    def __repr__(self) -> str:
        return f"Nim({self.heaps!r})"

    def initial_state(self) -> NimState:
        return (self.heaps, self.first)

    def to_move(self, state: NimState) -> str:
        return state[1]

    def actions(self, state: NimState) -> list[tuple[int, int]]:
        heaps, _ = state
        return [(index, count) for index, size in enumerate(heaps) for count in range(1, size + 1)]

    def result(self, state: NimState, action: tuple[int, int]) -> NimState:
        heaps, player = state
        if not isinstance(action, tuple) or action not in self.actions(state):
            raise self._illegal(state, action)
        index, count = action
        after = heaps[:index] + (heaps[index] - count,) + heaps[index + 1 :]
        return (after, MIN if player == MAX else MAX)

    def is_terminal(self, state: NimState) -> bool:
        return not any(state[0])

    def utility(self, state: NimState) -> int:
        if not self.is_terminal(state):
            raise self._not_terminal(state)
        # The player to move faces empty heaps: the other player took the last object.
        return -1 if state[1] == MAX else 1

    def display(self, state: NimState) -> str:
        heaps, player = state
        rows = [f"heap {i}: {'|' * size} ({size})" for i, size in enumerate(heaps)]
        return "\n".join([*rows, f"{player} to move"])
