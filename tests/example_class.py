"""`examples/make_class.py`, loaded once for the tests that read it.

It is the one place that says what each example student wrote and should lose (and each
agent's contest grade); it is a script, not a module of a package, so it is loaded from its
path. Import it as `from example_class import make_class`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "examples" / "make_class.py"


def _load():
    spec = importlib.util.spec_from_file_location("make_class", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_class = _load()
