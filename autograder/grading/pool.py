"""Grade submissions in forked worker processes; a worker killed by its submission costs only
that submission."""

from __future__ import annotations

import gc
import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from autograder import sandbox
from autograder.grading import grade as grading
from autograder.grading.load import Loaded, Submission, load
from autograder.grading.records import GradeRecord
from autograder.sandbox import become_subreaper


def grade_one(submission: Submission, settings: grading.Settings) -> tuple[GradeRecord, str]:
    """Load and grade one submission (in a worker): its record and feedback page. Never raises."""
    loaded = Loaded()
    try:
        loaded = load(submission, settings.max_bytes, settings.functions)
        record = grading.grade(submission, loaded, settings)
        return record, grading.feedback(record)
    except Exception as error:  # noqa: BLE001 - one submission must not stop the class
        record = grading.failed(submission, loaded, f"{type(error).__name__}: {error}",
                                settings.rule_ids)  # fmt: skip
        return record, grading.feedback(record)


def grade_in_workers(pending: list, settings: grading.Settings, workers: int, finished) -> None:
    """Grade in `workers` processes forked from this one (the reference answers, computed
    once, come with the fork), calling `finished(record, page)` here as each one ends.

    A worker can die under a submission (without the jail, one that kills its parent): the pool
    then breaks and every submission in flight comes back unfinished. Those are graded again one
    at a time, each in a pool of its own, so that only the culprit is marked, not its
    neighbours.
    """
    retry = _run_pool(pending, settings, workers, finished)
    for submission in retry:
        if _run_pool([submission], settings, 1, finished):
            reason = "the process grading it died (did it kill its parent process?)"
            record = grading.failed(submission, Loaded(), reason, settings.rule_ids)
            finished(record, grading.feedback(record))


def _run_pool(items: list, settings: grading.Settings, workers: int, finished) -> list:
    """Grade `items` in a fresh pool; return those whose worker died before finishing them."""
    context = multiprocessing.get_context("fork")
    broken = []
    # The workers inherit the reference answers and the run's tables and keep them to the end:
    # frozen, the collections of a worker skip them rather than scan (and so copy) them.
    gc.freeze()
    try:
        _serve_pool(items, settings, workers, finished, context, broken)
    finally:
        gc.unfreeze()
    return broken


def _serve_pool(items: list, settings, workers: int, finished, context, broken: list) -> None:
    """`_run_pool`'s pool: hand out `items`, collect what comes back, note what broke."""
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_starts) as pool:
        futures = {pool.submit(grade_one, item, settings): item for item in items}
        try:
            for future in as_completed(futures):
                try:
                    finished(*future.result())
                except BrokenProcessPool:
                    broken.append(futures[future])
        except BaseException:  # Ctrl-C: stop the workers now, not after their submissions
            for process in list(pool._processes.values()):  # no public way before Python 3.14
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _worker_starts() -> None:
    """A worker adopts the orphans of its own submissions (see `sandbox.become_subreaper`) and
    leaves Ctrl-C to the main process, which stops the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sandbox.die_with_parent()  # a killed grading command takes its workers (and jails) along
    if sandbox.is_subreaper():
        become_subreaper()
