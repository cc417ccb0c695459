"""What nbgrader's feedback says after `nbgrader-import`: the jail's result, not the kernel's.

`nbgrader generate_feedback` shows each hidden-test cell's score from the gradebook beside the
output the cell printed in the student's kernel ("all 6 instances pass"). Once the import has
put the jailed points in the gradebook, that output would contradict them, so the import
replaces it in the autograded notebook by what the jail found, in the words of the kernel's
test (`platforms/notebook_checks.grade_group`), after a line saying where the score comes from.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from autograder.grading.records import GradeRecord, GroupResult

REPLACED = (
    "[This cell's score comes from the course's autograder, which graded {notebook}.ipynb again "
    "in its sandbox (python -m autograder nbgrader-import); what the cell printed when nbgrader "
    "ran it was removed.]"
)
"""The first line of every hidden-test cell's output after the import."""


def cell_output(
    notebook: str, key: tuple[str, str], record: GradeRecord | None, problem: str, maximum: float
) -> str:
    """What a hidden-test cell says after the import: where its score comes from, then the
    jail's result for its group in the words the kernel's test uses (or why it earned 0)."""
    lines = [REPLACED.format(notebook=notebook)]
    group = _group(record, key)
    title = f"{key[0]}: {key[1]}"
    if record is None:
        lines.append(f"{title}: 0 of {maximum:g} points: the notebook was not graded: {problem}")
    elif group is None or not group.verdicts:
        why = f" ({record.status})" if record.status != "graded" else ""
        lines.append(f"{title}: 0 of {maximum:g} points: no instance was run{why}")
    elif group.full:
        lines.append(f"{title}: all {len(group.verdicts)} instances pass ({group.points:g} points)")
    else:
        failed = [verdict for verdict in group.verdicts if not verdict.passed]
        lines.append(
            f"{title} ({group.max_points:g} points, all or nothing): {len(failed)} of "
            f"{len(group.verdicts)} instances failed."
        )
        for verdict in failed:
            hint = f" Hint: {verdict.hint}." if verdict.hint else ""
            lines.append(
                f"- {verdict.instance}: expected {verdict.expected}, got {verdict.got}.{hint}"
            )
    return "\n".join(lines) + "\n"


def _group(record: GradeRecord | None, key: tuple[str, str]) -> GroupResult | None:
    for rule in record.rules if record else ():
        for group in rule.groups:
            if (rule.id, group.name) == key:
                return group
    return None


def rewrite_outputs(path: Path, outputs: dict[str, str]) -> bool:
    """Replace the outputs of the cells whose grade ids `outputs` holds in the autograded
    notebook at `path` (what `nbgrader generate_feedback` and the formgrader show) by the text
    `outputs` gives each; False if there is no such notebook."""
    if not outputs or path.is_symlink() or not path.is_file():
        return False
    import nbformat  # here, not at the top: nbformat's jsonschema takes a second to import,
    # and every `python -m autograder` command would pay it (nbgrader-import alone needs it)

    document = nbformat.read(path, as_version=4)
    for cell in document.cells:
        grade = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "code" and grade in outputs:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=outputs[grade])]
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            nbformat.write(document, stream)
        info = path.stat()  # the new file keeps the old one's mode and, for root, its owner
        os.chmod(temporary, info.st_mode & 0o777)
        if os.geteuid() == 0:
            os.chown(temporary, info.st_uid, info.st_gid)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return True


def remove_feedback(folder: Path) -> bool:
    """Remove a student's `feedback/<student>/<assignment>/` made before the import, as `nbgrader
    generate_feedback --force` would: without --force nbgrader keeps it, with the kernel's
    scores and words. True if there was one."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True
