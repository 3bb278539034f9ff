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


_rare = threading.Lock()
_rare_depth = [0]  # audits with workers running in this process (threads, nested calls)
_threshold: list[tuple[int, int, int]] = []
_froze = [False]  # whether the audit froze the objects (it leaves another's freeze alone)


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """The collector made rare while the main process unpickles its workers' messages: a stretch
    is thousands of tuples and dicts, each a trigger of the youngest generation's collection,
    which then walked every message before it (half the time of ``pickle.loads``). The objects
    alive before are frozen out of the collections; the first to enter changes the settings and
    the last to leave puts them back, so audits in threads of one process keep each other's."""
    with _rare:
        if _rare_depth[0] == 0:
            _threshold[:] = [gc.get_threshold()]
            _froze[0] = gc.get_freeze_count() == 0
            if _froze[0]:
                gc.freeze()
            gc.set_threshold(50_000, 20, 100)
        _rare_depth[0] += 1
    try:
        yield
    finally:
        with _rare:
            _rare_depth[0] -= 1
            if _rare_depth[0] == 0:
                gc.set_threshold(*_threshold[0])
                if _froze[0]:
                    gc.unfreeze()
