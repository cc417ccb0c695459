"""The command imports only what its subcommand needs: `python -m autograder grade` and
`--help` never load nbformat (and its jsonschema, a second of start-up), nbgrader, jinja2,
copydetect, openskill or matplotlib; `import autograder.cli` loads no job at all.

Which modules, not how long: the time is the benchmark's (`benchmarks/bench_grading.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.cli import COMMANDS, build_parser

REPO = Path(__file__).resolve().parents[1]
ALICE = REPO / "examples" / "class" / "alice_correct.ipynb"

HEAVY = ("nbformat", "jsonschema", "nbgrader", "jinja2", "copydetect", "openskill", "matplotlib")
"""Libraries only some commands use, each tenths of a second (jsonschema's format checkers
over a second) to import."""


def loaded_after(code: str, tmp_path: Path) -> set[str]:
    """The top-level names of the modules loaded in a fresh interpreter after running `code`."""
    record = tmp_path / "modules.json"
    script = (
        f"{code}\nimport json, sys\nopen({str(record)!r}, 'w').write(json.dumps(list(sys.modules)))"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert record.exists(), run.stdout + run.stderr
    return {name.split(".")[0] for name in json.loads(record.read_text())} | set(
        json.loads(record.read_text())
    )


def _commands(parser) -> dict:
    """The subcommands' own parsers, by name."""
    (subparsers,) = [a for a in parser._actions if a.dest == "command"]
    return subparsers.choices


def test_a_commands_own_parser_is_the_one_the_whole_command_line_holds() -> None:
    whole = _commands(build_parser())
    assert tuple(dict.fromkeys(whole)) == COMMANDS  # --help lists them in this order
    for command in COMMANDS:
        alone = _commands(build_parser(command))
        assert command in alone
        assert alone[command].format_help() == whole[command].format_help()


def test_importing_the_command_layer_loads_no_job(tmp_path: Path) -> None:
    loaded = loaded_after("import autograder.cli", tmp_path)
    jobs = sorted(n for n in loaded if n.startswith("autograder.") and n != "autograder.cli")
    assert jobs == []
    assert not loaded & {*HEAVY, "rich"}


def test_help_loads_none_of_the_heavy_libraries(tmp_path: Path) -> None:
    code = (
        "import contextlib, io\nfrom autograder.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as shown:\n"
        "    assert main(['--help']) == 0\n"
        "assert 'tournament' in shown.getvalue()"
    )
    loaded = loaded_after(code, tmp_path)
    assert sorted(loaded & set(HEAVY)) == []


@pytest.mark.parametrize("command", ["grade", "tournament", "export"])
def test_a_commands_help_loads_only_its_own_job(command: str, tmp_path: Path) -> None:
    code = (
        "import contextlib, io\nfrom autograder.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main([{command!r}, '--help']) == 0"
    )
    loaded = loaded_after(code, tmp_path)
    assert sorted(loaded & set(HEAVY)) == []
    if command != "tournament":
        assert "autograder.contest.tournament" not in loaded
    assert "autograder.platforms.nbgrader_import" not in loaded


def test_a_plain_grade_loads_none_of_the_heavy_libraries(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = (
        "from autograder.cli import main\n"
        f"assert main(['grade', {str(ALICE)!r}, '--out', {str(out)!r}, '--workers', '1', "
        "'--quiet', '--isolation', 'process']) == 0"
    )
    loaded = loaded_after(code, tmp_path)
    assert (out / "grades.csv").read_text().count("\n") == 2  # alice was graded
    assert sorted(loaded & set(HEAVY)) == []
    assert "autograder.contest.tournament" not in loaded
