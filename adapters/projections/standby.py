"""Projections read on a read-only server: a standby, or a session that may not write (issue 23).

``paigow report`` and ``paigow recall`` catch the projections up before they read, and catching
up WRITES (the projections' rows and checkpoints, in the events' database). A hot standby (a URL
with ``target_session_attrs=prefer-standby``, deploy/ha/README.md) refuses every write, and so
does a session started with ``default_transaction_read_only=on``. On such a connection
(:func:`read_only`: ``SHOW transaction_read_only`` answers ``on`` outside any transaction of
ours) :func:`reader` gives a runner that writes nothing and answers what the primary would for
the same log:

- the stored projections already at the log's head (what the standby has replayed): read as they
  stand (:class:`FrozenRunner`), nothing to catch up;
- behind it (or ``--rebuild``): every projection table copied in one snapshot into a private
  in-memory SQLite database, then caught up there from the events after its checkpoints by the
  projections' own code (:class:`MemoryRunner`), as ``audit verify``'s check of the projections
  rebuilds them (service_layer/projection_check.py). The copy costs one read of the projection
  tables; the database is never written.

The SQL the report and recall run is the same on both engines (SQLite is the embedded store), and
ids sort by code point in memory as they do in a database with collation ``C`` / ``C.UTF-8``
(deploy/ha's ``initdb`` and the project's databases): a database collated by a language's rules
(``en_US.UTF-8``) could order mixed-case ids differently in the in-memory case.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy import Engine

from adapters.projections.db import Database, memory_engine
from adapters.projections.projection_runner import ProjectionRunner
from adapters.projections.schema import metadata, projection_checkpoints


def read_only(store: Any) -> bool:
    """Whether the store's PostgreSQL session refuses writes (a standby, or
    ``default_transaction_read_only``); SQLite and the in-memory store write."""
    engine = getattr(store, "engine", None)
    if not isinstance(engine, Engine) or engine.dialect.name != "postgresql":
        return False
    with store._connection() as conn:
        found = conn.execute("SHOW transaction_read_only").fetchone()
        if not conn.autocommit:
            conn.rollback()
    return bool(found) and str(found[0]) == "on"


def reader(store: Any, *, rebuild: bool = False) -> ProjectionRunner:
    """The runner a reader of the projections uses: the store's own (it catches up by writing),
    or on a read-only session one that writes nothing (above)."""
    if not read_only(store):
        return ProjectionRunner(store)
    if not rebuild:
        frozen = FrozenRunner(store)
        if frozen.at_head():
            return frozen
    return MemoryRunner(store)


class FrozenRunner(ProjectionRunner):
    """The stored projections as they stand: ``catch_up`` reads nothing, nothing is written."""

    sequencing = False

    def _ensure_checkpoints(self) -> None:
        self._known.update(self.names)  # a missing checkpoint reads as 0 (positions below)

    def positions(self) -> dict[str, int]:
        with self.db.read() as tx:
            found = self._read_positions(tx)
        return {name: found.get(name, 0) for name in self.names}

    def at_head(self) -> bool:
        """Every projection has applied the log's last event (as this server has it)."""
        return min(self.positions().values()) >= self.head()

    def catch_up(
        self, progress: Callable[[int], None] | None = None, until: int | None = None
    ) -> int:
        return 0

    def reset(self, names: Iterable[str] | None = None) -> None:
        raise RuntimeError("a read-only session's stored projections are not reset")


class MemoryRunner(ProjectionRunner):
    """The stored projections copied into memory, caught up there: the database is only read."""

    sequencing = False  # positioning a legacy writer's queue is the primary's work

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        stored = self.db
        self.db = Database(memory_engine())
        _copy(stored, self.db)


def _copy(source: Database, target: Database) -> None:
    """Every projection table's rows, read in ONE snapshot (the rows and the checkpoints that
    say how far they go), written to ``target`` in one transaction."""
    tables = [
        projection_checkpoints,
        *(t for t in metadata.sorted_tables if t is not projection_checkpoints),
    ]
    with source.read() as tx:
        rows = {
            table.name: tx.all(
                f"SELECT {', '.join(c.name for c in table.columns)} FROM {table.name}"
            )
            for table in tables
        }
    with target.write() as tx:
        for table in tables:
            columns = [c.name for c in table.columns]
            tx.executemany(
                f"INSERT INTO {table.name} ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})",
                rows[table.name],
            )
