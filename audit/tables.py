"""The tables' side of a verification: each payload parsed and checked against its row, then every
table's rounds re-derived (``audit.rederive``), in this process or spread over worker processes.

Tables are independent of each other (each is one stream; only the chain links them, and the chain
is checked in the main process), so ``--jobs N`` gives each table to one of N worker processes:
the main process reads the log and checks the chain, and sends each table's rows, in order, to
its worker. The findings are the same as in one process; only the time changes.
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.chain import payload_of, row_finding
from audit.findings import Finding, TableMoney
from audit.rederive import Meta, TableAudit
from eventlog.canonical import format_time
from eventlog.mapper import EventFormatError, parse_event
from table_core.hands import tables_for
from table_core.ports import Upcasters

InRange = Callable[[int | None, int], bool]
_BATCH = 512


@dataclass
class TablesResult:
    """What the tables' side found, and what it covered."""

    findings: list[Finding] = field(default_factory=list)
    rounds: dict[str, int] = field(default_factory=dict)
    unchecked: dict[str, list[int]] = field(default_factory=dict)
    money: list[TableMoney] = field(default_factory=list)
    #: R20: dealt rounds that named a deck in good standing, by table.
    custody_ok: dict[str, int] = field(default_factory=dict)
    #: R20: rounds dealt before their table kept custody, by table.
    before_custody: dict[str, list[int]] = field(default_factory=dict)

    def merge(self, other: TablesResult) -> None:
        self.findings += other.findings
        self.rounds.update(other.rounds)
        self.unchecked.update(other.unchecked)
        self.money += other.money
        self.custody_ok.update(other.custody_ok)
        self.before_custody.update(other.before_custody)


class Envelope:
    """The row's columns must say what its payload says: the store hashes both, so a writer that
    put one thing in the columns and another in the payload is found here."""

    __slots__ = ("_times",)

    def __init__(self) -> None:
        self._times: tuple[Any, str] = (None, "")

    def problems(self, row: Sequence[Any], event: Any, schema: Any, system: bool) -> list[str]:
        out = []
        if event.type != row[3]:
            out.append(f"the row says {row[3]}, the payload {event.type}")
        if schema != row[4]:
            out.append(f"schema version {row[4]} in the row, {schema} in the payload")
        if system:
            actor_id, role = event.actor_id, event.actor_role
        else:
            actor_id, role = event.actor.id, event.actor.role
            if event.table_id != row[1]:
                out.append(f"the payload belongs to table {event.table_id}, not {row[1]}")
        if (actor_id, role) != (row[7], row[8]):
            out.append(f"actor {row[7]} ({row[8]}) in the row, {actor_id} ({role}) in the payload")
        if self._times != (event.at, row[6]):  # consecutive events mostly share one time
            if format_time(event.at) != row[6]:
                out.append(f"recorded at {row[6]}, the payload says {event.at.isoformat()}")
            else:
                self._times = (event.at, row[6])
        return out


def first_line(error: Exception) -> str:
    return " ".join(line.strip() for line in str(error).splitlines()[:3])


class Tables:
    """Every table's stream in this process: ``row()`` for each of their rows, in log order."""

    def __init__(self, in_range: InRange, upcasters: Upcasters | None = None) -> None:
        self.in_range = in_range
        self.upcasters = upcasters
        self.audits: dict[str, TableAudit] = {}
        self.findings: list[Finding] = []
        self.envelope = Envelope()

    def row(self, row: Sequence[Any], payload: dict[str, Any] | None, clean: bool) -> None:
        """One row of a table stream; ``payload`` as the chain check read it (None: decode it
        here), ``clean`` whether the chain check found nothing wrong with it."""
        stream = row[1]
        audit = self.audits.get(stream)
        if audit is None:
            audit = self.audits[stream] = TableAudit(stream, self.findings.append, self.in_range)
        if payload is None:
            payload = payload_of(row)
        event = None
        if payload is not None:
            schema = payload.get("schema_version")  # as stored, before any upcasting
            if self.upcasters is not None:
                _, payload = self.upcasters.upcast(row[3], row[4], payload)
            try:
                event = parse_event(payload)
            except EventFormatError as error:
                self.findings.append(
                    row_finding(
                        row, "schema", f"the payload does not read as a table event: "
                        f"{first_line(error)}"
                    )
                )  # fmt: skip
                clean = False
            else:
                problems = self.envelope.problems(row, event, schema, system=False)
                if problems:
                    self.findings.append(row_finding(row, "envelope", "; ".join(problems)))
                    clean = False
        if type(row[0]) is int and type(row[2]) is int:
            audit.add(Meta(row[0], row[2], row[3], row[9]), event, not clean)

    def finish(self) -> TablesResult:
        for audit in self.audits.values():
            audit.finish()
        return TablesResult(
            findings=self.findings,
            rounds={t: a.rounds_checked for t, a in self.audits.items()},
            unchecked={t: a.unchecked for t, a in self.audits.items() if a.unchecked},
            money=[a.money() for a in self.audits.values()],
            custody_ok={t: a.custody_ok for t, a in self.audits.items()},
            before_custody={
                t: a.before_custody for t, a in self.audits.items() if a.before_custody
            },
        )


# --- worker processes ------------------------------------------------------------------------


class TablesInProcesses:
    """The same as :class:`Tables`, each table in one of ``jobs`` worker processes."""

    def __init__(self, jobs: int, in_range: InRange, upcasters: Upcasters | None = None) -> None:
        # Forked, so the workers share the five-card tables built here (and the range, the
        # upcasters) instead of building or pickling them.
        tables_for("second")
        tables_for("lowest")
        context = multiprocessing.get_context("fork")
        self.results: Any = context.Queue()
        self.inboxes: list[Any] = [context.Queue(maxsize=16) for _ in range(jobs)]
        self.batches: list[list[tuple[Sequence[Any], bool]]] = [[] for _ in range(jobs)]
        self.workers = [
            context.Process(
                target=_work, args=(inbox, self.results, in_range, upcasters), daemon=True
            )
            for inbox in self.inboxes
        ]
        for worker in self.workers:
            worker.start()
        self.route: dict[str, int] = {}

    def row(self, row: Sequence[Any], payload: dict[str, Any] | None, clean: bool) -> None:
        stream = row[1]
        index = self.route.get(stream)
        if index is None:  # tables in turn, as they first appear: even shares of the work
            index = self.route[stream] = len(self.route) % len(self.workers)
        batch = self.batches[index]
        batch.append((tuple(row), clean))  # the worker decodes the payload again: cheaper
        if len(batch) >= _BATCH:
            self.inboxes[index].put(batch)
            self.batches[index] = []

    def finish(self) -> TablesResult:
        for index, inbox in enumerate(self.inboxes):
            if self.batches[index]:
                inbox.put(self.batches[index])
            inbox.put(None)
        result = TablesResult()
        errors = []
        for _ in self.workers:
            kind, value = self.results.get()
            if kind == "error":
                errors.append(value)
            else:
                result.merge(value)
        for worker in self.workers:
            worker.join()
        if errors:
            raise RuntimeError("an audit worker failed:\n" + "\n".join(errors))
        return result

    def close(self) -> None:
        for worker in self.workers:
            if worker.is_alive():
                worker.terminate()


def _work(inbox: Any, results: Any, in_range: InRange, upcasters: Upcasters | None) -> None:
    tables = Tables(in_range, upcasters)
    failed = None
    while True:
        batch = inbox.get()
        if batch is None:
            break
        if failed is not None:
            continue  # keep reading, so the main process never blocks on a full inbox
        try:
            for row, clean in batch:
                tables.row(row, None, clean)
        except Exception:  # reported to the main process, which raises it
            failed = traceback.format_exc()
    if failed is None:
        try:
            results.put(("done", tables.finish()))
        except Exception:
            results.put(("error", traceback.format_exc()))
    else:
        results.put(("error", failed))
