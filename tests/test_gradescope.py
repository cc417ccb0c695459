"""The Gradescope bundle runs its own run_autograder in a simulated /autograder layout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import graded_class
import pytest

from autograder.cli import main
from autograder.grading.reference import reference_source
from autograder.grading.rules import ASSIGNMENT_RULES
from autograder.platforms import gradescope

CLASS = Path(__file__).resolve().parents[1] / "examples" / "class"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", "--out", str(out)]) == 0
    return out


def _run(bundle: Path, root: Path, files: dict[str, bytes]) -> dict:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(root / "source")
    run_autograder = root / "source" / "run_autograder"
    run_autograder.chmod(0o755)  # zipfile does not restore modes; Gradescope does
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, data in files.items():
        (root / "submission" / name).write_bytes(data)
    env = {
        **os.environ,
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_PYTHON": sys.executable,
        "PYTHONPATH": str(root / "source"),
    }
    run = subprocess.run([str(run_autograder)], env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_bundle_has_gradescope_scripts_at_the_top_and_the_hidden_tests(bundle: Path):
    names = zipfile.ZipFile(bundle).namelist()
    assert {"setup.sh", "run_autograder", "pyproject.toml"} <= set(names)
    assert "autograder/hidden_tests/test_rules.py" in names
    modes = {i.filename: i.external_attr >> 16 for i in zipfile.ZipFile(bundle).infolist()}
    assert modes["run_autograder"] & 0o111


def test_run_autograder_grades_a_correct_submission_to_full_marks(bundle: Path, tmp_path):
    results = _run(bundle, tmp_path, {"assignment.py": reference_source().encode()})
    assert results["score"] == 100
    assert len(results["tests"]) == 7 + 1  # a test per rule, and the feedback
    assert (tmp_path / "results" / "feedback.html").exists()


def test_run_autograder_reports_a_broken_submission_clearly(bundle: Path, tmp_path) -> None:
    broken = (CLASS / "rupert_broken_json.ipynb").read_bytes()
    results = _run(bundle, tmp_path, {"assignment.ipynb": broken})
    assert results["score"] == 0
    assert "not a valid notebook" in results["output"]


def test_run_autograder_with_nothing_uploaded_says_what_to_upload(bundle: Path, tmp_path):
    results = _run(bundle, tmp_path, {"notes.txt": b"hello"})
    assert results["score"] == 0 and "Upload your completed notebook" in results["output"]


@pytest.mark.xdist_group(graded_class.GROUP)
def test_workers_do_not_change_the_grades(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Some students graded with one worker get the rows the class run with two gave them (that
    run, shared with tests/test_grader_class.py, is made once: tests/graded_class.py)."""
    chosen = ["alice_correct", "dan_strict_cutoff", "heidi_root_picks_min", "mallory_fresh_window",
              "sybil_syntax_error", "xena_value_or_heuristic"]  # fmt: skip
    folder = tmp_path / "class"
    folder.mkdir()
    for student in chosen:
        shutil.copy(CLASS / f"{student}.ipynb", folder)
    assert main(["grade", str(folder), "--out", str(tmp_path / "1"), *graded_class.TIMEOUT,
                 "--workers", "1", "--quiet"]) == 0  # fmt: skip
    two = (graded_class.example_class_graded(tmp_path_factory) / "grades.csv").read_text()
    header, *rows = two.splitlines(keepends=True)
    chosen_rows = [row for row in rows if row.split(",", 1)[0] in chosen]
    assert len(chosen_rows) == len(chosen)
    assert (tmp_path / "1" / "grades.csv").read_text() == "".join([header, *chosen_rows])


def _layout(root: Path, files: dict[str, bytes]) -> None:
    for folder in ("submission", "results", "source"):
        (root / folder).mkdir()
    for name, data in files.items():
        (root / "submission" / name).write_bytes(data)


def test_a_symbolic_link_in_the_upload_is_refused_and_earns_nothing(tmp_path: Path) -> None:
    from autograder.platforms.gradescope import run_in_gradescope

    _layout(tmp_path, {})
    solution = Path(__file__).resolve().parents[1] / "assignments/source/minimax/minimax.ipynb"
    (tmp_path / "submission" / "minimax.ipynb").symlink_to(solution)
    results = run_in_gradescope(tmp_path)
    assert results["score"] == 0 and "symbolic link" in results["output"]
    assert json.loads((tmp_path / "results" / "results.json").read_text())["score"] == 0


def test_an_upload_of_several_notebooks_is_refused_not_joined(tmp_path: Path) -> None:
    from autograder.platforms.gradescope import run_in_gradescope

    source = reference_source().encode()
    _layout(tmp_path, {"a.py": source, "b.ipynb": (CLASS / "alice_correct.ipynb").read_bytes()})
    results = run_in_gradescope(tmp_path)
    assert results["score"] == 0 and "only the one notebook" in results["output"]


@pytest.mark.skipif(os.geteuid() != 0, reason="what a root grader without the jail does")
def test_without_the_jail_a_root_grader_never_runs_student_code_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autograder.platforms import gradescope

    monkeypatch.setattr(gradescope, "jail_support", lambda: (False, "namespaces forbidden"))
    monkeypatch.setattr(gradescope, "hidden_site_entries", list)
    probe = "import os\ndef minimax_value(game, state):\n    return os.getuid()\n"
    _layout(tmp_path, {"mine.py": probe.encode()})
    results = gradescope.run_in_gradescope(tmp_path)
    assert (tmp_path / "source").stat().st_mode & 0o777 == 0o700
    if results["tests"]:  # Python runs as nobody here: the submission did
        got = results["extra_data"]["record"]["rules"][0]["groups"][0]["verdicts"][0]["got"]
        assert got == str(gradescope.UNPRIVILEGED)
    else:  # it cannot (this interpreter is not readable by nobody): nothing ran at all
        assert "no student code is run as root" in results["output"]


def _runtime_closure() -> set[str]:
    """Every distribution the grader's runtime dependencies pull in, from installed metadata."""
    import importlib.metadata as metadata
    import re
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    pending = [Requirement(r).name for r in project["project"]["dependencies"]]
    found: set[str] = set()
    while pending:
        name = re.sub(r"[-_.]+", "-", pending.pop()).lower()
        if name in found:
            continue
        found.add(name)
        for requirement in map(Requirement, metadata.distribution(name).requires or []):
            if not requirement.marker or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return found


def test_setup_installs_exact_versions_of_every_runtime_dependency(bundle: Path) -> None:
    import tomllib

    from packaging.requirements import Requirement

    root = Path(__file__).resolve().parents[1]
    pins = {}
    for line in (root / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name] = version
    assert _runtime_closure() <= set(pins), _runtime_closure() - set(pins)
    project = tomllib.loads((root / "pyproject.toml").read_text())
    for requirement in map(Requirement, project["project"]["dependencies"]):
        assert requirement.specifier.contains(pins[requirement.name.lower()])
    archive = zipfile.ZipFile(bundle)
    assert "constraints.txt" in archive.namelist()
    assert "-c /autograder/source/constraints.txt" in archive.read("setup.sh").decode()


def test_a_bundle_for_one_assignment_grades_its_rules_only(tmp_path: Path) -> None:
    out = tmp_path / "minimax.zip"
    assert main(["gradescope", "--assignment", "minimax", "--out", str(out)]) == 0
    script = zipfile.ZipFile(out).read("run_autograder").decode()
    assert "--assignment minimax" in script and "--details after_published" in script
    results = _run(out, tmp_path / "gs", {"mine.py": reference_source().encode()})
    assert (results["score"], results["max_score"]) == (25, 25)


@pytest.mark.parametrize(
    "assignment, notebook, score",
    [
        ("chance_and_maxn", "alice_correct.ipynb", 50),  # the reference, lecture 06's too
        ("chance_and_maxn", "gus_maxn_wrong_component.ipynb", 25),
        ("connect_four", "carol_negamax.ipynb", 40.67),  # greedy: random, some positions, in time
    ],
)
def test_the_later_assignments_grade_through_gradescope_too(
    assignment: str, notebook: str, score: int, tmp_path: Path
) -> None:
    out = tmp_path / f"{assignment}.zip"
    assert main(["gradescope", "--assignment", assignment, "--out", str(out)]) == 0
    upload = {notebook: (CLASS / notebook).read_bytes()}
    results = _run(out, tmp_path / "gs", upload)
    assert results["score"] == score, results["tests"]
    names = [test["name"].split(":")[0] for test in results["tests"]]
    assert names[: len(ASSIGNMENT_RULES[assignment])] == list(ASSIGNMENT_RULES[assignment])


def test_expected_answers_are_shown_only_with_the_chosen_visibility(bundle: Path, tmp_path):
    notebook = (CLASS / "peggy_last_child.ipynb").read_bytes()
    results = _run(bundle, tmp_path, {"peggy.ipynb": notebook})
    *rules, details = results["tests"]
    assert all(test["visibility"] == "visible" for test in rules)
    assert not any("expected" in test["output"] for test in rules)
    assert details["visibility"] == "after_published" and details["max_score"] == 0
    assert "Expected" in details["output"] and details["output_format"] == "html"
    assert "<style>" not in details["output"]


def test_the_bundle_holds_the_tracked_source_files_and_nothing_else(bundle: Path) -> None:
    """Build output left by `pip install ./games` (games/build/lib, *.egg-info) and anything
    else untracked stays out: the members are the scripts and `git ls-files` of the sources."""
    root = Path(__file__).resolve().parents[1]
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--", *gradescope.SOURCES],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    tracked = {name for name in listed if (root / name).is_file()}
    assert set(zipfile.ZipFile(bundle).namelist()) == {"setup.sh", "run_autograder"} | tracked


@pytest.mark.parametrize("with_git", [True, False], ids=["git checkout", "unpacked release"])
def test_untracked_build_output_is_never_bundled(tmp_path: Path, with_git: bool) -> None:
    (tmp_path / "games" / "build" / "lib" / "games").mkdir(parents=True)
    (tmp_path / "games" / "build" / "lib" / "games" / "stale.py").write_text("old = 1\n")
    (tmp_path / "games" / "games.egg-info").mkdir()
    (tmp_path / "games" / "games.egg-info" / "PKG-INFO").write_text("Name: games\n")
    (tmp_path / "games" / "protocol.py").write_text("MAX = 'MAX'\n")
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    if with_git:
        git = ["git", "-C", str(tmp_path)]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "games/protocol.py", "pyproject.toml"], check=True)
        (tmp_path / "games" / "scratch.py").write_text("untracked = 1\n")
    found = {p.relative_to(tmp_path).as_posix() for p in gradescope.bundled_files(tmp_path)}
    assert found == {"games/protocol.py", "pyproject.toml"}


def test_gradescope_try_runs_the_bundle_on_a_notebook_here(bundle: Path, tmp_path, capsys):
    """The documented local run: `python -m autograder gradescope-try autograder.zip FILE`."""
    upload = tmp_path / "assignment.py"
    upload.write_text(reference_source(), encoding="utf-8")
    root = tmp_path / "layout"
    assert main(["gradescope-try", str(bundle), str(upload), "--root", str(root)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("score 100: ") and str(root / "results" / "feedback.html") in printed
    assert json.loads((root / "results" / "results.json").read_text())["score"] == 100
    assert main(["gradescope-try", str(bundle), str(upload), "--root", str(root)]) == 2
