"""Playing in the terminal: scripted games against alpha-beta, bad input, and the command line."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from games import MAX, MIN, Nim, TicTacToe
from games.__main__ import main
from games.play import load_agent, parse_action, play, with_depth
from solutions.alphabeta import alphabeta_decision
from solutions.depth_limited import depth_limited_decision

ROOT = Path(__file__).resolve().parents[1]


def scripted(lines: Iterable[str]) -> Callable[[str], str]:
    """Return an input function that types `lines`, then hits end of input."""
    remaining = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(remaining)
        except StopIteration:
            raise EOFError from None

    return read


def run(game, lines: Iterable[str], first: str = "human", agent=alphabeta_decision):
    output: list[str] = []
    record = play(game, agent, first=first, input_fn=scripted(lines), output=output.append)
    return record, "\n".join(output)


def test_alphabeta_beats_a_human_who_plays_badly() -> None:
    record, text = run(TicTacToe(), ["1", "3", "5", "7"])
    assert record.finished and record.human == MAX
    assert TicTacToe().utility(record.final_state) == -1
    assert record.moves[::2] == (1, 3, 5, 7)
    assert text.endswith("The agent wins (MIN, utility -1 for MAX).")


def test_the_human_sees_a_timed_recommendation_and_the_agent_its_timed_moves() -> None:
    _, text = run(TicTacToe(), ["1", "3", "5", "7"])
    assert re.search(r"agent recommends \d \(\d+\.\d{3} s\)", text)
    assert len(re.findall(r"agent plays \d \(\d+\.\d{3} s\)", text)) == 4
    assert "Your turn (MAX). Legal moves: 0, 1, 2, 3, 4, 5, 6, 7, 8" in text
    assert "...\n...\n..." in text  # the empty board was displayed


def test_the_recommendation_is_what_alphabeta_would_play() -> None:
    _, text = run(TicTacToe(), [])
    assert f"agent recommends {alphabeta_decision(TicTacToe(), '.' * 9)} " in text


def test_illegal_and_garbage_input_asks_again() -> None:
    record, text = run(TicTacToe(), ["9", "x", "4"])
    assert "9 is not a legal move here. Legal moves: 0, 1, 2" in text
    assert "Could not read 'x' as a move. Legal moves: 0, 1, 2" in text
    assert record.moves[0] == 4


def test_an_occupied_square_is_refused() -> None:
    record, text = run(TicTacToe(), ["4", "4", "8"])
    assert "4 is not a legal move here" in text
    assert record.moves[0::2] == (4, 8)


def test_an_empty_line_plays_the_recommendation() -> None:
    record, _ = run(TicTacToe(), [""])
    assert record.moves[0] == alphabeta_decision(TicTacToe(), "." * 9)


@pytest.mark.parametrize("interruption", [EOFError, KeyboardInterrupt])
def test_end_of_input_or_ctrl_c_ends_the_game_politely(interruption: type) -> None:
    def read(prompt: str) -> str:
        raise interruption

    output: list[str] = []
    record = play(TicTacToe(), alphabeta_decision, input_fn=read, output=output.append)
    assert not record.finished and record.moves == ()
    assert output[-1] == "Game ended before the finish. Thanks for playing!"


def test_quit_ends_the_game_after_some_moves() -> None:
    record, text = run(TicTacToe(), ["4", "quit"])
    assert not record.finished and len(record.moves) == 2
    assert text.endswith("Thanks for playing!")


def test_the_agent_can_move_first() -> None:
    record, text = run(TicTacToe(), [str(square) for square in range(9)], first="agent")
    assert record.human == MIN and record.finished
    assert text.index("agent plays") < text.index("agent recommends")


def test_nim_moves_are_heap_count_pairs() -> None:
    record, text = run(Nim((1, 3, 5)), ["1 2", "7 7", "0,1"])
    assert record.moves[0] == (1, 2)
    assert "(7, 7) is not a legal move here" in text
    assert re.search(r"agent recommends \(\d, \d\)", text)


def test_nim_against_alphabeta_to_the_end() -> None:
    # Emptying heap 1 leaves (1, 0, 1), a lost position for the agent to move.
    record, text = run(Nim((1, 2, 1)), ["1 2", ""])
    assert record.finished and record.moves[0] == (1, 2)
    assert text.endswith("You win (MAX, utility 1 for MAX).")


def test_an_agent_that_returns_an_illegal_move_is_reported() -> None:
    with pytest.raises(ValueError, match="not a legal move"):
        run(TicTacToe(), ["4"], agent=lambda game, state: 4)


def test_first_must_be_human_or_agent() -> None:
    with pytest.raises(ValueError, match="first"):
        run(TicTacToe(), [], first="MAX")


@pytest.mark.parametrize(
    ("text", "action"),
    [("4", 4), (" 7 ", 7), ("1 2", (1, 2)), ("1,2", (1, 2)), ("(1, 2)", (1, 2)), ("[0 3]", (0, 3))],
)
def test_parse_action_reads_numbers_and_pairs(text: str, action) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize("text", ["x", "4.5", "True", "", "1 two", "(((("])
def test_parse_action_refuses_anything_else(text: str) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        parse_action(text)


def test_load_agent_imports_module_function() -> None:
    assert load_agent("solutions:alphabeta_decision") is alphabeta_decision
    assert load_agent("solutions.alphabeta:alphabeta_decision") is alphabeta_decision


def test_load_agent_reads_a_student_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text("def first_move(game, state):\n    return game.actions(state)[0]\n")
    agent = load_agent(f"{path}:first_move")
    assert agent(TicTacToe(), "." * 9) == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("alphabeta_decision", "module:function"),
        ("no_such_module_here:f", "cannot import"),
        ("solutions:no_such_function", "has no function"),
    ],
)
def test_load_agent_explains_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_agent(spec)


def test_with_depth_passes_depth_and_evaluation() -> None:
    agent = with_depth(depth_limited_decision, 1, lambda state: 0)
    assert agent(TicTacToe(), "XX.OO....") == 2


def test_command_line_game_runs_to_the_end() -> None:
    moves = "".join(f"{square}\n" for square in range(9))
    run_ = subprocess.run(
        [sys.executable, "-m", "games", "play", "tictactoe", "--first", "agent"],
        input=moves,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run_.returncode == 0, run_.stderr
    assert "agent plays 0" in run_.stdout
    assert "The agent wins" in run_.stdout or "Draw." in run_.stdout


def test_command_line_ends_politely_when_input_runs_out(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 1\n"))
    assert main(["play", "nim"]) == 0
    out = capsys.readouterr().out
    assert "heap count" in out and "Thanks for playing!" in out


def test_command_line_reports_a_bad_agent(capsys) -> None:
    assert main(["play", "tictactoe", "--agent", "no_such_module_here:f"]) == 2
    assert "cannot import 'no_such_module_here'" in capsys.readouterr().err


def test_command_line_with_depth_uses_the_depth_limited_agent(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "tictactoe", "--depth", "2", "--first", "agent"]) == 0
    assert "looks 2 plies ahead" in capsys.readouterr().out


def test_command_line_connect_four_searches_a_few_plies(monkeypatch, capsys) -> None:
    pytest.importorskip("games.connect_four")
    monkeypatch.setattr(sys, "stdin", io.StringIO("4\n9\n"))
    assert main(["play", "connect4"]) == 0
    out = capsys.readouterr().out
    assert "looks 4 plies ahead" in out
    assert "9 is not a legal move here. Legal moves: 1, 2, 3, 4, 5, 6, 7" in out
    assert MAX in out


STUDENT_AGENTS = """
def crashing_decision(game, state):
    values = []
    return max(values)


def minimax_value(game, state):
    return 0


def float_decision(game, state):
    return 0.0


def depth_limited_decision(game, state, depth, evaluate):
    print(f"called with depth {depth}, evaluation {evaluate(state)!r}")
    return game.actions(state)[0]


def connect_four_agent(game, state, seconds):
    print(f"called with {seconds!r} seconds")
    return game.actions(state)[0]
"""


@pytest.fixture
def student_file(tmp_path: Path) -> Path:
    path = tmp_path / "mycode.py"
    path.write_text(STUDENT_AGENTS, encoding="utf-8")
    return path


def test_an_agent_that_raises_is_one_line_with_its_own_line_of_code(
    student_file: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "tictactoe", "--agent", f"{student_file}:crashing_decision"]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "Traceback" not in err
    expected = "ValueError: max() arg is an empty sequence in crashing_decision (mycode.py, line"
    assert expected in err and ": return max(values)" in err


def test_a_value_function_is_refused_as_an_agent(student_file: Path, capsys) -> None:
    assert main(["play", "tictactoe", "--agent", f"{student_file}:minimax_value"]) == 2
    err = capsys.readouterr().err
    assert "minimax_value returns a value, not an action" in err
    assert "minimax_decision" in err


def test_a_number_that_is_no_move_is_never_played_as_a_square(
    student_file: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "tictactoe", "--agent", f"{student_file}:float_decision"]) == 1
    err = capsys.readouterr().err
    assert "recommended 0.0, which is not a legal move here" in err
    assert "looks like a value, not an action" in err


def test_your_own_connect_four_agent_keeps_the_default_depth_and_the_games_evaluation(
    student_file: Path, monkeypatch, capsys
) -> None:
    pytest.importorskip("games.connect_four")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    spec = f"{student_file}:depth_limited_decision"
    assert main(["play", "connect4", "--agent", spec, "--first", "agent"]) == 0
    out = capsys.readouterr().out
    assert "looks 4 plies ahead" in out
    assert "called with depth 4, evaluation 0.0" in out  # ConnectFour.evaluate, not a zero


def test_a_contest_agent_is_called_with_its_seconds(
    student_file: Path, monkeypatch, capsys
) -> None:
    pytest.importorskip("games.connect_four")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    spec = f"{student_file}:connect_four_agent"
    assert main(["play", "connect4", "--agent", spec, "--seconds", "0.5", "--first", "agent"]) == 0
    out = capsys.readouterr().out
    assert "The agent has 0.5 s a move." in out and "agent plays 1" in out
    assert "called with 0.5 seconds" in out


def test_load_agent_runs_a_notebook_and_takes_its_function(tmp_path: Path) -> None:
    """`--agent mycourse/minimax.ipynb:minimax_decision`: the notebook's code cells run in
    order, a failing cell (a self-check, a shell line) does not stop the rest."""
    import json

    cells = [
        {"cell_type": "markdown", "source": "# my notebook", "metadata": {}},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "!ls\n", "LAST = -1"],
         "metadata": {}, "outputs": [], "execution_count": None},
        {"cell_type": "code", "source": "assert False, 'a failing self-check'",
         "metadata": {}, "outputs": [], "execution_count": None},
        {"cell_type": "code", "source": "def last_move(game, state):\n"
         "    print('thinking')\n    return game.actions(state)[LAST]\n",
         "metadata": {}, "outputs": [], "execution_count": None},
    ]  # fmt: skip
    path = tmp_path / "minimax.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}), encoding="utf-8")  # fmt: skip
    agent = load_agent(f"{path}:last_move")
    assert agent(TicTacToe(), "." * 9) == 8
    with pytest.raises(ValueError, match="code cell 2 failed: AssertionError"):
        load_agent(f"{path}:minimax_decision")
