"""The main process's side of the audit's worker processes (``audit.ranges``,
``audit.position_ranges``): their next message, a failure raised here instead of a hang, and the
wait for every range's result."""

from __future__ import annotations

import contextlib
import gc
import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any


def next_result(results: Any, workers: list[Any], block: bool = True) -> tuple[Any, ...]:
    """The workers' next message (not ``block``: ``queue.Empty`` when none is waiting). A worker
    that failed or stopped without its results is raised as an error."""
    while True:
        try:
            message: tuple[Any, ...] = results.get(timeout=5.0) if block else results.get_nowait()
        except queue.Empty:
            if not block:
                raise
            if all(w.is_alive() for w in workers):
                continue
            raise RuntimeError("an audit worker stopped without its results") from None
        if message[0] == "error":
            raise RuntimeError("an audit worker failed:\n" + message[1])
        return message


def gather(
    results: Any,
    workers: list[Any],
    received: list[tuple[Any, ...]],
    expected: int,
    progress: Callable[[int], None] | None,
) -> None:
    """Messages into ``received`` until it holds ``expected`` (``progress``: how many, as they
    come in), then the workers' end."""
    while len(received) < expected:
        if progress is not None:
            progress(len(received))
        received.append(next_result(results, workers))
    if progress is not None:
        progress(len(received))
    for worker in workers:
        worker.join()


#: The collector's thresholds while an audit's processes hold many live objects (states, decisions
#: put aside, messages): collections rarer, so they do not walk the same objects again and again.
RARE_THRESHOLDS = (50_000, 20, 100)


def rare_for_good() -> None:
    """A worker process's collector for its whole life: the objects inherited from the main
    process (never freed here) kept out of its scans, and collections rare."""
    gc.freeze()
    gc.set_threshold(*RARE_THRESHOLDS)


class _Rare:
    """Who made the main process's collector rare, and what to put back."""

    lock = threading.Lock()
    depth = 0  # audits with workers running in this process (threads, nested calls)
    threshold: tuple[int, int, int] = (0, 0, 0)
    froze = False  # whether the audit froze the objects (it leaves another's freeze alone)


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """The collector made rare while the main process unpickles its workers' messages: a stretch
    is thousands of tuples and dicts, each a trigger of the youngest generation's collection,
    which then walked every message before it (half the time of ``pickle.loads``). The objects
    alive before are frozen out of the collections; the first to enter changes the settings and
    the last to leave puts them back, so audits in threads of one process keep each other's."""
    with _Rare.lock:
        if _Rare.depth == 0:
            _Rare.threshold = gc.get_threshold()
            _Rare.froze = gc.get_freeze_count() == 0
            if _Rare.froze:
                gc.freeze()
            gc.set_threshold(*RARE_THRESHOLDS)
        _Rare.depth += 1
    try:
        yield
    finally:
        with _Rare.lock:
            _Rare.depth -= 1
            if _Rare.depth == 0:
                gc.set_threshold(*_Rare.threshold)
                if _Rare.froze:
                    gc.unfreeze()
