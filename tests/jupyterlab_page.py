"""How the browser tests drive JupyterLite's JupyterLab page, as a person would: its menus,
its file browser, Run All, what the outputs say, and one page and kernel shared by the notebooks
of a module (`Lab`).

Import it as `from jupyterlab_page import Lab` (pytest puts tests/ on the path) once selenium is
known to be installed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from selenium.common.exceptions import (
    ElementNotInteractableException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

PAGE_SECONDS = 400  # a notebook run: 25-45 s on a busy machine; a safety net, not a target


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


def expose_the_app(site: Path) -> None:
    """Let the tests reach JupyterLab's application object (`window.jupyterapp`, JupyterLite's
    `exposeAppInBrowser`) in their copy of the built site, to open a notebook on the running
    kernel (`Lab.open`). Nothing else of the site changes."""
    path = site / "jupyter-lite.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"  # the app compares the text
    path.write_text(json.dumps(config), encoding="utf-8")


OPEN_ON_KERNEL = """
const [path, done] = [arguments[0], arguments[arguments.length - 1]];
const app = window.jupyterapp;
const running = Array.from(app.serviceManager.kernels.running(), (kernel) => kernel.id);
if (running.length !== 1) { done(running); return; }
app.commands.execute("docmanager:open", {path, factory: "Notebook", kernel: {id: running[0]}})
  .then(() => done(running), (error) => done(String(error)));
"""
"""Open a notebook as the file browser would, but with the page's one running kernel as its
kernel preference: JupyterLite's sessions then give it that kernel, and no Pyodide of its own
starts (each one started and shut down cost 1-2 s of CPU in its worker, about 8 s a module).
Answers the running kernels' ids (or the error's text)."""


KERNELS = """
const manager = window.jupyterapp.serviceManager;
const ids = new Set(Array.from(manager.kernels.running(), (kernel) => kernel.id));
for (const session of manager.sessions.running()) ids.add(session.kernel ? session.kernel.id : "");
return Array.from(ids);
"""
"""The ids of the kernels running in the page and of those its notebooks' sessions use."""


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


OUTPUTS = """
return Array.from(document.querySelectorAll(".jp-OutputArea-output"),
  (output) => [output.getAttribute("data-mime-type") || "", output.textContent]);
"""
"""Every output's mime type and text, read in one call (element by element, a notebook's outputs
took a second of round trips to the driver, and the run's wait reads them again and again)."""


def outputs(browser) -> list[tuple[str, str]]:
    """(mime type, text) of every output on the page, those scrolled out of view included."""
    return [(mime, text) for mime, text in browser.execute_script(OUTPUTS)]


def errors(browser) -> list[str]:
    return [text for mime, text in outputs(browser) if mime == "application/vnd.jupyter.stderr"]


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
    from the file browser. The first notebook opened here gets its kernel as in JupyterLab;
    each later one is opened with that running kernel as its kernel preference (the file
    browser's own command, `docmanager:open`, through `window.jupyterapp`, which the tests'
    copy of the site exposes: `expose_the_app`). Pyodide then starts once in the module
    instead of once a notebook: started, then shut down for the first one's kernel, each cost
    1-2 s of its worker's CPU and more of the page's, about 20 CPU-s of the module's 90. The
    notebooks share a namespace as they share the kernel; that each one, released or answered,
    runs alone in a fresh namespace is checked in Pyodide by tests/test_browser_pyodide.py (and
    in a fresh Jupyter kernel with only the toolkit, by tests/test_toolkit_dist.py).
    """

    def __init__(self, browser, base_url: str) -> None:
        self.browser, self.base_url = browser, base_url
        self.loaded = False
        # the notebooks opened in the page: closing a tab keeps its session, so one opened
        # again is back on the running kernel at once
        self.opened: set[str] = set()

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
            if self.opened and name not in self.opened:
                self.open_on_the_running_kernel(name)
            else:
                self.open_from_the_file_browser(name)
        else:
            self.start(f"?path={name}")
        wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell"))
        wait_for(lambda: "Idle" in status(self.browser))
        if self.opened:  # every notebook opened in the page is on the one kernel
            kernels = self.browser.execute_script(KERNELS)
            assert len(kernels) == 1, f"one kernel expected in the page, found {kernels}"
        self.opened.add(name)

    def close_notebook(self) -> None:
        """File -> Close Tab, without saving what the run changed; the kernel keeps running."""
        if not self.browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel"):
            return
        menu(self.browser, "File", "Close Tab")

        def closed() -> bool:
            try:
                for button in dialog_button(self.browser, "Discard"):  # "Save your work?"
                    button.click()
            except WebDriverException:  # the dialog still fading in: the next poll clicks
                return False
            return not self.browser.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel")

        wait_for(closed, 60)

    def open_from_the_file_browser(self, name: str) -> None:
        item = f"//li[contains(@class,'jp-DirListing-item')][.//span[text()='{name}']]"
        if not self.browser.find_elements(By.XPATH, item):  # a file the listing has not seen
            refresh = "[data-command='filebrowser:refresh']"  # the toolbar's button
            self.browser.find_element(By.CSS_SELECTOR, refresh).click()

        def opened() -> bool:
            listed = self.browser.find_elements(By.XPATH, item)
            try:
                ActionChains(self.browser).double_click(listed[0]).perform()
            except (IndexError, ElementNotInteractableException, StaleElementReferenceException):
                return False  # not listed yet, not laid out yet, or redrawn
            return True

        wait_for(opened, 60)

    def open_on_the_running_kernel(self, name: str) -> None:
        """Open `name` with the page's running kernel (OPEN_ON_KERNEL)."""
        running = self.browser.execute_async_script(OPEN_ON_KERNEL, name)
        # more would be kernels left running in the page, each a Pyodide using memory
        assert isinstance(running, list) and len(running) == 1, (
            f"one running kernel expected in the page, found {running}"
        )
