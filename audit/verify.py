"""``paigow audit verify``: one pass over the log that reports EVERY finding.

For each row, in global position order:

1. integrity (``audit.chain``): the store's chain verifier on the row (positions and versions
   gap-free, links, canonical payload, event and global hashes) and the signed checkpoints;
   then the payload must parse under its schema (``eventlog.mapper.parse_event``, or the system
   stream's events) and agree with the row's envelope (type, schema version, stream, actor, time);
2. procedure, rules and money (``audit.rederive``): each table's commands decided again by
   ``table_core`` on the state folded from the events before them, and the books reconciled;
   and R4 (``audit.clock``): a table's time never goes back without a ``clock_adjusted``.

Nothing is read from a projection: the events are the only input. ``--table`` limits steps 2 to
one table (the whole chain is still checked, since it vouches for that table's events);
``--from``/``--to`` limit it to a range of rounds (the rounds before are still folded: the state
of round N is always re-derived from the first event).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from audit import position_ranges
from audit.chain import Integrity
from audit.clock import ClockRule
from audit.findings import AuditReport, Finding
from audit.range_chain import system_event
from audit.ranges import RANGE_ROWS, TablesInProcesses
from audit.seal import Seal, describe
from audit.sources import LogSource
from audit.system_duties import SystemDuties
from audit.tables import Envelope, InRange, Tables, TablesResult
from audit.worker_results import rare_collections
from eventlog.system_events import SYSTEM_STREAM
from table_core.ports import Upcasters

#: From this many jobs, the workers check the chain and the signatures by stretches of positions
#: (``audit.position_ranges``, a small serial share); below it, the main process keeps the chain
#: (a serial share of about a third). The stretches cost more CPU in all (benchmarks/README.md,
#: "The audit scales with cores"), so with two jobs the chain in the main process is the faster
#: of the two; from three, the smaller serial share wins.
STRETCHES_FROM = 3

Progress = Callable[[int], None]
#: ``stage(label, total)`` starts the work's next stage and returns its progress callback.
Stage = Callable[[str, int], Progress]
_PROGRESS_EVERY = 4096


def round_range(first: int | None, last: int | None) -> Callable[[int | None, int], bool]:
    """Whether an event is in the audited rounds: a round fact by its round, a table fact (a
    buy-in between rounds) by the last round started before it."""

    def in_range(number: int | None, last_started: int) -> bool:
        if number is None:
            return (first is None or last_started >= first - 1) and (
                last is None or last_started <= last
            )
        return (first is None or number >= first) and (last is None or number <= last)

    return in_range


def verify_log(
    source: LogSource,
    *,
    table: str | None = None,
    first_round: int | None = None,
    last_round: int | None = None,
    progress: Progress | None = None,
    upcasters: Upcasters | None = None,
    jobs: int = 1,
    allow_unsealed_tail: bool = False,
    witness: Iterable[Sequence[Any]] = (),
    range_rows: int = RANGE_ROWS,
    stage: Stage | None = None,
    stretches_from: int = STRETCHES_FROM,
) -> AuditReport:
    """Audit every row of ``source``; the report holds every finding, in position order.

    ``jobs`` above 1 spreads the work over that many worker processes: on a database, from
    ``stretches_from`` jobs, every row's work by stretches of ``range_rows`` positions
    (``audit.position_ranges``: the chain and signatures too); with fewer, elsewhere, or when the
    chain does not hold, the tables' side only, each table in ranges of ``range_rows`` rows
    (``audit.ranges``; the chain checked here). The
    findings are the same. Every event must be sealed by a checkpoint that holds
    (``audit.seal``; ``allow_unsealed_tail`` accepts rounds still in progress at the end), and
    every ``witness`` entry (position, head, signed_at, key_id, signature) must agree with the log.

    ``progress(n)`` follows the rows read; ``stage`` (when given) then follows the workers'
    ranges still being re-derived when the last row has been read.
    """
    started = time.perf_counter()
    in_range = round_range(first_round, last_round)
    if source.total is not None and source.total <= range_rows:
        jobs = 1  # one range of work: worker processes would only add their start-up
    witness = list(witness)
    spread = jobs >= max(2, stretches_from) and source.ranges is not None and not source.anchored
    # Spread, the workers read the checkpoints of their stretches; the main process none.
    checkers = _checkers(source, witness, table, () if spread else source.checkpoints)
    result = None
    # With workers, the main process unpickles their messages, whose collections were half its
    # time: the collector made rare (``rare_collections``; one process gains nothing from it).
    with rare_collections() if jobs > 1 else contextlib.nullcontext():
        if spread:
            assert source.ranges is not None
            result = position_ranges.run(
                source.ranges, checkers, jobs, in_range, upcasters, witness, range_rows,
                progress, stage,
            )  # fmt: skip
            if result is None:  # a finding in the chain: the one-process way words it
                checkers = _checkers(source, witness, table, source.checkpoints)
        if result is None:
            result = _one_pass(
                source, checkers, jobs, in_range, upcasters, range_rows, progress, stage
            )
    integrity, seal, clock, duties = (
        checkers.integrity,
        checkers.seal,
        checkers.clock,
        checkers.duties,
    )
    count = checkers.count
    integrity.finish()
    sealing, tail = _sealing(integrity, seal, integrity.checkpoints_total, allow_unsealed_tail)
    closing = source.after(integrity.heads)
    if source.sealed is not None:
        closing += source.sealed(integrity.key_in_force[0])
    findings = _pinpoint([*integrity.findings, *sealing, *closing], result.findings)
    if clock is not None:
        findings += clock.findings
    if duties is not None:
        findings += duties.findings
    if table is not None and table not in result.rounds:
        findings.append(
            Finding(
                kind="integrity", clause="scope", message=f"no event of table {table} is in the log"
            )
        )
    findings.sort(key=Finding.sort_key)
    report = _report(source, findings, count, integrity, result, tail)
    report.seconds = time.perf_counter() - started
    return report


def _checkers(
    source: LogSource,
    witness: list[Sequence[Any]],
    table: str | None,
    checkpoints: Iterable[Sequence[Any]],
) -> position_ranges.Checkers:
    integrity = Integrity(checkpoints, source.public_key, anchored=source.anchored, witness=witness)
    clock = None if source.anchored else ClockRule()  # a one-table bundle has no system stream
    duties = None if source.anchored else SystemDuties(clock)
    return position_ranges.Checkers(integrity, Seal(), clock, duties, table)


def _one_pass(
    source: LogSource,
    checkers: position_ranges.Checkers,
    jobs: int,
    in_range: InRange,
    upcasters: Upcasters | None,
    range_rows: int,
    progress: Progress | None,
    stage: Stage | None,
) -> TablesResult:
    """The main process reads every row and checks the chain; the tables' side here, or in
    ``jobs`` workers by ranges of each table's rows (``audit.ranges``)."""
    tables: Tables | TablesInProcesses = (
        Tables(in_range, upcasters)
        if jobs <= 1
        else TablesInProcesses(jobs, in_range, upcasters, range_rows)
    )
    c = checkers
    try:
        c.count = _pass(source, c.integrity, tables, c.table, progress, c.seal, c.clock, c.duties)
        if progress is not None:
            progress(c.count)
        if isinstance(tables, TablesInProcesses):
            ranges = None if stage is None else stage("re-deriving ranges", tables.ranges)
            return tables.finish(ranges)
        return tables.finish()
    finally:
        if isinstance(tables, TablesInProcesses):
            tables.close()


def _report(
    source: LogSource,
    findings: list[Finding],
    count: int,
    integrity: Integrity,
    result: Any,
    tail: dict[str, Any] | None,
) -> AuditReport:
    return AuditReport(
        source=source.name,
        findings=findings,
        events=count,
        tables=len(result.rounds),
        rounds=sum(result.rounds.values()),
        rounds_unchecked=[
            f"{t} round {n}" for t, numbers in sorted(result.unchecked.items()) for n in numbers
        ],
        checkpoints=integrity.checkpoints_checked,
        signatures_checked=source.public_key is not None,
        key_id=integrity.key_id,
        keys_followed=integrity.keys_followed,
        key_source=source.key_source,
        unsealed_tail=tail,
        unsealed_tail_note=describe(tail) if tail else None,
        witnessed=integrity.witnessed if integrity.witnessed else None,
        money=sorted(result.money, key=lambda m: m.table_id),
        rounds_with_deck=sum(result.custody_ok.values()),
        rounds_before_custody=[
            f"{t} {_spans(numbers)}" for t, numbers in sorted(result.before_custody.items())
        ],
        not_covered=list(source.not_covered),
    )


def _sealing(
    integrity: Integrity, seal: Seal, checkpoints: int, allow_tail: bool
) -> tuple[list[Finding], dict[str, Any] | None]:
    """The unsealed events' finding (``audit.seal``), or the tail the flag accepted."""
    sealed, unsealed, first = integrity.sealed, integrity.unsealed, integrity.unsealed_from
    explained = integrity.rehashed_to
    if explained is not None and explained > sealed:
        # A re-hashed stretch is the finding for its events (one cause, one finding).
        end = integrity.chain.position
        sealed, unsealed, first = explained, max(0, end - explained), explained + 1
    return seal.judge(sealed, unsealed, first, checkpoints, allow_tail)


def _pinpoint(chain: list[Finding], derived: list[Finding]) -> list[Finding]:
    """A re-hashed stretch (``positions a..b``) names the first event the rules re-derivation
    finds inconsistent inside it, when there is one."""
    out = []
    for finding in chain:
        if finding.last_position is not None and finding.clause == "chain.checkpoint":
            first = min(
                (
                    f.position
                    for f in derived
                    if f.position is not None
                    and finding.position is not None
                    and finding.position <= f.position <= finding.last_position
                ),
                default=None,
            )
            if first is not None:
                finding = replace(
                    finding,
                    message=f"{finding.message}; the rules re-derivation first disagrees at "
                    f"position {first}",
                )
        out.append(finding)
    return [*out, *derived]


def _spans(numbers: list[int]) -> str:
    """Round numbers as runs: ``rounds 1-200``, ``rounds 1-3, 7``, ``round 4``."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
    single = len(numbers) == 1
    return f"round{'' if single else 's'} {text}"


def _pass(
    source: LogSource,
    integrity: Integrity,
    tables: Tables | TablesInProcesses,
    table: str | None,
    progress: Progress | None,
    seal: Seal,
    clock: ClockRule | None = None,
    duties: SystemDuties | None = None,
) -> int:
    """The one pass: the chain on every row, then each row to its side (system or table), and
    the recorded times to the clock rule (R4)."""
    check = integrity.check
    findings = integrity.findings
    send = tables.row
    envelope = Envelope()
    count = 0
    follow = position_ranges.follow_row
    for row in source.rows:
        count += 1
        known = len(findings)
        payload = check(row)
        if progress is not None and count % _PROGRESS_EVERY == 0:
            progress(count)
        stream = row[1]
        if stream == SYSTEM_STREAM:
            checked = payload is not None and system_event(row, payload, integrity, envelope)
            follow(row, payload, checked, seal, clock, duties, table)
            continue
        clean = len(findings) == known
        if type(stream) is str and (table is None or stream == table):
            send(row, payload, clean)
        follow(row, payload, clean, seal, clock, duties, table)
    return count


def check_rows(
    rows: Iterable[Sequence[Any]],
    integrity: Integrity,
    tables: Tables,
    seal: Seal,
    clock: ClockRule,
    duties: SystemDuties | None = None,
) -> int:
    """The same per-row pass as ``verify_log`` over a stretch of rows (``audit follow`` feeds it
    each stretch up to a newly signed checkpoint, keeping the checkers between stretches)."""
    stretch = LogSource(name="", rows=iter(rows), checkpoints=[], public_key=None)
    return _pass(stretch, integrity, tables, None, None, seal, clock, duties)
