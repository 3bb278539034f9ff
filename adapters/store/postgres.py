"""The PostgreSQL event store (psycopg 3): the production store.

An append is ONE transaction. First the inserts that may wait on other writers: the events with
their stream chain and the command rows (their unique keys are the concurrency check). Then, as the
transaction's tail and its LAST lock, the per-schema advisory lock; a new statement reads the log
head (READ COMMITTED: its snapshot is taken after the lock, so it sees every earlier holder's
commit), the events get the next dense positions and the global chain, and the commit makes them
visible before the lock is released. Positions thus become visible in lock order: a follower can
never see n + 1 before n. No deadlock: a holder of the lock waits on nothing but its own commit.
Events a legacy writer committed to ``sequencer_queue`` without a position (an older version of
this store that died between its two transactions) are drained and positioned by the next tail
or by ``sequence()``. docs/store.md, "Gap-free global order", has the argument.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.store.canonical import GENESIS_HASH
from adapters.store.core import (
    EventRow,
    LogRow,
    build_batch_rows,
    check_version,
    checkpoint_of,
    command_rows,
    recorded_ranges,
    sequence,
)
from adapters.store.sql import (
    EVENT_COLUMNS,
    INSERT_CHECKPOINT,
    SELECT_HEAD,
    SqlEventStore,
    _Retried,
)
from table_core.ports import (
    BatchCommand,
    Checkpoint,
    ConcurrencyError,
    InvalidEvent,
    RecordedEvent,
)


class PostgresEventStore(SqlEventStore):
    dialect = "postgresql"
    placeholder = "%s"
    # One statement for every insert of a batch: the events, then the commands. Arrays go in
    # binary (%b): as text, escaping the JSON payloads was a third of the CPU.
    INSERT_COMMAND_EVENTS = (
        f"WITH ins AS (INSERT INTO events ({EVENT_COLUMNS}) "
        "SELECT * FROM unnest(%b::text[], %b::int[], %b::text[], %b::int[], %b::text[], "
        "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[]) "
        "RETURNING id, version), "
        "command AS (INSERT INTO commands (command_id, stream_id, first_version, last_version) "
        "SELECT * FROM unnest(%b::text[], %b::text[], %b::int[], %b::int[])) "
        "SELECT id, version FROM ins"
    )
    SELECT_COMMAND_AND_HEAD = (
        "SELECT 0, command_id, stream_id, first_version, last_version FROM commands "
        "WHERE command_id = ANY(%s) "
        "UNION ALL (SELECT 1, hash, NULL, version, 0 FROM events WHERE stream_id = %s "
        "ORDER BY version DESC LIMIT 1)"
    )
    # Locked per schema, so test runs in separate schemas do not queue behind each other.
    LOCK = "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.paigow.sequencer'))"
    # The log head, and the events a legacy writer committed unpositioned (normally none). A new
    # statement after LOCK: its snapshot is taken after the lock was granted.
    DRAIN = (
        "WITH head AS (SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1), "
        "drained AS (DELETE FROM sequencer_queue RETURNING event_id, hash) "
        "SELECT 0, position, hash FROM head UNION ALL SELECT 1, event_id, hash FROM drained"
    )
    INSERT_LOG = (
        "INSERT INTO event_log (position, event_id, prev_hash, hash) "
        "SELECT * FROM unnest(%b::bigint[], %b::bigint[], %b::text[], %b::text[])"
    )
    QUEUE_NOT_EMPTY = "SELECT EXISTS (SELECT 1 FROM sequencer_queue)"

    def _append(
        self,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        checkpoint: bool,
    ) -> list[list[RecordedEvent]]:
        import psycopg

        if checkpoint:
            self._need_signer()
        ids = [command_id for command_id, _ in commands]
        sign_at = commands[-1][1][-1].at if checkpoint else None
        with self._connection() as conn:
            try:
                # Three round trips: BEGIN + the heads; the inserts + the lock + the log head;
                # the log rows (+ checkpoint) + COMMIT.
                with conn.pipeline() as pipeline, conn.transaction():
                    written = self._insert(conn, pipeline, stream_id, expected_version, commands)
                    if written is None:  # an idempotent retry: nothing is written
                        raise _Retried
                    inserted, rows = written
                    try:
                        if self.faults:
                            pipeline.sync()  # so a test's fault finds the inserts on the server
                            self._fault("before_commit")
                        log = self._sequence_tail(conn, pipeline, sign_at, inserted, rows)
                    except psycopg.Error:
                        # The insert's error may surface at a later execute, before any sync:
                        # sync now, or the server discards the ROLLBACK too (and psycopg warns).
                        with contextlib.suppress(psycopg.Error):
                            pipeline.sync()
                        raise
            except _Retried:
                retried = self._known_commands(conn, stream_id, ids)
                assert retried is not None
                return retried
            except psycopg.errors.UniqueViolation:
                # Someone else committed this stream version, or these very commands, first.
                retried = self._known_commands(conn, stream_id, ids)
                if retried is not None:
                    return retried
                actual = self._version(conn, stream_id)
                raise ConcurrencyError(stream_id, expected_version, actual) from None
            self._fault("after_commit")
            # Ours are the log's last len(rows) entries, in version order.
            positions = [entry[0] for entry in log[len(log) - len(rows) :]]
            return self._reader.appended(positions, rows, commands)

    def _insert(
        self,
        conn: Any,
        pipeline: Any,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
    ) -> tuple[Any, list[EventRow]] | None:
        """Send the inserts of new commands (not awaited); ``None`` if all are recorded already."""
        head_version, head_hash = 0, GENESIS_HASH
        ids = [command_id for command_id, _ in commands]
        result = conn.execute(self.SELECT_COMMAND_AND_HEAD, (ids, stream_id))
        # In pipeline mode a fetch may return before the result has arrived; a sync may not.
        pipeline.sync()
        found: dict[str, tuple[str, int, int]] = {}
        for kind, a, b, c, d in result.fetchall():
            if kind == 0:
                found[a] = (b, c, d)
            else:
                head_hash, head_version = a, c
        if recorded_ranges(stream_id, ids, found) is not None:
            return None
        check_version(stream_id, expected_version, head_version)
        rows = build_batch_rows(stream_id, head_version, head_hash, commands)
        columns = [list(column) for column in zip(*rows, strict=True)]
        command_columns = [
            list(column)
            for column in zip(*command_rows(stream_id, head_version, commands), strict=True)
        ]
        inserted = conn.execute(self.INSERT_COMMAND_EVENTS, (*columns, *command_columns))
        return inserted, rows  # the cursor: its ids are read after the sync of the tail

    def _sequence_tail(
        self,
        conn: Any,
        pipeline: Any,
        sign_at: datetime | None,
        inserted: Any = None,
        rows: Sequence[EventRow] = (),
    ) -> list[LogRow]:
        """The end of a write transaction, one holder at a time: the advisory lock, then the log
        head in a new statement, the next dense positions with the global chain for the drained
        legacy queue (event id order) and then this transaction's own events (``inserted``, the
        cursor of their insert, and their ``rows``, in version order), the signed checkpoint if
        asked. The caller commits; the lock goes with the transaction, after the commit is
        visible, so the next holder's head read sees this log.

        Deadlock-free because the lock is the transaction's LAST: while holding it, it writes only
        rows no one else can lock (queue rows and ``event_log`` are written only under this lock;
        its ``events`` rows are its own or committed) and waits for nothing but its own commit.
        """
        conn.execute(self.LOCK)
        drained = conn.execute(self.DRAIN)
        # The lock may make the server wait: only a sync is sure to wait with it. An insert's
        # unique violation (a concurrent writer won) is raised here at the latest; the server then
        # skipped the lock.
        pipeline.sync()
        head_position, head_hash = 0, GENESIS_HASH
        entries = []
        for kind, a, b in drained.fetchall():
            if kind == 0:
                head_position, head_hash = a, b
            else:
                entries.append((a, b))
        if self.faults:
            self._fault("holding_lock")
        # A stream's queued events are older than ours (ours were inserted after its head, which
        # they are under), and event id order is version order within a stream.
        entries.sort()
        if rows:
            id_of_version = dict((version, event_id) for event_id, version in inserted.fetchall())
            entries.extend((id_of_version[row[1]], row[10]) for row in rows)
        log = sequence(entries, head_position, head_hash)
        if log:
            conn.execute(self.INSERT_LOG, [list(column) for column in zip(*log, strict=True)])
            head_position, head_hash = log[-1][0], log[-1][3]
        if sign_at is not None:
            if head_position == 0:
                raise InvalidEvent("an empty log has nothing to sign")
            conn.execute(
                self.sql(INSERT_CHECKPOINT), self._signed_row(head_position, head_hash, sign_at)
            )
        return log

    def _known_commands(
        self, conn: Any, stream_id: str, ids: Sequence[str]
    ) -> list[list[RecordedEvent]] | None:
        found = {
            command_id: (stream, first, last)
            for command_id, stream, first, last in conn.execute(
                "SELECT command_id, stream_id, first_version, last_version FROM commands "
                "WHERE command_id = ANY(%s)",
                (list(ids),),
            ).fetchall()
        }
        ranges = recorded_ranges(stream_id, ids, found)
        if ranges is None:
            return None
        return [self._read_stream(conn, stream_id, first - 1, last) for first, last in ranges]

    def _version(self, conn: Any, stream_id: str) -> int:
        head = conn.execute(self.sql(SELECT_HEAD), (stream_id,)).fetchone()
        return int(head[0]) if head else 0

    def _sequence_pass(self, conn: Any, sign_at: datetime | None) -> None:
        """A write transaction with nothing of its own: only the tail. It positions what a legacy
        writer left in ``sequencer_queue`` (recovery) and signs a checkpoint when asked. With
        nothing to sign and an empty queue (the usual case: reads, ``verify``), no lock."""
        if sign_at is None and not conn.execute(self.QUEUE_NOT_EMPTY).fetchone()[0]:
            return
        with conn.pipeline() as pipeline, conn.transaction():
            self._sequence_tail(conn, pipeline, sign_at)

    def sequence(self) -> None:
        """Position any committed events a legacy writer left unpositioned (it died between its
        commit and its sequencer pass: the two-transaction append of older versions)."""
        with self._connection() as conn:
            self._sequence_pass(conn, None)

    def checkpoint(self, at: datetime) -> Checkpoint:
        self._need_signer()
        with self._connection() as conn:
            self._sequence_pass(conn, at)
            row = conn.execute(
                "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
                "ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return checkpoint_of(row)
