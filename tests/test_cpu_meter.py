"""The CPU meter without the jail reads the submission's own processes, all of them, and only them.

`sandbox/cpu.py` follows the submission's tree through each thread's `children` file in /proc
instead of reading every process on the machine at each check (4-6 s of the reference's contest
under `--isolation process`); it must still count every descendant, and nothing else.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from autograder.sandbox import cpu

pytestmark = pytest.mark.skipif(
    not cpu._HAS_CHILDREN_FILES, reason="needs /proc's children files (CONFIG_PROC_CHILDREN)"
)

TREE = """\
import os, sys, time

def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

if os.fork() == 0:  # a child, which starts a grandchild of its own
    if os.fork() == 0:
        spin(0.3)
        time.sleep(30)
        os._exit(0)
    spin(0.3)
    time.sleep(30)
    os._exit(0)
spin(0.3)
print("spun", flush=True)
time.sleep(30)
"""


def _tree() -> subprocess.Popen:
    """A process that has spun 0.3 s of CPU, as have its child and grandchild (all alive)."""
    process = subprocess.Popen(
        [sys.executable, "-c", TREE], stdout=subprocess.PIPE, start_new_session=True
    )
    assert process.stdout.readline() == b"spun\n"
    time.sleep(0.5)  # the child and grandchild finish spinning too
    return process


def _kill(tree: subprocess.Popen) -> None:
    """The process, its child and its grandchild: its whole process group."""
    os.killpg(tree.pid, signal.SIGKILL)
    tree.wait()
    tree.stdout.close()


def test_the_meter_counts_every_descendant_and_only_them() -> None:
    tree = _tree()
    neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # the neighbour, not in the tree, spins meanwhile
        followed = cpu._tree_seconds(tree.pid)
        scanned = cpu._scanned_tree_seconds(tree.pid)
    finally:
        neighbour.kill()
        neighbour.wait()
        _kill(tree)
    assert followed >= 0.85  # three processes of 0.3 s each, less a tick of rounding
    assert abs(followed - scanned) <= 0.05  # the same tree as reading all of /proc finds
    assert followed < 1.3  # the neighbour's CPU is not the submission's


def test_a_reading_opens_the_submission_s_processes_not_every_process(monkeypatch) -> None:
    tree = _tree()
    try:

        def no_scan(path):
            raise AssertionError(f"the meter read every process of {path}")

        monkeypatch.setattr(cpu.os, "scandir", no_scan)
        assert cpu._tree_seconds(tree.pid) >= 0.85
    finally:
        _kill(tree)
