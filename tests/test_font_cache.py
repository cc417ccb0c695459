"""matplotlib's font cache for the submissions: copied at once when it is fresh, else built by a
process of its own (a class run's start waits for whichever it is)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from autograder.sandbox.view import CopiedFonts, start_font_cache

MATPLOTLIB = importlib.util.find_spec("matplotlib")
pytestmark = pytest.mark.skipif(MATPLOTLIB is None, reason="matplotlib is not installed")


def font_manager_mtime() -> float:
    return (Path(MATPLOTLIB.origin).parent / "font_manager.py").stat().st_mtime


def test_a_fresh_cache_is_copied_without_starting_matplotlib(tmp_path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    fonts = cache / "fontlist-v9.9.9.json"
    fonts.write_text('{"fresh": true}')
    monkeypatch.setenv("MPLCONFIGDIR", str(cache))
    copying = start_font_cache(tmp_path / "run")
    assert isinstance(copying, CopiedFonts) and copying.wait() == 0
    assert (tmp_path / "run" / "mplconfig" / fonts.name).read_text() == '{"fresh": true}'


def test_a_cache_older_than_matplotlib_is_rebuilt_by_matplotlib(tmp_path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    stale = cache / "fontlist-v0.0.1.json"
    stale.write_text("{}")
    older = font_manager_mtime() - 3600
    os.utime(stale, (older, older))
    monkeypatch.setenv("MPLCONFIGDIR", str(cache))
    copying = start_font_cache(tmp_path / "run")
    assert isinstance(copying, subprocess.Popen)
    assert copying.wait(timeout=300) == 0
    built = sorted(p.name for p in (tmp_path / "run" / "mplconfig").glob("fontlist-*.json"))
    assert stale.name in built and len(built) == 2  # matplotlib wrote its own list beside it


def test_a_list_matplotlib_accepted_is_copied_at_once_by_the_next_run(tmp_path, monkeypatch):
    # A reinstalled matplotlib is newer than the list it still reads: the first run's process
    # marks the list fresh, so that the next run copies it without starting matplotlib again.
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("MPLCONFIGDIR", str(cache))
    assert start_font_cache(tmp_path / "build").wait(timeout=300) == 0  # no list: built
    (accepted,) = cache.glob("fontlist-*.json")
    older = font_manager_mtime() - 3600
    os.utime(accepted, (older, older))
    copying = start_font_cache(tmp_path / "reinstalled")
    assert isinstance(copying, subprocess.Popen) and copying.wait(timeout=300) == 0
    assert accepted.stat().st_mtime >= font_manager_mtime()
    again = start_font_cache(tmp_path / "next")
    assert isinstance(again, CopiedFonts)
    assert (tmp_path / "next" / "mplconfig" / accepted.name).read_bytes() == accepted.read_bytes()
