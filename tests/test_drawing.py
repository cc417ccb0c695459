"""Tree drawings: layout, pruned and compared nodes, values, and the SVG / data-URI output.

`draw_tree` is checked through the gids of its matplotlib artists, `tree_svg` through the classes
and `data-path`s of its SVG elements, and the two are checked to draw the same picture.
"""

from __future__ import annotations

import ast
import base64
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from games import MIN, GameTree, RecordingGame, TicTacToe, random_tree  # noqa: E402
from games.drawing import (  # noqa: E402
    MARKERS,
    ONLY_REFERENCE,
    ONLY_YOURS,
    PRUNED,
    STYLE_NAMES,
    VISITED,
    _style,
    draw_tree,
    figure_to_data_uri,
    figure_to_svg,
    tree_svg,
)
from solutions.alphabeta import alphabeta_value  # noqa: E402
from solutions.trees import backed_up_values  # noqa: E402

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


# -- tree_svg: the same picture as SVG text, without matplotlib ---------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def svg_elements(svg: str, kind: str) -> dict:
    """Return {path: element} for the nodes ("node") or edges ("edge") of a tree_svg drawing."""
    found = {}
    for element in ET.fromstring(svg).iter():
        if element.get("class", "").split()[:1] == [kind]:
            path = ast.literal_eval(element.get("data-path"))
            assert path not in found, f"two {kind}s for {path}"
            found[path] = element
    return found


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


def svg_value(node: ET.Element) -> str | None:
    text = node.find(f"{SVG}text[@class='value']")
    return None if text is None else text.text


def svg_marker(node: ET.Element) -> ET.Element:
    return node.find(f"{SVG}polygon")


def svg_centre(node: ET.Element) -> tuple[float, float]:
    """The centre of the node's marker's bounding box, where draw_tree puts the node."""
    corners = [
        tuple(map(float, corner.split(","))) for corner in svg_marker(node).get("points").split()
    ]
    xs, ys = zip(*corners, strict=True)
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def svg_legend_labels(svg: str) -> list[str]:
    (legend,) = [g for g in ET.fromstring(svg).iter(f"{SVG}g") if classes(g) == {"legend"}]
    return [text.text for text in legend.iter(f"{SVG}text")]


def test_tree_svg_is_a_standalone_svg_document_with_a_size() -> None:
    svg = tree_svg(GameTree(CLASSIC))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width >= 4 * 96 and height > 0
    for node in svg_elements(svg, "node").values():  # every node is inside the picture
        for corner in svg_marker(node).get("points").split():
            x, y = map(float, corner.split(","))
            assert 0 <= x <= width and 0 <= y <= height


def test_svg_every_node_is_one_element_of_its_kind_and_every_leaf_shows_its_utility() -> None:
    tree = GameTree(CLASSIC)
    svg = tree_svg(tree)
    nodes = svg_elements(svg, "node")
    assert len(nodes) == 13
    assert len(svg_elements(svg, "edge")) == 12
    assert "max" in classes(nodes[()])
    assert all("min" in classes(nodes[(index,)]) for index in range(3))
    assert all("leaf" in classes(nodes[path]) for path in tree.leaves())
    assert [svg_value(nodes[path]) for path in tree.leaves()] == [
        str(value) for row in CLASSIC for value in row
    ]
    assert all(svg_value(nodes[path]) is None for path in [(), (0,), (1,), (2,)])


def test_svg_values_are_written_in_the_inner_nodes() -> None:
    tree = GameTree(CLASSIC)
    nodes = svg_elements(tree_svg(tree, values=backed_up_values(tree)), "node")
    assert [svg_value(nodes[path]) for path in [(), (0,), (1,), (2,)]] == ["3", "3", "2", "2"]


def test_svg_nodes_alphabeta_never_generated_are_drawn_pruned() -> None:
    tree = GameTree(CLASSIC)
    svg = tree_svg(tree, visited=alphabeta_visited(tree), values=backed_up_values(tree))
    nodes, edges = svg_elements(svg, "node"), svg_elements(svg, "edge")
    assert {path for path, edge in edges.items() if "dashed" in classes(edge)} == {(1, 1), (1, 2)}
    assert all(edges[path].get("stroke-dasharray") for path in [(1, 1), (1, 2)])
    assert edges[(1, 0)].get("stroke-dasharray") is None
    pruned = {path for path, node in nodes.items() if "pruned" in classes(node)}
    assert pruned == {(1, 1), (1, 2)}
    assert {svg_marker(nodes[path]).get("fill") for path in pruned} == {PRUNED[0]}
    assert "pruned (never generated)" in svg_legend_labels(svg)


def test_svg_without_visited_nothing_is_pruned() -> None:
    svg = tree_svg(GameTree(CLASSIC))
    assert all("visited" in classes(node) for node in svg_elements(svg, "node").values())
    assert not any("dashed" in classes(edge) for edge in svg_elements(svg, "edge").values())
    assert not any("pruned" in label for label in svg_legend_labels(svg))


def test_svg_dashed_edges_match_unvisited_nodes_on_a_random_uneven_tree() -> None:
    tree = random_tree((1, 4), 4, seed=3, leaf_probability=0.25, root_player=MIN)
    visited = alphabeta_visited(tree)
    edges = svg_elements(tree_svg(tree, visited=visited), "edge")
    unvisited = set(backed_up_values(tree)) - visited - {()}
    assert unvisited, "the instance should prune something"
    assert {path for path, edge in edges.items() if "dashed" in classes(edge)} == unvisited


def test_svg_styles_are_those_of_the_compared_searches() -> None:
    tree = GameTree(CLASSIC)
    reference = alphabeta_visited(tree)
    yours = (reference - {(2, 2)}) | {(1, 1)}
    svg = tree_svg(tree, visited=yours, compare_visited=reference)
    nodes, edges = svg_elements(svg, "node"), svg_elements(svg, "edge")
    named = {path: classes(node) & set(STYLE_NAMES.values()) for path, node in nodes.items()}
    assert named[(1, 1)] == {"only-yours"}
    assert named[(2, 2)] == {"only-reference"}
    assert named[(1, 2)] == {"pruned"}  # generated by neither search
    assert named[(0, 0)] == {"visited"}
    for path, node in nodes.items():
        style = _style(path, {(), *yours}, {(), *reference})
        assert named[path] == {STYLE_NAMES[style]}
        assert (svg_marker(node).get("fill"), svg_marker(node).get("stroke")) == style[:2]
        if path:
            assert edges[path].get("stroke") == style[2]
    assert "dashed" in classes(edges[(2, 2)])  # you did not generate it
    assert "dashed" not in classes(edges[(1, 1)])
    labels = svg_legend_labels(svg)
    assert "only yours" in labels and "only the reference" in labels


KINDS = ["MAX node", "MIN node", "leaf (utility)"]
PRUNED_LABEL = "pruned (never generated)"
DIFFERENCES = ["only yours", "only the reference"]


@pytest.mark.parametrize(
    ("tree", "visited", "compare", "expected"),
    [
        (GameTree(CLASSIC), None, None, KINDS),
        (GameTree([1, 2]), None, None, ["MAX node", "leaf (utility)"]),
        (GameTree([1, 2], root_player=MIN), {(0,)}, None, [*KINDS[1:], PRUNED_LABEL]),
        (GameTree(CLASSIC), {(0,)}, {(1,)}, [*KINDS, PRUNED_LABEL, *DIFFERENCES]),
        (GameTree(CLASSIC), {(0,), (1,)}, {(0,)}, [*KINDS, PRUNED_LABEL, "only yours"]),
        (GameTree(CLASSIC), {(1,)}, {(0,), (1,)}, [*KINDS, PRUNED_LABEL, "only the reference"]),
        (GameTree(CLASSIC), {(0,)}, {(0,)}, [*KINDS, PRUNED_LABEL]),
    ],
)  # fmt: skip
def test_svg_legend_lists_only_what_the_picture_shows(tree, visited, compare, expected) -> None:
    assert svg_legend_labels(tree_svg(tree, visited=visited, compare_visited=compare)) == expected


def test_svg_title_and_values_are_escaped() -> None:
    class Strange(int):  # a value whose text is markup
        def __str__(self) -> str:
            return "<b>1 & 2</b>"

    title = "alpha < beta & \"cut\" 'here' </svg>"
    svg = tree_svg(GameTree(CLASSIC), values={(): Strange(1)}, title=title)
    root = ET.fromstring(svg)  # still well-formed XML
    (shown,) = [text for text in root.iter(f"{SVG}text") if classes(text) == {"title"}]
    assert shown.text == title
    assert root.find(f"{SVG}title").text == title
    assert svg_value(svg_elements(svg, "node")[()]) == "<b>1 & 2</b>"
    assert "<b>" not in svg and "&lt;b&gt;1 &amp; 2&lt;/b&gt;" in svg


def test_svg_widens_to_fit_a_long_title() -> None:
    narrow = ET.fromstring(tree_svg(GameTree([1, 2])))
    titled = ET.fromstring(tree_svg(GameTree([1, 2]), title="a long title " * 10))
    assert float(titled.get("width")) > 130 * 0.5 * 16 > float(narrow.get("width"))


def test_svg_uneven_tree_layout_spaces_leaves_evenly_and_centres_parents() -> None:
    tree = GameTree(UNEVEN)
    nodes = svg_elements(tree_svg(tree), "node")
    centres = {path: svg_centre(node) for path, node in nodes.items()}
    xs = [centres[path][0] for path in tree.leaves()]
    gaps = {round(right - left, 3) for left, right in zip(xs, xs[1:], strict=False)}
    assert len(gaps) == 1 and gaps.pop() > 0
    levels = {}
    for path, (_, y) in centres.items():
        levels.setdefault(len(path), set()).add(round(y, 3))
    assert all(len(ys) == 1 for ys in levels.values())
    assert sorted(levels, key=lambda depth: levels[depth].pop()) == sorted(levels)  # root on top
    for path in nodes:
        children = [child for child in nodes if child[:-1] == path and len(child) == len(path) + 1]
        if children:
            child_xs = sorted(centres[child][0] for child in children)
            assert centres[path][0] == pytest.approx((child_xs[0] + child_xs[-1]) / 2, abs=0.1)


def test_svg_max_triangles_point_up_and_min_triangles_down() -> None:
    nodes = svg_elements(tree_svg(GameTree(UNEVEN, root_player=MIN)), "node")
    assert "min" in classes(nodes[()]) and "max" in classes(nodes[(1,)])

    def apex_is_up(node: ET.Element) -> bool:
        corners = [tuple(map(float, c.split(","))) for c in svg_marker(node).get("points").split()]
        ys = sorted(y for _, y in corners)
        return ys[0] < ys[1]  # one corner alone at the top (SVG's y grows downwards)

    assert not apex_is_up(nodes[()]) and apex_is_up(nodes[(1,)]) and not apex_is_up(nodes[(1, 1)])


def test_svg_forty_leaves_do_not_overlap() -> None:
    tree = GameTree([[list(range(5))] * 2] * 4)
    nodes = svg_elements(tree_svg(tree), "node")
    xs = [svg_centre(nodes[path])[0] for path in tree.leaves()]
    assert len(xs) == 40
    corners = [float(c.split(",")[0]) for c in svg_marker(nodes[(0, 0, 0)]).get("points").split()]
    assert xs[1] - xs[0] > 1.2 * (max(corners) - min(corners))


def test_svg_a_recording_game_is_drawn_without_recording_more_states() -> None:
    recorder = RecordingGame(GameTree(CLASSIC))
    alphabeta_value(recorder, recorder.initial_state())
    generated = list(recorder.generated)
    svg = tree_svg(recorder, visited=set(generated), values=backed_up_values(recorder))
    assert recorder.generated == generated
    assert len(svg_elements(svg, "node")) == 13


def test_svg_only_explicit_trees_can_be_drawn() -> None:
    with pytest.raises(TypeError, match="GameTree"):
        tree_svg(TicTacToe())


RANDOM = random_tree((1, 4), 4, seed=3, leaf_probability=0.25)


def _compared(tree: GameTree) -> dict:
    reference = alphabeta_visited(tree)
    yours = set(list(reference)[::2]) | set(list(backed_up_values(tree))[::3])
    return {"visited": yours, "compare_visited": reference, "values": backed_up_values(tree)}


@pytest.mark.parametrize(
    ("tree", "arguments"),
    [
        (GameTree(CLASSIC), {}),
        (GameTree(CLASSIC), {"visited": alphabeta_visited(GameTree(CLASSIC))}),
        (GameTree(UNEVEN, root_player=MIN), _compared(GameTree(UNEVEN, root_player=MIN))),
        (RANDOM, _compared(RANDOM)),
    ],
    ids=["plain", "pruned", "uneven-compared", "random-compared"],
)  # fmt: skip
def test_tree_svg_draws_what_draw_tree_draws(tree: GameTree, arguments: dict) -> None:
    fig = draw_tree(tree, title="same", **arguments)
    svg = tree_svg(tree, title="same", **arguments)
    artist_nodes, svg_nodes = artists(fig, "node"), svg_elements(svg, "node")
    assert set(artist_nodes) == set(svg_nodes)
    for path, marker in artist_nodes.items():
        kind = (classes(svg_nodes[path]) & set(MARKERS)).pop()
        assert marker.get_marker() == MARKERS[kind]
        polygon = svg_marker(svg_nodes[path])
        assert (polygon.get("fill"), polygon.get("stroke")) == (
            marker.get_markerfacecolor(),
            marker.get_markeredgecolor(),
        )
    artist_edges, svg_edges = artists(fig, "edge"), svg_elements(svg, "edge")
    assert set(artist_edges) == set(svg_edges)
    for path, line in artist_edges.items():
        assert (line.get_linestyle() == "--") == ("dashed" in classes(svg_edges[path]))
        assert line.get_color() == svg_edges[path].get("stroke")
    texts = {path: text.get_text() for path, text in artists(fig, "value").items()}
    assert texts == {path: svg_value(node) for path, node in svg_nodes.items() if svg_value(node)}
    assert legend_labels(fig) == svg_legend_labels(svg)


def test_the_style_names_cover_every_style() -> None:
    assert set(STYLE_NAMES) == {VISITED, PRUNED, ONLY_YOURS, ONLY_REFERENCE}
    assert len(set(STYLE_NAMES.values())) == 4


def test_drawing_a_tree_as_svg_does_not_import_matplotlib() -> None:
    code = (
        "import sys\n"
        "from games import GameTree, tree_svg\n"
        "from solutions.trees import backed_up_values\n"
        "tree = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])\n"
        "svg = tree_svg(tree, {(0,)}, backed_up_values(tree), {(1,)}, title='t')\n"
        "assert svg.count('class=\"node ') == 13\n"
        "print('matplotlib' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr


def test_the_graders_feedback_drawing_is_svg_made_without_matplotlib() -> None:
    code = (
        "import base64, sys\n"
        "from autograder.grading.grade import _drawing, _small_trees\n"
        "from autograder.grading.judge import Verdict\n"
        "picture, tree = next(iter(_small_trees().items()))\n"
        "leaves = tree.leaves()\n"
        "verdict = Verdict('a tree', False, '', '', picture=picture, visited=tuple(leaves[:3]),\n"
        "                  reference_visited=tuple(leaves[2:5]))\n"
        "uri = _drawing(verdict)\n"
        "prefix = 'data:image/svg+xml;base64,'\n"
        "assert uri.startswith(prefix), uri[:60]\n"
        "print(base64.b64decode(uri[len(prefix):]).decode('utf-8'))\n"
        "print('matplotlib' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    *svg, imported = run.stdout.strip().splitlines()
    assert imported == "False", run.stderr
    labels = svg_legend_labels("\n".join(svg))
    assert "only yours" in labels and "only the reference" in labels
