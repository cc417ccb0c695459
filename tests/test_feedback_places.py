"""A crash names its place: the student's function, cell, line number and the line itself, in the
grader's feedback (from the sandbox) and in the notebook's checks (from the kernel)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from autograder.grading.grade import Settings, grade
from autograder.grading.judge import Case, Outcome, failure_text, judge, number_text
from autograder.grading.load import Submission, load
from autograder.platforms import nbgrader_export
from autograder.sandbox import Limits, build_import_view
from games import ConnectFour, GameTree, TicTacToe

CRASHES = """
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = []
    for action in game.actions(state):
        values.append(minimax_value(game, game.result(state, action)))
    return max(values) if game.to_move(state) == "MAX" else max([])


def minimax_decision(game, state):
    return game.actions(state)[0]
"""
LINE = 'return max(values) if game.to_move(state) == "MAX" else max([])'


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_import_view(tmp_path_factory.mktemp("view"))


def _lost(view: Path, folder: Path, name: str, source: str) -> list:
    """The lost verdicts of `source`'s minimax_value, graded by the grader."""
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    submission = Submission(name, (path,))
    settings = Settings(Limits(isolation="process"), view, rule_ids=("minimax_value",))
    record = grade(submission, load(submission), settings)
    return [v for r in record.rules for g in r.groups for v in g.verdicts if not v.passed]


def test_the_grader_names_the_students_cell_line_and_code_for_a_crash(
    view: Path, tmp_path: Path
) -> None:
    hints = {verdict.hint for verdict in _lost(view, tmp_path, "crash", CRASHES)}
    assert hints, "the crashing search must lose points"
    place = f"the error happened in minimax_value (code cell 1, line 8): {LINE}"
    assert place in hints


def test_a_crash_deep_in_a_helper_names_the_helpers_line(view: Path, tmp_path: Path) -> None:
    source = CRASHES.replace("max([])", "_helper()") + "\n\ndef _helper():\n    return 1 // 0\n"
    hints = {verdict.hint for verdict in _lost(view, tmp_path, "helper", source)}
    assert "the error happened in _helper (code cell 1, line 16): return 1 // 0" in hints


def test_the_notebooks_checks_name_the_line_in_the_kernel(tmp_path: Path) -> None:
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    cell = tmp_path / "ipykernel_1" / "cell.py"  # a kernel's cells are files linecache reads
    cell.parent.mkdir()
    cell.write_text(textwrap.dedent(CRASHES), encoding="utf-8")
    exec(compile(cell.read_text(), str(cell), "exec"), namespace)
    game = TicTacToe()
    outcome = namespace["call_function"](namespace["minimax_value"], game, "XOXOXO...")
    assert outcome.status == "raised" and outcome.error.startswith("ValueError")
    assert outcome.where == f"minimax_value (line 8 of its cell): {LINE}"


def test_without_a_place_the_hint_stays_general() -> None:
    got, hint = failure_text(Outcome("raised", error="ValueError: boom"))
    assert got == "raised ValueError: boom"
    assert hint == "the error happened inside your function"
    got, hint = failure_text(Outcome("raised", error="ValueError: boom", where="f (x): y"))
    assert hint == "the error happened in f (x): y"


UTILITY_TOO_EARLY = """
def minimax_value(game, state):
    return game.utility(state)


def minimax_decision(game, state):
    return game.actions(state)[0]
"""


def test_an_error_about_a_state_shows_the_position_not_the_graders_token(
    view: Path, tmp_path: Path
) -> None:
    got = [verdict.got for verdict in _lost(view, tmp_path, "early", UTILITY_TOO_EARLY)]
    assert got and all("is not terminal" in text for text in got)
    assert not [text for text in got if re.search(r"\d{6,}", text)], got
    assert any("the node () (child indices from the root)" in text for text in got)
    assert any(re.search(r"the position [XO.]{3}/[XO.]{3}/[XO.]{3} is not", t) for t in got)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (2.4000000000000004, "2.4"),
        (0.1 + 0.2, "0.3"),
        (1 / 3, "0.3333333333333333"),
        (1e-15, "1e-15"),
        (-7, "-7"),
        ((2.4000000000000004, 1, 0.5), "(2.4, 1, 0.5)"),
    ],
)
def test_an_expected_value_is_shown_without_float_noise(value, shown: str) -> None:
    assert number_text(value) == shown
    case = Case(1, "a chance node", value=value)
    kind = "vector" if isinstance(value, tuple) else "value"
    verdict = judge(kind, "f", case, Outcome("returned", "not a number"))
    assert verdict.expected == shown


EVERY_LEVEL_MAXIMISES = """
import math


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    return max(minimax_value(game, game.result(state, a)) for a in game.actions(state))


def minimax_decision(game, state):
    best, best_value = None, -math.inf
    for action in game.actions(state):
        value = minimax_value(game, game.result(state, action))
        if value > best_value:
            best, best_value = action, value
    return best
"""


def test_a_self_check_blames_the_value_function_a_right_decision_picks_by() -> None:
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.self_check_helpers_source(), namespace)
    exec(EVERY_LEVEL_MAXIMISES, namespace)
    tree = GameTree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    with pytest.raises(AssertionError) as failed:
        namespace["check_decision"](
            namespace["minimax_decision"], "the classic tree", tree, (), (0,), [3, 2, 2]
        )
    message = str(failed.value)
    own = "your decision is right for the values minimax_value returns; fix minimax_value"
    assert own in message
    assert "{0: 12, 1: 6, 2: 14}, where their values are {0: 3, 1: 2, 2: 2}" in message
    assert "max/min" not in message


def test_the_toolkits_own_errors_show_the_position_not_the_value_behind_it() -> None:
    game = ConnectFour()
    state = ConnectFour.from_moves("4453")
    with pytest.raises(ValueError, match="is not terminal") as raised:
        game.utility(state)
    assert "ConnectFourState(" not in str(raised.value)
    assert "the position " in str(raised.value) and "/. . O X X . ./" in str(raised.value)
    with pytest.raises(ValueError, match=r"action 0 is not legal in the position XO\./\.\.\./"):
        TicTacToe().result("XO.......", 0)


# -- a state kept from an earlier call: refused in the kernel as in the grader ------------------

KEEPS_A_STATE = """
KEPT = []


def minimax_value(game, state):
    KEPT.append(state)
    if len(KEPT) > 1 and KEPT[0] != state:
        game.actions(KEPT[0])  # a position of the first call, not reached in this one
    if game.is_terminal(state):
        return game.utility(state)
    values = [_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == "MAX" else min(values)


def _value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_value(game, game.result(state, action)) for action in game.actions(state)]
    return max(values) if game.to_move(state) == "MAX" else min(values)
"""


def test_the_kernel_refuses_a_state_of_an_earlier_call_with_the_graders_words(
    view: Path, tmp_path: Path
) -> None:
    """The sandbox refuses a state this call has not reached; so does the notebook's kernel,
    with the same message, so a self-check and the grader agree on such a search."""
    from autograder.platforms import kernel_calls
    from autograder.sandbox import runner

    assert kernel_calls.NOT_A_STATE == runner._NOT_A_STATE
    namespace: dict = {"__name__": "__main__"}
    exec(nbgrader_export.grading_helpers_source(), namespace)
    exec(KEEPS_A_STATE, namespace)
    game, call = TicTacToe(), namespace["call_function"]
    first = call(namespace["minimax_value"], game, "XOXOXO...")
    again = call(namespace["minimax_value"], game, "XOXOXO...")  # the same root: reached
    other = call(namespace["minimax_value"], game, "XOXOX.O..")
    assert first.status == again.status == "returned"
    assert other.status == "raised" and "is not a state of this game" in other.error
    graded = _lost(view, tmp_path, "keeps", KEEPS_A_STATE)
    assert graded and any("is not a state of this game" in v.got for v in graded)


# -- the cause before its effects: a cell that did not run -----------------------------------

SECOND_CELL = """
def minimax_decision(game, state):
    best = max(game.actions(state), key=lambda a: minimax_value(game, game.result(state, a))
    return best
"""


def test_a_syntax_error_comes_first_on_the_page_in_gradescope_and_on_the_class_page(
    view: Path, tmp_path: Path
) -> None:
    """The cell, line, message and the line itself open the page and Gradescope's output; the
    groups of the function it left undefined point up to it; the class page files the student
    under the syntax error, not under "a function not defined"."""
    import nbformat

    from autograder.grading.grade import feedback
    from autograder.grading.reference import reference_source
    from autograder.platforms.gradescope import gradescope_results
    from autograder.reports.diagnoses import diagnosed

    first = reference_source().split("def minimax_decision")[0]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(first), nbformat.v4.new_code_cell(SECOND_CELL)]
    path = tmp_path / "sybil.ipynb"
    nbformat.write(notebook, path)
    submission = Submission("sybil", (path,))
    settings = Settings(Limits(isolation="process"), view, ("minimax_value", "minimax_decision"))
    record = grade(submission, load(submission), settings)
    page = feedback(record)
    line = "best = max(game.actions(state), key=lambda a: minimax_value(game, game.result(state, a)"
    cause = page.index("First fix this")
    assert cause < page.index("Where points were lost")
    said = page[cause : page.index("</div>", cause)]
    assert "code cell 2, line 3 of sybil.ipynb has a syntax error" in said
    assert line in said.replace("&#x27;", "'")
    assert "minimax_decision is not defined (a cell did not run: see above)" in page
    assert diagnosed(record) == {"a code cell with a syntax error"}
    output = gradescope_results(record, page, "visible", "text")["output"]
    assert output.startswith("First fix this") and "code cell 2, line 3" in output.splitlines()[1]
