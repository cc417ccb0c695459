"""The import view a submission runs with, and its environment: nothing of the grader."""

from __future__ import annotations

import compileall
import importlib.util
import json
import marshal
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import games

RUNNER = Path(__file__).parent / "runner.py"


JAIL = Path(__file__).parent / "jail.py"


ZYGOTE = Path(__file__).parent / "zygote.py"


MARKER = "AUTOGRADER_JOB"


HIDDEN_PACKAGES = ("solutions", "autograder", "tests", "examples")


def build_import_view(root: Path, fonts: FontCopy | None = None, jailed: bool = False) -> Path:
    """Make a directory that holds what a submission may import, and nothing of the grader.

    Every entry of the interpreter's site-packages is linked except the course's own hidden
    packages and the `.pth` hooks of an editable install; `games` is copied. The student process
    runs with `-I -S` and this directory plus the standard library as its only path. Beside
    the view go the runner and the jail, compiled (`code_file`), and matplotlib's font cache
    (`start_font_cache`, started here unless the caller started it earlier).

    A view for `jailed` submissions only holds `games`: the jail binds the site-packages
    read-only with those same entries masked (`jailing.jail_config`), so they go on the path
    themselves (`SITE_PATHS`) instead of a link per entry, a few hundred files whose making
    and removing were a class run's longest serial wait on a busy disk. Such a view is
    refused for a submission outside the jail (`is_jailed_view`).
    """
    if fonts is None:
        fonts = start_font_cache(root)
    view = root / "site"
    view.mkdir(parents=True, exist_ok=True)
    # With its bytecode (copied with the sources' times, so still valid): the grader imports
    # the same files. What is missing or stale is compiled once here: the student process runs
    # with -B and would otherwise compile the toolkit from source at every start (tens of
    # milliseconds, times the class); an installed toolkit's is only checked (a class run's
    # start waits for this).
    shutil.copytree(Path(games.__file__).parent, view / "games")
    compileall.compile_dir(view / "games", quiet=1)
    for script in (RUNNER, JAIL, ZYGOTE):
        code = compile(script.read_text(), f"_grader_{script.stem}.py", "exec")
        (root / f"{script.stem}.code").write_bytes(marshal.dumps(code))
    if jailed:
        sites = {os.path.realpath(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")}
        paths = [site for site in sorted(sites) if os.path.isdir(site)]
        (root / SITE_PATHS).write_text(json.dumps(paths))
    seen = {"games"}
    for key in () if jailed else ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if not site.is_dir():
            continue
        for entry in sorted(site.iterdir()):
            name = entry.name
            if name in seen or _hidden_entry(name):
                continue
            seen.add(name)
            (view / name).symlink_to(entry)
    try:
        fonts.wait(timeout=120)
    except subprocess.TimeoutExpired:  # plots are never graded: go on without the cache
        fonts.kill()
        fonts.wait()
    return view


_FONT_CACHE = """
import glob, os, shutil, sys
try:
    import matplotlib
    from matplotlib import font_manager  # builds the cache if there is none yet
except ImportError:
    sys.exit(0)
# matplotlib has just read (or built) the list of its version: touched, it is fresh for the
# next run, which then copies it without this process (a reinstalled matplotlib keeps a list
# older than itself that it still accepts, and would otherwise cost every run this process).
version = getattr(getattr(font_manager, "FontManager", None), "__version__", None)
accepted = os.path.join(matplotlib.get_cachedir(), f"fontlist-v{version}.json")
if version and os.path.exists(accepted):
    try:
        os.utime(accepted)
    except OSError:
        pass
for entry in glob.glob(os.path.join(matplotlib.get_cachedir(), "fontlist-*.json")):
    shutil.copy(entry, sys.argv[1])
"""


class CopiedFonts:
    """What `start_font_cache` returns when it copied a fresh cache itself: a process that has
    already ended well (`wait`, `poll` and `kill` as on a `subprocess.Popen`)."""

    returncode = 0

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def poll(self) -> int:
        return 0

    def kill(self) -> None:
        pass


FontCopy = subprocess.Popen | CopiedFonts
"""The copying of matplotlib's font cache, under way or done."""


def start_font_cache(root: Path) -> FontCopy:
    """Start copying matplotlib's font cache to where submissions find it (`mplconfig_for`).

    Without it, a submission that imports matplotlib spends seconds building the cache in its
    fresh sandbox. When the cache is there already and newer than the installed matplotlib
    (`_fresh_font_cache`), it is copied at once; otherwise a process of its own imports
    matplotlib (a few tenths of a second, which the grader spends on its own preparations
    meanwhile) and builds the cache if there is none. The folder is shared by the submissions
    of one run; at worst a submission could spoil another's plots, which are never graded.
    """
    config = root / "mplconfig"
    config.mkdir(parents=True, exist_ok=True)
    fresh = _fresh_font_cache()
    if fresh is not None:
        for entry in fresh:
            shutil.copy(entry, config)
        return CopiedFonts()
    return subprocess.Popen(
        [sys.executable, "-c", _FONT_CACHE, str(config)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _fresh_font_cache() -> list[Path] | None:
    """matplotlib's font lists, found without importing it (half a second of a class run's
    start, before any worker can begin), when one of them is newer than the installed
    matplotlib's font manager; an empty list when matplotlib is not installed; None when only
    matplotlib itself can tell (no cache yet, an older one, another system's cache folder)."""
    spec = importlib.util.find_spec("matplotlib")  # finds the package without running it
    if spec is None or spec.origin is None:
        return []
    folder = _matplotlib_cache_folder()
    manager = Path(spec.origin).parent / "font_manager.py"
    if folder is None or not manager.exists():
        return None
    lists = sorted(folder.glob("fontlist-*.json"))
    if not any(entry.stat().st_mtime >= manager.stat().st_mtime for entry in lists):
        return None
    return lists


def _matplotlib_cache_folder() -> Path | None:
    """Where matplotlib keeps its cache on Linux (`matplotlib.get_cachedir()`'s rule), or None
    elsewhere."""
    configured = os.environ.get("MPLCONFIGDIR")
    if configured:
        return Path(configured)
    if not sys.platform.startswith("linux"):
        return None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib"


def mplconfig_for(view: Path) -> Path:
    return view.parent / "mplconfig"


def code_file(view: Path, script: Path) -> Path:
    """The marshalled code of `script` (runner.py, jail.py or zygote.py) that
    `build_import_view` wrote."""
    return view.parent / f"{script.stem}.code"


SITE_PATHS = "site-paths.json"
"""Beside a view made for jailed submissions only: the site-packages folders their path holds
after the view (the jail masks the hidden entries in them)."""


def is_jailed_view(view: Path) -> bool:
    """Whether `view` was made for jailed submissions only (it links no site-packages)."""
    return (view.parent / SITE_PATHS).exists()


def _bootstrap(view: Path) -> str:
    """The first statements of every interpreter that runs submissions (`python -I -S -c`):
    the import path is the view (and, for a jailed view, the site-packages after it) and the
    standard library, and `load(path)` reads the marshalled code that `build_import_view`
    wrote."""
    sites = json.loads((view.parent / SITE_PATHS).read_text()) if is_jailed_view(view) else []
    path = [str(view), *sites, *_standard_library_paths()]
    return (
        f"import sys, marshal; sys.path[:] = {path!r}; "
        "load = lambda path: marshal.loads(open(path, 'rb').read()); "
    )


def _ignore_caches(_directory: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"]


def _environment(view: Path, workdir: Path, jailed: bool, job: str) -> dict[str, str]:
    """The whole environment of a submission's process."""
    home = JAIL_HOME if jailed else str(workdir)
    env = {
        "PATH": "/usr/bin:/bin",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{home}/.config/matplotlib" if jailed else str(mplconfig_for(view)),
        "PYTHONHASHSEED": "0",
        "LANG": "C.UTF-8",
        "PYTHONPATH": "",
        "HOME": home,
    }
    if jailed:
        env["TMPDIR"] = "/tmp"
    else:  # without a PID namespace, the grader finds a submission's descendants by this mark
        env[MARKER] = job
    return env


JAIL_HOME = "/home/student"


def hidden_site_entries() -> list[Path]:
    """Entries of site-packages a submission must not see (what the import view leaves out)."""
    found = []
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if site.is_dir():
            found += [entry for entry in sorted(site.iterdir()) if _hidden_entry(entry.name)]
    return sorted(set(found))


def _hidden_entry(name: str) -> bool:
    hidden = name.split(".")[0].split("-")[0] in HIDDEN_PACKAGES
    editable = name.startswith("__editable__") or name.endswith(".pth")
    return hidden or editable or "adversarial_search_course" in name


def _standard_library_paths() -> list[str]:
    """The grader's own import path entries that belong to the standard library."""
    base = os.path.realpath(sys.base_prefix)
    return [
        entry
        for entry in sys.path
        if entry and os.path.realpath(entry).startswith(base) and "site-packages" not in entry
    ]
