"""The published flavour of the browser course, checked without its CDN: Pyodide's own lock
with every wheel from the CDN of the kernel's Pyodide release, and the toolkit beside it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from browser_notebooks import course_builder, filled_cache, toolkit_wheel

pytestmark = pytest.mark.slow  # npm and pip fetch Pyodide and build the toolkit's wheel


@pytest.fixture(scope="module")
def builder():
    module = course_builder()
    filled_cache(module)  # the tests then only read the cache
    return module


def test_the_published_lock_takes_pyodides_wheels_from_its_cdn_and_the_toolkit_from_the_site(
    builder, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    version = builder.pyodide_version()
    wheel = toolkit_wheel(builder, tmp_path_factory)  # builder.games_wheel, once a run
    url = builder.published_lock(tmp_path / "static", builder.DEFAULT_CACHE, version, wheel)
    assert url == "./static/course-lock/pyodide-lock.json"
    lock_path = tmp_path / url.removeprefix("./")
    packages = json.loads(lock_path.read_text(encoding="utf-8"))["packages"]
    games = packages.pop("games")
    assert (lock_path.parent / games["file_name"]).read_bytes() == wheel.read_bytes()
    assert games["sha256"] == hashlib.sha256(wheel.read_bytes()).hexdigest()
    cdn = f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"
    assert "matplotlib" in packages and "numpy" in packages
    assert all(entry["file_name"].startswith(cdn) for entry in packages.values())


def test_the_kernel_loads_the_toolkit_at_start_and_only_offline_refuses_pypi(builder) -> None:
    published = builder.kernel_settings("published", "./lock.json")
    offline = builder.kernel_settings("offline", None)
    assert published == {
        "loadPyodideOptions": {"packages": ["games"], "lockFileURL": "./lock.json"}
    }
    assert offline["loadPyodideOptions"] == {"packages": ["games"]}
    assert offline["disablePyPIFallback"] is True
    assert offline["pyodideUrl"] == "./static/pyodide/pyodide.mjs"


@pytest.mark.parametrize("flavour", ["offline", "published"])
def test_the_start_page_links_every_assignment_and_says_how_to_hand_in(
    builder, flavour: str
) -> None:
    page = builder.start_page(flavour)
    for name in builder.ASSIGNMENTS:
        assert f'href="lab/index.html?path={name}.ipynb"' in page
    assert "File &rarr; Download" in page and "{{" not in page
    assert 'id="jupyter-config-data"' in page  # JupyterLite's pages read it
