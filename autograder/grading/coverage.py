"""Which hidden instances catch which mistakes, and the cheapest choice that still catches them.

Every rule's groups take their instances from pools of candidates (`rules.candidates`). This
module grades a corpus of wrong submissions on every candidate: the example class (one student
per catalogued mistake), the mutants and mistaken functions the tests grade, the public
implementations of `tests/adversarial/pruning_*.py`, and guessers (constant values, the first
or the last action); and, in-process, every mistake `autograder.grading.diagnosis` re-enacts in a
value function (`reenacted`). That gives the matrix instance x submission: which calls each one
fails.
Then, for each graded function and pool (a "slot"), a greedy set cover weighted by the states a
correct submission is served keeps the fewest served states such that

- each submission still fails every group it fails on every candidate (so it loses exactly the
  same points), and passes the others (fewer instances can only pass more);
- every submission's record still names the same diagnoses, rule by rule (checked by grading the
  corpus again on the choice; where one differs, the cheapest instance it fails on in that rule
  is added and the check runs again);
- a random move passes a decision group with a chance of at most `GUESS_CHANCE`;
- the pinned instances stay: the hand-made trees (`HAND_MADE`), the positions of
  `instances.table_bound_states()` and the two transposition traps (`PINNED`).

Run from a clone (the corpus is in examples/ and tests/): `python -m autograder.grading.coverage`
prints the matrix and the choice; `--write` freezes the choice in
autograder/data/frozen_instances.json (`chosen`). It grades the corpus two or three times:
about two minutes on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from pathlib import Path

from autograder.grading import instances, rules
from autograder.grading.coverage_corpus import Graded, corpus, grade_corpus, guessers
from autograder.grading.rules import RULE_IDS

GUESS_CHANCE = 1 / 1000
"""The most a uniformly random legal move may have of passing a decision group: a group keeps
instances until the product of their shares of optimal moves is at most this."""


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
    "ttt_moves_deep": instances.table_bound_states(),
    "ttt_values_deep": instances.frozen_data()["select_transpositions"][((5, 7),)],
}
"""Positions kept whatever the cover picks, by pool: the decisions where a table's bound flips
the move, and the two positions (MAX, then MIN to move) where a table that stores a bound as
exact gets a wrong value, the second one named by no other mistake (`selection.py`)."""


@cache
def reenacted() -> dict:
    """The mistakes `autograder.grading.diagnosis` re-enacts in a value function, by id."""
    from autograder.grading import diagnosis

    return {**diagnosis.VALUE_VARIANTS, **diagnosis.PRUNING_VARIANTS}


def reenacted_groups() -> list[rules.Group]:
    """The groups that call a value function without a depth: where the re-enactments apply."""
    return [
        group
        for rule in rules.selected_rules(RULE_IDS)
        if rule.id in ("minimax_value", "alphabeta_value", "alphabeta_pruning")
        for group in rule.groups
        if group.function.endswith("_value")
    ]


def variant_fails(group: rules.Group, instance: instances.Instance, variant) -> bool:
    """Whether the value function with the re-enacted mistake `variant` fails `instance` in
    `group`: a wrong value or, in a pruning group, a count outside the judge's bounds."""
    from autograder.grading import diagnosis
    from autograder.grading.cases import case
    from autograder.grading.judge import PRUNING_SLACK

    want = case(group.function, instance)
    value = diagnosis.variant_value(instance.game, instance.state, variant)
    if value is None or not math.isclose(value, want.value, rel_tol=1e-9, abs_tol=1e-9):
        return True
    if group not in rules.rule("alphabeta_pruning").groups:
        return False
    states = diagnosis.count_states(instance.game, instance.state, variant, False)
    return not math.ceil(want.fewest / PRUNING_SLACK) <= states <= PRUNING_SLACK * want.states


def variant_catches() -> dict[str, list[set]]:
    """For each slot, for each candidate, the (re-enacted mistake, rule, group) it fails."""
    from autograder.grading import diagnosis

    applies = {id(group) for group in reenacted_groups()}
    found = {}
    for key, (function, _, groups, candidates) in slots().items():
        found[key] = [
            {
                (f"re-enacted {mistake_id}", rule_id, group.name)
                for rule_id, group in groups
                if id(group) in applies
                for mistake_id, variant in reenacted().items()
                if not (function.startswith("minimax") and diagnosis.needs_a_window(variant))
                and variant_fails(group, candidate, variant)
            }
            for candidate in candidates
        ]
    return found


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
    """The choice for one slot: `cover_places` with the states a correct submission is served
    on each candidate, the shares of optimal moves, and the pinned places and `needed` kept."""
    function, _, _, candidates = slots()[key]
    weights = [served_states(function, candidate) for candidate in candidates]
    shares = [guess_share(function, candidate) for candidate in candidates]
    return cover_places(weights, shares, caught, set(pinned(key)) | set(needed))


def cover_places(
    weights: list[int], shares: list[float], caught: list[set], kept: set[int]
) -> list[int]:
    """A greedy weighted set cover: the places in `kept`, then, while some element of `caught`
    is failed by no kept place, the place that fails most of them per state (weights of 0
    count as 1); then, while a random move has more than `GUESS_CHANCE` of passing (the product
    of the kept places' `shares`), the place that lowers it most per state."""
    weight = [max(w, 1) for w in weights]
    kept = set(kept)
    left = set().union(set(), *caught) - set().union(set(), *(caught[p] for p in kept))
    while left:
        place = max(
            (p for p in range(len(caught)) if p not in kept and caught[p] & left),
            key=lambda p: (len(caught[p] & left) / weight[p], -p),
        )
        kept.add(place)
        left -= caught[place]
    chance = math.prod(shares[p] for p in kept)
    while chance > GUESS_CHANCE and any(shares[p] < 1 for p in range(len(shares)) if p not in kept):
        place = max(
            (p for p in range(len(shares)) if p not in kept and shares[p] < 1),
            key=lambda p: (-math.log(shares[p]) / weight[p], -p),
        )
        kept.add(place)
        chance *= shares[place]
    return sorted(kept)


def differences(before: dict[str, Graded], after: dict[str, Graded]) -> list[tuple[str, str]]:
    """(submission, rule) whose points or diagnosis changed, and submissions whose record names
    other diagnoses ("" for the rule). A guesser's points only are compared: what its constant
    happens to equal is no mistake to name."""
    found = []
    for name, was in before.items():
        now = after[name]
        if name in guessers():
            was, now = replace(was, diagnoses=now.diagnoses, named=now.named), now
        for (rule_id, points), (_, points_now) in zip(was.points, now.points, strict=True):
            if points != points_now and not _order_dependent(was, points, points_now):
                found.append((name, rule_id))
            elif points != points_now:
                print(
                    f"  {name} loses {rule_id} {points_now}, not {points}: its table is kept "
                    "between calls, so its answers depend on the calls made before",
                    flush=True,
                )
        for (rule_id, said), (_, said_now) in zip(was.diagnoses, now.diagnoses, strict=True):
            if said != said_now:
                found.append((name, rule_id))
        if was.named != now.named and not any(n == name for n, _ in found):
            print(f"  {name} is filed under {now.named}, not {was.named}", flush=True)
            found.append((name, ""))
    return found


def _order_dependent(was, points: tuple, points_now: tuple) -> bool:
    """Whether a difference of points is that of a submission whose table is kept between calls
    (named so on every candidate), losing more on the choice: its answers depend on which calls
    came before, so fewer calls may fail more groups (never fewer), and no instance added to
    the choice can bring back what every candidate's calls happened to let it pass."""
    from autograder.reports.diagnoses import CARRIED_LABEL

    return CARRIED_LABEL in was.named and all(
        now <= before for now, before in zip(points_now, points, strict=True)
    )


def named_choice(choice: dict[str, list[int]]) -> dict[str, tuple[tuple[int, str], ...]]:
    """`choice` as the frozen data holds it: each place with its candidate's name."""
    return {
        key: tuple((place, slots()[key][3][place].name) for place in places)
        for key, places in choice.items()
    }


def _use(choice: dict[str, list[int]] | None) -> None:
    """Build the rules again on `choice` (None: every candidate)."""
    from autograder.grading import cases

    rules.EVERY_CANDIDATE = choice is None
    if choice is not None:
        named = named_choice(choice)
        instances.chosen_data = lambda: named
    for cached in (rules.rules, cases.case_numbers, cases._pruned_calls, cases.reference):
        cached.cache_clear()


def choose(view: Path, files: dict[str, Path], rounds: int = 4) -> tuple[dict, dict, dict]:
    """The cover of every slot, checked by grading again: (choice, matrix, every-candidate
    grades)."""
    _use(None)
    everything = grade_corpus(files, view)
    caught = catches(everything)
    for key, reenacted_caught in variant_catches().items():
        caught[key] = [
            mine | theirs for mine, theirs in zip(caught[key], reenacted_caught, strict=True)
        ]
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
    raise SystemExit(f"the choice still changes some grades after {rounds} rounds: see above")


def report(choice: dict, caught: dict, matrix: bool = False) -> str:
    """The matrix in words: per slot, each candidate's served states, how many (submission,
    group) it fails (with `matrix`, which submissions), and whether it is kept; then the
    totals."""
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
            if matrix:
                names = sorted({name for name, _, _ in caught[key][place]})
                lines.append(f"       fails: {', '.join(names) or 'nothing'}")
    share = after / before if before else math.nan
    lines.append(f"served states of a correct submission: {before:,} on every candidate, "
                 f"{after:,} on the choice ({share:.0%})")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from autograder.sandbox import build_import_view

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="freeze the choice in the data")
    parser.add_argument(
        "--matrix", action="store_true", help="name the submissions each candidate fails"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="coverage-") as scratch:
        folder = Path(scratch)
        _use(None)  # the corpus's test modules build the rules: a stale choice must not stop it
        files = corpus(folder)
        print(f"grading {len(files)} submissions on every candidate ...", flush=True)
        choice, caught, _ = choose(build_import_view(folder / "view"), files)
    print(report(choice, caught, args.matrix))
    if args.write:
        from autograder.grading.frozen_writer import write_frozen_data

        print(write_frozen_data(chosen=named_choice(choice)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
