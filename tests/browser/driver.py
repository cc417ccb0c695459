"""Runs inside Pyodide (tests/browser/run_cells.mjs): notebook cells one after the other, as a
kernel would, each one's printed output and error kept (its traceback's last line)."""

import contextlib
import io
import json
import traceback


def run_cells(cells_json: str) -> str:
    """Run each cell in one namespace; return a JSON list of {"output", "error"} per cell."""
    namespace = {"__name__": "__main__"}
    results = []
    for index, source in enumerate(json.loads(cells_json)):
        output, error = io.StringIO(), ""
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                exec(compile(source, f"<cell {index}>", "exec"), namespace)
            except BaseException as exception:  # noqa: BLE001 - report it, as a kernel would
                lines = traceback.format_exception_only(type(exception), exception)
                error = "".join(lines).strip()
        results.append({"output": output.getvalue(), "error": error})
    return json.dumps(results)


def run_notebooks(notebooks_json: str) -> str:
    """Run each notebook of {label: [cells]} in a fresh namespace; return {label: results}."""
    notebooks = json.loads(notebooks_json)
    return json.dumps(
        {label: json.loads(run_cells(json.dumps(cells))) for label, cells in notebooks.items()}
    )
