"""Build a Gradescope autograder bundle, and grade one submission inside Gradescope's layout."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder.grading.grade import Settings, feedback, grade, warm_up
from autograder.grading.load import SUFFIXES, Submission, load, not_a_regular_file
from autograder.grading.records import GradeRecord
from autograder.grading.rules import ASSIGNMENT_RULES, RULE_IDS
from autograder.platforms.gradescope_text import markdown_feedback, shown
from autograder.reports import files
from autograder.reports.diagnoses import cell_failed
from autograder.sandbox import Limits, build_import_view, hidden_site_entries, jail_support

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("pyproject.toml", "README.md", "constraints.txt", "games", "solutions", "autograder")

SETUP_SH = """#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image. Choose a base image with Python 3.11 or
# newer (Ubuntu 24.04 ships 3.12).
set -euo pipefail
apt-get update
apt-get install -y python3 python3-venv python3-pip
python3 -c 'import sys; assert sys.version_info >= (3, 11), "the grader needs Python 3.11+"'
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -c /autograder/source/constraints.txt /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Runs for every submission: grades /autograder/submission into /autograder/results/results.json.
# AUTOGRADER_ROOT and AUTOGRADER_PYTHON let the layout be simulated outside Gradescope; to try
# this bundle on a notebook before uploading it:
#   python -m autograder gradescope-try autograder.zip mine.ipynb
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PY="${AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
cd "$ROOT/source"
exec "$PY" -m autograder gradescope-run --root "$ROOT" <<options>>
"""
DETAILS = ("visible", "after_due_date", "after_published", "hidden")
"""Gradescope's visibility values, for the test that shows expected answers and hints."""
CONSTRAINTS = "constraints.txt"
"""The exact versions setup.sh installs (kept in the repository, tested), so that an image
built next term grades the same."""


def build_bundle(
    out: Path,
    assignment: str | None = None,
    details: str = "after_published",
    output_format: str = "html",
    course_seed: int | None = None,
) -> Path:
    """Write the zip Gradescope expects: setup.sh and run_autograder at the top, the source beside.

    The hidden tests travel inside the `autograder` package; the reference answers are
    computed by the grader at run time, never shipped to the student's process. The course
    seed (`course_seed`, else `AUTOGRADER_COURSE_SEED` where the bundle is built) is written
    into run_autograder, so that Gradescope draws this term's suite of contest positions.

    Raises:
        ValueError: `AUTOGRADER_COURSE_SEED` is set to something other than a whole number.
    """
    course_seed = bundled_seed(course_seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        options = [f"--details {details}", f"--output-format {output_format}"]
        if assignment:
            options.append(f"--assignment {assignment}")
        if course_seed is not None:
            options.append(f"--course-seed {course_seed}")
        run_script = RUN_AUTOGRADER.replace("<<options>>", " ".join(options))
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", run_script)):
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            bundle.writestr(info, text)
        for file in bundled_files(ROOT):
            bundle.write(file, file.relative_to(ROOT).as_posix())
    return out


def bundled_seed(seed: int | None) -> int | None:
    """The course seed a bundle carries: `seed`, else the `AUTOGRADER_COURSE_SEED` variable
    of the instructor who builds it, else none (Gradescope then grades the default suite)."""
    text = os.environ.get(files.COURSE_SEED_VARIABLE, "").strip()
    if seed is not None or not text:
        return seed
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{files.COURSE_SEED_VARIABLE} is a whole number: {text!r}") from None


BUILD_OUTPUT = ("build", "dist", "__pycache__", ".pytest_cache", ".ruff_cache")
"""Folders that `pip install ./games` and the tools leave beside the source, never bundled."""


def bundled_files(root: Path) -> list[Path]:
    """The files of `SOURCES` the repository tracks (`git ls-files`): build output, egg-info
    and whatever else lies untracked in the checkout stay out. Outside a git checkout (an
    unpacked release), every file but build output, caches and `*.egg-info`."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--", *SOURCES],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout.decode("utf-8")
        files = [root / name for name in listed.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        files = []
        for name in SOURCES:
            path = root / name
            found = [path] if path.is_file() else sorted(path.rglob("*"))
            files += [
                file
                for file in found
                if not any(p in BUILD_OUTPUT or p.endswith(".egg-info") for p in file.parts)
            ]
    return sorted(file for file in files if file.is_file() and not file.is_symlink())


def add_parsers(commands) -> None:
    """The commands `gradescope` (build the bundle), `gradescope-run` (what it runs inside
    Gradescope) and `gradescope-try` (run a bundle on a notebook here, before uploading it)."""
    bundle = commands.add_parser("gradescope", help="build a Gradescope autograder bundle (zip)")
    bundle.add_argument("--out", type=Path, default=Path("autograder.zip"))
    bundle.add_argument(
        "--assignment",
        choices=sorted(ASSIGNMENT_RULES),
        help="grade only this assignment's rules (default: every rule)",
    )
    bundle.add_argument(
        "--details",
        choices=DETAILS,
        default="after_published",
        help="when students see expected answers and hints (Gradescope visibility; default "
        "after_published: once the instructor publishes the grades)",
    )
    bundle.add_argument("--output-format", choices=("html", "markdown"), default="html")
    seed_help = "connect_four: the term's course seed, carried in the bundle (default: $%s)"
    bundle.add_argument("--course-seed", type=int, help=seed_help % files.COURSE_SEED_VARIABLE)
    inside = commands.add_parser(
        "gradescope-run", help="grade /autograder/submission (what the bundle's script runs)"
    )
    inside.add_argument("--root", type=Path, default=Path("/autograder"))
    inside.add_argument("--assignment", choices=sorted(ASSIGNMENT_RULES))
    inside.add_argument("--details", choices=DETAILS, default="after_published")
    inside.add_argument("--output-format", choices=("html", "markdown"), default="html")
    inside.add_argument("--course-seed", type=int, help="the course seed the bundle carries")
    trial = commands.add_parser(
        "gradescope-try",
        help="run a bundle's run_autograder on files here, in Gradescope's layout, before "
        "uploading it",
    )
    trial.add_argument("bundle", type=Path, help="the zip `gradescope` wrote")
    trial.add_argument("files", nargs="+", type=Path, help="what a student would upload")
    trial.add_argument(
        "--root", type=Path, help="a new folder for the layout (default: a temporary one)"
    )


def try_bundle(bundle: Path, uploads: list[Path], root: Path) -> subprocess.CompletedProcess:
    """Unpack `bundle` into `root`/source, copy `uploads` into `root`/submission and run its
    run_autograder with this Python, as Gradescope would; results land in `root`/results."""
    (root / "results").mkdir(parents=True)
    (root / "submission").mkdir()
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    script = root / "source" / "run_autograder"
    script.chmod(0o755)  # zipfile does not restore modes; Gradescope does
    for upload in uploads:
        (root / "submission" / upload.name).write_bytes(upload.read_bytes())
    env = {
        **os.environ,
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": sys.executable,
        "PYTHONPATH": str(root / "source"),  # the bundle's code, not the installed one
    }
    return subprocess.run([str(script)], env=env, capture_output=True, text=True)


def try_command(args) -> int:
    """`python -m autograder gradescope-try BUNDLE FILES...`: print the score and where the
    results and feedback are."""
    fail = "python -m autograder gradescope-try: error:"
    missing = [str(p) for p in [args.bundle, *args.files] if not p.is_file()]
    if missing:
        print(f"{fail} not a file: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.root is not None and args.root.exists():
        print(f"{fail} --root {args.root} exists: give a new folder", file=sys.stderr)
        return 2
    root = args.root or Path(tempfile.mkdtemp(prefix="gradescope-try-"))
    run = try_bundle(args.bundle, args.files, root)
    results = root / "results" / "results.json"
    if run.returncode != 0 or not results.is_file():
        print(f"{fail} run_autograder failed ({run.returncode}):\n{run.stderr}", file=sys.stderr)
        return 1
    data = json.loads(results.read_text(encoding="utf-8"))
    print(
        f"score {data.get('score', 0):g}: {results}; feedback: {root / 'results' / 'feedback.html'}"
    )
    return 0


def why_not_written(out: Path, error: OSError) -> str:
    """Why the bundle could not be written to `out`, in a sentence for the command line."""
    if out.is_dir():
        return f"is a folder: give the zip file to write, such as {out / 'autograder.zip'}"
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        return f"cannot be written: {blocking} is a file, not a folder"
    return f"cannot be written ({error.strerror or error})"


UNPRIVILEGED = 65534
"""The user (nobody) a root grader runs submissions as when the container forbids the jail."""


def submission_files(submitted: Path) -> tuple[list[Path], list[str]]:
    """The notebooks and Python files uploaded, and why others are refused (a symbolic link,
    a FIFO or a device: only regular files are graded, and links are never followed)."""
    uploaded, refused = [], []
    for folder, folders, names in os.walk(submitted, followlinks=False):
        for name in sorted(folders):
            if (Path(folder) / name).is_symlink():
                refused.append(f"{name} is a symbolic link to a folder: not followed")
        for name in sorted(names):
            path = Path(folder) / name
            if path.suffix.lower() in SUFFIXES:
                problem = not_a_regular_file(path)
                (refused if problem else uploaded).append(problem or path)
    return uploaded, refused


def _refuse(results_path: Path, message: str, output_format: str = "html") -> dict:
    results = {"score": 0, **shown(message, output_format), "tests": []}
    files.write_atomically(results_path, json.dumps(results, indent=1))
    return results


def _isolation(root: Path) -> tuple[Limits | None, str]:
    """The limits under which student code may run here, or why it may not run at all.

    With the jail, as everywhere. As root without it (a container that forbids namespaces),
    as the unprivileged user `UNPRIVILEGED`, after making the source, the results and the
    installed reference unreadable to it; if Python cannot run as that user, nothing runs.
    """
    if jail_support()[0] or os.geteuid() != 0:
        return Limits(), ""
    for private in [root / "source", root / "results", *hidden_site_entries()]:
        with contextlib.suppress(OSError):
            os.chmod(private, 0o700 if private.is_dir() else 0o600)
    try:
        runs = subprocess.run(
            [sys.executable, "-I", "-S", "-c", "pass"], user=UNPRIVILEGED, group=UNPRIVILEGED,
            extra_groups=[], cwd="/", capture_output=True, timeout=60, check=False,
        ).returncode == 0  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        runs = False
    if not runs:
        return None, (
            "The autograder cannot isolate submissions in this container: namespaces are "
            "forbidden and Python cannot run as an unprivileged user, so no student code is run "
            "as root. Please tell your instructor (see the course site's Gradescope page)."
        )
    return Limits(isolation="process", run_as=UNPRIVILEGED), ""


def run_in_gradescope(
    root: Path,
    limits: Limits | None = None,
    rule_ids: tuple[str, ...] = RULE_IDS,
    details: str = "after_published",
    output_format: str = "html",
    course_seed: int | None = None,
) -> dict:
    """Grade the one notebook or .py file in `root/submission` on `rule_ids` (the contest's
    suite of positions drawn by `course_seed`, the bundle's).

    The rules' points are visible at once; what was expected, what came back and the hints
    (the feedback page) are one more test, worth nothing, with the visibility `details`.
    """
    uploaded, refused = submission_files(root / "submission")
    results_path = root / "results" / "results.json"
    if refused:
        return _refuse(
            results_path,
            "Your upload was not graded: " + "; ".join(map(str, refused)) + ". Upload the "
            "notebook file itself.",
            output_format,
        )
    if len(uploaded) > 1:
        names = ", ".join(path.name for path in uploaded)
        return _refuse(
            results_path,
            f"Your upload holds {len(uploaded)} notebooks or Python files ({names}): upload only "
            "the one notebook of this assignment.",
            output_format,
        )
    if not uploaded:
        return _refuse(
            results_path,
            "No notebook (.ipynb) or Python file was found in your submission. "
            "Upload your completed notebook.",
            output_format,
        )
    if limits is None:
        limits, why_not = _isolation(root)
        if limits is None:
            return _refuse(results_path, why_not, output_format)
    warm_up(rule_ids)
    submission = Submission("submission", tuple(uploaded))
    with tempfile.TemporaryDirectory(prefix="autograder-") as scratch:
        view = build_import_view(Path(scratch))
        settings = Settings(limits, view, rule_ids=rule_ids, course_seed=course_seed)
        record = grade(submission, load(submission), settings)
    page = feedback(record)
    results = gradescope_results(record, page, details, output_format)
    files.write_atomically(results_path, json.dumps(results, indent=1))
    files.write_atomically(root / "results" / "feedback.html", page)
    return results


def gradescope_results(record: GradeRecord, page: str, details: str, output_format: str) -> dict:
    """results.json as Gradescope shows it: one test per rule with its groups' points (no
    expected answers), then the feedback page as a test of its own with `details` visibility.

    Every `output` is what its `output_format` says: the record's plain text (the status and
    messages at the top, a rule's groups) through `_shown`; the feedback as the page's body
    (escaped HTML already) or as markdown whose answers are code spans.
    """
    results = files.results_json(record, fingerprint="gradescope")
    causes = [message for message in record.messages if cell_failed(message)]
    if causes:  # the cause before its effects: a cell that did not run, then the rest
        # by message, not by line: a message can hold several lines (an exception's own text)
        rest = [f"status: {record.status}", *(m for m in record.messages if m not in causes)]
        said = "First fix this: a cell of your notebook did not run, so what it defines is missing"
        results["output"] = "\n".join([said, *causes, "", *rest])
    for test, rule in zip(results["tests"], record.rules, strict=True):
        kept = [line for line in test["output"].splitlines() if not line.startswith("    ")]
        if rule.diagnosis and not rule.full:
            kept = [f"diagnosis: {line}" for line in rule.diagnosis.split("\n")] + kept
        test.update(shown("\n".join(kept), output_format))
        test["visibility"] = "visible"
    body = page.split("<body>", 1)[-1].rsplit("</body>", 1)[0]
    text = body if output_format == "html" else markdown_feedback(record)
    results["tests"].append(
        {
            "name": "Feedback: what was expected, what came back, and hints",
            "score": 0,
            "max_score": 0,
            "output": text,
            "output_format": "html" if output_format == "html" else "md",
            "visibility": details,
        }
    )
    results.update(shown(results["output"], output_format))
    return instructor_flags(results, record, output_format)


def instructor_flags(results: dict, record: GradeRecord, output_format: str) -> dict:
    """`results` with the record's flags (`GradeRecord.flags`) moved to a test of their own,
    worth nothing, that Gradescope shows the instructor alone (visibility "hidden"): never
    in what the student sees, nor in the record under `extra_data`."""
    results["extra_data"]["record"].pop("flags", None)
    if record.flags:
        flagged = "\n".join(f"- {flag}" for flag in record.flags)
        hidden = {"name": "Flagged for the instructor", "score": 0, "max_score": 0}
        results["tests"].append({**hidden, **shown(flagged, output_format), "visibility": "hidden"})
    return results
