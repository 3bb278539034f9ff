"""The tables' side of a verification: each payload parsed and checked against its row, then every
table's rounds re-derived (``audit.rederive``), here in this process (``Tables``), or spread over
worker processes by ``audit.ranges`` (``--jobs N``), which feeds each row through the same
``feed`` below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.findings import Finding, TableMoney
from audit.rederive import Meta, TableAudit
from audit.row_reading import payload_of, row_finding
from eventlog.canonical import format_time
from eventlog.mapper import EventFormatError, parse_event
from table_core.events import Event
from table_core.ports import Upcasters

InRange = Callable[[int | None, int], bool]


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
        feed(audit, row, payload, clean, self.envelope, self.upcasters, self.findings.append)

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


Prepared = tuple[Sequence[Finding], Meta | None, Event | None, bool]


def prepare(
    row: Sequence[Any],
    payload: dict[str, Any] | None,
    clean: bool,
    envelope: Envelope,
    upcasters: Upcasters | None,
) -> Prepared:
    """A row's payload parsed under its schema and checked against its row: the findings, where
    the event sits (None: a row too broken to place), the event (None: unreadable) and whether
    it is tainted. Nothing here depends on the table's state (``audit.ranges`` does it ahead)."""
    if payload is None:
        payload = payload_of(row)
    event = None
    found: Sequence[Finding] = ()
    if payload is not None:
        schema = payload.get("schema_version")  # as stored, before any upcasting
        if upcasters is not None:
            _, payload = upcasters.upcast(row[3], row[4], payload)
        try:
            event = parse_event(payload)
        except EventFormatError as error:
            found = [
                row_finding(
                    row, "schema", f"the payload does not read as a table event: "
                    f"{first_line(error)}"
                )
            ]  # fmt: skip
            clean = False
        else:
            problems = envelope.problems(row, event, schema, system=False)
            if problems:
                found = [row_finding(row, "envelope", "; ".join(problems))]
                clean = False
    if type(row[0]) is int and type(row[2]) is int:
        return found, Meta(row[0], row[2], row[3], row[9]), event, not clean
    return found, None, event, not clean


def feed(
    audit: TableAudit,
    row: Sequence[Any],
    payload: dict[str, Any] | None,
    clean: bool,
    envelope: Envelope,
    upcasters: Upcasters | None,
    report: Callable[[Finding], None],
) -> None:
    """One row to its table's audit (``prepare``, then its findings to ``report`` and its event
    to ``audit``)."""
    found, meta, event, tainted = prepare(row, payload, clean, envelope, upcasters)
    for finding in found:
        report(finding)
    if meta is not None:
        audit.add(meta, event, tainted)
