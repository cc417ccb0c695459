"""Freeze the contest's pool of positions: `python -m autograder.contest.make_positions`.

Like a chess engine's EPD suite, each position comes with the exact solver's verdict
(`solutions.connect_four.ConnectFourSolver`): its value for the player to move (a win or a
draw) and the columns that keep it (moves that still win, or still draw). The positions are
reached by random play from a fixed seed, with 12 to 35 stones; a position is kept only if it
asks something: it is not lost (there every move keeps the value), not won at once by a move,
and some move throws its value away. The pure-Python solver needs up to a minute for a
12-stone position and its children, so the pool is computed once, offline, and written to
`autograder/contest/frozen_positions.py`, which the grader and the notebooks' hidden tests read.

The pool is made of parts, each the first positions that ask something of one seed's random
play (`PARTS`): the first part is the suite of the first term (the default course's), the
others are what a course seed draws another term's suite from (`positions.course_positions`).
Solving one position and its children takes about 20 s on a shared core, so the pool holds a
few hundred positions.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from pathlib import Path

from games.connect_four import ConnectFour, ConnectFourState
from solutions.connect_four import ConnectFourSolver

GAME = ConnectFour()
SEED = 2026
FEWEST_STONES, MOST_STONES = 12, 35
COUNT = 60
PARTS = ((SEED, COUNT), (2027, 51), (2028, 51), (2029, 62))
"""(seed, positions) of each part of the pool, in order: the first term's suite, then more."""
FROZEN_FILE = Path(__file__).with_name("frozen_positions.py")


def candidates(seed: int = SEED, count: int = 4 * COUNT) -> list[str]:
    """Move strings of unfinished positions reached by random play, each position once."""
    rng, found, seen = random.Random(seed), [], set()
    while len(found) < count:
        stones, moves, state = rng.randint(FEWEST_STONES, MOST_STONES), "", GAME.initial_state()
        while len(moves) < stones and not GAME.is_terminal(state):
            column = rng.choice(GAME.actions(state))
            moves, state = moves + str(column), GAME.result(state, column)
        if len(moves) == stones and not GAME.is_terminal(state) and state not in seen:
            seen.add(state)
            found.append(moves)
    return found


def verdict(moves: str) -> tuple[str, str, str] | None:
    """(moves, "win" or "draw", the columns that keep that value), or None if the position
    asks nothing: it is lost, a move wins at once, or every move keeps its value."""
    state = ConnectFour.from_moves(moves)
    if any(GAME.is_terminal(GAME.result(state, column)) for column in GAME.actions(state)):
        return None  # a move ends the game at once: a one-ply search sees it
    solver = ConnectFourSolver("strong")
    score = solver.solve(state)
    if score < 0:
        return None
    keeping = [column for column in GAME.actions(state) if _keeps(solver, state, column, score)]
    if len(keeping) == len(GAME.actions(state)):
        return None
    return moves, "win" if score > 0 else "draw", "".join(map(str, keeping))


def _keeps(solver: ConnectFourSolver, state: ConnectFourState, column: int, score: int) -> bool:
    child_score = -solver.solve(GAME.result(state, column))
    return child_score > 0 if score > 0 else child_score == 0


def suite(count: int = COUNT, seed: int = SEED, workers: int = 2) -> list[tuple[str, str, str]]:
    """The first `count` positions of `candidates(seed)` that ask something, with verdicts."""
    found = []
    with multiprocessing.Pool(workers) as pool:
        for result in pool.imap(verdict, candidates(seed)):
            if result is not None:
                found.append(result)
                print(f"{len(found):3} {result}", flush=True)
                if len(found) == count:
                    break
    if len(found) < count:
        raise ValueError(f"only {len(found)} of the candidates ask something; {count} wanted")
    return found


def module_text(
    positions: list[tuple[str, str, str]], parts: tuple[tuple[int, int], ...] = PARTS
) -> str:
    """The source of `frozen_positions.py` holding `positions`, made of `parts`."""
    made = ", ".join(f"{count} of seed {seed}" for seed, count in parts)
    lines = [
        '"""The contest\'s pool of positions: do not edit, run `python -m',
        "autograder.contest.make_positions` to freeze it again:",
        f"{made}.",
        "",
        "(moves, value for the player to move, the columns that keep that value), by the exact",
        'solver; see `make_positions` for how they were chosen and `positions` for the rule."""',
        "",
        "FROZEN_POSITIONS = (",
        *(f'    ("{moves}", "{value}", "{keeping}"),' for moves, value, keeping in positions),
        ")",
        "",
    ]
    return "\n".join(lines)


def pool(parts: tuple[tuple[int, int], ...] = PARTS, workers: int = 2) -> list:
    """Every part's positions, in order, each position once."""
    found, seen = [], set()
    for seed, count in parts:
        for position in suite(count, seed, workers):
            if position[0] not in seen:
                seen.add(position[0])
                found.append(position)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=FROZEN_FILE)
    args = parser.parse_args(argv)
    positions = pool(PARTS, args.workers)
    args.out.write_text(module_text(positions, PARTS), encoding="utf-8")
    print(f"wrote {len(positions)} positions to {args.out}")


if __name__ == "__main__":
    main()
