"""The submissions `autograder.grading.coverage` grades on every candidate instance, and
grading them: the example class, the mistaken functions of the tests, the public implementations
of tests/adversarial/pruning_*.py and guessers. Needs a clone (examples/ and tests/)."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from autograder.grading import rules
from autograder.grading.rules import RULE_IDS

REPO = Path(__file__).resolve().parents[2]

TEST_MODULES = ("test_diagnosis_names", "test_states_are_values", "test_feedback_places")
"""Test modules whose module-level strings hold mistaken graded functions (each is graded as the
reference with that string's functions in place of its own)."""

LEFT_OUT = ("trent_infinite_loop", "xavier_random_moves")
"""Example students left out of the corpus: trent's time-outs take a minute and fail any
instance of the function that loops; xavier's random moves differ from run to run (what a random
move may earn is bounded by `GUESS_CHANCE` instead)."""

GUESSED_VALUES = (0, 1, -1)


@cache
def guessers() -> dict[str, str]:
    """Functions that guess: a constant value, the first or the last legal action."""
    found = {}
    for function in ("minimax_value", "alphabeta_value"):
        for constant in GUESSED_VALUES:
            found[f"{function} returns {constant}"] = (
                f"def {function}(game, state, *args, **kwargs):\n    return {constant}\n"
            )
    found["depth_limited_value returns 0"] = (
        "def depth_limited_value(*args, **kwargs):\n    return 0\n"
    )
    for function in ("minimax_decision", "alphabeta_decision", "depth_limited_decision"):
        for which, index in (("first", 0), ("last", -1)):
            found[f"{function} picks the {which} action"] = (
                f"def {function}(game, state, *args, **kwargs):\n"
                f"    return game.actions(state)[{index}]\n"
            )
    return found


def _test_module(name: str):
    """A test module, imported from its path (tests/ is not a package)."""
    tests = REPO / "tests"
    if str(tests) not in sys.path:
        sys.path.insert(0, str(tests))
    spec = importlib.util.spec_from_file_location(f"_coverage_{name}", tests / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _mistaken_functions() -> dict[str, str]:
    """The module-level strings of `TEST_MODULES` that define a graded function."""
    found = {}
    for name in TEST_MODULES:
        module = _test_module(name)
        for attribute, value in vars(module).items():
            defines = isinstance(value, str) and any(
                f"def {function}(" in value for function in rules.FUNCTIONS
            )
            if attribute.isupper() and defines:
                found[f"{name}.{attribute}"] = value
    return found


def corpus(folder: Path) -> dict[str, Path]:
    """The wrong (and a few correct) submissions graded on every candidate, written to
    `folder` where they are sources: name -> file."""
    from autograder.grading.reference import ALL_MODULES, reference_source

    if not (REPO / "examples" / "class").is_dir() or not (REPO / "tests").is_dir():
        raise SystemExit("the coverage needs a clone of the repository (examples/ and tests/)")
    found = {
        path.stem: path
        for path in sorted((REPO / "examples" / "class").glob("*.ipynb"))
        if path.stem not in LEFT_OUT
    }
    found |= {
        path.stem: path for path in sorted((REPO / "tests" / "adversarial").glob("pruning_*.py"))
    }
    reference = reference_source(ALL_MODULES)
    mutants = _test_module("test_rule_mutants")
    sources = {f"mutant of {rule}": mutants.mutant_source(rule) for rule in RULE_IDS}
    for name, functions in {**_mistaken_functions(), **guessers()}.items():
        sources[name] = reference + "\n\n" + functions
    for index, (name, source) in enumerate(sources.items()):
        path = folder / f"source_{index:02d}.py"
        path.write_text(source, encoding="utf-8")
        found[name] = path
    return found


@dataclass(frozen=True)
class Graded:
    """What grading one submission on the current instances gave, as the coverage compares it:
    the points of each group and the diagnoses each rule names, and each verdict's pass."""

    points: tuple[tuple[str, tuple[float, ...]], ...]
    diagnoses: tuple[tuple[str, str], ...]
    named: tuple[str, ...]
    passed: dict


def grade_corpus(files: dict[str, Path], view: Path) -> dict[str, Graded]:
    """Grade every submission of the corpus on the current rules (one process at a time)."""
    from autograder.grading.grade import Settings, grade
    from autograder.grading.load import Submission, load
    from autograder.reports.diagnoses import diagnosed, mistake_label
    from autograder.sandbox import Limits

    settings = Settings(Limits(timeout=10.0), view, RULE_IDS)
    built = {rule.id: rule for rule in rules.rules()}
    found = {}
    for name, path in files.items():
        submission = Submission(name.replace(" ", "_"), (path,))
        record = grade(submission, load(submission), settings)
        passed = {}
        for result in record.rules:
            for group, kept in zip(built[result.id].groups, result.groups, strict=True):
                verdicts = [verdict.passed for verdict in kept.verdicts]
                if len(verdicts) != len(group.instances):  # none run (a function not defined)
                    verdicts = [kept.points == kept.max_points] * len(group.instances)
                for instance, verdict in zip(group.instances, verdicts, strict=True):
                    passed[(result.id, group.name, id(instance))] = verdict
        found[name] = Graded(
            tuple((r.id, tuple(g.points for g in r.groups)) for r in record.rules),
            tuple((r.id, mistake_label(r.diagnosis) or "") for r in record.rules),
            tuple(sorted(diagnosed(record))),
            passed,
        )
    return found
