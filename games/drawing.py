"""Drawings of small explicit game trees, with the nodes a search pruned shown as pruned."""

from __future__ import annotations

import base64
import functools
import io
import sys
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from games.counting import CountingGame
from games.protocol import MAX, Game
from games.tree import GameTree, Path

if TYPE_CHECKING:  # matplotlib is imported only when a tree is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["backed_up_values", "draw_tree", "figure_to_data_uri", "figure_to_svg"]

# Colours: (marker fill, marker edge, edge line and text colour) for each kind of node.
VISITED = ("#bcd7ec", "#1f3b57", "#333333")
PRUNED = ("white", "#b5b5b5", "#b5b5b5")
ONLY_YOURS = ("#fdbf86", "#d95f02", "#d95f02")
ONLY_REFERENCE = ("#d4c8ef", "#6a51a3", "#6a51a3")

INCHES_PER_LEAF = 0.5
INCHES_PER_LEVEL = 1.0
MARKERS = {"max": "^", "min": "v", "leaf": "s"}
MARKER_SIZE = {"max": 27, "min": 27, "leaf": 20}  # points
# Triangles are widest at their base: nudge the text there so it fits inside (points).
TEXT_NUDGE = {"max": -3.5, "min": 3.5, "leaf": 0.0}


def backed_up_values(game: GameTree) -> dict[Path, float]:
    """Return the minimax value of every node of an explicit tree, keyed by path.

    >>> backed_up_values(GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))[()]
    3
    """
    tree = _explicit_tree(game)
    values: dict[Path, float] = {}

    def back_up(path: Path) -> float:
        if tree.is_terminal(path):
            values[path] = tree.utility(path)
        else:
            children = [back_up((*path, action)) for action in tree.actions(path)]
            values[path] = max(children) if tree.to_move(path) == MAX else min(children)
        return values[path]

    back_up(())
    return values


def draw_tree(
    game: GameTree,
    visited: Collection[Path] | None = None,
    values: Mapping[Path, float] | None = None,
    compare_visited: Collection[Path] | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Draw an explicit game tree top-down and return the matplotlib figure.

    MAX nodes are upward triangles, MIN nodes downward triangles and leaves squares showing
    their utility. Leaves are evenly spaced left to right, each parent is centred over its
    children, and a leaf sits at its own depth, so uneven trees are fine (up to about 40 leaves
    stay legible).

    Args:
        game: the `GameTree` (or a `CountingGame` / `RecordingGame` wrapping one).
        visited: the paths (states) the search generated; the root always counts as visited.
            Nodes outside it are drawn pruned: hollow grey markers, dashed grey edges.
            `None` draws every node as visited.
        values: path -> value, written inside the node (e.g. `backed_up_values(game)`).
            A leaf shows its utility unless `values` gives it another number.
        compare_visited: a second set of visited paths, e.g. the reference search's when
            drawing a student's: nodes only in `visited` are coloured "only yours", nodes only
            in `compare_visited` "only the reference".
        title: the axes title.
        ax: draw into these axes instead of a new figure.

    The figure is made without pyplot, so no display is needed; save it with
    `fig.savefig(...)`, `figure_to_svg(fig)` or `figure_to_data_uri(fig)`.

    Example, alpha-beta on the textbook tree:

    >>> from games import RecordingGame
    >>> from solutions.alphabeta import alphabeta_value
    >>> tree = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> recorder = RecordingGame(tree)
    >>> alphabeta_value(recorder, recorder.initial_state())
    3
    >>> fig = draw_tree(tree, visited=set(recorder.generated), values=backed_up_values(tree))
    >>> figure_to_data_uri(fig).startswith("data:image/png;base64,")
    True
    """
    tree = _explicit_tree(game)
    positions, depth = _layout(tree)
    kinds = {path: _kind(tree, path) for path in positions}
    visited_set = set(positions) if visited is None else {(), *visited}
    compare_set = None if compare_visited is None else {(), *compare_visited}
    styles = {path: _style(path, visited_set, compare_set) for path in positions}

    if ax is None:
        leaf_count = sum(kind == "leaf" for kind in kinds.values())
        width = max(4.0, INCHES_PER_LEAF * leaf_count + 1.0)
        height = max(2.5, INCHES_PER_LEVEL * depth + 1.8)
        ax = _figure_class()(figsize=(width, height), layout="constrained").add_subplot()
    for path, (x, y) in positions.items():
        if path:  # the edge from the parent, dashed when the search never generated the node
            dashed = path not in visited_set
            ax.plot(
                [positions[path[:-1]][0], x],
                [positions[path[:-1]][1], y],
                linestyle="--" if dashed else "-",
                linewidth=1.0 if dashed else 1.4,
                color=styles[path][2],
                zorder=1,
                gid=f"edge {path}",
            )
    for path, position in positions.items():
        value = values.get(path) if values is not None else None
        if value is None and kinds[path] == "leaf":
            value = tree.utility(path)
        _draw_node(ax, path, position, kinds[path], styles[path], value)
    leaf_xs = [x for path, (x, _) in positions.items() if kinds[path] == "leaf"]
    ax.set_xlim(min(leaf_xs) - 0.7, max(leaf_xs) + 0.7)
    ax.set_ylim(-depth - 0.45, 0.45)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    _legend(ax, kinds, styles)
    return ax.figure


def figure_to_svg(fig: Figure) -> str:
    """Return the figure as an SVG document (text) and close it."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    _close(fig)
    return buffer.getvalue()


def figure_to_data_uri(fig: Figure, format: str = "png") -> str:
    """Return the figure as a base64 `data:` URI for an inline `<img src=...>`, and close it.

    `format` is "png" (the default) or "svg"; the page stays self-contained either way.
    """
    mime = {"png": "image/png", "svg": "image/svg+xml"}
    if format not in mime:
        raise ValueError(f"format must be one of {sorted(mime)}, not {format!r}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format=format, dpi=110)
    _close(fig)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"data:{mime[format]};base64,{encoded}"


@functools.cache
def _figure_class() -> type[Figure]:
    """Return a Figure subclass that a notebook shows as an image even if pyplot was never used."""
    from matplotlib.figure import Figure

    class TreeFigure(Figure):
        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=100)
            return buffer.getvalue()

    return TreeFigure


def _explicit_tree(game: Game) -> GameTree:
    while isinstance(game, CountingGame):  # draw what a recorder wraps, without recording
        game = game.game
    if not isinstance(game, GameTree):
        raise TypeError(
            f"only an explicit GameTree can be drawn, not {type(game).__name__}: a real game's "
            "tree is far too large to draw whole"
        )
    return game


def _layout(tree: GameTree) -> tuple[dict[Path, tuple[float, float]], int]:
    """Place leaves at x = 0, 1, 2, ... in order and each parent over its children's middle."""
    positions: dict[Path, tuple[float, float]] = {}
    next_leaf_x = 0

    def place(path: Path) -> float:
        nonlocal next_leaf_x
        if tree.is_terminal(path):
            x = float(next_leaf_x)
            next_leaf_x += 1
        else:
            children = [place((*path, action)) for action in tree.actions(path)]
            x = (children[0] + children[-1]) / 2
        positions[path] = (x, -len(path))
        return x

    place(())
    return positions, max(len(path) for path in positions)


def _draw_node(
    ax: Axes,
    path: Path,
    position: tuple[float, float],
    kind: str,
    style: tuple[str, str, str],
    value: float | None,
) -> None:
    fill, edge, text_colour = style
    ax.plot(
        *([coordinate] for coordinate in position),
        marker=MARKERS[kind],
        markersize=MARKER_SIZE[kind],
        markerfacecolor=fill,
        markeredgecolor=edge,
        markeredgewidth=1.3,
        linestyle="none",
        zorder=2,
        gid=f"node {path}",
    )
    if value is not None:
        label = _number(value)
        ax.annotate(
            label,
            position,
            xytext=(0, TEXT_NUDGE[kind]),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=8 if len(label) <= (3 if kind == "leaf" else 2) else 6.5,
            color=text_colour if style == PRUNED else "black",
            zorder=3,
            gid=f"value {path}",
        )


def _kind(tree: GameTree, path: Path) -> str:
    if tree.is_terminal(path):
        return "leaf"
    return "max" if tree.to_move(path) == MAX else "min"


def _style(path: Path, visited: set[Path], compare: set[Path] | None) -> tuple[str, str, str]:
    if compare is not None and (path in visited) != (path in compare):
        return ONLY_YOURS if path in visited else ONLY_REFERENCE
    return VISITED if path in visited else PRUNED


def _legend(
    ax: Axes,
    kinds: dict[Path, str],
    styles: dict[Path, tuple[str, str, str]],
) -> None:
    from matplotlib.lines import Line2D

    def entry(label: str, marker: str, colours: tuple[str, str, str], line: str) -> Line2D:
        fill, edge, _ = colours
        return Line2D(
            [],
            [],
            color=colours[2],
            linestyle=line,
            marker=marker,
            markersize=9,
            markerfacecolor=fill,
            markeredgecolor=edge,
            label=label,
        )

    present = set(kinds.values())
    handles = [
        entry(label, MARKERS[kind], VISITED, "none")
        for kind, label in (("max", "MAX node"), ("min", "MIN node"), ("leaf", "leaf (utility)"))
        if kind in present
    ]
    used = set(styles.values())
    if PRUNED in used:
        handles.append(entry("pruned (never generated)", "s", PRUNED, "--"))
    if ONLY_YOURS in used:
        handles.append(entry("only yours", "s", ONLY_YOURS, "-"))
    if ONLY_REFERENCE in used:
        handles.append(entry("only the reference", "s", ONLY_REFERENCE, "--"))
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(len(handles), 3),
        fontsize=8,
        frameon=False,
        handlelength=2.2,
    )


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _close(fig: Figure) -> None:
    # A figure made by draw_tree is not known to pyplot; one drawn into pyplot axes is.
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(fig)
