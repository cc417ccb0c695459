"""Every command that takes --out refuses one it cannot use in one line on stderr (exit 2), as
it refuses any other bad setting: never a traceback, and nothing written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from autograder.cli import main

CLASS = Path(__file__).resolve().parents[1] / "examples" / "class"
AGENTS = [str(CLASS / "alice_correct.ipynb"), str(CLASS / "yves_empty.ipynb")]


def _command(name: str, out: Path) -> list[str]:
    if name == "export":
        return ["export", "--format", "canvas", "--out", str(out)]
    return [name, *AGENTS, "--out", str(out)]


def _out(tmp_path: Path, kind: str) -> Path:
    """An --out that cannot be used, and the one reason it says."""
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    (tmp_path / "gone").symlink_to(tmp_path / "missing")
    return {
        "under_a_file": tmp_path / "notes.txt" / "out",
        "a_file": tmp_path / "notes.txt",
        "under_a_broken_link": tmp_path / "gone" / "out",
    }[kind]


@pytest.mark.parametrize("command", ["grade", "similarity", "tournament", "export"])
@pytest.mark.parametrize("kind", ["under_a_file", "a_file", "under_a_broken_link"])
def test_an_out_that_cannot_be_used_is_refused_in_one_line(
    tmp_path: Path, capsys, command: str, kind: str
) -> None:
    out = _out(tmp_path, kind)
    before = sorted(tmp_path.rglob("*"))
    assert main(_command(command, out)) == 2
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0] and str(out) in lines[0], printed.err
    assert "Traceback" not in printed.err and printed.out == ""
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
@pytest.mark.parametrize("command", ["grade", "similarity", "tournament"])
def test_an_out_in_a_folder_of_another_user_is_refused_in_one_line(
    tmp_path: Path, capsys, command: str
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert main(_command(command, locked / "out")) == 2
    finally:
        locked.chmod(0o700)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "is not writable by this user" in lines[0]
