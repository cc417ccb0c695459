"""The slow layer of the browser course's tests: the offline site in headless Chromium.

One build of the offline flavour (`assignments/make_browser_course.py`), served on 127.0.0.1
only, one Chromium (Debian's `chromium` and `chromium-driver`, driven with selenium) with one
JupyterLab page and one kernel for the module, as a student working through the notebooks keeps
them (`Lab`). Each of the six notebooks opens and runs top to bottom (Run All) with no error
output; a notebook with the answers written in passes its self-checks, draws a tree without
matplotlib, and, taken out of the browser's storage as File -> Download would save it, grades as
the same answers do.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import http.server
import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_notebooks import ASSIGNMENTS, answered, course_builder, filled_cache, toolkit_wheel

pytestmark = pytest.mark.slow

webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[test]'")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHROMEDRIVER = Path("/usr/bin/chromedriver")
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
PAGE_SECONDS = 400  # a notebook run: 25-45 s on a busy machine; a safety net, not a target
DRAW = "from games import draw_tree; draw_tree(GameTree([[3, 5], [2, 9]]))"
DIALOG_SELECT = ".jp-Dialog select"
SVG_OUTPUT = '.jp-OutputArea-output[data-mime-type="image/svg+xml"] img'
"""JupyterLab shows an SVG output as an image of its text."""
STORAGE = """
const [name, value, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const request = indexedDB.open("JupyterLite Storage - /");
request.onsuccess = () => {
  const files = request.result.transaction("files", value ? "readwrite" : "readonly")
    .objectStore("files");
  const step = value ? files.put(JSON.parse(value), name) : files.get(name);
  step.onsuccess = () => done(value ? "" : JSON.stringify(step.result));
  step.onerror = () => done("");
};
request.onerror = () => done("");
"""
"""Read (or, given a value, write) a file's model in JupyterLite's browser storage."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = course_builder()
    filled_cache(builder)  # the build then only reads the cache
    out = tmp_path_factory.mktemp("site") / "course"
    builder.build("offline", out, builder.DEFAULT_CACHE, toolkit_wheel(builder, tmp_path_factory))
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


def wait_for(condition, seconds: float = PAGE_SECONDS):
    """Poll `condition()` until it returns something true; fail after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.2)  # a page's next step is often a fraction of a second away
    raise AssertionError(f"still waiting after {seconds} s")


FORGET_LAYOUT = """
const done = arguments[arguments.length - 1];
indexedDB.databases().then((known) => {
  if (!known.some((db) => db.name === "JupyterLite Storage - /")) return done("");
  const request = indexedDB.open("JupyterLite Storage - /");
  request.onsuccess = () => {
    const db = request.result;
    if (!db.objectStoreNames.contains("statedb")) { db.close(); return done(""); }
    const step = db.transaction("statedb", "readwrite").objectStore("statedb").clear();
    step.onsuccess = () => { db.close(); done(""); };
    step.onerror = () => { db.close(); done(""); };
  };
  request.onerror = () => done("");
});
"""
"""Clear the layout JupyterLab keeps in the browser's storage (its `statedb`), not the files."""


def get(browser, url: str) -> None:
    try:
        browser.get(url)
    except WebDriverException as error:
        # Chromium's renderer can die under memory pressure ("tab crashed", seen once in a
        # fresh-clone CI run); that says nothing of the course. The notebooks live in the
        # origin's storage, so a fresh tab opens the same page: once, then the failure stands.
        if "tab crashed" not in str(error):
            raise
        browser.switch_to.new_window("tab")
        browser.get(url)


def open_lab(browser, base_url: str, query: str = "") -> None:
    """Open JupyterLab with the layout forgotten. JupyterLab restores the notebooks of the last
    page, each with a kernel of its own: the sixth notebook opened started six Pyodides, and the
    layer took 13 minutes instead of about 3. The site's start page (no JupyterLab on it to
    write the layout back) is where it is forgotten."""
    get(browser, f"{base_url}/index.html")
    browser.execute_async_script(FORGET_LAYOUT)
    get(browser, f"{base_url}/lab/index.html{query}")


def menu(browser, *labels: str) -> None:
    """Click a menu of the menu bar, then its items, as a person would."""
    first, *rest = labels
    bar = f"//div[contains(@class,'lm-MenuBar-itemLabel') and text()='{first}']"
    wait_for(lambda: browser.find_elements(By.XPATH, bar))[0].click()
    for label in rest:
        item = f"//div[contains(@class,'lm-Menu-itemLabel') and text()='{label}']"
        wait_for(lambda item=item: browser.find_elements(By.XPATH, item))[0].click()


def run_all(browser) -> None:
    """Run > Run All Cells, then wait until every code cell has run."""
    menu(browser, "Run", "Run All Cells")

    def finished() -> bool:
        # The cells run in order and Run All stops at an error: done when the last code cell
        # has its number, or an error is shown and the kernel is idle. (JupyterLab does not
        # keep every cell in the page, so the other prompts cannot all be read.)
        last, idle = browser.execute_script(
            "const prompts = document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt');"
            "const status = document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar');"
            "return [prompts.length ? prompts[prompts.length - 1].textContent.trim() : '',"
            " (status ? status.textContent : '').includes('Idle')];"
        )
        return last[1:-2].isdigit() or (idle and bool(errors(browser)))

    wait_for(finished)


def outputs(browser) -> list[tuple[str, str]]:
    """(mime type, text) of every output on the page."""
    found = browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output")
    return [(element.get_attribute("data-mime-type") or "", element.text) for element in found]


def errors(browser) -> list[str]:
    return [text for mime, text in outputs(browser) if mime == "application/vnd.jupyter.stderr"]


def save(browser) -> None:
    ActionChains(browser).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()


def stored(browser, name: str) -> dict:
    """The model of `name` in JupyterLite's storage, once a save has written it."""
    return json.loads(wait_for(lambda: browser.execute_async_script(STORAGE, name, "") or "", 60))


def status(browser) -> str:
    """The status bar's text: the kernel's name and state ("Idle", "No Kernel"), among others."""
    return browser.execute_script(
        "const bar = document.querySelector('.jp-StatusBar-Widget, #jp-main-statusbar');"
        "return bar ? bar.textContent : '';"
    )


def dialog_button(browser, label: str) -> list:
    """The button labelled `label` of the dialog shown, if one is."""
    path = f"//div[contains(@class,'jp-Dialog')]//button[.//div[text()='{label}']]"
    return browser.find_elements(By.XPATH, path)


class Lab:
    """The module's one JupyterLab page, and the one kernel every notebook opened in it uses.

    A student working through the assignments keeps the page open and opens the next notebook
    from the file browser. Each notebook opened here gets its own kernel, as in JupyterLab, and
    all but the first give it up for the first one's (Kernel -> Shut Down Kernel, then Change
    Kernel... to the running one): Pyodide then starts once in the module instead of once a
    notebook (10-20 s each, most of the layer's time). The notebooks share a namespace as they
    share the kernel; that each one runs alone in a fresh one is checked in Pyodide by
    tests/test_browser_pyodide.py, and in Jupyter by tests/test_assignments.py.
    """

    def __init__(self, browser, base_url: str) -> None:
        self.browser, self.base_url = browser, base_url
        self.loaded = False
        self.kernel_started = False

    def start(self, query: str = "") -> None:
        """Load JupyterLab once (the first notebook by its link, `?path=`, as the start page
        opens it); wait until the file browser lists the files."""
        if not self.loaded:
            open_lab(self.browser, self.base_url, query)
            wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, ".jp-DirListing-item"))
            self.loaded = True

    def open(self, name: str) -> None:
        """Open notebook `name`, close the one open before, and wait until its kernel is idle."""
        if self.loaded:
            self.close_notebook()
            self.open_from_the_file_browser(name)
        else:
            self.start(f"?path={name}")
        wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell"))
        if self.kernel_started:
            self.use_the_running_kernel()
        wait_for(lambda: "Idle" in status(self.browser))
        self.kernel_started = True

    def close_notebook(self) -> None:
        """File -> Close Tab, without saving what the run changed; the kernel keeps running."""
        if not self.browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel"):
            return
        menu(self.browser, "File", "Close Tab")

        def closed() -> bool:
            for button in dialog_button(self.browser, "Discard"):  # "Save your work?"
                button.click()
            return not self.browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel")

        wait_for(closed, 60)

    def open_from_the_file_browser(self, name: str) -> None:
        item = f"//li[contains(@class,'jp-DirListing-item')][.//span[text()='{name}']]"
        if not self.browser.find_elements(By.XPATH, item):  # a file the listing has not seen
            refresh = "[data-command='filebrowser:refresh']"  # the toolbar's button
            self.browser.find_element(By.CSS_SELECTOR, refresh).click()
        listed = wait_for(lambda: self.browser.find_elements(By.XPATH, item), 60)
        ActionChains(self.browser).double_click(listed[0]).perform()

    def use_the_running_kernel(self) -> None:
        """Shut down the notebook's own kernel and take the one already running instead."""
        menu(self.browser, "Kernel", "Shut Down Kernel")
        wait_for(lambda: "No Kernel" in status(self.browser), 60)
        menu(self.browser, "Kernel", "Change Kernel\u2026")
        choice = Select(
            wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, DIALOG_SELECT))[0]
        )
        running = [
            o.get_attribute("value") for o in choice.options if '"id"' in o.get_attribute("value")
        ]
        assert len(running) == 1, f"one running kernel expected in the page, found {running}"
        choice.select_by_value(running[0])
        dialog_button(self.browser, "Select")[0].click()


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
    """The grade rows `python -m autograder grade` writes for `notebook`."""
    subprocess.run(
        [sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out), "--quiet"],
        check=True,
        capture_output=True,
        timeout=900,
    )
    with (out / "grades.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_a_notebook_answered_in_the_browser_passes_draws_and_grades_as_in_jupyter(
    browser, lab: Lab, tmp_path: Path
) -> None:
    # JupyterLite's storage exists once the file browser has listed the files
    lab.start()
    answers = answered("minimax")
    name = "minimax_answers.ipynb"
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
    handed_in = tmp_path / "browser" / "minimax.ipynb"
    handed_in.parent.mkdir()
    wait_for(lambda: len(stored(browser, name)["content"]["cells"]) > len(answers.cells), 60)
    handed_in.write_text(json.dumps(stored(browser, name)["content"]), encoding="utf-8")
    from_jupyter = tmp_path / "jupyter" / "minimax.ipynb"
    from_jupyter.parent.mkdir()
    nbformat.write(answers, from_jupyter)
    in_browser, in_jupyter = (
        grades(handed_in, tmp_path / "g1"),
        grades(from_jupyter, tmp_path / "g2"),
    )
    assert in_browser == in_jupyter
    assert [(row["score"], row["max_score"]) for row in in_browser] == [("25", "25")]


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
