"""One CPU per graded call, claimed machine-wide, for grader and student alike."""

from __future__ import annotations

import contextlib
import os
import socket


def _pin_to_a_free_cpu() -> tuple[int, set[int], socket.socket | None] | None:
    """Pin the calling thread to a CPU that no other grading holds, or that the fewest hold;
    None if it cannot be pinned.

    A call is a ping-pong: the grader waits while the student searches, the student waits while
    the grader generates a child. One CPU serves both sides without losing any parallelism,
    whereas on two CPUs each of thousands of round trips wakes a process on another CPU, which
    costs several times the round trip itself (5x the CPU time on a 2-core virtual machine).
    Pinned before the student process starts, the grader passes its CPU on to it (and to the
    jail's processes) with no system call per process. Submissions graded at the same time, in
    other threads or worker processes, claim other CPUs; when every CPU is claimed (more
    gradings at once than CPUs: other runs on the machine), the call shares the CPU that the
    fewest others hold (`_claim_a_cpu`) rather than run unpinned, since two pairs taking
    turns on one CPU cost each other half of it, and a pair split over two CPUs costs itself
    five times its round trip. Where affinity cannot be set (not Linux), both run where the
    scheduler puts them.

    A thread already pinned to one CPU (a contest match's first agent claimed it) keeps it
    without a claim: both agents of a match and the grader serving them share one CPU, as they
    share the turn, and the second agent never takes a CPU another worker claimed.

    Returns the CPU, and what `_unpin` needs: the CPUs the thread may use again, the claim
    (None when the CPU was already the thread's: `_unpin` then leaves the thread as it is).
    """
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return None
    if len(allowed) == 1:
        return next(iter(allowed)), allowed, None
    claim = _claim_a_cpu(sorted(allowed)) if len(allowed) > 1 else None
    if claim is None:
        return None
    cpu, held = claim
    try:
        os.sched_setaffinity(0, {cpu})  # 0 is the calling thread, not the whole grader
    except OSError:
        held.close()
        return None
    return cpu, allowed, held


def _unpin(pinned: tuple[int, set[int], socket.socket | None] | None) -> None:
    if pinned is not None and pinned[2] is not None:
        _, allowed, held = pinned
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, allowed)
        held.close()


SHARES = 8
"""The most calls that claim one CPU at a time; past `SHARES` times the CPUs, a call runs
unpinned."""


def _claim_a_cpu(cpus: list[int]) -> tuple[int, socket.socket] | None:
    """Claim one of `cpus` that no other call on this machine holds, else the first with a
    second share free, then a third, and so on (the CPUs are shared out evenly as calls come);
    None if every CPU has `SHARES` calls already.

    A claim is an abstract Unix socket bound to the name autograder-cpu-N (the first share of
    CPU N), autograder-cpu-N-2 (the second), and so on: only one socket can hold a name, and
    the kernel frees it when the socket is closed, even if its process dies.
    """
    for share in range(1, SHARES + 1):
        for cpu in cpus:
            held = _claim(cpu, share)
            if held is not None:
                return cpu, held
    return None


def _claim(cpu: int, share: int) -> socket.socket | None:
    """The socket holding share `share` of CPU `cpu`, or None if another call holds it."""
    held = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        held.bind(f"\0autograder-cpu-{cpu}" + (f"-{share}" if share > 1 else ""))
    except OSError:
        held.close()
        return None
    return held


def _claim_two_free_cpus() -> list[tuple[int, socket.socket]]:
    """Claim two CPUs this thread may use that no other call on this machine holds (the first
    share of each, as `_claim_a_cpu` names it); [] if there are not two such CPUs, and nothing
    is held then. A contest plays its agent's two copies at once only on two free CPUs."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    held = []
    for cpu in allowed:
        claim = _claim(cpu, 1)
        if claim is not None:
            held.append((cpu, claim))
        if len(held) == 2:
            return held
    for _, claim in held:
        claim.close()
    return []
