"""The main process's side of the audit's worker processes (``audit.ranges``,
``audit.position_ranges``): their next message, a failure raised here instead of a hang, and the
wait for every range's result."""

from __future__ import annotations

import queue
from collections.abc import Callable
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
