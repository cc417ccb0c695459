"""Tree drawings: layout, pruned and compared nodes, values, and the SVG / data-URI output."""

from __future__ import annotations

import ast
import base64
import os
import subprocess
import sys

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from games import MIN, GameTree, RecordingGame, TicTacToe, random_tree  # noqa: E402
from games.drawing import (  # noqa: E402
    backed_up_values,
    draw_tree,
    figure_to_data_uri,
    figure_to_svg,
)
from solutions.alphabeta import alphabeta_value  # noqa: E402

CLASSIC = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
UNEVEN = [1, [2, [3, 4]], [[5, 6], 7]]


def artists(fig, kind: str) -> dict:
    """Return {path: artist} for the node markers ("node"), edges ("edge") or values ("value")."""
    ax = fig.axes[0]
    found = {}
    for artist in [*ax.lines, *ax.texts]:
        gid = artist.get_gid() or ""
        if gid.startswith(kind + " "):
            found[ast.literal_eval(gid[len(kind) + 1 :])] = artist
    return found


def alphabeta_visited(tree: GameTree) -> set:
    recorder = RecordingGame(tree)
    alphabeta_value(recorder, recorder.initial_state())
    return set(recorder.generated)


def legend_labels(fig) -> list[str]:
    return [text.get_text() for text in fig.axes[0].get_legend().get_texts()]


def test_backed_up_values_of_the_classic_tree() -> None:
    values = backed_up_values(GameTree(CLASSIC))
    assert values[()] == 3
    assert [values[(index,)] for index in range(3)] == [3, 2, 2]
    assert values[(2, 0)] == 14
    assert len(values) == 13


def test_backed_up_values_with_a_min_root_and_uneven_leaves() -> None:
    values = backed_up_values(GameTree(UNEVEN, root_player=MIN))
    # MIN root over a leaf 1, MAX(2, MIN(3, 4)) = 3, MAX(MIN(5, 6), 7) = 7.
    assert values[()] == 1
    assert values[(1,)] == 3 and values[(1, 1)] == 3
    assert values[(2,)] == 7 and values[(2, 0)] == 5


def test_every_node_gets_one_marker_and_every_leaf_its_utility() -> None:
    tree = GameTree(CLASSIC)
    fig = draw_tree(tree)
    nodes = artists(fig, "node")
    assert len(nodes) == 13
    assert len(artists(fig, "edge")) == 12
    labels = artists(fig, "value")
    assert sorted(labels) == sorted(tree.leaves())
    assert [labels[path].get_text() for path in tree.leaves()] == [
        str(value) for row in CLASSIC for value in row
    ]
    assert nodes[()].get_marker() == "^"
    assert {nodes[(index,)].get_marker() for index in range(3)} == {"v"}
    assert {nodes[path].get_marker() for path in tree.leaves()} == {"s"}


def test_values_are_written_in_the_inner_nodes() -> None:
    tree = GameTree(CLASSIC)
    labels = artists(draw_tree(tree, values=backed_up_values(tree)), "value")
    assert len(labels) == 13
    assert [labels[path].get_text() for path in [(), (0,), (1,), (2,)]] == ["3", "3", "2", "2"]


def test_nodes_alphabeta_never_generated_are_drawn_pruned() -> None:
    tree = GameTree(CLASSIC)
    visited = alphabeta_visited(tree)
    assert {(1, 1), (1, 2)}.isdisjoint(visited)
    fig = draw_tree(tree, visited=visited, values=backed_up_values(tree))
    edges, nodes = artists(fig, "edge"), artists(fig, "node")
    dashed = {path for path, line in edges.items() if line.get_linestyle() == "--"}
    assert dashed == {(1, 1), (1, 2)}
    hollow = {path for path, marker in nodes.items() if marker.get_markerfacecolor() == "white"}
    assert hollow == {(1, 1), (1, 2)}
    assert "pruned (never generated)" in legend_labels(fig)


def test_without_visited_nothing_is_pruned() -> None:
    fig = draw_tree(GameTree(CLASSIC))
    assert all(line.get_linestyle() == "-" for line in artists(fig, "edge").values())
    assert not any("pruned" in label for label in legend_labels(fig))


def test_dashed_edges_match_unvisited_nodes_on_a_random_uneven_tree() -> None:
    tree = random_tree((1, 4), 4, seed=3, leaf_probability=0.25, root_player=MIN)
    visited = alphabeta_visited(tree)
    fig = draw_tree(tree, visited=visited)
    edges = artists(fig, "edge")
    unvisited = set(backed_up_values(tree)) - visited - {()}
    assert unvisited, "the instance should prune something"
    assert {path for path, line in edges.items() if line.get_linestyle() == "--"} == unvisited


def test_uneven_tree_layout_spaces_leaves_evenly_and_centres_parents() -> None:
    tree = GameTree(UNEVEN)
    nodes = artists(draw_tree(tree), "node")

    def position(path):
        return nodes[path].get_xdata()[0], nodes[path].get_ydata()[0]

    assert [position(path)[0] for path in tree.leaves()] == list(range(7))
    assert all(position(path)[1] == -len(path) for path in nodes)
    for path in nodes:
        children = [child for child in nodes if child[:-1] == path and len(child) == len(path) + 1]
        if children:
            xs = sorted(position(child)[0] for child in children)
            assert position(path)[0] == (xs[0] + xs[-1]) / 2


def test_a_min_root_is_a_downward_triangle() -> None:
    nodes = artists(draw_tree(GameTree(UNEVEN, root_player=MIN)), "node")
    assert nodes[()].get_marker() == "v"
    assert nodes[(1,)].get_marker() == "^"
    assert nodes[(1, 1)].get_marker() == "v"


def test_compare_visited_colours_the_differences() -> None:
    tree = GameTree(CLASSIC)
    reference = alphabeta_visited(tree)
    yours = (reference - {(2, 2)}) | {(1, 1)}
    fig = draw_tree(tree, visited=yours, compare_visited=reference)
    nodes, edges = artists(fig, "node"), artists(fig, "edge")
    fills = {path: marker.get_markerfacecolor() for path, marker in nodes.items()}
    assert fills[(1, 1)] != fills[(2, 2)]
    ordinary = {fills[path] for path in reference & yours}
    assert len(ordinary) == 1
    assert fills[(1, 1)] not in ordinary | {"white"}
    assert fills[(2, 2)] not in ordinary | {"white"}
    assert fills[(1, 2)] == "white"  # generated by neither search
    assert edges[(2, 2)].get_linestyle() == "--"  # you did not generate it
    assert edges[(1, 1)].get_linestyle() == "-"
    labels = legend_labels(fig)
    assert "only yours" in labels and "only the reference" in labels


def test_identical_searches_show_no_differences() -> None:
    tree = GameTree(CLASSIC)
    visited = alphabeta_visited(tree)
    labels = legend_labels(draw_tree(tree, visited=visited, compare_visited=visited))
    assert "only yours" not in labels and "only the reference" not in labels


def test_a_recording_game_is_drawn_without_recording_more_states() -> None:
    recorder = RecordingGame(GameTree(CLASSIC))
    alphabeta_value(recorder, recorder.initial_state())
    generated = list(recorder.generated)
    fig = draw_tree(recorder, visited=set(generated), values=backed_up_values(recorder))
    assert recorder.generated == generated
    assert len(artists(fig, "node")) == 13


def test_drawing_into_given_axes_returns_their_figure() -> None:
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    assert draw_tree(GameTree(CLASSIC), ax=ax, title="classic") is fig
    assert ax.get_title() == "classic"


def test_only_explicit_trees_can_be_drawn() -> None:
    with pytest.raises(TypeError, match="GameTree"):
        draw_tree(TicTacToe())


def test_png_data_uri_holds_a_png() -> None:
    uri = figure_to_data_uri(draw_tree(GameTree(CLASSIC)))
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    assert base64.b64decode(uri[len(prefix) :]).startswith(b"\x89PNG\r\n\x1a\n")


def test_svg_output_and_svg_data_uri() -> None:
    svg = figure_to_svg(draw_tree(GameTree(CLASSIC), title="classic"))
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "classic" in svg
    uri = figure_to_data_uri(draw_tree(GameTree(CLASSIC)), format="svg")
    assert uri.startswith("data:image/svg+xml;base64,")
    with pytest.raises(ValueError, match="format"):
        figure_to_data_uri(draw_tree(GameTree(CLASSIC)), format="gif")


def test_a_notebook_shows_the_figure_as_a_png() -> None:
    assert draw_tree(GameTree(CLASSIC))._repr_png_().startswith(b"\x89PNG")


def test_forty_leaves_do_not_overlap() -> None:
    tree = GameTree([[list(range(5))] * 2] * 4)
    fig = draw_tree(tree)
    fig.canvas.draw()
    nodes = artists(fig, "node")
    xs = [nodes[path].get_xdata()[0] for path in tree.leaves()]
    assert len(xs) == 40
    to_pixels = fig.axes[0].transData.transform
    gap = to_pixels((xs[1], 0))[0] - to_pixels((xs[0], 0))[0]
    square = nodes[tree.leaves()[0]].get_markersize() * fig.dpi / 72
    assert gap > 1.2 * square


def test_importing_the_drawing_module_does_not_import_matplotlib() -> None:
    code = "import sys, games.drawing; print('matplotlib' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr
