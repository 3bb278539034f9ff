"""``--jobs N`` on a database: every part of a row's work in the workers, by stretches of global
positions, so that the main process does next to nothing a row (issue 33: its serial share).

The log is cut into stretches of ``range_rows`` positions, dealt to the workers in turn. Each
worker reads its own stretches (``audit.sources.LogRanges``: its own connection, in the audit's
snapshot) and, for each:

1. checks the chain and the signatures of the stretch (``audit.range_chain.check_range``), each
   payload decoded once, and prepares the rows of each table in it (``audit.tables.prepare``);
   the main process gets the stretch's links, its sealing, and each row's columns without the
   payload text (with the payload object where the main process's checks read it);
2. re-derives each table's part of the stretch as ``audit.ranges`` does a table's range (fold,
   the state handed on, decide): a table's ranges are its parts of the stretches it appears in.

The main process takes the stretches in order: it checks each one's links against the ones before
it (``audit.range_chain.join``), runs the checks that follow the whole log in order on the rows'
columns (``audit.seal``, ``audit.clock``, ``audit.system_duties``) exactly as one process does,
and tells each table's range where its state goes: the worker of the next stretch that holds the
table (it knows that stretch once it has taken it), or nowhere (the table's last range: closed).

A stretch that does not hold, a link between stretches that does not, a stretch checked from a key
that was not the one in force there, or a log that does not start at position 1 with every
position and checkpoint in place: the whole audit is done again the one-process way
(``verify_log`` then reads the rows itself), whose findings are the definition; ``run`` answers
None. The findings of a log that holds are the one process's: the tables' through
``audit.ranges``' merge, every other check the same code on the same rows in the same order.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.chain import Integrity
from audit.clock import ClockRule
from audit.range_chain import RangeChecked, join
from audit.range_worker import run_worker
from audit.ranges import merge_ranges
from audit.seal import IN_ROUND, Seal
from audit.sources import LogRanges
from audit.system_duties import SystemDuties
from audit.tables import InRange, TablesResult
from audit.worker_results import gather, next_result
from eventlog.system_events import SYSTEM_STREAM
from table_core.hands import tables_for
from table_core.ports import Upcasters

_PROGRESS_EVERY = 4096


@dataclass
class Checkers:
    """The checks the main process runs in log order (``audit.verify`` makes them)."""

    integrity: Integrity
    seal: Seal
    clock: ClockRule | None
    duties: SystemDuties | None
    table: str | None = None
    count: int = 0  # rows taken


@dataclass
class _Plan:
    """Where each table's ranges are: the stretch it last appeared in, the stretches it
    appears in (its ranges, in order), and the tables in the order they first appear."""

    last: dict[str, int] = field(default_factory=dict)
    numbers: dict[str, list[int]] = field(default_factory=dict)


def holds_whole(ranges: LogRanges, witness: Sequence[Sequence[Any]]) -> bool:
    """A log the stretches can be checked apart on: positions 1..last, each once; no witnessed
    head past the end (a finding: the one-process way)."""
    if ranges.first != 1 or ranges.last is None or ranges.row_count != ranges.last:
        return False
    return all(type(w[0]) is int and 1 <= w[0] <= ranges.last for w in witness)


def run(
    ranges: LogRanges,
    checkers: Checkers,
    jobs: int,
    in_range: InRange,
    upcasters: Upcasters | None,
    witness: Sequence[Sequence[Any]],
    range_rows: int,
    progress: Callable[[int], None] | None,
    stage: Callable[[str, int], Callable[[int], None]] | None,
) -> TablesResult | None:
    """The audit of ``ranges`` by ``jobs`` workers (see the module's text); None: to be done
    the one-process way."""
    if not holds_whole(ranges, witness):
        return None
    last = int(ranges.last)
    size = max(1, range_rows)
    stretches = [(a, min(last, a + size - 1)) for a in range(1, last + 1, size)]
    tables_for("second")  # forked: the workers share the five-card tables built here
    tables_for("lowest")
    context = multiprocessing.get_context("fork")
    results: Any = context.Queue()
    inboxes: list[Any] = [context.Queue() for _ in range(jobs)]
    workers = [
        context.Process(
            target=run_worker,
            args=(index, inboxes, results, in_range, upcasters, ranges, checkers.table),
            daemon=True,
        )
        for index in range(jobs)
    ]
    for worker in workers:
        worker.start()
    try:
        key = checkers.integrity.key_in_force[0]
        for number, (a, b) in enumerate(stretches):
            given = [w for w in witness if a <= w[0] <= b]
            inboxes[number % jobs].put(("read", number, a, b, key, given))
        return _take(stretches, checkers, inboxes, results, workers, ranges, progress, stage)
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()


def _take(
    stretches: list[tuple[int, int]],
    checkers: Checkers,
    inboxes: list[Any],
    results: Any,
    workers: list[Any],
    ranges: LogRanges,
    progress: Callable[[int], None] | None,
    stage: Callable[[str, int], Callable[[int], None]] | None,
) -> TablesResult | None:
    """The stretches in order as they come in, then the tables' ranges once they are done."""
    jobs = len(inboxes)
    waiting: dict[int, RangeChecked] = {}
    received: list[tuple[Any, ...]] = []
    plan = _Plan()
    checkpoints = 0
    for number in range(len(stretches)):
        while number not in waiting:
            message = next_result(results, workers)
            if message[0] == "chain":
                waiting[message[1]] = message[2]
            else:
                received.append(message)
        checked = waiting.pop(number)
        if not join(checkers.integrity, checked):
            return None
        checkpoints += checked.checkpoints
        _rows(checked, checkers, progress)
        for table in checked.tables:
            before = plan.last.get(table)
            if before is None:
                inboxes[number % jobs].put(("fresh", table, number))
                plan.numbers[table] = []
            else:
                inboxes[before % jobs].put(("end", table, before, number % jobs, number))
            plan.last[table] = number
            plan.numbers[table].append(number)
    if checkpoints != ranges.checkpoint_count:
        return None  # a checkpoint outside the log's positions: a finding
    if progress is not None:
        progress(checkers.count)
    for table, number in plan.last.items():
        inboxes[number % jobs].put(("end", table, number, None, None))
    for inbox in inboxes:
        inbox.put(("stop",))
    expected = sum(len(numbers) for numbers in plan.numbers.values())
    done = None if stage is None else stage("re-deriving ranges", expected)
    gather(results, workers, received, expected, done)
    # A table's ranges numbered in turn, as ``audit.ranges``' merge takes them.
    index = {(t, n): i for t, numbers in plan.numbers.items() for i, n in enumerate(numbers)}
    renumbered = [(m[0], m[1], index[(m[1], m[2])], *m[3:]) for m in received]
    return merge_ranges(list(plan.numbers), renumbered)


def _rows(
    checked: RangeChecked, checkers: Checkers, progress: Callable[[int], None] | None
) -> None:
    """The stretch's rows (all of them clean: the stretch holds) through the checks that follow
    the log in order."""
    seal, clock, duties, table = checkers.seal, checkers.clock, checkers.duties, checkers.table
    count = checkers.count
    for row, payload in checked.thin:
        count += 1
        if progress is not None and count % _PROGRESS_EVERY == 0:
            progress(count)
        follow_row(row, payload, True, seal, clock, duties, table)
    checkers.count = count


def follow_row(
    row: Sequence[Any],
    payload: dict[str, Any] | None,
    clean: bool,
    seal: Seal,
    clock: ClockRule | None,
    duties: SystemDuties | None,
    table: str | None,
) -> None:
    """A row through the checks that follow the log in order: sealing (``audit.seal``), the clock
    rule (R4) and the duties across streams, on the rows the chain found clean (``clean``; a
    system row: and read as a system event). ``audit.verify``'s pass and the stretches' alike."""
    stream = row[1]
    if stream == SYSTEM_STREAM:
        seal.system(row)
        if clean and duties is not None and payload is not None:
            duties.system_row(row, payload)
        if clock is not None:
            clock.system_row(row)
        return
    seal.last_table = row[0]
    if row[3] not in IN_ROUND:
        seal.table_mark(row, payload)
    if clean and type(stream) is str and (table is None or stream == table):
        if clock is not None:  # a row out of place is the chain's finding alone
            clock.table_row(row)
        if duties is not None:
            duties.table_row(row, payload)
