"""Text from a submission (a student id, a file name, a status) made safe for where it is shown:
a terminal it cannot take control of, and (`files.spreadsheet_text`) a spreadsheet cell."""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BIDI_CONTROLS = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}


def printable(text: str) -> str:
    """`text` with control and bidirectional characters shown as escapes, so a student id
    cannot move the cursor, recolour the terminal or hide its own name."""
    shown = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return "".join(
        f"\\u{ord(c):04x}" if unicodedata.bidirectional(c) in _BIDI_CONTROLS else c for c in shown
    )
