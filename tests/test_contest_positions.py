"""Assignment 5's test suite of positions: the frozen verdicts are the solver's, and the rule.

The pool is frozen by `make_positions` (the first term's 60 positions, then more from another
seed); a term's suite is drawn from it by the course seed (`test_contest_integrity.py` checks
what a student sees of it, and a new term's seed)."""

from __future__ import annotations

import re

import pytest

import solutions.agent
from autograder.contest import make_positions
from autograder.contest.frozen_positions import FROZEN_POSITIONS
from autograder.contest.levels import play_contest
from autograder.contest.opponents import Choice, FunctionPlayer
from autograder.contest.positions import (
    POOL,
    POSITIONS,
    POSITIONS_POINTS,
    POSITIONS_TARGET,
    Position,
    graded_rules,
    play_positions,
    positions_rule,
)
from games import ConnectFour
from solutions import ConnectFourSolver

GAME = ConnectFour()
SAMPLE = [position for position in POOL if len(position.moves) >= 24][:4]
SAMPLE += [position for position in POOL[len(POSITIONS) :] if len(position.moves) >= 24][:4]
"""Positions the pure-Python solver settles in well under a second each, with their children."""


def test_the_frozen_file_is_what_the_generator_writes() -> None:
    source = make_positions.FROZEN_FILE.read_text(encoding="utf-8")
    assert source == make_positions.module_text(list(FROZEN_POSITIONS), make_positions.PARTS)
    assert len(POOL) == sum(count for _, count in make_positions.PARTS) == len(set(POOL))
    assert len(POOL) >= 200 and POOL[: make_positions.PARTS[0][1]] == POSITIONS
    assert len({position.moves for position in POOL}) == len(POOL)


def test_every_position_asks_something_of_a_mid_game() -> None:
    for position in POOL:
        state = ConnectFour.from_moves(position.moves)
        legal = GAME.actions(state)
        assert 12 <= len(position.moves) <= 35 and not GAME.is_terminal(state)
        assert position.value in ("win", "draw")
        assert position.keeping and set(map(int, position.keeping)) < set(legal), position
        assert not any(GAME.is_terminal(GAME.result(state, column)) for column in legal)


def test_the_candidates_are_the_seeded_random_play_the_pool_came_from() -> None:
    start = 0
    for seed, count in make_positions.PARTS:
        firsts = [position.moves for position in POOL[start : start + 3]]
        found = make_positions.candidates(seed, count=40)
        assert [moves for moves in found if moves in firsts] == firsts
        start += count


@pytest.mark.parametrize("position", SAMPLE, ids=[position.moves for position in SAMPLE])
def test_a_frozen_verdict_is_the_exact_solver_s(position: Position) -> None:
    solver = ConnectFourSolver("strong")
    state = ConnectFour.from_moves(position.moves)
    score = solver.solve(state)
    assert position.value == ("win" if score > 0 else "draw") and score >= 0
    keeping = ""
    for column in GAME.actions(state):
        child = -solver.solve(GAME.result(state, column))
        if (child > 0) if score > 0 else (child == 0):
            keeping += str(column)
    assert keeping == position.keeping


def test_a_move_that_keeps_the_value_passes_and_one_that_throws_it_away_fails() -> None:
    won = next(position for position in POSITIONS if position.value == "win")
    losing = next(
        c for c in GAME.actions(ConnectFour.from_moves(won.moves)) if str(c) not in won.keeping
    )
    forfeit = Choice(None, 2000, "forfeited", "no move returned within its budget")
    choices = (Choice(int(won.keeping[0])), Choice(losing), forfeit)
    rule = positions_rule(choices, (won, won, won))
    (verdict,) = rule.groups[0].verdicts  # one phase: counts, never which position
    assert not verdict.passed
    assert verdict.got == "kept the value of 1 of 3; 1 without a move (forfeited)"
    assert "budget" in verdict.hint and won.moves not in repr(verdict)
    assert "keeps the value of 1 of 3 positions" in rule.description
    assert rule.points == 0  # a share of 1/3, below the floor


def test_an_agent_that_always_keeps_the_value_earns_every_point() -> None:
    keeping = {position.moves: int(position.keeping[-1]) for position in POOL}
    oracle = FunctionPlayer("oracle", lambda game, state, seconds: keeping[_moves_of(state)])
    rule = positions_rule(play_positions(oracle))
    assert rule.points == POSITIONS_POINTS and rule.full


def test_the_reference_agent_keeps_enough_values_for_every_point() -> None:
    """At the grading's allowance, in this process: the same moves as through the sandbox."""
    agent = FunctionPlayer("reference", solutions.agent.connect_four_agent)
    rule = positions_rule(play_positions(agent))
    kept = int(re.search(r"keeps the value of (\d+) of", rule.description).group(1))
    assert rule.full and kept / len(POSITIONS) >= POSITIONS_TARGET, rule.description


def test_a_mutant_that_throws_the_suite_s_values_away_loses_exactly_that_rule() -> None:
    """The reference, except that in each position of the suite it plays a legal move that
    throws the value away: it loses the suite's points and keeps every other rule's."""
    throwing = {
        position.moves: next(
            column
            for column in GAME.actions(ConnectFour.from_moves(position.moves))
            if str(column) not in position.keeping
        )
        for position in POSITIONS
    }

    def mutant(game, state, seconds):
        moves = _MOVES.get(state)
        if moves is not None:
            return throwing[moves]
        return solutions.agent.connect_four_agent(game, state, seconds)

    agent = FunctionPlayer("mutant", mutant)
    rules = graded_rules(play_contest(agent), play_positions(agent), "mutant")
    lost = {rule.id: rule.max_points - rule.points for rule in rules if not rule.full}
    assert lost == {"agent_keeps_the_value": POSITIONS_POINTS}


def test_a_rule_without_moves_earns_nothing_and_a_wrong_count_is_refused() -> None:
    assert positions_rule(()).points == 0
    with pytest.raises(ValueError, match="moves for"):
        positions_rule((Choice(4),), POSITIONS[:2])


_MOVES = {ConnectFour.from_moves(position.moves): position.moves for position in POOL}


def _moves_of(state) -> str:
    return _MOVES[state]
