"""Every lecture notebook runs top to bottom, quickly, and is stored without stale outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

LECTURES = sorted((Path(__file__).resolve().parents[1] / "lectures").glob("*.ipynb"))


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_lecture_runs_top_to_bottom_within_a_minute(path: Path, tmp_path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=60,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors


@pytest.mark.parametrize("path", LECTURES, ids=[p.stem for p in LECTURES])
def test_lecture_is_stored_with_outputs_stripped_unless_tagged(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or "keep-output" in cell.metadata.get("tags", []):
            continue
        assert not cell.get("outputs"), f"cell {index} of {path.name} has stored outputs"


def test_there_are_six_lectures() -> None:
    assert len(LECTURES) == 6, [p.name for p in LECTURES]
