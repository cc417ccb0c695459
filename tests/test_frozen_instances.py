"""The frozen hidden instances are exactly what the searches in autograder/instances.py select."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import instances as make
from autograder.rules import Rule, rules

REGENERATE = (
    "Regenerate the frozen data: run `.venv/bin/python -m autograder.instances` and paste its "
    "output over the frozen tables at the end of autograder/instances.py (from "
    "`TICTACTOE_VALUES: ...` to the `__main__` block)."
)
SELECTORS = [name for name in dir(make) if name.startswith("select_")]


@pytest.fixture(scope="module")
def searched() -> dict[str, dict]:
    return make.frozen_selections()


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


@pytest.mark.parametrize("table", list(make.frozen_tables()))
def test_each_search_still_selects_its_frozen_data(table: str, searched: dict) -> None:
    frozen = make.frozen_tables()[table]
    stale = {
        key: (frozen[key], searched[table][key])
        for key in frozen
        if frozen[key] != searched[table][key]
    }
    assert not stale, (
        f"{table} is stale: for these arguments the search now selects something else "
        f"(frozen, searched): {stale}. {REGENERATE}"
    )


def test_rules_from_frozen_data_equal_rules_built_by_searching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frozen = listing(rules.__wrapped__())
    for table in make.frozen_tables():
        monkeypatch.setattr(make, table, {})  # every position is then selected afresh
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
                "them as a key (with any value) to the table its builder reads; then: " + REGENERATE
            )

        return search

    expected = listing(rules.__wrapped__())
    for name in [*SELECTORS, "_ttt_values"]:
        monkeypatch.setattr(make, name, refuse(name))
    assert listing(rules.__wrapped__()) == expected


def test_the_printed_tables_are_laid_out_as_in_the_module() -> None:
    # What `python -m autograder.instances` prints, pasted, is the module's own text (ruff-clean).
    source = Path(make.__file__).read_text()
    assert make.frozen_source(make.frozen_tables()) in source


@pytest.mark.parametrize("count, seed, empties", list(make.CONNECT_FOUR_ENDGAMES))
def test_unfrozen_arguments_search_afresh(count: int, seed: int, empties: tuple) -> None:
    # make_assignments asks for one end-game with other seeds: the search still runs, and asking
    # for fewer gives the first of the frozen ones.
    first = make.connect_four_endgames(1, seed=seed, empties=empties)
    frozen = make.connect_four_endgames(count, seed=seed, empties=empties)
    assert (first[0].name, first[0].state) == (frozen[0].name, frozen[0].state)
