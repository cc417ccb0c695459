"""Write the nbgrader source notebooks of the assignments: `source/<assignment>/<assignment>.ipynb`.

    python assignments/make_assignments.py          # rewrite every source notebook
    python assignments/make_assignments.py --check  # exit 1 if one is out of date

Nothing in a notebook is a second copy that could drift:

- every solution region (### BEGIN SOLUTION ... ### END SOLUTION) is the source of a function of
  the `solutions` package, read with `inspect.getsource`, and so are the given helper cells;
- every hidden test cell is generated from `autograder.rules` by `autograder.nbgrader_export`,
  one cell per rule group with the group's points, so nbgrader and `python -m autograder grade`
  give the same points;
- the expected answers of the public self-checks are computed here by the reference solutions.

The output is deterministic: a second run changes no byte (tests/test_assignments.py checks
that the committed notebooks are up to date).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder import nbgrader_export
from autograder.instances import Instance, connect_four_endgames
from autograder.rules import PRUNING_SLACK, rules
from games import MAX, MIN, ConnectFour, CountingGame, GameTree, TicTacToe, random_tree
from solutions import alphabeta, depth_limited, evaluation, minimax
from solutions.alphabeta import alphabeta_decision, alphabeta_value
from solutions.depth_limited import depth_limited_value

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "source"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
ASSIGNMENTS = ("minimax", "alphabeta", "depth_limited", "bug_hunt")
"""The assignments, in teaching order; each is `source/<name>/<name>.ipynb`."""

RULES_OF = {
    "minimax": ("minimax_value", "minimax_decision"),
    "alphabeta": ("alphabeta_value", "alphabeta_decision", "alphabeta_pruning"),
    "depth_limited": ("depth_limited_value", "depth_limited_decision"),
    "bug_hunt": tuple(rule.id for rule in rules()),
}
"""The autograder rules each assignment's hidden tests grade."""

TTT = TicTacToe()
C4 = ConnectFour()

# ----------------------------------------------------------------------------------------------
# Sources: functions of the solutions package, with their bodies marked as solution regions.
# ----------------------------------------------------------------------------------------------

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def with_solution_regions(source: str, names: tuple[str, ...]) -> str:
    """Wrap the body (after the docstring) of each function called one of `names` in markers."""
    tree = ast.parse(source)
    lines = source.splitlines()
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in names:
            first = node.body[0]
            has_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = first.end_lineno if has_docstring else first.lineno - 1
            spans.append((start, node.end_lineno, node.body[-1].col_offset))
    if len(spans) != len(names):
        raise ValueError(f"not every one of {names} is a function of this source")
    for start, end, indent in sorted(spans, reverse=True):
        pad = " " * indent
        lines[start:end] = [f"{pad}{BEGIN}", *lines[start:end], f"{pad}{END}"]
    return "\n".join(lines)


def solution_source(function: Callable) -> str:
    """The source of a solutions function with its body as a solution region."""
    return with_solution_regions(inspect.getsource(function), (function.__name__,))


def without_markers(source: str) -> str:
    """A solution cell's source with the solution markers removed (what the tests compare)."""
    return "\n".join(line for line in source.splitlines() if line.strip() not in (BEGIN, END))


def module_constant(module: Any, name: str) -> str:
    """The source of a module-level assignment of `name`, with the docstring that follows it."""
    source = inspect.getsource(module)
    tree = ast.parse(source)
    body = tree.body
    for index, node in enumerate(body):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            end = node.end_lineno
            following = body[index + 1] if index + 1 < len(body) else None
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
                end = following.end_lineno
            return "\n".join(source.splitlines()[node.lineno - 1 : end])
    raise ValueError(f"{module.__name__} has no top-level assignment of {name}")


def given_source(*objects: Callable) -> str:
    """The sources of helper functions or classes, one after the other."""
    return "\n\n\n".join(inspect.getsource(obj).rstrip("\n") for obj in objects)


# ----------------------------------------------------------------------------------------------
# Self-checks: small cases whose expected answers the reference computes here.
# ----------------------------------------------------------------------------------------------


def game_source(game: Any) -> str:
    return nbgrader_export.game_literal(game)


def state_source(game: Any, state: Any) -> str:
    if isinstance(game, TicTacToe):
        rows = "\\n".join(state[row : row + 3] for row in (0, 3, 6))
        return f'TicTacToe.from_picture("{rows}")'
    return nbgrader_export.state_literal(game, state)


def _dict_source(data: dict) -> str:
    inner = "".join(f"    {key!r}: {value!r},\n" for key, value in sorted(data.items()))
    return "{\n" + inner + "}"


@dataclass
class Check:
    """One self-check call: `kind` is "value", "decision" or "states"."""

    kind: str
    name: str
    game: Any
    state: Any = ()
    depth: int | None = None
    evaluate: Callable | None = None
    function: str = ""  # for "states": which function's count ("alphabeta_value"/"_decision")
    game_code: str = ""  # how the cell builds the game, if not from the game's repr

    def instance(self) -> Instance:
        return Instance(self.name, self.game, self.state, self.depth, self.evaluate)

    def args(self) -> tuple:
        return () if self.depth is None else (self.depth, self.evaluate)

    def args_source(self) -> str:
        if self.depth is None:
            return ""
        return f", args=({self.depth}, {self.evaluate.__name__})"

    def source(self, value_function: Callable) -> str:
        """The call of the check, with the expected answer computed by `value_function`."""
        built = self.game_code or game_source(self.game)
        head = f"{self.name!r}, {built}, {state_source(self.game, self.state)}"
        if self.kind == "value":
            value = value_function(self.game, self.state, *self.args())
            hints = nbgrader_export.value_hints(self.instance(), value)
            text = f"check_value(function, {head}, {value!r}{self.args_source()}"
            if hints:
                text += f", hints={_dict_source(hints)}"
            return text + ")"
        if self.kind == "decision":
            optimal, child_values = decision_answer(self, value_function)
            return (
                f"check_decision(function, {head}, {optimal!r}, {child_values!r}"
                f"{self.args_source()})"
            )
        decision = self.function.endswith("_decision")
        counted = CountingGame(self.game)
        if decision:
            alphabeta_decision(counted, self.state)
            answer = decision_answer(self, value_function)
        else:
            answer = alphabeta_value(counted, self.state)
        states = counted.states_generated
        causes = nbgrader_export.pruning_causes(self.instance(), decision, states)
        text = f"check_states(function, {head}, {answer!r}, {states!r}"
        if causes:
            text += f", causes={_dict_source(causes)}"
        return text + ")"


def decision_answer(check: Check, value_function: Callable) -> tuple[tuple, list]:
    """(optimal actions, value of each action) of a decision check, as the grader computes them."""
    game, state = check.game, check.state
    if check.depth is None:
        children = [value_function(game, game.result(state, a)) for a in game.actions(state)]
    else:
        children = [
            value_function(game, game.result(state, a), check.depth - 1, check.evaluate)
            for a in game.actions(state)
        ]
    best = (max if game.to_move(state) == MAX else min)(children)
    optimal = tuple(a for a, v in zip(game.actions(state), children, strict=True) if v == best)
    return optimal, children


def checks_source(function: str, checks: list[Check], value_function: Callable, run: bool) -> str:
    """A cell that defines `check_<function>(function)` and, if `run`, calls it on `function`."""
    lines = [
        f"def check_{function}(function):",
        f'    """Self-checks of {function}: small cases, answers from the reference solution."""',
    ]
    for check in checks:
        lines.append(textwrap.indent(check.source(value_function), "    "))
    text = "\n".join(lines)
    if run:
        text += f"\n\n\ncheck_{function}({function})"
    return text


# ----------------------------------------------------------------------------------------------
# Notebooks: nbgrader cell metadata and a small builder.
# ----------------------------------------------------------------------------------------------


def nbgrader_metadata(
    grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None
) -> dict:
    """The `nbgrader` cell metadata (schema version 3) for one cell."""
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return meta


@dataclass
class Builder:
    """Collects the cells of one source notebook, with deterministic cell ids."""

    name: str
    cells: list = field(default_factory=list)

    def _id(self) -> str:
        return f"{self.name}-{len(self.cells) + 1:02d}"

    def markdown(self, text: str, **fill: str) -> None:
        """A markdown cell; `<<key>>` in the (dedented) text is replaced by `fill[key]`."""
        text = textwrap.dedent(text).strip("\n")
        for key, value in fill.items():
            text = text.replace(f"<<{key}>>", value.strip("\n"))
        self.cells.append(new_markdown_cell(text, id=self._id()))

    def code(self, source: str) -> None:
        """A code cell the student may run and change (not graded)."""
        self.cells.append(new_code_cell(textwrap.dedent(source).strip("\n"), id=self._id()))

    def given(self, grade_id: str, source: str, collapsed: bool = False) -> None:
        """A read-only code cell: nbgrader restores it if it was changed."""
        cell = new_code_cell(source.strip("\n"), id=grade_id.replace("_", "-"))
        cell.metadata["nbgrader"] = nbgrader_metadata(
            grade_id, grade=False, solution=False, locked=True
        )
        if collapsed:
            cell.metadata["jupyter"] = {"source_hidden": True}
        self.cells.append(cell)

    def self_check(self, grade_id: str, source: str) -> None:
        """A read-only cell that runs the public self-checks: an autograded test worth 0 points,
        so that nbgrader's Validate button reports a failing self-check (they raise
        AssertionError) while the points come only from the hidden tests."""
        cell = new_code_cell(source.strip("\n"), id=grade_id.replace("_", "-"))
        cell.metadata["nbgrader"] = nbgrader_metadata(
            grade_id, grade=True, solution=False, locked=True, points=0
        )
        self.cells.append(cell)

    def solution(self, grade_id: str, source: str) -> None:
        """A code cell whose solution regions the released version replaces with a stub."""
        cell = new_code_cell(source.strip("\n"), id=grade_id.replace("_", "-"))
        cell.metadata["nbgrader"] = nbgrader_metadata(
            grade_id, grade=False, solution=True, locked=False
        )
        self.cells.append(cell)

    def answer(self, grade_id: str, points: float, model_answer: str) -> None:
        """A manually graded markdown answer; the released version shows YOUR ANSWER HERE."""
        cell = new_markdown_cell(textwrap.dedent(model_answer).strip("\n"), id=grade_id)
        cell.metadata["nbgrader"] = nbgrader_metadata(
            grade_id, grade=True, solution=True, locked=False, points=points
        )
        self.cells.append(cell)

    def hidden_tests(self, rule_ids: tuple[str, ...]) -> None:
        """The grading section: the judge's helpers, then one autograded cell per rule group."""
        self.markdown(
            """
            ## Hidden tests

            The cells below are graded. In your copy they hold only a comment; your instructor's
            copy holds the tests, one cell per group of positions, worth the points shown
            (<<points>> in all). They judge your functions exactly as the course's autograder
            (`python -m autograder grade`) does, so both give the same score. Leave these cells
            as they are.
            """,
            points=f"{grading_points(rule_ids):g}",
        )
        self.given(
            f"{self.name}_grading_helpers",
            nbgrader_export.grading_helpers_source(),
            collapsed=True,
        )
        for cell in nbgrader_export.hidden_test_cells(rule_ids):
            source = new_code_cell(cell.source, id=cell.grade_id.replace("_", "-")[:64])
            source.metadata["nbgrader"] = nbgrader_metadata(
                cell.grade_id, grade=True, solution=False, locked=True, points=cell.points
            )
            self.cells.append(source)

    def notebook(self) -> nbformat.NotebookNode:
        notebook = new_notebook(
            cells=self.cells,
            metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        )
        nbformat.validate(notebook)
        return notebook


def grading_points(rule_ids: tuple[str, ...]) -> float:
    return sum(points for _, points in nbgrader_export.grading_summary(rule_ids))


def grading_table(rule_ids: tuple[str, ...]) -> str:
    """A markdown table of the graded groups: function, positions, points."""
    rows = ["| rule | group of positions | points |", "|---|---|---:|"]
    for rule in rules():
        if rule.id in rule_ids:
            for group in rule.groups:
                rows.append(f"| `{rule.id}` | {group.name} | {group.points:g} |")
    rows.append(f"| | **total** | **{grading_points(rule_ids):g}** |")
    return "\n".join(rows)


GAMES_NAMES = ("MAX", "MIN", "ConnectFour", "CountingGame", "Game", "GameTree", "TicTacToe")


def setup_source(
    modules: tuple[str, ...] = (),
    froms: tuple[str, ...] = (),
    games: tuple[str, ...] = (),
    after: str = "",
) -> str:
    """The first code cell: the imports, the self-check helpers, then `after` (collapsed).

    `modules` are extra `import x` lines, `froms` extra `from x import y` lines of the standard
    library, `games` extra names of the `games` package.
    """
    standard = sorted({"import math", "import signal", *modules}) + sorted(froms)
    plotting = [line for line in standard if "matplotlib" in line]
    standard = [line for line in standard if "matplotlib" not in line]
    names = ", ".join(sorted({*GAMES_NAMES, *games}, key=lambda n: (not n.isupper(), n)))
    course = [
        f"from games import {names}"
        if len(names) < 80
        else "from games import (\n" + "".join(f"    {n},\n" for n in names.split(", ")) + ")",
        "from games.protocol import Action, IllegalActionError, State",
    ]
    if "Evaluation" in after or "LINES" in after:
        course.append("from games.tictactoe import EMPTY, LINES, winner")
    blocks = ["\n".join(standard), "\n".join(plotting), "\n".join(course)]
    imports = "\n\n".join(block for block in blocks if block)
    source = nbgrader_export.self_check_helpers_source(imports)
    return source + ("\n\n" + after.strip("\n") + "\n" if after else "")


HOW_TO_WORK = """
**How to work.** Run the cells from top to bottom (*Run → Run All Cells* is fine). Write your
code where a cell says `# YOUR CODE HERE`, and delete the `raise NotImplementedError()` line
below it. Keep the function names and arguments: the grader calls the functions by name.
After each function a self-check cell runs it on a few small cases, in well under a second:
`ok` lines are checks that passed, and a failing check stops with what it expected, what came
back and the mistake that usually causes it. Before you hand in, restart the kernel and run
everything once more (*Kernel → Restart Kernel and Run All Cells*).
"""


# ----------------------------------------------------------------------------------------------
# Assignment 1: minimax.
# ----------------------------------------------------------------------------------------------

CLASSIC = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])


def _c4_endgame(seed: int, empties: tuple[int, int]) -> Any:
    return connect_four_endgames(1, seed=seed, empties=empties)[0].state


NEGATIVE = GameTree([[-3, -12, -8], [-2, -4, -6], [-14, -5, -2]])
ODD_AND_EVEN = GameTree([[5, [-4, 8]], [[1, 9], -6], 3])
X_LOST = TicTacToe.from_picture("..O\nXOX\n...")
X_WINS_O_TO_MOVE = TicTacToe.from_picture("...\n.X.\n.OX")
ONLY_SAFE = TicTacToe.from_picture("O.O\n.X.\nX..")
LAST_IS_BEST = GameTree([[4, 9], [-2, 7], [6, 8]])


def minimax_value_checks() -> list[Check]:
    return [
        Check("value", "the classic 3x3 tree", CLASSIC),
        Check("value", "every leaf negative", NEGATIVE),
        Check("value", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("value", "leaves at odd and even depths", ODD_AND_EVEN),
        Check("value", "a terminal root", GameTree(7)),
        Check("value", "tic-tac-toe: X to move and lost", TTT, X_LOST),
        Check("value", "tic-tac-toe: O to move, X wins anyway", TTT, X_WINS_O_TO_MOVE),
        Check("value", "a Connect Four end-game (scores beyond +-1)", C4, _c4_endgame(21, (7, 7))),
    ]


def minimax_decision_checks() -> list[Check]:
    return [
        Check("decision", "the classic 3x3 tree", CLASSIC),
        Check("decision", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("decision", "a tree whose best move is the last", LAST_IS_BEST),
        Check("decision", "only one move avoids a loss", TTT, ONLY_SAFE),
        Check("decision", "O to move: win at once", TTT, TicTacToe.from_picture("XX.\nOO.\nX..")),
    ]


def _minimax_value(game, state, *args):
    return minimax.minimax_value(game, state)


def build_minimax() -> Builder:
    rule_ids = RULES_OF["minimax"]
    nb = Builder("minimax")
    nb.markdown(
        """
        # Assignment 1: Minimax

        You write the two functions at the heart of adversarial search,

        - `minimax_value(game, state)`: the value of `state` when both players play perfectly,
          from MAX's point of view, and
        - `minimax_decision(game, state)`: an optimal action for the player to move,

        and then use your own search to count the complete game tree of tic-tac-toe: you will
        find the 549,946 nodes quoted in Lecture 1. Read Lectures 1 and 2 first.

        <<how_to_work>>

        **How it is graded (<<points>> points).** Hidden tests call your two
        functions on many more positions than the self-checks: hand-made trees, random trees,
        tic-tac-toe positions and Connect Four end-games. A group of positions earns its points
        only when every position in it is right, so guessing earns nothing:

        <<table>>
        """,
        how_to_work=HOW_TO_WORK,
        points=f"{grading_points(rule_ids):g}",
        table=grading_table(rule_ids),
    )
    nb.given("minimax_setup", setup_source(), collapsed=True)
    nb.markdown(
        """
        ## 1. The game protocol

        A search algorithm sees a game only through six methods:

        | method | returns |
        |---|---|
        | `game.initial_state()` | the position the game starts from |
        | `game.to_move(state)` | `MAX` or `MIN`: whose turn it is |
        | `game.actions(state)` | the legal actions, as a new list in a fixed order |
        | `game.result(state, action)` | the state after `action` (a new one: `state` is kept) |
        | `game.is_terminal(state)` | whether the game is over |
        | `game.utility(state)` | the value of a finished game for MAX (terminal states only) |

        The simplest games are explicit trees: inner nodes are lists, leaves are numbers (the
        utility for MAX). MAX moves at the root unless you say `root_player=MIN`, and the
        players alternate level by level. An action is a child's index, and a state is the path
        of indices from the root: `()` is the root, `(1,)` its second child, `(1, 2)` the third
        child of that.
        """
    )
    nb.code(
        """
        game = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
        root = game.initial_state()
        print("root:", root, "| to move:", game.to_move(root), "| actions:", game.actions(root))
        child = game.result(root, 1)
        print("child:", child, "| to move:", game.to_move(child), "| actions:", game.actions(child))
        leaf = game.result(child, 2)
        print("leaf:", leaf, "| over:", game.is_terminal(leaf), "| utility:", game.utility(leaf))
        """
    )
    nb.markdown(
        """
        Tic-tac-toe follows the same protocol. A state is a string of 9 characters, the squares
        0 to 8 row by row, each `X`, `O` or `.`; X is MAX and moves first; the actions are the
        empty squares in ascending order; the utility is +1 if X has won, -1 if O has won and 0
        for a draw. An illegal action raises `IllegalActionError`, naming the legal ones.
        """
    )
    nb.code(
        '''
        ttt = TicTacToe()
        state = TicTacToe.from_picture("""
        X.O
        .X.
        ..O
        """)
        print(ttt.display(state))
        print("to move:", ttt.to_move(state), "| actions:", ttt.actions(state))
        after = ttt.result(state, 5)
        print(ttt.display(after), "\\nto move:", ttt.to_move(after))
        try:
            ttt.result(state, 0)
        except IllegalActionError as error:
            print("IllegalActionError:", error)
        '''
    )
    nb.markdown(
        """
        ## 2. `minimax_value`

        The minimax value of a state is its utility if the game is over; otherwise it is the
        largest value of its children when MAX is to move, and the smallest when MIN is:

        $$\\text{minimax}(s) = \\begin{cases}
        \\text{utility}(s) & \\text{if } s \\text{ is terminal} \\\\
        \\max_{a} \\text{minimax}(\\text{result}(s, a)) & \\text{if MAX is to move} \\\\
        \\min_{a} \\text{minimax}(\\text{result}(s, a)) & \\text{if MIN is to move} \\end{cases}$$

        Examine the children in the order of `game.actions(state)`. Make no assumption about
        the utilities: they are not always -1, 0 or 1 (a Connect Four win is worth 22 - k when
        it comes with the winner's k-th stone). The root may be terminal, and MIN may be to move
        at the root.
        """
    )
    nb.solution("minimax_value", solution_source(minimax.minimax_value))
    nb.self_check(
        "check_minimax_value",
        checks_source("minimax_value", minimax_value_checks(), _minimax_value, run=True),
    )
    nb.markdown(
        """
        ## 3. `minimax_decision`

        The decision is the action whose child has the best minimax value for the player to
        move: the largest for MAX, the smallest for MIN. Return the action itself (an element of
        `game.actions(state)`), not the child state or the value. When several actions tie, each
        of them is right; the reference returns the first. A terminal state has no move: the
        reference raises `ValueError` there, with the helper below.
        """
    )
    nb.given("require_a_move", given_source(minimax._require_a_move))
    nb.solution("minimax_decision", solution_source(minimax.minimax_decision))
    nb.self_check(
        "check_minimax_decision",
        checks_source("minimax_decision", minimax_decision_checks(), _minimax_value, run=True),
    )
    nb.markdown(
        """
        ## 4. Counting the tree

        `CountingGame(game)` behaves exactly like `game` but counts what a search asks of it:
        `states_generated` is the number of states `result` created, `leaf_evaluations` the
        number of `utility` calls. Plain minimax visits every node of the game tree once, so
        searching the empty board counts the whole tree of tic-tac-toe: the states generated
        are the nodes below the root, and every utility call is one finished game. The cell
        takes a few seconds, because minimax really does visit all of them.
        """
    )
    nb.code(
        """
        counted = CountingGame(TicTacToe())
        try:
            value = minimax_value(counted, counted.initial_state())
        except NotImplementedError:
            print("Write minimax_value first: this cell uses it.")
        else:
            nodes = counted.states_generated + 1  # the root is a node too
            print(f"value of the empty board: {value} (a draw with perfect play)")
            print(f"nodes in the complete game tree: {nodes:,}")
            print(f"possible games (finished positions reached): {counted.leaf_evaluations:,}")
            assert nodes == 549_946, (
                f"your search generated {nodes - 1:,} states, the complete tree has 549,945 below "
                "the root: fewer means it stops somewhere before the game is over (is_terminal?), "
                "more means some child is generated twice (result called twice?)"
            )
        """
    )
    nb.markdown(
        """
        The numbers agree with the published ones: 549,946 nodes and 255,168 possible games,
        for only 5,478 distinct positions. The tree repeats positions a great deal (the same
        position is reached by many move orders); Lecture 5 shows how a transposition table
        exploits that. Assignment 2 cuts the same search down to 18,296 states without any
        table, with alpha-beta pruning.
        """
    )
    nb.hidden_tests(rule_ids)
    return nb


# ----------------------------------------------------------------------------------------------
# Assignment 2: alpha-beta.
# ----------------------------------------------------------------------------------------------

NO_TIES = "random_tree(branching=3, depth=4, low=-99, high=99, seed=5, distinct=True)"
NO_TIES_MIN = (
    "random_tree(branching=3, depth=4, low=-99, high=99, seed=3, distinct=True, root_player=MIN)"
)
MIDGAME = "X...O...."


def _no_ties(seed: int, root_player: str = MAX) -> GameTree:
    return random_tree(
        branching=3, depth=4, low=-99, high=99, seed=seed, distinct=True, root_player=root_player
    )


def alphabeta_value_checks() -> list[Check]:
    return [
        Check("value", "the classic 3x3 tree", CLASSIC),
        Check("value", "every leaf negative", NEGATIVE),
        Check("value", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("value", "leaves at odd and even depths", ODD_AND_EVEN),
        Check("value", "a terminal root", GameTree(7)),
        Check("value", "tic-tac-toe: X to move and lost", TTT, X_LOST),
        Check("value", "a Connect Four end-game", C4, _c4_endgame(22, (9, 9))),
        Check("states", "a tree without ties", _no_ties(5), game_code=NO_TIES,
              function="alphabeta_value"),
        Check("states", "a tree without ties, MIN to move", _no_ties(3, MIN),
              game_code=NO_TIES_MIN, function="alphabeta_value"),
        Check("states", "tic-tac-toe after two moves (ties everywhere)", TTT, MIDGAME,
              function="alphabeta_value"),
    ]  # fmt: skip


def alphabeta_decision_checks() -> list[Check]:
    return [
        Check("decision", "the classic 3x3 tree", CLASSIC),
        Check("decision", "the classic tree with MIN to move", GameTree(CLASSIC.tree, MIN)),
        Check("decision", "a tree whose best move is the last", LAST_IS_BEST),
        Check("decision", "only one move avoids a loss", TTT, ONLY_SAFE),
        Check("states", "a tree without ties: the root carries its window", _no_ties(5),
              game_code=NO_TIES, function="alphabeta_decision"),
    ]  # fmt: skip


def _alphabeta_value(game, state, *args):
    return alphabeta_value(game, state)


def build_alphabeta() -> Builder:
    rule_ids = RULES_OF["alphabeta"]
    nb = Builder("alphabeta")
    nb.markdown(
        """
        # Assignment 2: Alpha-beta pruning

        You write alpha-beta search,

        - `alphabeta_value(game, state, alpha=-math.inf, beta=math.inf)`: the minimax value of
          `state`, skipping the children that cannot change it, and
        - `alphabeta_decision(game, state)`: an optimal action, found with alpha-beta,

        and then measure what pruning saves: against minimax on tic-tac-toe, with good and bad
        move ordering, and as the tree gets deeper (against $b^d$ and Knuth and Moore's
        formula). Read Lecture 3 first.

        <<how_to_work>>

        **How it is graded (<<points>> points).** Hidden tests check the values and decisions on
        many positions, as in Assignment 1 but deeper, and they count the states your search
        generates (the successful calls of `game.result`, counted by the grader). A correct
        alpha-beta that examines children in the order of `game.actions` and cuts off as soon as
        `alpha >= beta` generates exactly as many states as the reference; the pruning groups
        accept up to <<slack>> times the reference's count, and never fewer than a correct
        alpha-beta can manage (that would mean pruning a branch that mattered). Pruning points
        go only with right answers.

        <<table>>
        """,
        how_to_work=HOW_TO_WORK,
        points=f"{grading_points(rule_ids):g}",
        slack=f"{PRUNING_SLACK:g}",
        table=grading_table(rule_ids),
    )
    nb.given(
        "alphabeta_setup",
        setup_source(
            modules=("import matplotlib.pyplot as plt",), games=("ordered_tree", "random_tree")
        ),
        collapsed=True,
    )
    nb.markdown(
        """
        ## 1. `alphabeta_value`

        Alpha-beta is minimax with a window `(alpha, beta)` carried down every path:

        - **alpha** is the best value MAX is already assured of on the path to this node,
        - **beta** is the best value MIN is already assured of.

        A MAX node keeps a running value (starting at minus infinity). After each child it
        takes the larger of the two; as soon as the value reaches `value >= beta` it stops and
        returns it (MIN, higher up, will never let play come here); otherwise it raises
        `alpha` to the value. A MIN node is the mirror image: running value from plus infinity,
        stop when `value <= alpha`, otherwise lower `beta`. Each child is searched with the
        node's *current* alpha and beta.

        Three details decide how many states you generate, and the grader counts them:

        1. cut off on ties too (`>=` and `<=`, not `>` and `<`);
        2. generate a child only when you are about to search it (call `game.result` inside
           the loop, never for all children up front);
        3. examine the children in the order of `game.actions(state)`.

        Called with the full window, `alphabeta_value(game, state)` returns exactly the
        minimax value.
        """
    )
    nb.solution("alphabeta_value", solution_source(alphabeta.alphabeta_value))
    nb.self_check(
        "check_alphabeta_value",
        checks_source("alphabeta_value", alphabeta_value_checks(), _alphabeta_value, run=True),
    )
    nb.markdown(
        """
        ## 2. `alphabeta_decision`

        The root is a node like any other. Search the first child with the full window; after
        each child, the best value found so far narrows the window for the later ones: for a
        MAX root it becomes alpha, for a MIN root beta. Then the decision prunes exactly as much
        as `alphabeta_value` does on the same state. (Calling `alphabeta_value` with a fresh
        window for every root child finds the right move too, but generates more states, and
        the grader notices.)

        With the window carried, a later child can come back with a value equal to alpha that
        only *bounds* its true value (it may be worse). So change the best action only when a
        child is strictly better than the best so far. As in Assignment 1, return an action;
        the helper below raises `ValueError` on a terminal state.
        """
    )
    nb.given("require_a_move", given_source(minimax._require_a_move))
    nb.solution("alphabeta_decision", solution_source(alphabeta.alphabeta_decision))
    nb.self_check(
        "check_alphabeta_decision",
        checks_source(
            "alphabeta_decision", alphabeta_decision_checks(), _alphabeta_value, run=True
        ),
    )
    nb.markdown(
        """
        ## 3. Alpha-beta against minimax on tic-tac-toe

        Assignment 1's minimax generated all 549,945 states below the empty board. Alpha-beta
        reaches the same value, a draw, with a small fraction of them. The three numbers below
        are worth remembering: 18,296 with the `>=` cut-off, 146,119 if ties do not prune (a
        strict `>`, the convention of some published code) and 549,945 with no pruning at all.
        """
    )
    nb.code(
        """
        counted = CountingGame(TicTacToe())
        try:
            value = alphabeta_value(counted, counted.initial_state())
        except NotImplementedError:
            print("Write alphabeta_value first: this cell uses it.")
        else:
            states = counted.states_generated
            print(f"value {value}, {states:,} states generated")
            print(f"minimax generates 549,945: alpha-beta needs {states / 549_945:.1%} of that")
            assert states == 18_296, (
                f"your alpha-beta generated {states:,} states, the reference 18,296"
                + {146_119: ": ties do not cut off (use >= and <=)",
                   549_945: ": nothing is pruned"}.get(states, "")
            )
        """
    )
    nb.markdown(
        """
        ## 4. Move ordering

        Alpha-beta prunes most when the best child comes first: then the window is as narrow as
        it can be from the start. The wrapper below hands out the actions of tic-tac-toe in
        another order, so you can count what your search generates with each, here in the
        position after X has taken the top edge. (It does not change the game, only the order in
        which the search sees the moves.)
        """
    )
    nb.code(
        """
        class Reordered(CountingGame):
            \"\"\"A counting game that lists the actions in the order of `priority`.\"\"\"

            def __init__(self, game, priority):
                super().__init__(game)
                self.priority = priority

            def actions(self, state):
                return sorted(super().actions(state), key=self.priority.index)


        orders = {
            "ascending squares (the default)": [0, 1, 2, 3, 4, 5, 6, 7, 8],
            "centre, then corners, then edges": [4, 0, 2, 6, 8, 1, 3, 5, 7],
            "corners, then edges, then centre": [0, 2, 6, 8, 1, 3, 5, 7, 4],
            "edges, then corners, then centre": [1, 3, 5, 7, 0, 2, 6, 8, 4],
        }
        state = TicTacToe.from_picture(".X.\\n...\\n...")
        try:
            for label, priority in orders.items():
                game = Reordered(TicTacToe(), priority)
                alphabeta_value(game, state)
                print(f"{label:35} {game.states_generated:>8,} states")
        except NotImplementedError:
            print("Write alphabeta_value first: this cell uses it.")
        """
    )
    nb.markdown(
        """
        The centre and the corners take part in more lines than the edges, so they tend to be
        the better moves; searching them first narrows the window early. Real programs order
        moves with a cheap guess of their value (Lecture 5).

        ## 5. How the saving grows with depth

        On a uniform tree with branching factor $b$ and depth $d$, minimax evaluates all $b^d$
        leaves. Knuth and Moore (1975) proved that with perfect move ordering (the best child
        always first) alpha-beta evaluates exactly $b^{\\lceil d/2 \\rceil} + b^{\\lfloor d/2
        \\rfloor} - 1$ leaves; with random ordering it is roughly $b^{3d/4}$. The cell counts
        the leaves your search evaluates (`leaf_evaluations`, the calls of `utility`) on trees
        with perfect ordering (`ordered_tree`), random ordering (`random_tree`) and the worst
        ordering (the perfect trees with every node's children reversed), for $b = 3$.
        """
    )
    nb.code(
        """
        def leaves_evaluated(game):
            \"\"\"How many leaves your alpha-beta evaluates on the tree `game`.\"\"\"
            counted = CountingGame(game)
            alphabeta_value(counted, counted.initial_state())
            return counted.leaf_evaluations


        def reversed_children(node):
            \"\"\"The same tree with the children of every node in the opposite order.\"\"\"
            if isinstance(node, tuple):
                return [reversed_children(child) for child in reversed(node)]
            return node


        b, depths = 3, list(range(1, 8))
        try:
            perfect = [leaves_evaluated(ordered_tree(b, d, seed=d)) for d in depths]
        except NotImplementedError:
            print("Write alphabeta_value first: this cell uses it.")
        else:
            worst = [
                leaves_evaluated(GameTree(reversed_children(ordered_tree(b, d, seed=d).tree)))
                for d in depths
            ]
            shuffled = [
                leaves_evaluated(random_tree(b, d, low=0, high=10 * b**d, seed=d, distinct=True))
                for d in depths
            ]
            knuth_moore = [b ** math.ceil(d / 2) + b ** (d // 2) - 1 for d in depths]
            figure, axes = plt.subplots(figsize=(7, 4.5))
            axes.plot(depths, [b**d for d in depths], "k-", label="$b^d$ (minimax)")
            axes.plot(depths, [b ** (3 * d / 4) for d in depths], "k:", label="$b^{3d/4}$")
            axes.plot(depths, knuth_moore, "k--", label="Knuth-Moore (perfect ordering)")
            axes.plot(depths, worst, "o", label="yours, worst ordering")
            axes.plot(depths, shuffled, "s", label="yours, random ordering")
            axes.plot(depths, perfect, "^", label="yours, perfect ordering")
            axes.set_yscale("log")
            axes.set_xlabel("depth d")
            axes.set_ylabel("leaves evaluated")
            axes.set_title(f"Alpha-beta on uniform trees, b = {b}")
            axes.legend()
            plt.show()
            for d, yours, bound in zip(depths, perfect, knuth_moore):
                assert yours == bound, (
                    f"with perfect ordering at depth {d} your search evaluated {yours} leaves; "
                    f"Knuth and Moore's formula says exactly {bound}: does every node stop as "
                    "soon as alpha >= beta, and are children given the current alpha and beta?"
                )
            print("With perfect ordering your search meets Knuth and Moore's formula exactly.")
        """
    )
    nb.markdown(
        """
        Read the plot on its logarithmic scale: the perfect-ordering line climbs at half the
        slope of $b^d$, so alpha-beta with good ordering searches about twice as deep as
        minimax in the same time. With the worst ordering it saves almost nothing.
        """
    )
    nb.hidden_tests(rule_ids)
    return nb


# ----------------------------------------------------------------------------------------------
# Assignment 3: depth-limited search and evaluation.
# ----------------------------------------------------------------------------------------------


def path_score(path: tuple[int, ...]) -> int:
    """A made-up evaluation of a tree node: a number that depends on the path to the node.

    It is not symmetric in the players, and it scores finished games differently from their
    utility, so a search that asks it at the wrong place gets a different value.
    """
    return (sum((i + 2) * (a + 3) for i, a in enumerate(path)) * 29 + 7) % 31 - 15


def open_lines(state: str) -> float:
    """A made-up evaluation of a tic-tac-toe position, from X's point of view.

    Each line X can still complete counts 2, each line O can still complete -1, in twentieths.
    """
    from games.tictactoe import LINES

    x_open = sum(1 for line in LINES if all(state[square] != "O" for square in line))
    o_open = sum(1 for line in LINES if all(state[square] != "X" for square in line))
    return (2 * x_open - o_open) / 20


DEPTH_TREE = GameTree([[3, [0, -4]], [[6, -2], 0], [[-5, [1, 8]], 2]])
DEPTH_TREE_MIN = GameTree([[[2, -7], [0, 4]], [-3, [9, 0, -1]], [0, [5, -6]]], root_player=MIN)
DEPTH_TTT = TicTacToe.from_picture("XO.\n...\n...")


def depth_limited_value_checks() -> list[Check]:
    tree, tree_min = DEPTH_TREE, DEPTH_TREE_MIN
    return [
        Check("value", "depth 0 is the evaluation of the root", tree, (), 0, path_score),
        Check("value", "depth 1", tree, (), 1, path_score),
        Check("value", "depth 2 (a finished game inside the horizon)", tree, (), 2, path_score),
        Check("value", "depth 3 (utility 0 at a leaf)", tree, (), 3, path_score),
        Check("value", "MIN to move, depth 1", tree_min, (), 1, path_score),
        Check("value", "MIN to move, depth 2", tree_min, (), 2, path_score),
        Check("value", "a leaf at depth 0 is worth its utility", tree, (2, 1), 0, path_score),
        Check("value", "tic-tac-toe, X to move, depth 2", TTT, DEPTH_TTT, 2, open_lines),
    ]


def depth_limited_decision_checks() -> list[Check]:
    tree, tree_min = DEPTH_TREE, DEPTH_TREE_MIN
    return [
        Check("decision", "depth 1", tree, (), 1, path_score),
        Check("decision", "depth 2", tree, (), 2, path_score),
        Check("decision", "depth 3", tree, (), 3, path_score),
        Check("decision", "MIN to move, depth 2", tree_min, (), 2, path_score),
        Check("decision", "tic-tac-toe, X to move, depth 2", TTT, DEPTH_TTT, 2, open_lines),
        Check("decision", "tic-tac-toe, X to move, depth 3", TTT, DEPTH_TTT, 3, open_lines),
    ]


def heuristic_checks() -> str:
    """The self-check cell of `tictactoe_heuristic`, expected scores from the reference."""
    pictures = {
        "X holds the centre (4 lines)": "...\n.X.\n...",
        "X in a corner, O in the centre": "X..\n.O.\n...",
        "two X in an open row": "XX.\n.O.\n..O",
        "X has won": "XXX\nOO.\n...",
        "O has won": "OX.\nOXX\nO..",
        "a full board, drawn": "XOX\nXOO\nOXX",
    }
    lines = []
    for name, picture in pictures.items():
        state = TicTacToe.from_picture(picture)
        expected = evaluation.tictactoe_heuristic(state)
        shown = picture.replace("\n", "\\n")
        lines.append(
            f'check_call(tictactoe_heuristic, {name!r}, (TicTacToe.from_picture("{shown}"),), '
            f"{expected!r})"
        )
    return "\n".join(lines)


def fast_win_checks() -> str:
    """The self-check cell of `PreferFastWins.utility`."""
    game = evaluation.PreferFastWins(TTT)
    pictures = {
        "X wins after 5 plies": "XXX\nOO.\n...",
        "O wins after 6 plies": "OX.\nOXX\nO..",
        "X wins after 9 plies": "XOX\nOXO\nOXX",
        "a draw": "XOX\nXOO\nOXX",
    }
    lines = ["fast = PreferFastWins(TicTacToe())"]
    for name, picture in pictures.items():
        expected = game.utility(TicTacToe.from_picture(picture))
        shown = picture.replace("\n", "\\n")
        lines.append(
            f'check_call(fast.utility, {name!r}, (TicTacToe.from_picture("{shown}"),), '
            f"{expected!r})"
        )
    return "\n".join(lines)


def fast_win_position() -> str:
    """A position where plain utilities pick a slow win and PreferFastWins the immediate one."""
    from solutions.depth_limited import depth_limited_decision
    from solutions.facts import reachable_states

    fast = evaluation.PreferFastWins(TTT)
    scaled = evaluation.scaled_tictactoe_heuristic
    for state in sorted(reachable_states(TTT), key=lambda s: (-s.count("."), s)):
        if TTT.is_terminal(state) or TTT.to_move(state) != MAX:
            continue
        children = [TTT.result(state, a) for a in TTT.actions(state)]
        wins = [
            a
            for a, child in zip(TTT.actions(state), children, strict=True)
            if TTT.is_terminal(child) and TTT.utility(child) == 1
        ]
        if not wins:
            continue
        plain = depth_limited_decision(TTT, state, 3, scaled)
        preferred = depth_limited_decision(fast, state, 3, scaled)
        if plain not in wins and preferred in wins:
            return state
    raise ValueError("no position shows the difference")


TOURNAMENT_GIVEN = '''
def random_player(seed):
    """A player that picks a legal move at random, reproducibly from `seed`."""
    rng = random.Random(seed)
    return lambda game, state: rng.choice(game.actions(state))


def first_square_player(game, state):
    """A player that always takes the first free square."""
    return game.actions(state)[0]


def move_score_player(game, state):
    """The classic move heuristic without search: the move with the best 1000/100/10/1 score."""
    return max(game.actions(state), key=lambda square: tictactoe_move_score(state, square))


def play(game, x_player, o_player):
    """Play one game; return +1 if X wins, 0 for a draw and -1 if O wins."""
    state = game.initial_state()
    while not game.is_terminal(state):
        player = x_player if game.to_move(state) == MAX else o_player
        state = game.result(state, player(game, state))
    return (game.utility(state) > 0) - (game.utility(state) < 0)


OPPONENTS = {
    "random (10 games a side)": (random_player, 10),
    "first free square": (lambda seed: first_square_player, 1),
    "classic move heuristic": (lambda seed: move_score_player, 1),
}


def tournament(player, game, opponents=OPPONENTS):
    """Play `player` against each opponent as X and as O; return {opponent: (won, drawn, lost)}."""
    table = {}
    for name, (make_opponent, games) in opponents.items():
        tally = {1: 0, 0: 0, -1: 0}
        for seed in range(games):
            tally[play(game, player, make_opponent(seed))] += 1
            tally[-play(game, make_opponent(seed), player)] += 1
        table[name] = (tally[1], tally[0], tally[-1])
    return table
'''


def tournament_results() -> dict:
    """The tournament table of the reference solution (depth 3, scaled heuristic, fast wins)."""
    from solutions.depth_limited import depth_limited_decision

    namespace: dict = {
        "random": __import__("random"),
        "MAX": MAX,
        "tictactoe_move_score": evaluation.tictactoe_move_score,
    }
    exec(compile(textwrap.dedent(TOURNAMENT_GIVEN), "<tournament>", "exec"), namespace)

    def player(game, state):
        return depth_limited_decision(game, state, 3, evaluation.scaled_tictactoe_heuristic)

    return namespace["tournament"](player, evaluation.PreferFastWins(TTT))


def _depth_limited_value(game, state, *args):
    return depth_limited_value(game, state, *args)


def build_depth_limited() -> Builder:
    rule_ids = RULES_OF["depth_limited"]
    nb = Builder("depth_limited")
    nb.markdown(
        """
        # Assignment 3: Depth-limited search and evaluation

        Real games are too large to search to the end. You write

        - `depth_limited_value(game, state, depth, evaluate)`: minimax that stops `depth`
          plies below `state` and scores the positions there with an evaluation function,
        - `depth_limited_decision(game, state, depth, evaluate)`: the best action looking
          `depth` plies ahead,

        then the classic tic-tac-toe evaluation (+1000 / +100 / +10 / +1), a game wrapper that
        prefers quick wins, and you play a small tournament against reference players. Read
        Lecture 4 first.

        <<how_to_work>>

        **How it is graded (<<points>> points).** Hidden tests call your two search functions on
        trees with a made-up evaluation (depths 0 to 3, finished games inside the horizon,
        utilities of 0, MIN to move at the root) and on tic-tac-toe positions with a heuristic.
        The evaluation, the fast-wins wrapper and the tournament are for you: they are not
        graded, but the last two use your search.

        <<table>>
        """,
        how_to_work=HOW_TO_WORK,
        points=f"{grading_points(rule_ids):g}",
        table=grading_table(rule_ids),
    )
    nb.given(
        "depth_limited_setup",
        setup_source(
            modules=("import random",),
            froms=("from collections.abc import Callable", "from typing import Any"),
            after=module_constant(depth_limited, "Evaluation"),
        ),
        collapsed=True,
    )
    nb.markdown(
        """
        ## 1. `depth_limited_value`

        `depth` counts the plies the search may still look ahead:

        - a state where the game is over is worth its `utility`, whatever the depth (the game
          really is over: do not ask the heuristic);
        - otherwise, at `depth == 0` the state is worth `evaluate(state)`, a guess from MAX's
          point of view;
        - otherwise it is the max (MAX to move) or min (MIN to move) of its children, each
          searched with `depth - 1`.

        So `depth_limited_value(game, s, 0, evaluate)` is `evaluate(s)` (or the utility if `s`
        is over), and with depth 1 it backs up the evaluations of the children of `s`.
        Textbook code often counts depth *up* from the root and cuts off when `depth > limit`;
        that looks one ply further than asked here, and the self-checks will say so.

        The self-checks use a made-up evaluation that depends on the path to a node, so that
        every mistake shows in the numbers:
        """
    )
    nb.solution("depth_limited_value", solution_source(depth_limited.depth_limited_value))
    nb.self_check(
        "check_depth_limited_value",
        given_source(path_score, open_lines)
        + "\n\n\n"
        + checks_source(
            "depth_limited_value", depth_limited_value_checks(), _depth_limited_value, run=True
        ),
    )
    nb.markdown(
        """
        ## 2. `depth_limited_decision`

        The decision at depth `d` scores each action by the value of its child searched with
        `d - 1`, so it looks `d` plies ahead in all, and returns the best action for the
        player to move (the first one if several tie). A decision must look at least one ply
        ahead (`depth >= 1`), and a finished game has no move.
        """
    )
    nb.solution("depth_limited_decision", solution_source(depth_limited.depth_limited_decision))
    nb.self_check(
        "check_depth_limited_decision",
        checks_source(
            "depth_limited_decision",
            depth_limited_decision_checks(),
            _depth_limited_value,
            run=True,
        ),
    )
    nb.markdown(
        """
        ## 3. An evaluation for tic-tac-toe

        The classic tic-tac-toe heuristic scores a *move* +1000 for winning, +100 for blocking
        the opponent's win, +10 for making two in a line and +1 for one in a line. A
        depth-limited search needs the same idea as a score of a *position*, from X's (MAX's)
        point of view:

        - +1000 if X has three in a line, -1000 if O has;
        - otherwise, for each of the 8 lines: +1 if it holds one X and no O, +10 if it holds
          two X and no O, -1 and -10 likewise for O, and 0 for a line that is empty or holds
          both marks (nobody can complete it); the score is the sum.

        A block has no term of its own: it turns the opponent's open two (-10) into a dead line
        (0), and a search one ply deeper sees the threat itself as a -1000 win. The helpers
        below are given; write the function after them.
        """
    )
    nb.given(
        "heuristic_helpers",
        "\n\n".join(
            module_constant(evaluation, name)
            for name in ("WIN_SCORE", "HEURISTIC_BOUND", "_OPEN_LINE_SCORES", "_RULES")
        )
        + "\n\n\n"
        + given_source(evaluation._check_board),
    )
    nb.solution("tictactoe_heuristic", solution_source(evaluation.tictactoe_heuristic))
    nb.self_check("check_tictactoe_heuristic", heuristic_checks())
    nb.markdown(
        """
        Utilities of tic-tac-toe are +1, 0 and -1, so a search that mixes them with heuristic
        scores needs the scores scaled below any real win. `scaled_tictactoe_heuristic` (given)
        returns the utility of a finished game and `tictactoe_heuristic(state) / 100`
        otherwise, always strictly between -1 and 1.
        """
    )
    nb.given("scaled_heuristic", given_source(evaluation.scaled_tictactoe_heuristic))
    nb.markdown(
        """
        ## 4. Preferring quick wins

        With utilities of +1 for every win, a win now and a win in five moves look the same to
        the search, and the decision takes whichever comes first in the move order. A player
        that dawdles gives a fallible opponent more chances, and looks silly. The cure is to
        make faster wins (and slower losses) worth more: `PreferFastWins(game)` is the same game
        with

        `utility(s) = game.utility(s) * (horizon + 1 - plies(s))`

        where `plies(s)` is the number of moves played to reach `s` (the marks on the board,
        by default) and `horizon` the longest a game can last (9 for tic-tac-toe). A win after 5
        plies is worth +5, one after 9 plies +1; a loss after 6 plies -4; a draw stays 0. Write
        the `utility` method; everything else is given.
        """
    )
    nb.given("marks_on_board", given_source(evaluation.marks_on_board))
    nb.solution(
        "prefer_fast_wins",
        with_solution_regions(inspect.getsource(evaluation.PreferFastWins), ("utility",)),
    )
    nb.self_check("check_prefer_fast_wins", fast_win_checks())
    state = fast_win_position()
    picture = "\\n".join(state[row : row + 3] for row in (0, 3, 6))
    nb.markdown(
        """
        In the position below X can win at once. Searching three plies ahead with plain
        utilities, the decision finds a move that wins later just as good, and takes it because
        it comes first; with `PreferFastWins` it wins at once.
        """
    )
    nb.code(
        f"""
        state = TicTacToe.from_picture("{picture}")
        print(TicTacToe().display(state))
        try:
            plain = depth_limited_decision(TicTacToe(), state, 3, scaled_tictactoe_heuristic)
            fast = depth_limited_decision(
                PreferFastWins(TicTacToe()), state, 3, scaled_tictactoe_heuristic
            )
        except NotImplementedError:
            print("Write depth_limited_decision, tictactoe_heuristic and PreferFastWins first.")
        else:
            print(f"plain utilities: X plays {{plain}}; faster wins preferred: X plays {{fast}}")
        """
    )
    results = tournament_results()
    rows = "\n".join(
        f"| {name} | {won} | {drawn} | {lost} |" for name, (won, drawn, lost) in results.items()
    )
    nb.markdown(
        """
        ## 5. A small tournament

        Your player below searches three plies with the scaled heuristic and prefers quick
        wins. It plays each reference player as X and as O: a random player (10 games a side,
        seeded), a player that always takes the first free square, and the classic move
        heuristic without search (the move with the best 1000/100/10/1 score). Change the
        depth or the evaluation and see what happens; a depth-1 player, for example, walks
        into forks.
        """
    )
    nb.given(
        "tournament",
        given_source(evaluation.tictactoe_move_score) + "\n\n\n" + TOURNAMENT_GIVEN.strip("\n"),
    )
    nb.code(
        """
        def my_player(game, state):
            return depth_limited_decision(game, state, 3, scaled_tictactoe_heuristic)


        try:
            table = tournament(my_player, PreferFastWins(TicTacToe()))
        except NotImplementedError:
            print("Write depth_limited_decision, tictactoe_heuristic and PreferFastWins first.")
        else:
            print(f"{'opponent':28} {'won':>4} {'drawn':>6} {'lost':>5}")
            for name, (won, drawn, lost) in table.items():
                print(f"{name:28} {won:>4} {drawn:>6} {lost:>5}")
        """
    )
    nb.markdown(
        """
        The reference solution, with the same player, gets:

        | opponent | won | drawn | lost |
        |---|---:|---:|---:|
        <<rows>>

        Your numbers may differ slightly if your functions break ties differently, but a
        three-ply player with this evaluation should never lose.
        """,
        rows=rows,
    )
    nb.hidden_tests(rule_ids)
    return nb


# ----------------------------------------------------------------------------------------------
# Assignment 4: bug hunt.
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bug:
    """A graded function, a version of it with mistakes that circulate, and the model answer."""

    function: Callable
    buggy: str
    mistakes: int
    model_answer: str


BUGS = (
    Bug(
        minimax.minimax_value,
        '''
def buggy_minimax_value(game, state):
    """Return the minimax value of `state` from MAX's point of view."""
    if game.is_terminal(state):
        return game.utility(state)
    best = 0
    for action in game.actions(state):
        best = max(best, buggy_minimax_value(game, game.result(state, action)))
    return best
''',
        2,
        """
        1. The running value starts at 0 instead of minus infinity. When every child of a MAX
           node is negative, `max(0, ...)` stays 0: the tree whose leaves are all negative is
           worth 0 instead of -6.
        2. Every node maximises: `to_move` is never asked, so a MIN node takes the largest
           child too. Any tree where MIN's choice matters shows it: the classic tree gives 14
           instead of 3.

        The fix starts MAX nodes at minus infinity (or simply takes the max of the children's
        values) and takes the min at MIN nodes.
        """,
    ),
    Bug(
        minimax.minimax_decision,
        '''
def buggy_minimax_decision(game, state):
    """Return an optimal action for the player to move in `state`."""
    children = [game.result(state, action) for action in game.actions(state)]
    # the children belong to the opponent, so use the opponent's rule on them
    pick = min if game.to_move(state) == MAX else max
    return pick([(minimax_value(game, child), child) for child in children])[1]
''',
        2,
        """
        1. The rule is the wrong way round: a MAX root takes the child with the *smallest*
           value. The children's values already account for the opponent's replies; the player
           to move chooses among them by its own rule (max for MAX, min for MIN). On the classic
           tree it picks a move worth 2 instead of 3.
        2. It returns the child state (the second item of the pair), not the action. A decision
           must be one of `game.actions(state)`: on a tree it returns a path such as `(1,)`
           instead of the index 1. (Comparing `(value, state)` pairs also breaks ties by
           comparing states, which means nothing.)

        The fix loops over the actions and keeps the first action whose child is strictly
        better for the player to move.
        """,
    ),
    Bug(
        alphabeta.alphabeta_value,
        '''
def buggy_alphabeta_value(game, state, alpha=math.inf, beta=-math.inf):
    """Return the minimax value of `state`, pruning with the window (`alpha`, `beta`)."""
    if game.is_terminal(state):
        return game.utility(state)
    children = [game.result(state, action) for action in game.actions(state)]
    if game.to_move(state) == MAX:
        value = -math.inf
        for child in children:
            value = max(value, buggy_alphabeta_value(game, child, alpha, beta))
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return value
    value = math.inf
    for child in children:
        value = min(value, buggy_alphabeta_value(game, child, alpha, beta))
    return value
''',
        3,
        """
        1. The default window is swapped: with `alpha = +inf` and `beta = -inf`, `value >= beta`
           holds after the first child, so every MAX node returns its first child's value and
           the values are wrong (the classic tree and the negative tree show it).
        2. The MIN branch never cuts off and never lowers beta: the values are right, but MIN
           nodes prune nothing, and their children get a window that is too wide, so the search
           generates far more states than the reference (the tree without ties shows it).
        3. All children are generated before the loop, so a cut-off saves no generation work:
           `game.result` has already been called for the children that are then skipped. The
           values are right; only the state count shows it.

        The fix defaults to `alpha = -inf, beta = +inf`, makes the MIN branch stop when
        `value <= alpha` and otherwise lower `beta`, and calls `game.result` inside the loop.
        """,
    ),
    Bug(
        alphabeta.alphabeta_decision,
        '''
def buggy_alphabeta_decision(game, state):
    """Return an optimal action for the player to move, searching with alpha-beta."""
    maximising = game.to_move(state) == MAX
    best_value = -math.inf if maximising else math.inf
    best_action = None
    for action in game.actions(state):
        value = alphabeta_value(game, game.result(state, action))
        if (maximising and value > best_value) or (not maximising and value < best_value):
            best_value = value
        best_action = action
    return best_action
''',
        2,
        """
        1. Each root child is searched with a fresh window (the defaults of `alphabeta_value`)
           instead of the best value found so far: the move would be right, but the root prunes
           nothing, and the check that counts the decision's states fails.
        2. `best_action = action` runs after every child, not only when the child is better:
           the function returns the last action examined. The classic tree, whose best move is
           the first, shows it.

        The fix passes `alpha` and `beta` to each child, and after each child raises alpha (MAX
        root) or lowers beta (MIN root) and records the action only when the child is strictly
        better.
        """,
    ),
    Bug(
        depth_limited.depth_limited_value,
        '''
def buggy_depth_limited_value(game, state, depth, evaluate, ply=0):
    """Return the minimax value of `state` searched `depth` plies ahead."""
    if depth == 0:
        score = evaluate(state)
        return -score if ply % 2 == 1 else score
    if game.is_terminal(state):
        return game.utility(state)
    values = [
        buggy_depth_limited_value(game, game.result(state, action), depth - 1, evaluate, ply + 1)
        for action in game.actions(state)
    ]
    return max(values) if game.to_move(state) == MAX else min(values)
''',
        2,
        """
        1. The horizon is tested before the end of the game, so a finished game at the horizon
           is scored by the heuristic instead of its utility (a leaf searched at depth 0 shows
           it). The game is really over there: its utility is exact.
        2. The evaluation is negated at odd plies, as if it scored the position for the player
           to move. It scores from MAX's point of view at every ply; the max and min of
           minimax already take care of whose turn it is.

        The fix tests `is_terminal` first and returns `evaluate(state)` unchanged at depth 0.
        """,
    ),
    Bug(
        depth_limited.depth_limited_decision,
        '''
def buggy_depth_limited_decision(game, state, depth, evaluate):
    """Return the best action looking `depth` plies ahead (depth >= 1)."""
    maximising = game.to_move(state) == MAX
    best_value = -1 if maximising else 1
    best_action = None
    for action in game.actions(state):
        value = depth_limited_value(game, game.result(state, action), depth, evaluate)
        if (maximising and value > best_value) or (not maximising and value < best_value):
            best_action, best_value = action, value
    return best_action
''',
        2,
        """
        1. Each child is searched with `depth` instead of `depth - 1`, so the decision looks one
           ply further than asked. It is the textbook convention (count depth up from the root,
           whose children are at depth 1) mixed with ours (count the plies still allowed); the
           depth-1 check shows it.
        2. The best value starts at -1 (+1 for MIN) instead of minus (plus) infinity. That works
           while every value lies in -1..1, as tic-tac-toe's utilities do, but with an
           evaluation beyond it no child may beat the start and the function returns `None`.

        The fix searches the children with `depth - 1` and starts from the first child's value
        (or from infinity).
        """,
    ),
)

CHECKS = {
    "minimax_value": (minimax_value_checks, _minimax_value),
    "minimax_decision": (minimax_decision_checks, _minimax_value),
    "alphabeta_value": (alphabeta_value_checks, _alphabeta_value),
    "alphabeta_decision": (alphabeta_decision_checks, _alphabeta_value),
    "depth_limited_value": (depth_limited_value_checks, _depth_limited_value),
    "depth_limited_decision": (depth_limited_decision_checks, _depth_limited_value),
}


def build_bug_hunt() -> Builder:
    rule_ids = RULES_OF["bug_hunt"]
    nb = Builder("bug_hunt")
    manual = sum(2 * bug.mistakes for bug in BUGS)
    nb.markdown(
        """
        # Assignment 4: Bug hunt

        Each part below shows a version of one of the six search functions as it circulates in
        published code and pseudo-code, with one to three mistakes in it. For each part:

        1. **find** the mistakes: run the self-checks on the buggy version (the `explore` cell
           prints the first check it fails, with a hint), try your own small cases, read the
           code next to the lecture's pseudo-code;
        2. **explain** them in the answer cell: what is wrong, on which kind of position it
           shows, and why (graded by your instructor, 2 points per mistake);
        3. **fix** them: write the corrected function, under its real name, in the cell that
           says `# YOUR CODE HERE` (you may start from a copy of the buggy body).

        The buggy decisions call the value functions under their real names, so fix each value
        function before its decision. Do Assignments 1 to 3 first.

        <<how_to_work>>

        **How it is graded (<<points>> points for the fixes, <<manual>> for the explanations).**
        The fixed functions are graded by the same hidden tests as in Assignments 1 to 3:

        <<table>>
        """,
        how_to_work=HOW_TO_WORK,
        points=f"{grading_points(rule_ids):g}",
        manual=f"{manual:g}",
        table=grading_table(rule_ids),
    )
    nb.given(
        "bug_hunt_setup",
        setup_source(
            froms=("from collections.abc import Callable",),
            games=("random_tree",),
            after=module_constant(depth_limited, "Evaluation"),
        ),
        collapsed=True,
    )
    nb.given(
        "bug_hunt_helpers",
        given_source(minimax._require_a_move, path_score, open_lines),
    )
    for number, bug in enumerate(BUGS, start=1):
        name = bug.function.__name__
        checks, value_function = CHECKS[name]
        plural = "mistake" if bug.mistakes == 1 else "mistakes"
        nb.markdown(
            f"""
            ## {number}. `{name}`: {bug.mistakes} {plural}
            """
        )
        nb.given(f"buggy_{name}", bug.buggy)
        nb.given(f"check_{name}", checks_source(name, checks(), value_function, run=False))
        nb.code(f"explore(check_{name}, buggy_{name})")
        nb.markdown(f"**Your explanation** of the {bug.mistakes} {plural} in `buggy_{name}`:")
        nb.answer(f"explain_{name}", 2 * bug.mistakes, bug.model_answer)
        nb.markdown(f"**Your fix**: `{name}`, with every mistake corrected.")
        nb.solution(name, solution_source(bug.function))
        nb.self_check(f"run_check_{name}", f"check_{name}({name})")
    nb.hidden_tests(rule_ids)
    return nb


# ----------------------------------------------------------------------------------------------
# Writing.
# ----------------------------------------------------------------------------------------------

BUILDERS: dict[str, Callable[[], Builder]] = {
    "minimax": build_minimax,
    "alphabeta": build_alphabeta,
    "depth_limited": build_depth_limited,
    "bug_hunt": build_bug_hunt,
}


def notebook_path(assignment: str) -> Path:
    return SOURCE / assignment / f"{assignment}.ipynb"


def notebook_text(assignment: str) -> str:
    """The source notebook of `assignment`, as the exact text written to disk."""
    return nbformat.writes(BUILDERS[assignment]().notebook()) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=list(BUILDERS), help="which ones")
    parser.add_argument("--check", action="store_true", help="only check they are up to date")
    args = parser.parse_args(argv)
    stale = []
    for assignment in args.assignments:
        path = notebook_path(assignment)
        text = notebook_text(assignment)
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent)}")
    if args.check and stale:
        print("out of date (run python assignments/make_assignments.py):")
        for path in stale:
            print(f"  {path.relative_to(HERE.parent)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
