"""The tournament's work in forked worker processes: loading the agents, playing the matches."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from autograder.grading import pool


def in_workers(work: Callable, items: Sequence, setup, workers: int, done: Callable):
    """Run `work(item, setup)` for each item in `workers` forked processes, calling `done(item,
    result)` here as each ends. An item whose worker died (its agent killed its parent, without
    the jail) is run again alone; `done(item, None)` if that worker dies too, or if `work`
    raised (the grader's failure, which stops only that item)."""
    for item in _run_pool(work, items, setup, workers, done):
        if _run_pool(work, [item], setup, 1, done):
            done(item, None)


def _run_pool(work: Callable, items: Sequence, setup, workers: int, done: Callable):
    """Run `items` in a fresh pool (as `pool.grade_in_workers` does); return those whose
    worker died before finishing them."""
    context = multiprocessing.get_context("fork")
    broken = []
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=pool._worker_starts
    ) as executor:
        futures = {executor.submit(work, item, setup): item for item in items}
        try:
            for future in as_completed(futures):
                try:
                    done(futures[future], future.result())
                except BrokenProcessPool:
                    broken.append(futures[future])
                except Exception:  # noqa: BLE001 - the grader failed on this item alone
                    done(futures[future], None)
        except BaseException:  # Ctrl-C: stop the workers now, not after their games
            for process in list(executor._processes.values()):  # no public way before 3.14
                process.kill()
            executor.shutdown(wait=False, cancel_futures=True)
            raise
    return broken
