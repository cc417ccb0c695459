"""Gradescope's holes of issue 25, each struck by an attack beside an honest student.

Without namespaces (Docker's default), a root grader runs the submission as `nobody` in a
working folder that `nobody` owns. Nothing the grader opens may have a name there: the
submission's output goes to a file without a name, so a symbolic link the student puts in its
place is never followed (not to read `solutions/minimax.py` into the feedback, not to append to
a root-only file after a crash). The command line refuses a folder as the bundle with one line,
and every `output` of results.json is what its `output_format` says.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from autograder.cli import main
from autograder.grading.reference import reference_source
from autograder.platforms import gradescope
from autograder.reports.diagnoses import cell_failed
from autograder.sandbox import Limits, StudentProcess, build_import_view
from games import GameTree

ROOT = Path(__file__).resolve().parents[1]
NOBODY = gradescope.UNPRIVILEGED
PATIENT = {"timeout": 600.0, "load_timeout": 600.0, "budget": 3600.0}
"""Limits no honest call comes near on a loaded machine: no outcome here depends on time."""
HONEST_PRINT = "hello from an honest student"
ATTACK_PRINT = "printed by the attack at load"
CANARY = "CANARY-issue-25-" + os.urandom(6).hex()
ROOT_ONLY = "only root may write this line\n"

ATTACK = """
import contextlib
import os

# The grader used to keep the submission's output in ./output.txt, opened by path as root. The
# first load points that name at a root-only file (reopened for append after the crash below),
# every later load at the reference solutions (read back into the feedback).
FIRST = not os.path.exists("stage")
open("stage", "a").close()
with contextlib.suppress(FileNotFoundError):
    os.remove("output.txt")
os.symlink({append_to!r} if FIRST else {steal!r}, "output.txt")
print({printed!r}, flush=True)


def minimax_value(game, state):
    os._exit(3)  # a crash: the grader starts the submission again for the next function


def minimax_decision(game, state):
    return game.actions(state)[0]
"""


def _attack(append_to: Path, steal: Path) -> str:
    return ATTACK.format(append_to=str(append_to), steal=str(steal), printed=ATTACK_PRINT)


def _why_nobody_cannot_run(executable: str) -> str:
    """Why `nobody` cannot start `executable` ("" if it can), naming the folder in the way."""
    try:
        ran = subprocess.run(
            [executable, "-I", "-S", "-c", "pass"], user=NOBODY, group=NOBODY, extra_groups=[],
            cwd="/", capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    except OSError as error:
        failure = str(error)
    else:
        if ran.returncode == 0:
            return ""
        failure = (ran.stderr.strip().splitlines() or [f"exit code {ran.returncode}"])[-1]
    real = Path(os.path.realpath(executable))
    for folder in reversed(real.parents):
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            return f"nobody cannot run {executable}: {folder} is {stat.filemode(mode)}"
    return f"nobody cannot run {executable}: {failure}"


# -- the output file: no name a submission could replace ----------------------------------------


@pytest.fixture
def view() -> Path:
    """An import view in a scratch folder `nobody` may enter, removed afterwards."""
    scratch = Path(tempfile.mkdtemp(prefix="autograder-test-"))
    try:
        yield build_import_view(scratch)
    finally:
        shutil.rmtree(scratch)


def _limits() -> Limits:
    """Without the jail, as `nobody` where it can run this interpreter (as the grader's user
    elsewhere: the grader must not follow the student's link either way)."""
    can = os.geteuid() == 0 and not _why_nobody_cannot_run(sys.executable)
    return Limits(run_as=NOBODY if can else None, isolation="process", memory_mb=512, **PATIENT)


def test_a_link_in_place_of_the_output_file_is_never_followed_by_the_grader(
    view: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "minimax.py"
    secret.write_text(f"# {CANARY}\ndef minimax_value(game, state): ...\n")
    target = tmp_path / "root-only.txt"
    target.write_text(ROOT_ONLY)
    for path in (secret, target):
        path.chmod(0o600)
    honest = StudentProcess([[1, f"print({HONEST_PRINT!r})\n"]], [], view, _limits())
    attack = StudentProcess(
        [[1, _attack(target, secret)]], ["minimax_value", "minimax_decision"], view, _limits()
    )
    try:
        assert honest.start().status == "loaded", honest.output()
        assert attack.start().status == "loaded", attack.output()
        assert attack.call("minimax_value", GameTree([1, 2]), ()).status == "crashed"
        assert attack.start().status == "loaded", attack.output()  # as grading restarts it
        assert attack.call("minimax_decision", GameTree([1, 2]), ()).status == "returned"
        assert honest.output() == HONEST_PRINT + "\n"
        assert attack.output() == (ATTACK_PRINT + "\n") * 2  # what it printed, both times
    finally:
        honest.close()
        attack.close()
    assert target.read_text() == ROOT_ONLY
    assert not list(view.parent.glob("student-*"))  # both working folders are gone


def test_the_child_prints_into_a_pipe_and_the_kept_output_has_no_name(view: Path) -> None:
    """The child's stdout and stderr are one pipe, which names no file; what the grader keeps
    of it is a file without a name in the grader's scratch folder, not the working folder."""
    probe = "import os\nprint(*(os.readlink(f'/proc/self/fd/{fd}') for fd in (1, 2)), sep='|')\n"
    process = StudentProcess([[1, probe]], [], view, _limits())
    try:
        assert process.start().status == "loaded", process.output()
        out, err = process.output().rstrip("\n").split("|")
        kept = os.readlink(f"/proc/self/fd/{process._output._file.fileno()}")
    finally:
        process.close()
    assert out == err and out.startswith("pipe:[")
    assert not kept.startswith(str(process.workdir)) and not Path(kept).exists()


# -- Gradescope without namespaces, end to end --------------------------------------------------


def _interpreter_for_nobody(pythonpath: list[str]) -> tuple[str | None, str]:
    """A Python of this version that `nobody` can run and that imports the grader from
    `pythonpath`: this one, or the system's; None and why not if there is none."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")
    reasons = []
    for candidate in dict.fromkeys(filter(None, [sys.executable, found])):
        why = _why_nobody_cannot_run(candidate)
        if not why:
            env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join(pythonpath)}
            imports = subprocess.run(
                [candidate, "-c", "import autograder.cli"], env=env, capture_output=True,
                text=True, timeout=300, check=False,
            )  # fmt: skip
            if imports.returncode == 0:
                return candidate, ""
            why = f"{candidate} cannot import the grader: {imports.stderr.strip()[-300:]}"
        reasons.append(why)
    if not found:
        reasons.append(f"there is no {version} in /usr/local/bin, /usr/bin or /bin")
    return None, "; ".join(reasons)


WITHOUT_NAMESPACES = """
import dataclasses, json, sys
from pathlib import Path
from autograder.platforms import gradescope
from autograder.reports.diagnoses import cell_failed
# Docker's default profile: no namespaces. The installed reference's hiding is tested with the
# jail; here it would chmod this machine's own site-packages.
gradescope.jail_support = lambda: (False, "namespaces are forbidden in this container")
gradescope.hidden_site_entries = list
root = Path(sys.argv[1])
limits, why = gradescope._isolation(root)
if limits is None:
    sys.exit(why)
limits = dataclasses.replace(limits, **json.loads(sys.argv[2]))
gradescope.run_in_gradescope(root, limits, details="visible")
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", "--out", str(out)]) == 0
    return out


def _grade_without_namespaces(bundle: Path, root: Path, upload: dict[str, str]) -> dict:
    """Grade `upload` in a simulated /autograder at `root`, as root in a container that forbids
    namespaces; check that nothing is left behind in the grader's temporary folder."""
    if os.geteuid() != 0:
        pytest.skip("the fallback is what a root grader does without the jail")
    site = sysconfig.get_paths()["purelib"]
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    interpreter, why = _interpreter_for_nobody([str(root / "source"), site])
    if interpreter is None:
        pytest.skip(f"no interpreter nobody can run here, so the fallback cannot run: {why}")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, text in upload.items():
        (root / "submission" / name).write_text(text)
    solutions = root / "source" / "solutions" / "minimax.py"
    solutions.write_text(solutions.read_text() + f"# {CANARY}\n")
    (root / "source" / "root-only.txt").write_text(ROOT_ONLY)
    temporary = Path(tempfile.mkdtemp(prefix="gradescope-fallback-"))
    temporary.chmod(0o711)  # like /tmp for nobody, but ours to inspect
    try:
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": os.pathsep.join([str(root / "source"), site]),
            "TMPDIR": str(temporary),
        }
        run = subprocess.run(
            [interpreter, "-c", WITHOUT_NAMESPACES, str(root), json.dumps(PATIENT)],
            cwd=root / "source", env=env, capture_output=True, text=True, timeout=1800,
            check=False,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert not list(temporary.iterdir())  # the scratch folder and the working folders
    finally:
        shutil.rmtree(temporary)
    assert (root / "source").stat().st_mode & 0o777 == 0o700
    return json.loads((root / "results" / "results.json").read_text())


def _everything_shown(root: Path) -> str:
    """Every file the grader wrote for Gradescope to show."""
    return "\n".join(path.read_text() for path in sorted((root / "results").iterdir()))


def test_without_namespaces_the_honest_student_keeps_full_marks_as_nobody(
    bundle: Path, tmp_path: Path
) -> None:
    source = f"import os\nprint({HONEST_PRINT!r}, 'as', os.getuid())\n" + reference_source()
    results = _grade_without_namespaces(bundle, tmp_path, {"honest.py": source})
    assert results["score"] == 100, results["output"]
    assert f"{HONEST_PRINT} as {NOBODY}" in results["tests"][-1]["output"]


def test_without_namespaces_a_link_in_the_working_folder_gains_nothing(
    bundle: Path, tmp_path: Path
) -> None:
    steal = tmp_path / "source" / "solutions" / "minimax.py"
    append_to = tmp_path / "source" / "root-only.txt"
    results = _grade_without_namespaces(bundle, tmp_path, {"attack.py": _attack(append_to, steal)})
    assert append_to.read_text() == ROOT_ONLY
    shown = _everything_shown(tmp_path)
    assert CANARY not in shown and "back values up from the leaves" not in shown
    assert html.escape(ATTACK_PRINT) in results["tests"][-1]["output"]
    assert results["score"] == 0


# -- where nobody cannot run Python: nothing runs at all ----------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="the fallback is what a root grader does")
def test_where_nobody_cannot_run_python_no_student_code_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An interpreter behind a folder nobody may enter, as /root/.pyenv is behind /root (0700).
    hidden = tmp_path / "private"
    hidden.mkdir(mode=0o700)
    (hidden / "python").symlink_to(os.path.realpath(sys.executable))
    monkeypatch.setattr(sys, "executable", str(hidden / "python"))
    monkeypatch.setattr(gradescope, "jail_support", lambda: (False, "namespaces forbidden"))
    monkeypatch.setattr(gradescope, "hidden_site_entries", list)
    witness = Path(tempfile.mkdtemp(prefix="gradescope-witness-"))
    witness.chmod(0o777)
    try:
        probe = f"open({str(witness / 'ran')!r}, 'w').close()\n" + reference_source()
        for folder in ("submission", "results", "source"):
            (tmp_path / folder).mkdir()
        (tmp_path / "submission" / "mine.py").write_text(probe)
        results = gradescope.run_in_gradescope(tmp_path, output_format="html")
        assert not (witness / "ran").exists()
    finally:
        shutil.rmtree(witness)
    assert results["score"] == 0 and results["tests"] == []
    assert "no student code is run as root" in results["output"]
    assert results["output_format"] == "html" and results["output"].startswith("<pre>")


# -- the command line refuses a folder as the bundle ---------------------------------------------


@pytest.mark.parametrize("where", ["an existing folder", "below a file"])
def test_gradescope_refuses_an_out_it_cannot_write_in_one_line(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    (tmp_path / "a file").write_text("kept")
    out = tmp_path if where == "an existing folder" else tmp_path / "a file" / "autograder.zip"
    before = sorted(tmp_path.rglob("*"))
    assert main(["gradescope", "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("python -m autograder gradescope: error: --out ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert sorted(tmp_path.rglob("*")) == before
    assert (tmp_path / "a file").read_text() == "kept"


def test_the_gradescope_command_refuses_from_the_shell_with_exit_code_2(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "gradescope", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr
    assert "is a folder" in run.stderr


# -- every output is what its output_format says ------------------------------------------------


HOSTILE_TEXT = "<object at 0x1>\nline two & <b>not bold</b>"


class _Rendered(HTMLParser):
    """The text a browser shows for an HTML fragment, and the tags it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _rendered(fragment: str) -> tuple[str, list[str]]:
    parser = _Rendered()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.text), parser.tags


@pytest.fixture(scope="module")
def hostile_record():
    """The record of a notebook whose message, answers and prints look like HTML, and its page."""
    from autograder.grading.grade import Settings, feedback, grade
    from autograder.grading.load import Submission, load

    value = "def minimax_value(game, state):\n    return " + repr(HOSTILE_TEXT) + "\n"
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(reference_source()),
        nbformat.v4.new_code_cell(f"print({HOSTILE_TEXT!r})\n" + value),
        nbformat.v4.new_code_cell(f"raise ValueError({HOSTILE_TEXT!r})"),
    ]
    scratch = Path(tempfile.mkdtemp(prefix="autograder-test-"))
    try:
        path = scratch / "hostile.ipynb"
        nbformat.write(notebook, path)
        submission = Submission("hostile", (path,))
        limits = Limits(memory_mb=1024, **PATIENT)
        view = build_import_view(scratch / "run")
        record = grade(submission, load(submission), Settings(limits, view, ("minimax_value",)))
        return record, feedback(record)
    finally:
        shutil.rmtree(scratch)


def _plain(record) -> list[str]:
    """The plain text of the top-level output and of each rule's test, as Gradescope shows it."""
    from autograder.reports import files

    tests = files.results_json(record, fingerprint="")["tests"]
    kept = [
        "\n".join(line for line in t["output"].splitlines() if line[:4] != "    ") for t in tests
    ]
    causes = [message for message in record.messages if cell_failed(message)]
    top = [f"status: {record.status}", *(m for m in record.messages if m not in causes)]
    if causes:  # the cause before its effects, said once
        said = "First fix this: a cell of your notebook did not run, so what it defines is missing"
        top = [said, *causes, "", *top]
    return ["\n".join(top), *kept]


@pytest.mark.parametrize("chosen", ["html", "markdown"])
def test_every_output_is_what_its_format_says(hostile_record, chosen: str) -> None:
    record, page = hostile_record
    assert any(HOSTILE_TEXT in message for message in record.messages), record.messages
    results = gradescope.gradescope_results(record, page, "visible", chosen)
    *rules, feedback_test = results["tests"]
    for declared, output, plain in zip(
        [results["output_format"], *(test["output_format"] for test in rules)],
        [results["output"], *(test["output"] for test in rules)],
        _plain(record),
        strict=True,
    ):
        if chosen == "html":  # escaped, in a <pre>: the student's text shown as written
            assert declared == "html" and _rendered(output) == (plain, ["pre"])
        else:
            assert declared == "text" and output == plain
    got = [v.got for rule in record.rules for g in rule.groups for v in g.verdicts if not v.passed]
    assert HOSTILE_TEXT in record.output and repr(HOSTILE_TEXT) in got
    if chosen == "html":
        text, tags = _rendered(feedback_test["output"])
        assert feedback_test["output_format"] == "html" and "object" not in tags
        assert HOSTILE_TEXT in text and repr(HOSTILE_TEXT) in text
    else:  # the answers are code spans; no other text holds a tag
        assert feedback_test["output_format"] == "md"
        assert f"got `{repr(HOSTILE_TEXT)}`" in feedback_test["output"]
        outside = re.sub(r"(`+).*?\1", "", feedback_test["output"])
        assert "<" not in outside and ">" not in outside


def test_a_refusal_says_its_format_and_shows_hostile_names_as_written(tmp_path: Path) -> None:
    for folder in ("submission", "results", "source"):
        (tmp_path / folder).mkdir()
    names = ("<object at 0x1>.py", "a & <b>bold.ipynb")
    for name in names:
        (tmp_path / "submission" / name).write_text("x = 1\n")
    html_results = gradescope.run_in_gradescope(tmp_path, output_format="html")
    text_results = gradescope.run_in_gradescope(tmp_path, output_format="markdown")
    assert text_results["output_format"] == "text"
    assert "only the one notebook" in text_results["output"]
    assert all(name in text_results["output"] for name in names)
    assert html_results["output_format"] == "html"
    assert _rendered(html_results["output"]) == (text_results["output"], ["pre"])
