"""``--jobs N``: the tables' side of a verification spread over N worker processes, by RANGES of
each table's rows, so that one busy table gains as much as many quiet ones (issue 22).

The main process reads the log, checks the chain (``audit.chain``) and cuts each table's rows
into ranges of about ``range_rows`` rows, dealt to the workers in turn (``audit.position_ranges``
reuses the workers' loop). A range needs the table's audit state where it starts, what folding
the rows before it gives; so each range is done in two steps by the worker that owns it:

1. **fold**: every row fed to the table's audit (``audit.tables.feed``: parsed, checked against
   its row, folded, posted to the ledger and the books) with each ``decide`` put aside, together
   with the state it is to be decided on (states are immutable: keeping one is keeping a
   reference). At the end of the range the whole audit state is pickled and sent to the worker
   of the next range, which can start folding at once;
2. **decide**: the commands put aside are decided again on their states, as one process would.

Only the folds are in sequence. The findings are exactly one process's, in the same order: each
range keeps its findings and put-aside decisions in the order one process meets them; a difference
between recorded and decided events is put into words (``TableAudit._compare``) in the main
process, in log order: repeated across a table, it is reported once (``_repeated``).
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import traceback
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from audit.findings import Finding
from audit.rederive import TableAudit
from audit.tables import Envelope, InRange, Prepared, TablesResult, prepare
from audit.worker_results import gather, next_result, rare_for_good
from eventlog.canonical import loads_json
from table_core.hands import tables_for
from table_core.ports import Upcasters

#: Rows of one table in a range (the worker's unit of work). Large enough that sending the
#: audit state on (a pickle of a few kilobytes) costs nothing next to the range's work.
RANGE_ROWS = 4_096
_BATCH = 512  # rows a message
#: The columns a worker reads (``audit.tables.prepare``): the four hashes stay with the chain
#: check in the main process, and are a third of a row's pickled bytes.
_COLUMNS = 10
_CREDITS = 16  # batches the main process may send a worker before the worker has folded them
#: Decisions a worker may hold put aside before it decides rather than folds more: its memory.
_PENDING = 3 * RANGE_ROWS
_DECIDE_STEP = 256  # decisions between two looks at the inbox (a state handed on waits less)
#: Rows between two sweeps for batches left part-filled by tables that went quiet. A table that
#: has closed (an archive holds thousands) would otherwise keep its last batch, up to ``_BATCH``
#: rows, in the main process to the log's end: memory growing with the log (issue 22, the
#: million-round archive: 1,100 MiB). A live table writes a row every few dozen rows of the log,
#: so a table silent for a whole sweep has closed, or is as quiet as one that has.
_SWEEP = 16_384


@dataclass(frozen=True, slots=True)
class _Put:
    """A decision put aside by the fold: ``TableAudit._check`` or ``_custody``, later."""

    custody: bool
    state: Any
    metas: list[Any]
    events: list[Any]


@dataclass(frozen=True, slots=True)
class _Compare:
    """A decided command whose events differ from the recorded ones, to put into words in the
    main process (``TableAudit._compare``)."""

    metas: list[Any]
    events: list[Any]
    expected: list[Any]
    rules: Any


_REPEATS = "repeats"  # where one process reports the repeated differences (``finish``)


class RangeAudit(TableAudit):
    """A table's audit that puts its decisions aside while it folds (see the module's text)."""

    def __init__(self, table_id: str, in_range: InRange) -> None:
        self.out: list[Any] = []
        super().__init__(table_id, self._emit, in_range)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["out"] = None  # what this range found stays with it
        state["in_range"] = None  # a closure: each worker has its own (forked)
        # R20's counts are made by the decisions, each range its own (summed in ``merge_ranges``):
        # the next range starts from none, whatever of this range was decided already.
        state["custody_ok"], state["before_custody"] = 0, []
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def _emit(self, finding: Finding) -> None:
        self.out.append(finding)

    def _check(self, state: Any, metas: list[Any], events: list[Any]) -> None:
        self.out.append(_Put(False, state, metas, events))

    def _custody(self, state: Any, metas: list[Any], events: list[Any]) -> None:
        self.out.append(_Put(True, state, metas, events))

    def _compare(self, metas: Any, events: Any, expected: Any, rules: Any) -> None:
        self.out.append(_Compare(metas, events, expected, rules))

    def _report_repeats(self) -> None:
        self.out.append(_REPEATS)

    def decide(self, items: list[Any], out: list[Any]) -> None:
        """The decisions put aside, taken in order (their findings into ``out``)."""
        self.out = out
        for item in items:
            if type(item) is not _Put:
                out.append(item)
            elif item.custody:
                TableAudit._custody(self, item.state, item.metas, item.events)
            else:
                TableAudit._check(self, item.state, item.metas, item.events)


# --- the main process ----------------------------------------------------------------------------


#: A message's rows, and the indices of those the chain check did not find clean (mostly none:
#: one flag a row would be pickled for nothing).
Batch = tuple[list[Sequence[Any]], list[int]]


@dataclass
class _Route:
    """Where a table's rows go: its current range, that range's worker, the batch being filled."""

    number: int
    worker: int
    rows: int = 0
    last: int = 0  # the log row (of this pass) that last came to this route
    batch: list[Sequence[Any]] = field(default_factory=list)
    unclean: list[int] = field(default_factory=list)


class TablesInProcesses:
    """The same as :class:`audit.tables.Tables`, its work done by ``jobs`` worker processes."""

    def __init__(
        self,
        jobs: int,
        in_range: InRange,
        upcasters: Upcasters | None = None,
        range_rows: int = RANGE_ROWS,
    ) -> None:
        # Forked, so the workers share the five-card tables built here (and the range, the
        # upcasters) instead of building or pickling them.
        tables_for("second")
        tables_for("lowest")
        context = multiprocessing.get_context("fork")
        self.range_rows = max(1, range_rows)
        self.results: Any = context.Queue()
        # Unbounded: workers hand states on to each other and must never block doing so; the
        # main process is held back by the credits instead (memory stays bounded).
        self.inboxes: list[Any] = [context.Queue() for _ in range(jobs)]
        self.credits: list[Any] = [context.Semaphore(_CREDITS) for _ in range(jobs)]
        self.workers = [
            context.Process(
                target=_work,
                args=(index, self.inboxes, self.credits[index], self.results, in_range, upcasters),
                daemon=True,
            )
            for index in range(jobs)
        ]
        for worker in self.workers:
            worker.start()
        self.routes: dict[str, _Route] = {}
        self.ranges = 0  # ranges started, over every table
        self.received: list[tuple[Any, ...]] = []
        self.count = 0  # rows routed

    def row(self, row: Sequence[Any], payload: dict[str, Any] | None, clean: bool) -> None:
        self.count += 1
        if self.count % _SWEEP == 0:
            self._sweep()
        stream = row[1]
        route = self.routes.get(stream)
        if route is None:
            route = self.routes[stream] = _Route(0, self._next_worker())
        elif route.rows >= self.range_rows:
            following = self._next_worker()
            self._send(route, stream)
            self.inboxes[route.worker].put(("end", stream, route.number, following))
            route.number, route.worker, route.rows = route.number + 1, following, 0
        if not clean:
            route.unclean.append(len(route.batch))
        route.batch.append(row[:_COLUMNS])  # the worker decodes the payload again: cheaper
        route.rows += 1
        route.last = self.count
        if len(route.batch) >= _BATCH:
            self._send(route, stream)

    def _sweep(self) -> None:
        """Send the part-filled batches of the tables silent since the last sweep (``_SWEEP``)."""
        quiet = self.count - _SWEEP
        for stream, route in self.routes.items():
            if route.batch and route.last <= quiet:
                self._send(route, stream)

    def _next_worker(self) -> int:
        """Ranges to the workers in turn, over every table: even shares of the work."""
        self.ranges += 1
        return (self.ranges - 1) % len(self.workers)

    def _send(self, route: _Route, stream: str) -> None:
        if not route.batch:
            return
        while not self.credits[route.worker].acquire(timeout=1.0):
            self._collect(block=False)  # a worker that failed says so here, instead of a hang
        batch: Batch = (route.batch, route.unclean)
        self.inboxes[route.worker].put(("rows", stream, route.number, batch))
        route.batch, route.unclean = [], []

    def _collect(self, block: bool) -> None:
        with suppress(queue.Empty):  # not ``block``: none waiting
            self.received.append(next_result(self.results, self.workers, block))

    def finish(self, progress: Callable[[int], None] | None = None) -> TablesResult:
        """Every range's result, once the workers are done (``progress``: ranges done of
        ``self.ranges``, as they come in)."""
        for stream, route in self.routes.items():
            self._send(route, stream)
            self.inboxes[route.worker].put(("end", stream, route.number, None))
        for inbox in self.inboxes:
            inbox.put(("stop",))
        gather(self.results, self.workers, self.received, self.ranges, progress)
        return merge_ranges(list(self.routes), self.received)

    def close(self) -> None:
        for worker in self.workers:
            if worker.is_alive():
                worker.terminate()


def merge_ranges(tables: list[str], received: list[tuple[Any, ...]]) -> TablesResult:
    """The ranges' results as one process gives them: each table's findings in log order (its
    ranges in turn, the differences put into words here), every table's closing findings after
    every table's running ones, tables in the order they first appear in the log."""
    by_range = {(m[1], m[2]): m for m in received}
    result = TablesResult()
    closing: list[Finding] = []
    for table in tables:
        merger = TableAudit(table, result.findings.append)  # _compare and _repeated, in order
        custody_ok, before = 0, []
        number = 0
        while (table, number) in by_range:
            _, _, _, items, ok, dealt_before, finish_at, final = by_range[(table, number)]
            custody_ok += ok
            before += dealt_before
            for index, item in enumerate(items):
                if index == finish_at:
                    merger.report = closing.append
                if type(item) is _Compare:
                    merger._compare(item.metas, item.events, item.expected, item.rules)
                elif item == _REPEATS:
                    merger._report_repeats()
                else:
                    merger.report(item)
            number += 1
        rounds, unchecked, money = final
        result.rounds[table] = rounds
        if unchecked:
            result.unchecked[table] = unchecked
        result.money.append(money)
        result.custody_ok[table] = custody_ok
        if before:
            result.before_custody[table] = before
    result.findings += closing
    return result


# --- a worker process ----------------------------------------------------------------------------


@dataclass
class _Task:
    """One range at one worker: its rows as they come, its audit once the state before it is
    here, what the fold found and put aside (``audit.out``), what the decisions made of it."""

    raw: list[Batch] = field(default_factory=list)
    ready: list[list[Prepared]] = field(default_factory=list)  # rows parsed, not yet folded
    audit: RangeAudit | None = None
    ended: bool = False
    following: int | None = None  # the worker of the table's next range; None: the last range
    handed: bool = False  # folded, and its state handed on (or the table closed)
    done: int = 0  # of ``audit.out``, taken by the decide step
    out: list[Any] = field(default_factory=list)
    finish_at: int | None = None  # in ``audit.out``: where the table's closing findings start
    out_closing: int | None = None  # the same place in ``out``
    final: Any = None

    @property
    def folded(self) -> bool:
        """Every row of the range folded, not yet handed on."""
        return (
            self.ended
            and not self.handed
            and self.audit is not None
            and not self.raw
            and (not self.ready)
        )

    @property
    def waiting(self) -> int:
        """Decisions put aside and not yet taken (a range still folding has some too)."""
        return len(self.audit.out) - self.done if self.audit is not None else 0


class _Worker:
    """The worker's loop: fold what can be folded (the next range waits on it), else decide."""

    def __init__(self, index: int, inboxes: list[Any], credits: Any, results: Any,
                 in_range: InRange, upcasters: Upcasters | None) -> None:  # fmt: skip
        self.inbox, self.inboxes, self.credits = inboxes[index], inboxes, credits
        self.results, self.in_range, self.upcasters = results, in_range, upcasters
        self.tasks: dict[tuple[str, int], _Task] = {}
        self.envelope = Envelope()
        self.stopping = False

    def run(self) -> None:
        while not self._finished():
            if not self._step():
                self._take(self.inbox.get())  # nothing to do: wait for rows or a state
            while True:  # everything already waiting, before the next piece of work
                try:
                    self._take(self.inbox.get_nowait())
                except queue.Empty:
                    break

    def _finished(self) -> bool:
        return self.stopping and not self.tasks

    def _next_range(self, key: tuple[str, int]) -> int:  # the range its state goes to
        return key[1] + 1

    def _take(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "stop":
            self.stopping = True
            return
        task = self.tasks.setdefault((message[1], message[2]), _Task())
        if kind == "rows":
            task.raw.append(message[3])
        elif kind == "end":
            task.ended, task.following = True, message[3]
        else:  # "state": the audit state where this range starts, from the range before
            task.audit = pickle.loads(message[3])
            task.audit.in_range, task.audit.out = self.in_range, []
        if message[2] == 0 and task.audit is None:  # a table's first range starts from nothing
            task.audit = RangeAudit(message[1], self.in_range)

    def _step(self) -> bool:
        """One piece of work; False when there is none. In order: a range folded is handed on
        (another worker waits on it); rows folded, unless too many decisions are put aside
        already; work ahead (``_ahead``); decisions, also of a range still folding."""
        tasks = self.tasks
        for key, task in tasks.items():
            if task.folded:
                self._hand_on(key, task)
                return True
        if sum(task.waiting for task in tasks.values()) < _PENDING:
            for task in tasks.values():
                if task.audit is not None and not task.handed and (task.ready or task.raw):
                    self._fold(task)
                    return True
        if self._ahead():
            return True
        for key, task in tasks.items():
            if task.waiting or task.handed:
                self._decide(key, task)
                return True
        return False

    def _ahead(self) -> bool:
        """Rows parsed ahead for a range still waiting for its state (parsing needs none)."""
        for task in self.tasks.values():
            if task.audit is None and task.raw:
                task.ready.append(self._prepare(task.raw.pop(0)))
                return True
        return False

    def _prepare(self, batch: Batch) -> list[Prepared]:
        envelope, upcasters = self.envelope, self.upcasters
        rows, unclean = batch
        # A row the chain found clean is canonical JSON without floats (its check parsed it):
        # read with the fast parser; any other with the careful one (payload_of).
        dirty = set(unclean)
        return [
            prepare(row, None, False, envelope, upcasters)
            if index in dirty
            else prepare(row, loads_json(row[5]), True, envelope, upcasters)
            for index, row in enumerate(rows)
        ]

    def _fold(self, task: _Task) -> None:
        audit = task.audit
        assert audit is not None
        batch = task.ready.pop(0) if task.ready else self._prepare(task.raw.pop(0))
        report, add = audit._emit, audit.add
        for found, meta, event, tainted in batch:
            for finding in found:
                report(finding)
            if meta is not None:
                add(meta, event, tainted)
        self.credits.release()

    def _hand_on(self, key: tuple[str, int], task: _Task) -> None:
        """The range is folded: its state to the next range's worker, or the table closed."""
        audit = task.audit
        assert audit is not None
        if task.following is not None:
            state = pickle.dumps(audit, protocol=pickle.HIGHEST_PROTOCOL)
            self.inboxes[task.following].put(("state", key[0], self._next_range(key), state))
        else:
            task.finish_at = len(audit.out)
            audit.finish()
            task.final = (audit.rounds_checked, audit.unchecked, audit.money())
        task.handed = True

    def _decide(self, key: tuple[str, int], task: _Task) -> None:
        audit = task.audit
        assert audit is not None
        items = audit.out
        self._mark_closing(task)
        end = min(task.done + _DECIDE_STEP, len(items))
        if task.finish_at is not None and task.done < task.finish_at:
            end = min(end, task.finish_at)  # a step ends where the closing findings start
        audit.decide(items[task.done : end], task.out)
        audit.out = items  # ``decide`` wrote into ``task.out``; the fold goes on appending here
        items[task.done : end] = [None] * (end - task.done)  # taken: their states can go
        task.done = end
        self._mark_closing(task)
        if task.done < len(items):
            return
        if not task.handed:
            # Everything put aside is decided, and the range is still open (a table's last range
            # stays open to the log's end): start the list again rather than keep a slot a row
            # for every closed table of an archive.
            items.clear()
            task.done = 0
        else:
            del self.tasks[key]
            self.results.put(
                ("range", key[0], key[1], task.out, audit.custody_ok, audit.before_custody,
                 task.out_closing, task.final)
            )  # fmt: skip
            # The audit refers to itself (its report, its books'): a cycle the collector, rare
            # here (below), would free late. Emptied, it and every state it held go at once.
            audit.__dict__.clear()

    @staticmethod
    def _mark_closing(task: _Task) -> None:
        """Where the table's closing findings (``finish``) start in what the range found."""
        if task.done == task.finish_at and task.out_closing is None:
            task.out_closing = len(task.out)


def _work(index: int, inboxes: list[Any], credits: Any, results: Any, in_range: InRange,
          upcasters: Upcasters | None) -> None:  # fmt: skip
    rare_for_good()  # many live states (the decisions put aside) a collection would walk again
    try:
        _Worker(index, inboxes, credits, results, in_range, upcasters).run()
    except Exception:  # reported to the main process, which raises it
        results.put(("error", traceback.format_exc()))
