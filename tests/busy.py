"""Processes that keep the machine's CPUs busy while a test runs, for tests about load, and timers
that ring at once, as on a machine so busy that a limit passes before the code under it starts.

Import it as `from busy import spinning` or `ringing_as_armed` (pytest puts tests/ on the path).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

SPIN = "print('spinning', flush=True)\nwhile True: pass"


@contextlib.contextmanager
def spinning(count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` processes that spin until the block ends, each yielded once it has started to
    spin (on a busy machine an interpreter takes a while to start, and a test that only started
    them would run beside no load at all). They are killed and reaped when the block ends."""
    spinners: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            spinners.append(subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE))
        for spinner in spinners:
            assert spinner.stdout is not None and spinner.stdout.readline() == b"spinning\n"
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
            if spinner.stdout is not None:
                spinner.stdout.close()


def ringing_as_armed(monkeypatch: pytest.MonkeyPatch, timer: int, signum: int) -> None:
    """Make `timer` (a `signal.ITIMER_*`) deliver `signum` as soon as it is armed, as on a
    machine busy enough that a limit passes before the code under it starts."""
    arm = signal.setitimer

    def arm_and_ring(which, seconds, *interval):
        arm(which, seconds, *interval)
        if which == timer and seconds:
            signal.raise_signal(signum)

    monkeypatch.setattr(signal, "setitimer", arm_and_ring)
