"""The slow layer of the browser course's tests: the offline site in headless Chromium.

One build of the offline flavour (`assignments/make_browser_course.py`), served on 127.0.0.1
only, one Chromium (Debian's `chromium` and `chromium-driver`, driven with selenium) with one
JupyterLab page and one kernel for the module, as a student working through the notebooks keeps
them (`Lab`, in tests/jupyterlab_page.py with the rest of what drives the page). Each of the six
notebooks opens and runs top to bottom (Run All) with no error output; a notebook with the
answers written in passes its self-checks, draws a tree without matplotlib, and, taken out of
the browser's storage as File -> Download would save it, grades as the same answers do.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import http.server
import json
import shutil
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_notebooks import ASSIGNMENTS, answered, course_builder, filled_cache, toolkit_wheel

from autograder.cli import main
from autograder.grading.rules import ASSIGNMENT_RULES, selected_rules

pytestmark = pytest.mark.slow

webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[test]'")
from jupyterlab_page import Lab, errors, expose_the_app, outputs, run_all, wait_for  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMEDRIVER = Path("/usr/bin/chromedriver")
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
DRAW = "from games import draw_tree; draw_tree(GameTree([[3, 5], [2, 9]]))"
SVG_OUTPUT = '.jp-OutputArea-output[data-mime-type="image/svg+xml"] img'
"""JupyterLab shows an SVG output as an image of its text."""
STORAGE = """
const [name, value, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const request = indexedDB.open("JupyterLite Storage - /");
request.onsuccess = () => {
  const db = request.result;
  const transaction = db.transaction("files", value ? "readwrite" : "readonly");
  const files = transaction.objectStore("files");
  const step = value ? files.put(JSON.parse(value), name) : files.get(name);
  let answer = "";
  step.onsuccess = () => { answer = value ? "" : JSON.stringify(step.result); };
  transaction.oncomplete = () => { db.close(); done(answer); };
  transaction.onabort = () => { db.close(); done(""); };
};
request.onerror = () => done("");
"""
"""Read (or, given a value, write) a file's model in JupyterLite's browser storage, then close
the connection: one left open blocks JupyterLite's own next upgrade of the database (the first
checkpoint of a notebook adds a store), and the notebook waited 20-30 s for its kernel until the
connection was collected."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = course_builder()
    filled_cache(builder)  # the build then only reads the cache
    out = tmp_path_factory.mktemp("site") / "course"
    builder.build("offline", out, builder.DEFAULT_CACHE, toolkit_wheel(builder, tmp_path_factory))
    expose_the_app(out)
    return out


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMEDRIVER.exists() or shutil.which("chromium") is None:
        pytest.fail("the browser tests need Debian's chromium and chromium-driver (.ci/run)")
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1400,1000")
    driver = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
    driver.set_script_timeout(60)
    yield driver
    driver.quit()


def save(browser) -> None:
    ActionChains(browser).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()


def stored(browser, name: str) -> dict:
    """The model of `name` in JupyterLite's storage, once a save has written it."""
    return json.loads(wait_for(lambda: browser.execute_async_script(STORAGE, name, "") or "", 60))


@pytest.fixture(scope="module")
def lab(browser, base_url: str) -> Lab:
    return Lab(browser, base_url)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_released_notebook_opens_and_runs_with_no_error_output(
    browser, lab: Lab, assignment: str
) -> None:
    lab.open(f"{assignment}.ipynb")
    run_all(browser)
    assert errors(browser) == []
    printed = "\n".join(text for _, text in outputs(browser))
    assert "not written yet" in printed or "raises NotImplementedError" in printed


def stored_model(name: str, notebook: nbformat.NotebookNode) -> dict:
    """A notebook as JupyterLite keeps it in the browser's storage (what a save writes)."""
    text = nbformat.writes(notebook)
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    return {
        "name": name,
        "path": name,
        "type": "notebook",
        "format": "json",
        "mimetype": "application/x-ipynb+json",
        "content": json.loads(text),
        "size": len(text),
        "writable": True,
        "created": now,
        "last_modified": now,
        "hash": None,
        "hash_algorithm": None,
    }


def grades(notebook: Path, out: Path) -> list[dict]:
    """The grade rows `python -m autograder grade` writes for `notebook`, graded by the same
    entry point in this process (as tests/test_class_run_start.py does): a command of its own
    would import nbformat, jsonschema and the grader again, about 1 s of CPU each time."""
    assert main(["grade", str(notebook), "--out", str(out), "--quiet"]) == 0
    with (out / "grades.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


ANSWERED = "chance_and_maxn"
"""The notebook answered in the browser: the one whose cells take the least time (each
assignment's answers pass their self-checks in Pyodide in tests/test_browser_pyodide.py;
minimax's count the whole tic-tac-toe tree, 549,946 states, 2-3 s of the page's CPU more)."""


def test_a_notebook_answered_in_the_browser_passes_draws_and_grades_as_in_jupyter(
    browser, lab: Lab, tmp_path: Path
) -> None:
    # JupyterLite's storage exists once the file browser has listed the files
    lab.start()
    answers = answered(ANSWERED)
    name = f"{ANSWERED}_answers.ipynb"
    browser.execute_async_script(STORAGE, name, json.dumps(stored_model(name, answers)))
    lab.open(name)
    run_all(browser)
    assert errors(browser) == []
    printed = "\n".join(text for _, text in outputs(browser))
    assert "ok  " in printed and "NotImplementedError" not in printed
    # a cell of the student's own: a tree drawn without matplotlib is the SVG drawing
    ActionChains(browser).send_keys(Keys.ESCAPE).send_keys("b").perform()  # a new last cell
    ActionChains(browser).send_keys(Keys.ENTER).send_keys(DRAW).perform()
    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(Keys.SHIFT).perform()
    shown = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, SVG_OUTPUT), 120)
    assert 'class="node max' in urllib.parse.unquote(shown[0].get_attribute("src"))
    save(browser)
    handed_in = tmp_path / "browser" / f"{ANSWERED}.ipynb"
    handed_in.parent.mkdir()
    wait_for(lambda: len(stored(browser, name)["content"]["cells"]) > len(answers.cells), 60)
    handed_in.write_text(json.dumps(stored(browser, name)["content"]), encoding="utf-8")
    from_jupyter = tmp_path / "jupyter" / f"{ANSWERED}.ipynb"
    from_jupyter.parent.mkdir()
    nbformat.write(answers, from_jupyter)
    in_browser, in_jupyter = (
        grades(handed_in, tmp_path / "g1"),
        grades(from_jupyter, tmp_path / "g2"),
    )
    assert in_browser == in_jupyter
    full = sum(rule.points for rule in selected_rules(ASSIGNMENT_RULES[ANSWERED]))
    assert [(row["score"], row["max_score"]) for row in in_browser] == [(f"{full:g}",) * 2]
    assert full == 50  # the notebook says so


def test_the_offline_site_holds_every_package_it_loads_with_its_hash(site: Path) -> None:
    lock_path = site / "static" / "pyodide" / "pyodide-lock.json"
    packages = json.loads(lock_path.read_text(encoding="utf-8"))["packages"]
    assert {"games", "micropip", "ipython", "comm", "jedi"} <= set(packages)
    for entry in packages.values():
        wheel = lock_path.parent / entry["file_name"]  # a name beside the lock, never a URL
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"]
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    assert kernel["disablePyPIFallback"] is True
    assert kernel["loadPyodideOptions"]["packages"] == ["games"]
    extensions = config["jupyter-config-data"]["federated_extensions"]
    assert [extension["name"] for extension in extensions] == [KERNEL_PLUGIN.split(":")[0]]
