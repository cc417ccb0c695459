"""Multiplayer trees, three-player take-away and max-n, checked against hand-computed values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.multiplayer import MultiplayerGame, MultiplayerTree, TakeAway
from games.protocol import MAX, MIN, Game, IllegalActionError
from games.tree import GameTree
from solutions.minimax import minimax_value
from solutions.multiplayer import maxn_decision, maxn_value

# Players 0, 1, 2 move at depths 0, 1, 2.
# (0, 0): player 2 compares its components 4 and 9 -> (1, 5, 9).
# (0, 1): player 2 compares 5 and 8 -> (3, 5, 8).
# (0):    player 1 compares 5 and 5, a tie -> the first child, (1, 5, 9).
# (1, 0): player 2 compares 1 and 8 -> (8, 2, 8).
# (1):    player 1 compares 2 and 3 (the leaf at depth 2) -> (2, 3, 3).
# ():     player 0 compares 1 and 2 -> (2, 3, 3), action 1.
# Had player 1 broken its tie at (0) by the last child, (3, 5, 8) would win the root instead.
HAND_TREE = [
    [[(3, 1, 4), (1, 5, 9)], [(2, 6, 5), (3, 5, 8)]],
    [[(2, 7, 1), (8, 2, 8)], (2, 3, 3)],
]


class ParanoidView(Game):
    """Two-player view of a multiplayer game: player 0 is MAX, every other player MIN."""

    def __init__(self, game: MultiplayerGame) -> None:
        self.game = game

    def initial_state(self):
        return self.game.initial_state()

    def to_move(self, state) -> str:
        return MAX if self.game.to_move(state) == 0 else MIN

    def actions(self, state) -> list:
        return self.game.actions(state)

    def result(self, state, action):
        return self.game.result(state, action)

    def is_terminal(self, state) -> bool:
        return self.game.is_terminal(state)

    def utility(self, state) -> float:
        return self.game.utilities(state)[0]


# --- the tree notation -------------------------------------------------------------------


def test_multiplayer_tree_takes_turns_level_by_level() -> None:
    game = MultiplayerTree(HAND_TREE)
    assert [game.to_move(state) for state in [(), (0,), (0, 1), (0, 1, 0)]] == [0, 1, 2, 0]
    assert game.actions(()) == [0, 1]
    assert game.result((1,), 1) == (1, 1)
    assert game.is_terminal((1, 1)) and game.utilities((1, 1)) == (2, 3, 3)
    assert game.utility((1, 1)) == 2  # player 0's component
    assert game.leaves()[-2:] == [(1, 0, 1), (1, 1)]


def test_players_and_root_player_are_configurable() -> None:
    game = MultiplayerTree([[(1, 2, 3, 4)], (0, 0, 0, 0)], players=4, root_player=3)
    assert [game.to_move(state) for state in [(), (0,), (0, 0)]] == [3, 0, 1]
    assert repr(game) == "MultiplayerTree([[(1, 2, 3, 4)], (0, 0, 0, 0)], players=4, root_player=3)"


def test_repr_reads_like_the_constructor_call() -> None:
    assert repr(MultiplayerTree([[(1, 0, 0)], (0, 1, 0)])) == (
        "MultiplayerTree([[(1, 0, 0)], (0, 1, 0)])"
    )


@pytest.mark.parametrize(
    ("tree", "arguments", "error", "words"),
    [
        ([(1, 0, 0), (1, 0)], {}, ValueError, "one utility per player (3)"),
        ([[1, 0, 0], (0, 1, 0)], {}, TypeError, "write a leaf as a tuple, (1, 0, 0)"),
        ([((1, 0, 0), (0, 1, 0))], {}, TypeError, "inner node, a list of nodes"),
        ([(1, 0, 0), []], {}, ValueError, "path (1,) is an empty list"),
        ([(1, 0, "x")], {}, TypeError, "path (0,)"),
        ([(True, False, False)], {}, TypeError, "expected a leaf"),
        (5, {}, TypeError, "expected a leaf"),
        ([(1, 0)], {"players": 1}, ValueError, "players must be an int >= 2"),
        ([(1, 0, 0)], {"root_player": 3}, ValueError, "root_player must be in range(3)"),
    ],
)
def test_invalid_trees_are_rejected_with_the_path_and_the_reason(
    tree, arguments, error, words
) -> None:
    with pytest.raises(error) as raised:
        MultiplayerTree(tree, **arguments)
    assert words in str(raised.value)


@pytest.mark.parametrize(("state", "action"), [((), 2), ((), -1), ((), True), ((1, 1), 0)])
def test_illegal_actions_raise_and_list_the_legal_ones(state, action) -> None:
    game = MultiplayerTree(HAND_TREE)
    with pytest.raises(IllegalActionError) as raised:
        game.result(state, action)
    assert raised.value.legal == game.actions(state)


def test_utilities_of_a_non_terminal_state_raise() -> None:
    game = MultiplayerTree(HAND_TREE)
    with pytest.raises(ValueError, match="not terminal"):
        game.utilities((0,))
    with pytest.raises(ValueError, match="not terminal"):
        game.utility(())


# --- max-n on the hand tree ------------------------------------------------------------


def test_maxn_backs_up_each_players_own_component() -> None:
    game = MultiplayerTree(HAND_TREE)
    assert maxn_value(game, (0, 0)) == (1, 5, 9)
    assert maxn_value(game, (0, 1)) == (3, 5, 8)
    assert maxn_value(game, (1,)) == (2, 3, 3)
    assert maxn_value(game, ()) == (2, 3, 3)
    assert maxn_decision(game, ()) == 1


def test_maxn_breaks_ties_by_the_first_child_in_action_order() -> None:
    game = MultiplayerTree(HAND_TREE)
    assert maxn_value(game, (0,)) == (1, 5, 9)  # not (3, 5, 8), equally good for player 1
    assert maxn_decision(game, (0,)) == 0
    tied = MultiplayerTree([(5, 0, 1), (5, 1, 0), (4, 9, 9)])
    assert maxn_value(tied, ()) == (5, 0, 1)
    assert maxn_decision(tied, ()) == 0


def test_maxn_decision_on_a_terminal_state_raises() -> None:
    with pytest.raises(ValueError, match="terminal"):
        maxn_decision(MultiplayerTree([(1, 0, 0)]), (0,))


# --- three-player take-away ----------------------------------------------------------------


def test_take_away_rules() -> None:
    game = TakeAway(heap=4, max_take=3)
    assert game.initial_state() == (4, 0)
    assert game.actions((4, 0)) == [1, 2, 3]
    assert game.actions((2, 1)) == [1, 2]
    assert game.result((4, 2), 3) == (1, 0)
    assert game.to_move((1, 0)) == 0
    last = game.result((1, 0), 1)
    assert game.is_terminal(last) and game.utilities(last) == (1, 0, 0)
    assert game.utilities((0, 0)) == (0, 0, 1)  # player 2 moved last
    assert game.utility((0, 1)) == 1


@pytest.mark.parametrize("action", [0, 3, True, 1.0, "1"])
def test_take_away_rejects_illegal_actions(action) -> None:
    with pytest.raises(IllegalActionError):
        TakeAway(heap=5, max_take=2).result((5, 0), action)


@pytest.mark.parametrize("arguments", [{"heap": 0}, {"max_take": 0}, {"players": 1}])
def test_take_away_rejects_bad_parameters(arguments) -> None:
    with pytest.raises(ValueError):
        TakeAway(**arguments)


def test_take_away_utilities_of_a_non_terminal_state_raise() -> None:
    with pytest.raises(ValueError, match="not terminal"):
        TakeAway().utilities((3, 1))


def test_maxn_and_the_paranoid_view_disagree_on_take_away() -> None:
    # Heap 5, take 1 or 2; who wins, counted from the player to move (0 = mover):
    # 1 or 2 left: the mover takes all and wins (0).
    # 3 left: taking 1 or 2 leaves 2 or 1 to the next player, who wins (1); a tie for the
    #   mover, broken by the first action (take 1): the next player wins (1).
    # 4 left: take 1 -> 3 left, next player's "next" wins (2); take 2 -> next player wins (1).
    #   Again the mover cannot win; the first action (take 1) makes player +2 win (2).
    # 5 left: take 1 -> 4 left, the winner is player +1 +2 = +3 = the mover itself. Player 0
    #   takes 1 and wins: max-n value (1, 0, 0).
    # Paranoid: players 1 and 2 gang up on player 0. After 0 takes 1, player 1 takes 2 and
    #   player 2 takes the last 2; after 0 takes 2, player 1 takes 1 and player 2 the last 2.
    #   Player 0 cannot force a win: paranoid value 0.
    game = TakeAway(heap=5, max_take=2)
    assert maxn_value(game, game.initial_state()) == (1, 0, 0)
    assert maxn_decision(game, game.initial_state()) == 1
    assert minimax_value(ParanoidView(game), game.initial_state()) == 0


def test_take_away_default_value() -> None:
    # W(n): who wins from a heap of n, counted from the player to move. Taking t leaves n - t
    # to the next player, which makes player 1 + W(n - t) (mod 3) win; the mover takes the
    # first t that makes this 0 (itself), and if there is none, the first t (the tie-break).
    # W(1) = W(2) = 0; W(3) = 1 (1+W(2) = 1+W(1) = 1); W(4) = 2 (1+W(3) = 2, 1+W(2) = 1);
    # W(5) = 0 (1+W(4) = 3 = 0); W(6) = 0 (1+W(5) = 1, 1+W(4) = 0);
    # W(7) = 1 (1+W(6) = 1, 1+W(5) = 1): from the default heap of 7, player 1 wins.
    game = TakeAway()
    assert maxn_value(game, game.initial_state()) == (0, 1, 0)
    assert maxn_decision(game, (6, 0)) == 2


# --- properties ------------------------------------------------------------------------

plain_trees = st.recursive(
    st.integers(-20, 20),
    lambda children: st.lists(children, min_size=1, max_size=3),
    max_leaves=25,
)


def _zero_sum(node):
    return (node, -node) if isinstance(node, int) else [_zero_sum(child) for child in node]


@settings(max_examples=150, deadline=None)
@given(plain_trees, st.sampled_from([0, 1]))
def test_two_player_zero_sum_maxn_is_minimax(tree, root_player: int) -> None:
    if isinstance(tree, int):
        tree = [tree]
    game = MultiplayerTree(_zero_sum(tree), players=2, root_player=root_player)
    expected = minimax_value(GameTree(tree, MAX if root_player == 0 else MIN), ())
    assert maxn_value(game, ()) == (expected, -expected)


vectors = st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5))
three_player_trees = st.recursive(
    vectors, lambda children: st.lists(children, min_size=1, max_size=3), max_leaves=25
)


@settings(max_examples=150, deadline=None)
@given(three_player_trees.filter(lambda tree: isinstance(tree, list)))
def test_maxn_value_is_a_leaf_the_mover_cannot_improve_on(tree) -> None:
    game = MultiplayerTree(tree)
    value = maxn_value(game, ())
    assert value in [game.utilities(leaf) for leaf in game.leaves()]
    children = [maxn_value(game, game.result((), action)) for action in game.actions(())]
    assert value[0] == max(child[0] for child in children)
    assert value == children[maxn_decision(game, ())]
