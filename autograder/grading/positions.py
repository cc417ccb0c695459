"""What the hidden instances and the searches that select them share: where the frozen picks are
kept (and the file read), the tic-tac-toe game, the random trees tried for a single best move, the
evaluation."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from games import GameTree, TicTacToe, random_tree

FROZEN_DATA = "data/frozen_instances.json"  # inside the package, shipped as package data


@cache
def frozen_file() -> dict[str, Any]:
    """The frozen data as JSON gives it (read once)."""
    # Read through importlib.resources, so that an installed wheel finds its own copy.
    text = resources.files("autograder").joinpath(FROZEN_DATA).read_text(encoding="utf-8")
    return json.loads(text)


def frozen_choice() -> dict[str, tuple[tuple[int, str], ...]]:
    """The coverage's frozen choice of candidates, by function and pool (see `rules.slot`):
    each candidate's place in its pool and its name."""
    return {
        key: tuple((place, name) for place, name in picks)
        for key, picks in frozen_file().get("chosen", {}).items()
    }


TTT = TicTacToe()


def decision_tree(tree_seed: int, player: str) -> GameTree:
    """The random tree of `tree_seed` that `select_tree_decisions` tries for a single best move."""
    return random_tree(
        branching=(3, 4), depth=3, low=-20, high=20, seed=tree_seed, root_player=player
    )


def tictactoe_evaluation(state: str) -> float:
    """Open lines for X minus open lines for O, plus a centre bonus, in tenths inside (-1, 1).

    Asymmetric on purpose: X's two-in-a-line counts more than O's, so scoring from the wrong
    side changes values.
    """
    from games.tictactoe import LINES

    score = 0
    for line in LINES:
        marks = [state[i] for i in line]
        if "O" not in marks:
            score += marks.count("X") * 2
        if "X" not in marks:
            score -= marks.count("O")
    score += 1 if state[4] == "X" else 0
    return max(-9, min(9, score)) / 10
