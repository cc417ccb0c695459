"""What a graded function returned, as plain data: numbers, strings, short tuples and lists,
and an `Opaque` for anything else, which never equals an action or a number.

The notebooks' checks make a returned value plain in the kernel (`plain`); the grader reads the
sandbox's JSON reply (`decode`), which the runner made plain by the same rules. Standard library
only: the notebooks paste this source before the judge's.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

SHOWN = 200
"""The most characters of a returned value a verdict keeps: a reply of a megabyte must not
become a megabyte in every verdict of results.json."""

_LARGEST = int(1.7976931348623157e308)


class Opaque:
    """A returned object that is not plain data: it never equals an action or a number."""

    def __init__(self, text: str) -> None:
        self.text = text

    @classmethod
    def of(cls, value: Any) -> Opaque:
        kind = type(value)
        try:
            shown = repr(value)[:SHOWN]
        except Exception:  # noqa: BLE001 - a hostile __repr__ must not break the report
            shown = "<unprintable>"
        return cls(f"an object of type {kind.__module__}.{kind.__qualname__} ({shown})")

    def __repr__(self) -> str:
        return self.text


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as plain data: None, bools, ints, floats, strings, short tuples and lists of them.

    Subclasses of int and float become int and float (their `__eq__` is not trusted), an exact
    `Fraction` a float; tuples and lists (up to 20 items, 3 levels) are rebuilt; anything else
    becomes an `Opaque` that equals nothing. The sandbox's runner sends the same data over the
    wire, and `decode` reads it.
    """
    kind = type(value)
    if value is None or kind in (bool, str):
        return value
    if isinstance(value, int):
        return int(int.__repr__(value))
    if isinstance(value, float):
        return float(float.__repr__(value))
    if kind is Fraction:
        return float(value)
    if kind in (tuple, list) and depth < 3 and len(value) <= 20:
        return kind(plain(item, depth + 1) for item in value)
    return Opaque.of(value)


def decode(sent: Any) -> Any:
    """The plain value of the runner's JSON reply: tagged tuples, lists, special floats and
    objects are undone; a tag around anything else, which only a forged reply holds, becomes
    an `Opaque`."""
    if isinstance(sent, list):
        return Opaque(f"a forged reply ({str(sent)[:SHOWN]})")
    if not isinstance(sent, dict):
        return sent
    if len(sent) == 1:
        ((kind, items),) = sent.items()
        if kind in ("tuple", "list") and isinstance(items, list):
            decoded = [decode(item) for item in items]
            return tuple(decoded) if kind == "tuple" else decoded
        if kind == "float" and items in ("inf", "-inf", "nan"):
            return float(items)
    if set(sent) == {"state"}:  # the sandbox saw a state it served come back
        return Opaque("a state of the game (one your search generated)")
    if set(sent) == {"object", "repr"}:
        return Opaque(f"an object of type {sent['object']} ({str(sent['repr'])[:SHOWN]})")
    return Opaque(f"a forged reply ({str(sent)[:SHOWN]})")


def show(value: Any) -> str:
    """How a returned value is printed in a verdict, at most `SHOWN` characters."""
    if _too_large(value):
        text = f"an integer of {len(str(abs(value)))} digits"
    else:
        text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _too_large(value: Any) -> bool:
    """An int beyond what a float can hold: comparing it as a float would raise."""
    return type(value) is int and abs(value) > _LARGEST
