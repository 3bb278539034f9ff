"""The projection runner: follows the store's global position and applies each event once.

Each projection has a checkpoint (the last global position it applied) in
``projection_checkpoints``. A batch of events is read with the store's own reader
(``read_all(after_position, limit)``), then applied in ONE transaction that writes the
projections' rows and moves their checkpoints: a crash half-way leaves both as they were, and the
next run resumes from the checkpoint, so nothing is counted twice or skipped.

On PostgreSQL the store's ``event_log`` only ever grows by whole committed sequencer passes in
position order (docs/store.md), so reading ``position > checkpoint`` never skips an event that
commits later with a lower position. The checkpoint rows are read ``FOR UPDATE`` in the batch's
transaction and compared with the positions the batch was read from: when another runner moved
them meanwhile, the batch is dropped and read again. On SQLite the batch transaction is
``BEGIN IMMEDIATE`` (the store's own locking), which serialises runners the same way.

Only table events are applied: the ``system`` stream and any stream whose payloads do not name
it as their table are passed over (their positions still count). Event types a projection does
not know are ignored by it (the round history keeps them whole in the round's record).

``rebuild`` empties projections and sets their checkpoints to 0 in one transaction, then catches
up from the first event: every figure comes from the events alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Table

from adapters.projections import accounting, bankroll, books, ratings, rotation, rounds
from adapters.projections.db import Database, Tx, engine_of
from adapters.projections.schema import projection_checkpoints
from eventlog.system_events import SYSTEM_STREAM
from table_core.ports import RecordedEvent

DEFAULT_BATCH = 2_000


class Batch(Protocol):
    def apply(self, event: RecordedEvent) -> None: ...

    def flush(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Projection:
    """One projection: the name of its checkpoint, the tables it writes (``rebuild`` empties
    them) and how a transaction's batch of its rows is made."""

    name: str
    tables: tuple[Table, ...]
    batch: Callable[[Tx], Batch]


def all_projections() -> list[Projection]:
    return [
        Projection(bankroll.NAME, bankroll.TABLES, bankroll.BankrollBatch),
        Projection(rotation.NAME, rotation.TABLES, rotation.RotationBatch),
        Projection(rounds.NAME, rounds.TABLES, rounds.RoundsBatch),
        Projection(accounting.NAME, accounting.TABLES, accounting.AccountingBatch),
        Projection(books.NAME, books.TABLES, books.BooksBatch),
        Projection(ratings.NAME, ratings.TABLES, ratings.RatingsBatch),
    ]


def is_table_event(event: RecordedEvent) -> bool:
    return event.stream_id != SYSTEM_STREAM and event.payload.get("table_id") == event.stream_id


class _Moved(Exception):
    """Internal: another runner applied events since this batch was read."""


class ProjectionRunner:
    """Keeps projections up to date with a store (SQLite, PostgreSQL or the in-memory fake).

    ``faults`` are test hooks: ``"event"`` is called with each event after it is applied (inside
    the batch's transaction), ``"before_commit"`` just before a batch commits.
    """

    #: Whether ``catch_up`` first positions what a legacy writer left queued (PostgreSQL; a
    #: write: the runners of a read-only session, adapters/projections/standby.py, do not).
    sequencing = True

    def __init__(
        self,
        store: Any,
        projections: Sequence[Projection] | None = None,
        *,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self.store = store
        self.projections = list(projections) if projections is not None else all_projections()
        self.batch_size = batch_size
        self.db = Database(engine_of(store))
        self.faults: dict[str, Callable[..., None]] = {}
        self._known: set[str] = set()

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.projections]

    # -- checkpoints ------------------------------------------------------------------------------

    def _ensure_checkpoints(self) -> None:
        missing = [name for name in self.names if name not in self._known]
        if not missing:
            return
        with self.db.write() as tx:
            tx.executemany(
                f"INSERT INTO {projection_checkpoints.name} (name, position) VALUES (?, 0) "
                "ON CONFLICT (name) DO NOTHING",
                [(name,) for name in missing],
            )
        self._known.update(missing)

    def _read_positions(self, tx: Tx, lock: bool = False) -> dict[str, int]:
        names = self.names
        marks = ", ".join("?" for _ in names)
        found = tx.all(
            f"SELECT name, position FROM {projection_checkpoints.name} WHERE name IN ({marks})"
            + (self.db.for_update if lock else ""),
            names,
        )
        return {name: int(position) for name, position in found}

    def positions(self) -> dict[str, int]:
        """Each projection's checkpoint: the last global position it applied."""
        self._ensure_checkpoints()
        with self.db.read() as tx:
            return self._read_positions(tx)

    def head(self) -> int:
        """The store's last global position (0 for an empty store)."""
        engine = getattr(self.store, "engine", None)
        if engine is None:
            return len(getattr(self.store, "rows", ()))
        with Database(engine).read() as tx:  # the store's (the projections' may be elsewhere)
            found = tx.one("SELECT COALESCE(MAX(position), 0) FROM event_log")
        return int(found[0]) if found else 0

    # -- catching up ------------------------------------------------------------------------------

    def catch_up(
        self, progress: Callable[[int], None] | None = None, until: int | None = None
    ) -> int:
        """Apply every event after the checkpoints (up to position ``until`` when given: the
        projections as of that position); returns how many events were read."""
        self._ensure_checkpoints()
        sequence = getattr(self.store, "sequence", None)
        if callable(sequence) and self.sequencing:
            # PostgreSQL: position what a writer that died left queued
            sequence()
        read = 0
        while True:
            with self.db.read() as tx:
                positions = self._read_positions(tx)
            start = min(positions.values())
            limit = self.batch_size if until is None else min(self.batch_size, until - start)
            if limit <= 0:
                return read
            events = self.store.read_all(start, limit)
            if not events:
                return read
            try:
                self._apply(positions, events)
            except _Moved:
                continue  # another runner got there first: read from its checkpoints
            read += len(events)
            if progress is not None:
                progress(events[-1].position)

    def _apply(self, positions: dict[str, int], events: list[RecordedEvent]) -> None:
        last = events[-1].position
        event_hook = self.faults.get("event")
        facts = [event for event in events if is_table_event(event)]
        with self.db.write(self.faults.get("before_commit")) as tx:
            if self._read_positions(tx, lock=True) != positions:
                raise _Moved
            for projection in self.projections:
                done = positions[projection.name]
                if done >= last:
                    continue
                batch = projection.batch(tx)
                for event in facts:
                    if event.position <= done:
                        continue
                    batch.apply(event)
                    if event_hook is not None:
                        event_hook(projection.name, event)
                batch.flush()
            tx.executemany(
                f"UPDATE {projection_checkpoints.name} SET position = ? WHERE name = ?",
                [(last, p.name) for p in self.projections if positions[p.name] < last],
            )

    # -- rebuilding -------------------------------------------------------------------------------

    def reset(self, names: Iterable[str] | None = None) -> None:
        """Empty the projections named (all by default) and set their checkpoints to 0, in one
        transaction; ``catch_up`` then rebuilds them from the first event."""
        chosen = set(self.names if names is None else names)
        unknown = chosen - set(self.names)
        if unknown:
            raise ValueError(f"unknown projections: {', '.join(sorted(unknown))}")
        self._ensure_checkpoints()
        with self.db.write() as tx:
            for projection in self.projections:
                if projection.name not in chosen:
                    continue
                for table in projection.tables:
                    tx.execute(f"DELETE FROM {table.name}")
                tx.execute(
                    f"UPDATE {projection_checkpoints.name} SET position = 0 WHERE name = ?",
                    (projection.name,),
                )

    def rebuild(
        self, names: Iterable[str] | None = None, progress: Callable[[int], None] | None = None
    ) -> int:
        """Rebuild projections from zero: every figure from the events alone."""
        self.reset(names)
        return self.catch_up(progress)
