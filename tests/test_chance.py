"""Chance trees, the game of Pig and expectiminimax, checked against hand-computed values."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.chance import ChanceTree, Pig, PigState, chance, max_, min_
from games.counting import CountingGame
from games.protocol import CHANCE, MAX, MIN, IllegalActionError
from games.tree import GameTree
from solutions.chance import expectiminimax_decision, expectiminimax_value
from solutions.minimax import minimax_value

# MAX chooses between two gambles. Left: 0.5 * min(3, 7) + 0.5 * min(5, 1) = 1.5 + 0.5 = 2.
# Right: 0.25 * 10 + 0.75 * min(-2, 4) = 2.5 - 1.5 = 1. So the value is 2, the decision 0,
# although the right gamble holds the best leaf (10).
TWO_GAMBLES = max_(
    chance((0.5, min_(3, 7)), (0.5, min_(5, 1))),
    chance((0.25, 10), (0.75, min_(-2, 4))),
)


# --- the tree notation -------------------------------------------------------------------


def test_chance_tree_reports_players_actions_and_outcomes() -> None:
    game = ChanceTree(TWO_GAMBLES)
    root = game.initial_state()
    assert game.to_move(root) == MAX
    assert game.actions(root) == [0, 1]
    assert game.to_move((1,)) == CHANCE
    assert game.chance_outcomes((1,)) == [(0, 0.25), (1, 0.75)]
    assert game.actions((1,)) == [0, 1]
    assert game.to_move((1, 1)) == MIN
    assert game.result((1, 1), 0) == (1, 1, 0)
    assert game.is_terminal((1, 1, 0)) and game.utility((1, 1, 0)) == -2
    assert game.leaves() == [
        (0, 0, 0),
        (0, 0, 1),
        (0, 1, 0),
        (0, 1, 1),
        (1, 0),
        (1, 1, 0),
        (1, 1, 1),
    ]


def test_repr_reads_like_the_constructor_calls() -> None:
    game = ChanceTree(max_(chance((0.5, 2), (0.5, min_(1, 3))), 4))
    assert repr(game) == "ChanceTree(max_(chance((0.5, 2), (0.5, min_(1, 3))), 4))"


def test_to_move_at_a_leaf_is_the_opponent_of_the_last_deciding_player() -> None:
    game = ChanceTree(max_(chance((1, 5)), min_(2)))
    assert game.to_move((0, 0)) == MIN  # MAX decided, then nature: MIN would be next
    assert game.to_move((1, 0)) == MAX
    assert ChanceTree(7).to_move(()) == MAX


@pytest.mark.parametrize(
    ("tree", "error", "words"),
    [
        (max_(chance((-0.5, 1), (1.5, 2))), ValueError, "probability -0.5"),
        (chance((0.5, 1), (0.4, 2)), ValueError, "sum to 0.9"),
        (chance((float("nan"), 1), (1, 2)), ValueError, "probabilities must be numbers"),
        (chance((True, 1)), ValueError, "probabilities must be numbers"),
        (chance(("1", 1)), ValueError, "probabilities must be numbers"),
        (chance(), ValueError, "has no children"),
        (max_(), ValueError, "has no children"),
        (max_(1, min_()), ValueError, "path (1,)"),
        (max_([1, 2], 3), TypeError, "write max_(...), min_(...)"),
        ([1, 2], TypeError, "plain list"),
        (max_(1, "2"), TypeError, "node at path (1,) is '2'"),
        (max_(True), TypeError, "expected a number"),
    ],
)
def test_invalid_trees_are_rejected_with_the_path_and_the_reason(tree, error, words) -> None:
    with pytest.raises(error) as raised:
        ChanceTree(tree)
    assert words in str(raised.value)


def test_chance_needs_probability_child_pairs() -> None:
    with pytest.raises(TypeError, match=r"\(probability, child\) pairs"):
        chance(0.5, 3)
    with pytest.raises(TypeError, match=r"\(probability, child\) pairs"):
        chance((max_(1), 1.0))


def test_probabilities_may_miss_one_by_rounding_but_not_more() -> None:
    assert sum([0.1] * 10) != 1  # floats round: 0.9999999999999999
    ChanceTree(chance(*[(0.1, index) for index in range(10)]))
    ChanceTree(chance((Fraction(1, 3), 1), (Fraction(2, 3), 2)))
    with pytest.raises(ValueError, match="sum to"):
        ChanceTree(chance((0.5, 1), (0.5 + 1e-6, 2)))


def test_zero_probability_outcomes_are_allowed_and_listed() -> None:
    game = ChanceTree(chance((0, 100), (1, 3)))
    assert game.chance_outcomes(()) == [(0, 0), (1, 1)]
    assert expectiminimax_value(game, ()) == 3


@pytest.mark.parametrize(
    ("state", "action"), [((), 2), ((), -1), ((), True), ((), "0"), ((), 0.0), ((0, 1, 1), 0)]
)
def test_illegal_actions_raise_and_list_the_legal_ones(state, action) -> None:
    game = ChanceTree(TWO_GAMBLES)
    with pytest.raises(IllegalActionError) as raised:
        game.result(state, action)
    assert raised.value.legal == game.actions(state)


def test_utility_and_chance_outcomes_are_only_defined_where_they_apply() -> None:
    game = ChanceTree(TWO_GAMBLES)
    with pytest.raises(ValueError, match="not terminal"):
        game.utility((0,))
    with pytest.raises(ValueError, match="not a chance node"):
        game.chance_outcomes(())
    with pytest.raises(ValueError, match="not a chance node"):
        game.chance_outcomes((1, 0))


# --- expectiminimax on hand-computed trees ---------------------------------------------


def test_expectiminimax_weighs_outcomes_by_probability() -> None:
    game = ChanceTree(TWO_GAMBLES)
    assert expectiminimax_value(game, ()) == 2
    assert expectiminimax_decision(game, ()) == 0
    assert expectiminimax_value(game, (1,)) == 1


def test_an_order_preserving_change_of_the_leaves_can_change_the_decision() -> None:
    # Left 0.8 * 2 + 0.2 * 4 = 2.4, right 0.8 * 1 + 0.2 * 5 = 1.8: MAX goes left. Map the leaves
    # 1, 2, 4, 5 to 1, 20, 40, 500 (same order): left 16 + 8 = 24, right 0.8 + 100 = 100.8.
    plain = ChanceTree(max_(chance((0.8, 2), (0.2, 4)), chance((0.8, 1), (0.2, 5))))
    stretched = ChanceTree(max_(chance((0.8, 20), (0.2, 40)), chance((0.8, 1), (0.2, 500))))
    assert expectiminimax_value(plain, ()) == pytest.approx(2.4)
    assert expectiminimax_decision(plain, ()) == 0
    assert expectiminimax_value(stretched, ()) == pytest.approx(100.8)
    assert expectiminimax_decision(stretched, ()) == 1


def test_a_chance_root_with_exact_fractions_gives_an_exact_value() -> None:
    # 1/3 * max(1, 4) + 2/3 * min(6, -3) = 4/3 - 2 = -2/3
    game = ChanceTree(chance((Fraction(1, 3), max_(1, 4)), (Fraction(2, 3), min_(6, -3))))
    assert expectiminimax_value(game, ()) == Fraction(-2, 3)
    with pytest.raises(ValueError, match="CHANCE node"):
        expectiminimax_decision(game, ())


def test_min_root_with_nested_chance_and_leaves_at_several_depths() -> None:
    # Child 0: 0.5 * (0.5 * 4 + 0.5 * 8) + 0.5 * 0 = 3. Child 1: a leaf worth 0.
    # Child 2: 0.5 * max(-6, -2) + 0.5 * 9 = -1 + 4.5 = 3.5. MIN takes 0, from child 1.
    game = ChanceTree(
        min_(
            chance((0.5, chance((0.5, 4), (0.5, 8))), (0.5, 0)),
            0,
            chance((0.5, max_(-6, -2)), (0.5, 9)),
        )
    )
    assert [expectiminimax_value(game, (action,)) for action in range(3)] == [3, 0, 3.5]
    assert expectiminimax_value(game, ()) == 0
    assert expectiminimax_decision(game, ()) == 1


def test_expectiminimax_decision_on_a_terminal_state_raises() -> None:
    with pytest.raises(ValueError, match="terminal"):
        expectiminimax_decision(ChanceTree(5), ())


def test_expectiminimax_examines_every_node_once() -> None:
    game = CountingGame(ChanceTree(TWO_GAMBLES))
    expectiminimax_value(game, ())
    assert (
        game.states_generated == 12
    )  # 13 nodes: 1 + 2 chance + 3 MIN + 7 leaves; root not counted
    assert game.leaf_evaluations == len(game.leaves()) == 7


# --- chance nodes with a single sure outcome change nothing -------------------------------

plain_trees = st.recursive(
    st.integers(-20, 20),
    lambda children: st.lists(children, min_size=1, max_size=3),
    max_leaves=25,
)


@st.composite
def trees_with_sure_chance_nodes(draw) -> tuple[list, str, object]:
    """A nested-list tree, its root player, and the same tree with sure chance nodes inserted."""
    tree = draw(plain_trees)
    root_player = draw(st.sampled_from([MAX, MIN]))

    def convert(node, player: str):
        if isinstance(node, int):
            converted = node
        else:
            build = max_ if player == MAX else min_
            other = MIN if player == MAX else MAX
            converted = build(*(convert(child, other) for child in node))
        for _ in range(draw(st.integers(0, 2))):
            converted = chance((draw(st.sampled_from([1, 1.0, Fraction(1)])), converted))
        return converted

    return tree, root_player, convert(tree, root_player)


@settings(max_examples=150, deadline=None)
@given(trees_with_sure_chance_nodes())
def test_sure_chance_nodes_give_the_minimax_value(case) -> None:
    tree, root_player, with_chance = case
    expected = minimax_value(GameTree(tree, root_player), ())
    assert expectiminimax_value(ChanceTree(with_chance), ()) == expected


@settings(max_examples=100, deadline=None)
@given(trees_with_sure_chance_nodes())
def test_the_decision_leads_to_a_child_worth_the_root_value(case) -> None:
    _, _, with_chance = case
    game = ChanceTree(with_chance)
    state = ()
    while not game.is_terminal(state) and game.to_move(state) == CHANCE:
        state = game.result(state, 0)
    if game.is_terminal(state):
        return
    action = expectiminimax_decision(game, state)
    child_value = expectiminimax_value(game, game.result(state, action))
    assert child_value == expectiminimax_value(game, state)


# --- Pig -------------------------------------------------------------------------------


def test_pig_rolls_a_one_and_loses_the_turn_total() -> None:
    game = Pig(goal=20)
    state = PigState((2, 1), 4, MAX, 3, True)
    assert game.to_move(state) == CHANCE
    assert game.result(state, 1) == PigState((2, 1), 0, MIN, 2, False)
    assert game.result(state, 3) == PigState((2, 1), 7, MAX, 3, False)


def test_pig_adds_a_face_to_the_turn_total_and_holding_banks_it() -> None:
    game = Pig(goal=10)
    state = game.result(game.initial_state(), "roll")
    state = game.result(state, 3)
    assert state == PigState((0, 0), 3, MAX, 3, False)
    assert game.actions(state) == ["roll", "hold"]
    assert game.result(state, "hold") == PigState((3, 0), 0, MIN, 2, False)


def test_pig_is_won_as_soon_as_the_goal_is_reached_without_holding() -> None:
    game = Pig(goal=6)
    state = PigState((3, 5), 0, MAX, 3, True)
    won = game.result(state, 4)  # 3 + 4 >= 6
    assert game.is_terminal(won) and game.utility(won) == 1
    lost = game.result(PigState((3, 5), 0, MIN, 3, True), 2)  # 5 + 2 >= 6
    assert game.is_terminal(lost) and game.utility(lost) == -1


def test_pig_stops_after_the_last_turn_and_compares_banked_scores() -> None:
    game = Pig(goal=10, turns=1)
    draw = game.result(PigState((2, 2), 3, MAX, 1, True), 1)
    assert game.is_terminal(draw) and game.utility(draw) == 0
    ahead = game.result(PigState((2, 2), 3, MAX, 1, False), "hold")
    assert game.is_terminal(ahead) and game.utility(ahead) == 1
    assert game.actions(ahead) == []


@pytest.mark.parametrize(
    ("state", "action"),
    [
        (PigState((0, 0), 0, MAX, 3, False), "hold"),  # hold needs a positive turn total
        (PigState((0, 0), 2, MAX, 3, False), 2),  # a face where a decision is due
        (PigState((0, 0), 2, MAX, 3, True), "roll"),  # the die is already rolling
        (PigState((0, 0), 2, MAX, 3, True), 7),
        (PigState((0, 0), 2, MAX, 3, True), 1.0),
        (PigState((0, 0), 2, MAX, 3, True), True),
        (PigState((6, 0), 0, MIN, 2, False), "roll"),  # MAX already won
    ],
)
def test_pig_rejects_illegal_actions(state, action) -> None:
    with pytest.raises(IllegalActionError):
        Pig().result(state, action)


def test_pig_utility_and_outcomes_are_only_defined_where_they_apply() -> None:
    game = Pig()
    with pytest.raises(ValueError, match="not terminal"):
        game.utility(game.initial_state())
    with pytest.raises(ValueError, match="not a chance node"):
        game.chance_outcomes(game.initial_state())


@pytest.mark.parametrize(
    "game", [Pig(), Pig(goal=5, sides=4, turns=4, first=MIN), Pig(goal=3, sides=2, turns=5)]
)
def test_pig_chance_outcomes_sum_to_one_in_every_reachable_state(game: Pig) -> None:
    seen = {game.initial_state()}
    frontier = [game.initial_state()]
    chance_states = 0
    while frontier:
        state = frontier.pop()
        if game.to_move(state) == CHANCE and not game.is_terminal(state):
            chance_states += 1
            outcomes = game.chance_outcomes(state)
            assert [face for face, _ in outcomes] == game.actions(state)
            assert sum(probability for _, probability in outcomes) == 1
            assert all(probability > 0 for _, probability in outcomes)
        for action in game.actions(state):
            child = game.result(state, action)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    assert chance_states > 10


def test_pig_with_a_coin_and_one_turn_is_worth_one_half() -> None:
    # goal 4, faces 1 and 2, MAX's turn only. Roll 1 (1/2): turn over, 0-0, a draw (0).
    # Roll 2 (1/2): hold banks 2-0 and wins (+1); rolling again is worth 1/2 * 0 + 1/2 * 1.
    # So MAX holds, and the value is 1/2 * 0 + 1/2 * 1 = 1/2.
    game = Pig(goal=4, sides=2, turns=1)
    assert expectiminimax_value(game, game.initial_state()) == Fraction(1, 2)
    assert expectiminimax_decision(game, PigState((0, 0), 2, MAX, 1, False)) == "hold"


def test_pig_with_a_coin_and_two_turns_is_even() -> None:
    # goal 4, faces 1 and 2; MAX's turn, then MIN's last turn.
    # MIN against 0: rolls 1 -> 0 (draw); rolls 2 -> min(hold: -1, roll: 1/2*0 + 1/2*-1) = -1;
    #   worth 1/2 * 0 + 1/2 * -1 = -1/2.
    # MIN against 2: rolls 1 -> +1; rolls 2 -> min(hold: 2-2 = 0, roll: 1/2*1 + 1/2*-1 = 0) = 0;
    #   worth 1/2 * 1 + 1/2 * 0 = 1/2.
    # MAX with turn total 2: hold -> MIN against 2 = 1/2; roll -> 1/2 * -1/2 + 1/2 * 1 = 1/4.
    # Root: 1/2 * (MIN against 0) + 1/2 * max(1/2, 1/4) = -1/4 + 1/4 = 0.
    game = Pig(goal=4, sides=2, turns=2)
    assert expectiminimax_value(game, game.initial_state()) == 0
    assert expectiminimax_value(game, PigState((2, 0), 0, MIN, 1, False)) == Fraction(1, 2)
    assert expectiminimax_decision(game, PigState((0, 0), 2, MAX, 2, False)) == "hold"


def _pig_by_direct_recursion(goal: int, sides: int, turns: int) -> Fraction:
    """Expectiminimax for Pig written straight from the rules, without the Game class."""

    def decide(scores: tuple[int, int], total: int, mover: int, turns_left: int) -> Fraction:
        if turns_left == 0 or max(scores) >= goal:
            return Fraction((scores[0] > scores[1]) - (scores[0] < scores[1]))
        options = [roll(scores, total, mover, turns_left)]
        if total > 0:
            banked = tuple(s + total if p == mover else s for p, s in enumerate(scores))
            options.append(decide(banked, 0, 1 - mover, turns_left - 1))
        return max(options) if mover == 0 else min(options)

    def roll(scores: tuple[int, int], total: int, mover: int, turns_left: int) -> Fraction:
        value = decide(scores, 0, 1 - mover, turns_left - 1)  # a 1
        for face in range(2, sides + 1):
            if scores[mover] + total + face >= goal:
                value += 1 if mover == 0 else -1
            else:
                value += decide(scores, total + face, mover, turns_left)
        return value / sides

    return decide((0, 0), 0, 0, turns)


@pytest.mark.parametrize(("goal", "sides", "turns"), [(6, 6, 3), (5, 3, 4), (7, 4, 3), (4, 6, 4)])
def test_pig_value_matches_a_direct_recursion_over_the_rules(goal, sides, turns) -> None:
    game = Pig(goal, sides, turns)
    expected = _pig_by_direct_recursion(goal, sides, turns)
    assert expectiminimax_value(game, game.initial_state()) == expected


def test_pig_default_value_and_symmetry_between_players() -> None:
    assert expectiminimax_value(Pig(), Pig().initial_state()) == Fraction(1979, 3456)
    min_first = Pig(first=MIN)
    assert expectiminimax_value(min_first, min_first.initial_state()) == Fraction(-1979, 3456)
    assert math.isclose(float(Fraction(1979, 3456)), 0.5726, abs_tol=1e-4)


@pytest.mark.parametrize(
    "arguments", [{"goal": 0}, {"sides": 1}, {"turns": 0}, {"goal": 2.5}, {"first": CHANCE}]
)
def test_pig_rejects_bad_parameters(arguments) -> None:
    with pytest.raises(ValueError):
        Pig(**arguments)
