"""Build the browser course: the six assignment notebooks in JupyterLite, as a static folder.

    python assignments/make_browser_course.py --flavour offline --out build/browser-course
    python assignments/make_browser_course.py --flavour published --out build/browser-course

Any web server can serve the folder (`python -m http.server -d build/browser-course`); a
student opens it, works in the notebooks on Pyodide (Python in WebAssembly, in the page) and
hands in with File -> Download. The notebooks are those `python -m games notebooks` hands out,
the toolkit `games` is preinstalled (its wheel is built here and loaded as Pyodide starts), and
the site's first page (`assignments/browser/index.html`) says what to do.

- **published** loads the standard Pyodide distribution from its CDN when a student opens the
  site, so matplotlib (and numpy) are there; the site itself is small.
- **offline** needs nothing but the site: Pyodide's runtime from the npm package `pyodide`, the
  pure-Python packages the kernel starts with from PyPI at the versions Pyodide's lock names,
  and the toolkit. No build of matplotlib for Pyodide comes from those registries, so trees are
  drawn as SVG (`draw_tree` falls back to `tree_svg`). For CI and classrooms without internet.

What the build downloads (npm, PyPI) is cached in `--cache` (default
`~/.cache/adversarial-search-course/browser`), so a second build needs no network.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONFIG = HERE / "browser"
"""The site's fixed files: JupyterLite's build config, the start page and the notebooks' README."""

DEFAULT_CACHE = Path.home() / ".cache" / "adversarial-search-course" / "browser"
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"

# What the Pyodide kernel installs as it starts (initPackageManager and initKernel of
# jupyterlite-pyodide-kernel): micropip, then IPython, jedi and comm. All are pure Python.
KERNEL_PACKAGES = ("micropip", "packaging", "ipython", "jedi")
COMM = ("comm", "0.2.3")  # not in Pyodide's lock: the kernel would fetch it from PyPI
ASSIGNMENTS = (
    "minimax",
    "alphabeta",
    "depth_limited",
    "bug_hunt",
    "connect_four",
    "chance_and_maxn",
)


def pyodide_version() -> str:
    """The Pyodide release the installed kernel is made for (and loads from the CDN)."""
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

    return PYODIDE_VERSION


def run(command: list[str], **options) -> None:
    """Run a build step; stop with its output if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, **options)
    if done.returncode:
        sys.exit(f"{' '.join(command[:4])} ... failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")


def npm_pyodide(cache: Path, version: str) -> Path:
    """The npm package `pyodide` at `version` (runtime, standard library, lock), installed once."""
    prefix = cache / f"npm-pyodide-{version}"
    folder = prefix / "node_modules" / "pyodide"
    if not (folder / "pyodide-lock.json").exists():
        if shutil.which("npm") is None:
            sys.exit("the offline browser course needs npm (Node.js) to fetch Pyodide")
        prefix.mkdir(parents=True, exist_ok=True)
        run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
             f"pyodide@{version}"])  # fmt: skip
    return folder


def pypi_wheel(cache: Path, name: str, version: str) -> Path:
    """The pure-Python wheel of `name` at `version` from PyPI, downloaded once."""
    wheels = cache / "wheels"
    stem = name.replace("-", "_").lower()
    found = [p for p in wheels.glob("*.whl") if p.name.lower().startswith(f"{stem}-{version}-")]
    if not found:
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", "--platform", "any", "--python-version", "3.13",
             "--dest", str(wheels), f"{name}=={version}"])  # fmt: skip
        found = [p for p in wheels.glob("*.whl") if p.name.lower().startswith(f"{stem}-")]
        found = [p for p in found if f"-{version}-" in p.name]
    if not found:
        sys.exit(f"PyPI has no pure-Python wheel of {name} {version}")
    return found[0]


def games_wheel(work: Path) -> Path:
    """The toolkit's wheel, built from a copy of games/ (a build writes beside its source)."""
    source = work / "games-source" / "games"
    shutil.copytree(ROOT / "games", source, ignore=shutil.ignore_patterns("__pycache__", "build"))
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(source),
         "--wheel-dir", str(work / "dist")])  # fmt: skip
    return next((work / "dist").glob("*.whl"))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lock_entry(wheel: Path, name: str, version: str, imports: list[str]) -> dict:
    """A pyodide-lock.json entry for a pure-Python wheel next to the lock."""
    return {
        "name": name,
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": sha256(wheel),
        "package_type": "package",
        "imports": imports,
        "depends": [],
        "unvendored_tests": False,
    }


def dependencies(packages: dict, names: tuple[str, ...]) -> list[str]:
    """`names` and everything they depend on in the lock, as the lock's keys."""
    key = {name.lower().replace("_", "-"): name for name in packages}
    found: list[str] = []
    todo = [key[name] for name in names]
    while todo:
        name = todo.pop()
        if name not in found:
            found.append(name)
            todo += [key[d.lower().replace("_", "-")] for d in packages[name]["depends"]]
    return sorted(found)


def offline_pyodide(static: Path, cache: Path, version: str, games: Path) -> None:
    """static/pyodide/: the npm runtime, the kernel's start-up wheels from PyPI and the toolkit,
    in a lock that names only what is there (hashes of the wheels as downloaded)."""
    target = static / "pyodide"
    skip = shutil.ignore_patterns("*.map", "*.d.ts", "console*.html", "README.md", "node_modules")
    shutil.copytree(npm_pyodide(cache, version), target, ignore=skip)
    lock = json.loads((target / "pyodide-lock.json").read_text(encoding="utf-8"))
    packages = lock["packages"]
    kept = {}
    for name in dependencies(packages, KERNEL_PACKAGES):
        entry = packages[name]
        wheel = pypi_wheel(cache, entry["name"], entry["version"])
        shutil.copy2(wheel, target / wheel.name)
        kept[name] = entry | {"file_name": wheel.name, "sha256": sha256(wheel)}
    comm = pypi_wheel(cache, *COMM)
    shutil.copy2(comm, target / comm.name)
    kept["comm"] = lock_entry(comm, "comm", COMM[1], ["comm"])
    shutil.copy2(games, target / games.name)
    kept["games"] = lock_entry(games, "games", "0.1.0", ["games"])
    lock["packages"] = kept
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")


def published_lock(static: Path, cache: Path, version: str, games: Path) -> str:
    """static/course-lock/: Pyodide's own lock with its wheels taken from the CDN, and the
    toolkit's wheel beside it; return the lock's URL relative to the site."""
    target = static / "course-lock"
    target.mkdir(parents=True)
    lock = json.loads((npm_pyodide(cache, version) / "pyodide-lock.json").read_text("utf-8"))
    cdn = f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"
    for entry in lock["packages"].values():
        entry["file_name"] = cdn + entry["file_name"]
    shutil.copy2(games, target / games.name)
    lock["packages"]["games"] = lock_entry(games, "games", "0.1.0", ["games"])
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    return "./static/course-lock/pyodide-lock.json"


def kernel_settings(flavour: str, lock_url: str | None) -> dict:
    """The Pyodide kernel's settings: load the toolkit as Pyodide starts; offline, never PyPI."""
    options: dict = {"packages": ["games"]}
    if lock_url:
        options["lockFileURL"] = lock_url
    settings: dict = {"loadPyodideOptions": options}
    if flavour == "offline":
        settings |= {"pyodideUrl": "./static/pyodide/pyodide.mjs", "disablePyPIFallback": True}
    return settings


def kernel_extension() -> Path:
    """The Pyodide kernel's JupyterLab extension, as jupyterlite-pyodide-kernel installed it."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("labextensions"):
        found = Path(folder) / "@jupyterlite" / "pyodide-kernel-extension"
        if (found / "package.json").exists():
            return found
    sys.exit("no Pyodide kernel extension: pip install -e '.[browser]'")


def build_config() -> dict:
    """JupyterLite's build settings: assignments/browser/jupyter_lite_config.json, and the
    Pyodide kernel as the only extension (not every one this environment has, nbgrader's say,
    whose menus would call a server the site does not have)."""
    config = json.loads((CONFIG / "jupyter_lite_config.json").read_text(encoding="utf-8"))
    config["LiteBuildConfig"] |= {
        "ignore_sys_prefix": True,
        "federated_extensions": [str(kernel_extension())],
    }
    return config


def start_page(flavour: str) -> str:
    """The site's first page, with a link that opens each assignment."""
    items = "\n".join(
        f'  <li><a href="lab/index.html?path={name}.ipynb">{html.escape(name)}.ipynb</a></li>'
        for name in ASSIGNMENTS
    )
    note = {
        "published": "Trees and plots are drawn with matplotlib.",
        "offline": "This copy works without internet: trees are drawn as SVG, and plots are "
        "printed as tables (no matplotlib here).",
    }[flavour]
    text = (CONFIG / "index.html").read_text(encoding="utf-8")
    return text.replace("{{ASSIGNMENTS}}", items).replace("{{FLAVOUR_NOTE}}", note)


def build(flavour: str, out: Path, cache: Path, games: Path | None = None) -> None:
    """Build the site of `flavour` into `out` (replaced if it exists), with the toolkit's wheel
    `games` if given (the tests build it once for several uses), else built from games/."""
    version = pyodide_version()
    with tempfile.TemporaryDirectory(prefix="browser-course-") as scratch:
        work = Path(scratch)
        lite, files = work / "lite", work / "files"
        (lite / "static").mkdir(parents=True)
        files.mkdir()
        games = games or games_wheel(work)
        lock_url = None
        if flavour == "offline":
            offline_pyodide(lite / "static", cache, version, games)
        else:  # written into the site after the build, which copies only static/pyodide
            lock_url = published_lock(work / "static", cache, version, games)
        for name in ASSIGNMENTS:
            shutil.copy2(ROOT / "games" / "notebooks" / f"{name}.ipynb", files)
        shutil.copy2(CONFIG / "START_HERE.md", files)
        (lite / "jupyter_lite_config.json").write_text(json.dumps(build_config()), "utf-8")
        settings = {"litePluginSettings": {KERNEL_PLUGIN: kernel_settings(flavour, lock_url)}}
        settings["appName"] = "Adversarial search"
        (lite / "jupyter-lite.json").write_text(
            json.dumps({"jupyter-lite-schema-version": 0, "jupyter-config-data": settings}),
            encoding="utf-8",
        )
        if out.exists():
            shutil.rmtree(out)
        run([sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite),
             "--contents", str(files), "--output-dir", str(out.resolve())], cwd=lite)  # fmt: skip
        if flavour == "published":
            shutil.copytree(work / "static", out / "static", dirs_exist_ok=True)
    (out / "index.html").write_text(start_page(flavour), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--flavour",
        choices=("offline", "published"),
        default="published",
        help="offline: everything in the site; published: Pyodide from its CDN",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "build" / "browser-course",
        help="the folder to write the site into (replaced)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="where downloads from npm and PyPI are kept between builds",
    )
    args = parser.parse_args(argv)
    build(args.flavour, args.out, args.cache)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote the {args.flavour} browser course to {args.out} ({size / 1e6:.0f} MB)")
    print(f"serve it with: python -m http.server --bind 127.0.0.1 --directory {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
