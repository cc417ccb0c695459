"""A graded call and its student share one CPU, even when other gradings hold every CPU.

A call's round trips cost five times as much split over two CPUs as on one (`sandbox/pinning.py`),
so a call that finds every CPU claimed (other runs on the machine) shares the CPU the fewest
others hold rather than running unpinned.
"""

from __future__ import annotations

import os
import socket
import threading

import pytest

from autograder.sandbox.pinning import _pin_to_a_free_cpu, _unpin

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs CPU affinity (Linux) and at least two CPUs",
)


def _pinned_in_a_thread() -> tuple[object, set[int], set[int]]:
    """(what `_pin_to_a_free_cpu` returned, the thread's CPUs while pinned, after `_unpin`),
    from a thread of its own, so that the test's thread keeps its CPUs."""
    seen: list = []

    def pin() -> None:
        pinned = _pin_to_a_free_cpu()
        during = os.sched_getaffinity(0)
        claim = None if pinned is None or pinned[2] is None else pinned[2].getsockname()
        _unpin(pinned)
        seen.extend([(pinned and pinned[0], claim), during, os.sched_getaffinity(0)])

    thread = threading.Thread(target=pin)
    thread.start()
    thread.join()
    return seen[0], seen[1], seen[2]


def _hold_every_first_share() -> list[socket.socket]:
    """Claim each CPU's first share that no one holds yet (others on the machine may hold some)."""
    held = []
    for cpu in sorted(os.sched_getaffinity(0)):
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            claim.bind(f"\0autograder-cpu-{cpu}")
        except OSError:  # another grading on this machine holds it: taken all the same
            claim.close()
            continue
        held.append(claim)
    return held


def test_a_call_that_finds_every_cpu_claimed_shares_one_instead_of_running_unpinned() -> None:
    allowed = os.sched_getaffinity(0)
    held = _hold_every_first_share()
    try:
        (cpu, claim), during, after = _pinned_in_a_thread()
    finally:
        for claim_held in held:
            claim_held.close()
    assert cpu in allowed and during == {cpu}  # pinned to one CPU, not left to the scheduler
    name = claim.decode() if isinstance(claim, bytes) else claim
    assert name.lstrip("\0").startswith(f"autograder-cpu-{cpu}-")  # a second share, or later
    assert after == allowed  # unpinned, the thread gets its CPUs back


def test_a_second_share_is_released_with_its_call() -> None:
    """The socket that holds a call's share is closed when the call ends, so the kernel frees
    the share's name at once. (Asking a second call for the same share would also depend on the
    other gradings on the machine, which take and free shares meanwhile.)"""
    held, seen = _hold_every_first_share(), []

    def pin() -> None:
        pinned = _pin_to_a_free_cpu()
        seen.append(pinned)
        _unpin(pinned)

    try:
        thread = threading.Thread(target=pin)
        thread.start()
        thread.join()
    finally:
        for claim_held in held:
            claim_held.close()
    cpu, _, claim = seen[0]
    assert cpu in os.sched_getaffinity(0) and claim is not None
    assert claim.fileno() == -1  # closed: its name is free for the next call
