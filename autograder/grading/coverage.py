"""Which hidden instances catch which mistakes, and the cheapest choice that still catches them.

Every rule's groups take their instances from pools of candidates (`rules.candidates`). This
module grades a corpus of wrong submissions on every candidate: the example class (one student
per catalogued mistake), the mutants and mistaken functions the tests grade, the public
implementations of `tests/adversarial/pruning_*.py`, and guessers (constant values, the first
or the last action). That gives the matrix instance x submission: which calls each one fails.
Then, for each graded function and pool (a "slot"), a greedy set cover weighted by the states a
correct submission is served keeps the fewest served states such that

- each submission still fails every group it fails on every candidate (so it loses exactly the
  same points), and passes the others (fewer instances can only pass more);
- every submission's record still names the same diagnoses, rule by rule (checked by grading the
  corpus again on the choice; where one differs, the cheapest instance it fails on in that rule
  is added and the check runs again);
- the pinned instances (`instances.TABLE_BOUND_DECISIONS`) stay.

Run from a clone (the corpus is in examples/ and tests/): `python -m autograder.grading.coverage`
prints the matrix and the choice; `--write` freezes the choice in
autograder/data/frozen_instances.json (`chosen`). It grades the corpus two or three times: a few
minutes.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from autograder.grading import instances, rules
from autograder.grading.rules import RULE_IDS

REPO = Path(__file__).resolve().parents[2]

TEST_MODULES = ("test_diagnosis_names", "test_states_are_values", "test_feedback_places")
"""Test modules whose module-level strings hold mistaken graded functions (each is graded as the
reference with that string's functions in place of its own)."""

LEFT_OUT = ("trent_infinite_loop", "xavier_random_moves")
"""Example students left out of the corpus: trent's time-outs take a minute and fail any
instance of the function that loops; xavier's random moves differ from run to run (what a random
move may earn is bounded by `GUESS_CHANCE` instead)."""

GUESS_CHANCE = 1 / 1000
"""The most a uniformly random legal move may have of passing a decision group: a group keeps
instances until the product of their shares of optimal moves is at most this."""

GUESSED_VALUES = (0, 1, -1)


@cache
def _guessers() -> dict[str, str]:
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
    for name, functions in {**_mistaken_functions(), **_guessers()}.items():
        sources[name] = reference + "\n\n" + functions
    for index, (name, source) in enumerate(sources.items()):
        path = folder / f"source_{index:02d}.py"
        path.write_text(source, encoding="utf-8")
        found[name] = path
    return found


# -- the matrix -------------------------------------------------------------------------------


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


@cache
def served_states(function: str, instance: instances.Instance) -> int:
    """The states a correct submission (the reference solutions) generates on this call."""
    import solutions
    from games import CountingGame

    counted = CountingGame(instance.game)
    extra = () if instance.depth is None else (instance.depth, instance.evaluate)
    getattr(solutions, function)(counted, instance.state, *extra)
    return counted.states_generated


def slots() -> dict[str, tuple[str, str, list[rules.Group], tuple]]:
    """Each (function, pool) the rules call, with its groups and the pool's candidates."""
    found: dict[str, tuple] = {}
    for rule in rules.selected_rules(RULE_IDS):
        for group in rule.groups:
            key = rules.slot(group.function, group.pool)
            entry = found.setdefault(
                key, (group.function, group.pool, [], rules.candidates(group.pool))
            )
            entry[2].append((rule.id, group))
    return found


def catches(graded: dict[str, Graded]) -> dict[str, list[set]]:
    """For each slot, for each candidate, the (submission, rule, group) it fails."""
    found = {}
    for key, (_, _, groups, candidates) in slots().items():
        found[key] = [
            {
                (name, rule_id, group.name)
                for name, result in graded.items()
                for rule_id, group in groups
                if result.passed.get((rule_id, group.name, id(candidate))) is False
            }
            for candidate in candidates
        ]
    return found


HAND_MADE = {"hand": 6, "pruned_trees": 3, "depth_trees": 12}
"""Pools whose first candidates are made by hand, each aimed at a circulating mistake and small
enough to draw in the feedback: kept whatever the cover picks (a few states each)."""


PINNED = {
    "ttt_moves_deep": instances.TABLE_BOUND_DECISIONS,
    "ttt_values_deep": instances.frozen_data()["select_transpositions"][((5, 7),)],
}
"""Positions kept whatever the cover picks, by pool: the decisions where a table's bound flips
the move, and the two positions (MAX, then MIN to move) where a table that stores a bound as
exact gets a wrong value, the second one named by no other mistake (`selection.py`)."""


def pinned(key: str) -> set[int]:
    """The places of a slot's candidates that are kept whatever the cover picks: the hand-made
    trees and the `PINNED` positions."""
    function, pool, _, candidates = slots()[key]
    return {
        place
        for place, candidate in enumerate(candidates)
        if place < HAND_MADE.get(pool, 0) or candidate.state in PINNED.get(pool, ())
    }


def guess_share(function: str, candidate: instances.Instance) -> float:
    """The share of a decision's legal moves that are optimal here (1 for a value)."""
    from autograder.grading.cases import case

    if not function.endswith("_decision"):
        return 1.0
    found = case(function, candidate)
    return len(found.optimal) / len(found.legal) if found.legal else 1.0


def cover(key: str, caught: list[set], needed: Iterable = ()) -> list[int]:
    """The greedy weighted set cover of one slot: places of candidates, fewest states first
    (the pinned ones and `needed` kept), that fail every (submission, group) some candidate
    fails; then, for a decision, the cheapest that leave a random move at most `GUESS_CHANCE`
    of passing."""
    function, _, _, candidates = slots()[key]
    weight = [max(served_states(function, candidate), 1) for candidate in candidates]
    kept = set(pinned(key)) | set(needed)
    left = set().union(*caught) - set().union(set(), *(caught[p] for p in kept))
    while left:
        place = max(
            (p for p in range(len(candidates)) if p not in kept and caught[p] & left),
            key=lambda p: (len(caught[p] & left) / weight[p], -p),
        )
        kept.add(place)
        left -= caught[place]
    share = [guess_share(function, candidate) for candidate in candidates]
    chance = math.prod(share[p] for p in kept)
    while chance > GUESS_CHANCE and any(share[p] < 1 for p in range(len(share)) if p not in kept):
        place = max(
            (p for p in range(len(candidates)) if p not in kept and share[p] < 1),
            key=lambda p: (-math.log(share[p]) / weight[p], -p),
        )
        kept.add(place)
        chance *= share[place]
    return sorted(kept)


def differences(before: dict[str, Graded], after: dict[str, Graded]) -> list[tuple[str, str]]:
    """(submission, rule) whose points or diagnosis changed, and submissions whose record names
    other diagnoses ("" for the rule). A guesser's points only are compared: what its constant
    happens to equal is no mistake to name."""
    found = []
    for name, was in before.items():
        now = after[name]
        if name in _guessers():
            was, now = replace(was, diagnoses=now.diagnoses, named=now.named), now
        for (rule_id, points), (_, points_now) in zip(was.points, now.points, strict=True):
            if points != points_now:
                found.append((name, rule_id))
        for (rule_id, said), (_, said_now) in zip(was.diagnoses, now.diagnoses, strict=True):
            if said != said_now:
                found.append((name, rule_id))
        if was.named != now.named and not any(n == name for n, _ in found):
            print(f"  {name} is filed under {now.named}, not {was.named}", flush=True)
            found.append((name, ""))
    return found


def _use(choice: dict[str, list[int]] | None) -> None:
    """Build the rules again on `choice` (None: every candidate)."""
    from autograder.grading import cases

    rules.EVERY_CANDIDATE = choice is None
    if choice is not None:
        instances.chosen_data = lambda: {key: tuple(places) for key, places in choice.items()}
    for cached in (rules.rules, cases.case_numbers, cases._pruned_calls, cases.reference):
        cached.cache_clear()


def choose(view: Path, files: dict[str, Path], rounds: int = 4) -> tuple[dict, dict, dict]:
    """The cover of every slot, checked by grading again: (choice, matrix, every-candidate
    grades)."""
    _use(None)
    everything = grade_corpus(files, view)
    caught = catches(everything)
    needed: dict[str, set[int]] = {key: set() for key in caught}
    choice = {key: cover(key, caught[key]) for key in caught}
    for _ in range(rounds):
        _use(choice)
        changed = differences(everything, grade_corpus(files, view))
        print(f"checked the choice: {len(changed)} difference(s) {changed[:8]}", flush=True)
        if not changed:
            return choice, caught, everything
        for name, rule_id in changed:
            for key, (_, _, groups, _) in slots().items():
                if rule_id and rule_id not in {r for r, _ in groups}:
                    continue
                failing = [
                    p
                    for p, found in enumerate(caught[key])
                    if p not in choice[key] and any(n == name for n, _, _ in found)
                ]
                if failing:
                    function, _, _, candidates = slots()[key]
                    cheapest = min(failing, key=lambda p: served_states(function, candidates[p]))
                    needed[key].add(cheapest)
        choice = {key: cover(key, caught[key], needed[key]) for key in caught}
    raise SystemExit("the choice still changes some grades after {rounds} rounds: see above")


def report(choice: dict, caught: dict) -> str:
    """The matrix in words: per slot, each candidate's served states, how many (submission,
    group) it fails, and whether it is kept; then the totals."""
    lines, before, after = [], 0, 0
    for key, (function, _, _, candidates) in slots().items():
        lines.append(f"{key}:")
        for place, candidate in enumerate(candidates):
            states = served_states(function, candidate)
            before += states
            kept = place in choice[key]
            after += states if kept else 0
            mark = "kept" if kept else "    "
            lines.append(
                f"  {mark} {place:2d} {states:6,} states, fails {len(caught[key][place]):3d}: "
                f"{candidate.name[:60]}"
            )
    share = after / before if before else math.nan
    lines.append(f"served states of a correct submission: {before:,} on every candidate, "
                 f"{after:,} on the choice ({share:.0%})")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from autograder.sandbox import build_import_view

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="freeze the choice in the data")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="coverage-") as scratch:
        folder = Path(scratch)
        files = corpus(folder)
        print(f"grading {len(files)} submissions on every candidate ...", flush=True)
        choice, caught, _ = choose(build_import_view(folder / "view"), files)
    print(report(choice, caught))
    if args.write:
        from autograder.grading.selection import write_frozen_data

        print(write_frozen_data(chosen=choice))
    return 0


if __name__ == "__main__":
    sys.exit(main())
