"""The frozen hidden instances are exactly what the searches in autograder/grading/selection.py
select."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from autograder.grading import frozen_writer, selection
from autograder.grading import instances as make
from autograder.grading.rules import Rule, rules

REGENERATE = (
    "Regenerate the frozen data: run `.venv/bin/python -m autograder.grading.instances`, which "
    "rewrites autograder/data/frozen_instances.json."
)
SELECTORS = [name for name in dir(selection) if name.startswith("select_")]


@pytest.fixture(scope="module")
def searched() -> dict[str, list[dict]]:
    return selection.frozen_selections()


def listing(built: tuple[Rule, ...]) -> list[tuple]:
    """Everything grading sees of each instance, in order, with its rule and group."""
    return [
        (
            rule.id,
            group.name,
            group.function,
            group.points,
            instance.name,
            type(instance.game).__name__,
            repr(instance.state),
            instance.args,
            instance.evaluate,
            instance.evaluation,
            instance.picture(),
        )
        for rule in built
        for group in rule.groups
        for instance in group.instances
    ]


def test_every_search_is_frozen() -> None:
    assert sorted(selection.FROZEN_ARGUMENTS) == sorted(SELECTORS)
    assert sorted(make.frozen_data()) == sorted(SELECTORS), REGENERATE


@pytest.mark.parametrize("search", list(selection.FROZEN_ARGUMENTS))
def test_each_search_still_selects_its_frozen_data(search: str, searched: dict) -> None:
    frozen = make.frozen_data()[search]
    fresh = {entry["arguments"]: entry["selection"] for entry in searched[search]}
    assert list(frozen) == list(fresh), (
        f"{search} is frozen for the arguments {list(frozen)}, not {list(fresh)}. {REGENERATE}"
    )
    # Compared by repr too, so that the order of a selection's kinds and its tuples count.
    stale = {
        arguments: (frozen[arguments], selected)
        for arguments, selected in fresh.items()
        if frozen[arguments] != selected or repr(frozen[arguments]) != repr(selected)
    }
    assert not stale, (
        f"{search} is stale: for these arguments the search now selects something else "
        f"(frozen, searched): {stale}. {REGENERATE}"
    )


def test_the_data_file_is_what_regenerating_writes(tmp_path: Path) -> None:
    written = tmp_path / "frozen_instances.json"
    summary = frozen_writer.write_frozen_data(written)
    assert str(written) in summary
    packaged = resources.files("autograder").joinpath(make.FROZEN_DATA)
    assert packaged.read_text(encoding="utf-8") == written.read_text(encoding="utf-8"), REGENERATE


def test_rules_from_frozen_data_equal_rules_built_by_searching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frozen = listing(rules.__wrapped__())
    # Nothing frozen: every position is then selected afresh.
    monkeypatch.setattr(make, "frozen_data", lambda: {name: {} for name in SELECTORS})
    searched = listing(rules.__wrapped__())
    assert len(frozen) == len(searched), f"{len(frozen)} instances, searching gives {len(searched)}"
    for frozen_instance, searched_instance in zip(frozen, searched, strict=True):
        assert frozen_instance == searched_instance, (
            f"rule {frozen_instance[0]}, group {frozen_instance[1]!r}: the frozen instance "
            f"(name, game, state, args) {frozen_instance[4:8]} differs from the searched "
            f"{searched_instance[4:8]}. " + REGENERATE
        )


def test_rules_run_no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str):
        def search(*args):
            raise AssertionError(
                f"rules() ran the search {name}{args}: its arguments have no frozen data. Add "
                "them to FROZEN_ARGUMENTS in autograder/grading/selection.py; then: " + REGENERATE
            )

        return search

    expected = listing(rules.__wrapped__())
    for name in [*SELECTORS, "_ttt_values"]:
        monkeypatch.setattr(selection, name, refuse(name))
    assert listing(rules.__wrapped__()) == expected


@pytest.mark.parametrize(
    "count, seed, empties", selection.FROZEN_ARGUMENTS["select_connect_four_endgames"]
)
def test_unfrozen_arguments_search_afresh(count: int, seed: int, empties: tuple) -> None:
    # make_assignments asks for one end-game with other seeds: the search still runs, and asking
    # for fewer gives the first of the frozen ones.
    first = make.connect_four_endgames(1, seed=seed, empties=empties)
    frozen = make.connect_four_endgames(count, seed=seed, empties=empties)
    assert (first[0].name, first[0].state) == (frozen[0].name, frozen[0].state)
