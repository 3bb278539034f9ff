"""The PostgreSQL event store (psycopg 3): the production store.

An append is ONE transaction. The common one (this store wrote the stream's head itself, no
checkpoint to sign) is ONE statement on the autocommit connection, ``paigow_append`` (migration
0005), doing in the server what the pipelined transaction below does from the client.

The pipelined transaction: first the inserts that may wait on other writers, the events with their
stream chain and the command rows (their unique keys are the concurrency check). Then, as the
transaction's tail and its LAST lock, one call of the server-side function ``paigow_sequence_tail``
(migration 0004): it takes the per-schema advisory lock; a new statement reads the log head
(READ COMMITTED, VOLATILE function: its snapshot is taken after the lock, so it sees every earlier
holder's commit); the events get the next dense positions and the global chain (computed by the
database, the recipe of ``core.sequence``); and the commit, sent in the same round trip, makes them
visible before the lock is released. So no client round trip happens under the lock, except the
checkpoints' (their signatures need the new chain). Positions become visible in lock order: a
follower can never see n + 1 before n. No deadlock: a holder of the lock waits on nothing but its
own commit. Events a legacy writer committed to ``sequencer_queue`` without a position (an older
version of this store that died between its two transactions) are drained and positioned by the
next tail or by ``sequence()``. docs/store.md, "Gap-free global order", has the argument.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

import orjson
from sqlalchemy import event

from adapters.store.append_checks import StreamAppend, check_version, recorded_ranges
from adapters.store.core import (
    CheckpointMarks,
    EventRow,
    build_batch_rows,
    checkpoint_of,
    command_rows,
)
from adapters.store.failover import DEFAULT_RETRY_S, pooled_connection, retrying
from adapters.store.postgres_across import AcrossStreams
from adapters.store.postgres_signing import SignsUnderTheLock
from adapters.store.primary import PrimaryWatch, server_of, several_hosts
from adapters.store.sql import (
    EVENT_COLUMNS,
    INSERT_TAG,
    PG_STREAM_CANDIDATES,
    SELECT_HEAD,
    SqlEventStore,
    _Retried,
)
from eventlog.canonical import GENESIS_HASH
from eventlog.verifier import Finding
from table_core.ports import (
    BatchCommand,
    Checkpoint,
    ConcurrencyError,
    LogRewritten,
    RecordedEvent,
    StoreError,
    StoreUnavailable,
)

T = TypeVar("T")

#: Test hooks that run between an append's statements: such an append takes the pipeline.
_PIPELINE_FAULTS = frozenset({"before_commit", "holding_lock"})


class PostgresEventStore(AcrossStreams, SignsUnderTheLock, SqlEventStore):
    dialect = "postgresql"
    placeholder = "%s"
    # One statement for every insert of a batch: the events, then the commands. Arrays go in
    # binary (%b): as text, escaping the JSON payloads was a third of the CPU.
    INSERT_COMMAND_EVENTS = (
        f"WITH ins AS (INSERT INTO events ({EVENT_COLUMNS}) "
        "SELECT * FROM unnest(%b::text[], %b::int[], %b::text[], %b::int[], %b::text[], "
        "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[])) "
        "INSERT INTO commands (command_id, stream_id, first_version, last_version) "
        "SELECT * FROM unnest(%b::text[], %b::text[], %b::int[], %b::int[])"
    )
    SELECT_COMMAND_AND_HEAD = (
        "SELECT 0, command_id, stream_id, first_version, last_version FROM commands "
        "WHERE command_id = ANY(%s) "
        "UNION ALL (SELECT 1, hash, NULL, version, 0 FROM events WHERE stream_id = %s "
        "ORDER BY version DESC LIMIT 1) "
        "UNION ALL (SELECT 2, hash, NULL, position, 0 FROM event_log "
        "ORDER BY position DESC LIMIT 1)"
    )
    # Before signing: the hash of each appended stream's event that the append extends (the head
    # it found or remembered), pipelined with the tag check (heads_seen.py, "never after a gap").
    LINK = "SELECT hash FROM events WHERE stream_id = %s AND version = %s"
    # The tail, server-side (migration 0004): the advisory lock, then the log head, the legacy
    # queue and this append's events positioned and chained. Its rows: the head before, then one
    # per positioned event. The ids are read back by version in this (later) statement, which
    # sees the insert before it; the versions are ours, the unique key says so.
    TAIL = "SELECT * FROM paigow_sequence_tail(%s::bigint[], %s::text[])"
    STREAM_CANDIDATES = PG_STREAM_CANDIDATES
    APPEND_TAIL = (
        "SELECT * FROM paigow_sequence_tail("
        "ARRAY(SELECT id FROM events WHERE stream_id = %(s)s AND version > %(v)s "
        "AND version <= %(w)s ORDER BY version), "
        "ARRAY(SELECT hash FROM events WHERE stream_id = %(s)s AND version > %(v)s "
        "AND version <= %(w)s ORDER BY version))"
    )
    SELECT_COMMANDS = (
        "SELECT command_id, stream_id, first_version, last_version FROM commands "
        "WHERE command_id = ANY(%s)"
    )
    QUEUE_NOT_EMPTY = "SELECT EXISTS (SELECT 1 FROM sequencer_queue)"
    LOG_HASH = "SELECT hash FROM event_log WHERE position = %s"
    # The stream's head and the log's, in one statement (a refused append's check).
    HEADS = (
        "(SELECT 1, hash, version FROM events WHERE stream_id = %s ORDER BY version DESC LIMIT 1) "
        "UNION ALL (SELECT 2, hash, position FROM event_log ORDER BY position DESC LIMIT 1)"
    )
    # The common append as ONE call (migration 0005): the inserts, then the tail, in the
    # statement's own transaction (the engine's connections are autocommit). The rows go as one
    # JSON text: psycopg adapts fifteen arrays in Python at 20 times the cost.
    APPEND_CALL = "SELECT * FROM paigow_append(%s::jsonb)"

    def __init__(self, *args: Any, retry_s: float = DEFAULT_RETRY_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: How long an operation whose connection was lost is retried (a failover: failover.py).
        self.retry_s = retry_s
        #: The primary of the moment and the failovers seen (``/ready``, ``/metrics``).
        self.primary_watch = PrimaryWatch(failover=several_hosts(self.engine.url))
        watch = self.primary_watch
        event.listen(self.engine, "connect", lambda conn, _record: watch.connected(server_of(conn)))
        # (version, hash) of each stream's last event as this store appended it: rows never
        # change, so while nobody else appends to the stream it is still its head (a table is
        # written by one server); a stale entry only costs a refused insert and a retry.
        self._written_heads: dict[str, tuple[int, str]] = {}

    # -- a failover: reconnect and retry (adapters/store/failover.py) --------------------------

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        with pooled_connection(self.engine, self.primary_watch) as conn:
            yield conn

    def _retrying(self, operation: Callable[[], T], what: str) -> T:
        return retrying(operation, self.retry_s, what)

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        return self._retrying(lambda: super(PostgresEventStore, self).read_stream(
            stream_id, after_version), "read_stream")  # fmt: skip

    def read_all(self, after_position: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        return self._retrying(
            lambda: super(PostgresEventStore, self).read_all(after_position, limit), "read_all"
        )

    def stream_version(self, stream_id: str) -> int:
        return self._retrying(
            lambda: super(PostgresEventStore, self).stream_version(stream_id), "stream_version"
        )

    def events_of_command(self, command_id: str) -> list[RecordedEvent] | None:
        return self._retrying(
            lambda: super(PostgresEventStore, self).events_of_command(command_id),
            "events_of_command",
        )

    def _append(self, part: StreamAppend, marks: CheckpointMarks) -> list[list[RecordedEvent]]:
        """One append, tried again by its command ids when its connection was lost: the first
        try either committed whole (on the primary and its synchronous standby, so on whichever
        is primary now) and the retry answers its recorded events, or left nothing and the retry
        writes it. The retry reads the stream's head afresh (the remembered one is dropped)."""

        def attempt() -> list[list[RecordedEvent]]:
            try:
                return self._append_once(part, marks)
            except StoreUnavailable:
                self._written_heads.pop(part[0], None)
                raise

        return self._retrying(attempt, "append")

    def _append_once(self, part: StreamAppend, marks: CheckpointMarks) -> list[list[RecordedEvent]]:
        import psycopg

        self._may_append(bool(marks))
        stream_id, expected_version, commands = part
        ids = [command_id for command_id, _ in commands]
        with self._connection() as conn:
            known = self._written_heads.get(stream_id)
            try:
                if (
                    known is not None
                    and known[0] == expected_version
                    and not marks
                    and not self.faults.keys() & _PIPELINE_FAULTS
                ):
                    rows = build_batch_rows(stream_id, known[0], known[1], commands)
                    batch = {
                        "events": rows,
                        "commands": command_rows(stream_id, known[0], commands),
                        "tags": self._tag_rows(stream_id, known[0], rows),
                    }
                    if self.seen.log is not None:  # the server checks it is still the log's
                        batch["seen"] = list(self.seen.log)
                    log = conn.execute(self.APPEND_CALL, (orjson.dumps(batch).decode(),)).fetchall()
                else:
                    log, rows = self._append_in_pipeline(
                        conn, stream_id, expected_version, commands, marks
                    )
            except _Retried:
                retried = self._known_commands(conn, stream_id, ids)
                assert retried is not None
                return retried
            except psycopg.errors.UniqueViolation:
                # Someone else committed this stream version, or these very commands, first.
                self._written_heads.pop(stream_id, None)
                retried = self._known_commands(conn, stream_id, ids)
                if retried is not None:
                    return retried
                actual = self._checked_version(conn, stream_id)
                raise ConcurrencyError(stream_id, expected_version, actual) from None
            except psycopg.errors.DataCorrupted:
                # The server found the head this store extends gone (migration 0012).
                self._written_heads.pop(stream_id, None)
                self._checked_version(conn, stream_id)
                raise self._unexplained(stream_id) from None
            self._fault("after_commit")
            return self._appended(stream_id, rows, log, commands)

    def _append_in_pipeline(
        self,
        conn: Any,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        marks: CheckpointMarks,
    ) -> tuple[list[tuple[int, int | None, str]], list[EventRow]]:
        """The append as a pipelined transaction, where something must happen between its
        statements: the stream's head to read first, checkpoints to sign (they need the new
        chain), a test's fault to run. Returns the tail's rows and the events' rows."""
        import psycopg

        # Two round trips: BEGIN + the heads; the inserts + the server-side tail + COMMIT.
        # With checkpoints, three: their signatures need the new chain from the tail.
        with conn.pipeline() as pipeline, conn.transaction():
            written = self._insert(conn, pipeline, stream_id, expected_version, commands)
            if written is None:  # an idempotent retry: nothing is written
                raise _Retried
            head_version, rows = written
            # Ours are the log's last len(rows) entries: a checkpoint after the batch's
            # ``through``-th event is at that entry, counted from the log's end.
            signs = [(through - len(rows) - 1, at) for through, at in marks]
            try:
                if self.faults:
                    pipeline.sync()  # so a test's fault finds the inserts on the server
                    self._fault("before_commit")
                tail = conn.execute(
                    self.APPEND_TAIL,
                    {"s": stream_id, "v": head_version, "w": head_version + len(rows)},
                )
                links = [(stream_id, head_version, rows[0][9])]
                log = self._await_tail(pipeline, tail, signs, conn, links)
            except psycopg.Error:
                # The insert's error may surface at a later execute, before any sync:
                # sync now, or the server discards the ROLLBACK too (and psycopg warns).
                with contextlib.suppress(psycopg.Error):
                    pipeline.sync()
                raise
        if log is None:  # sent with the COMMIT, in the same round trip
            log = tail.fetchall()
        return log, rows

    def _appended(
        self,
        stream_id: str,
        rows: list[EventRow],
        log: list[tuple[int, int | None, str]],
        commands: Sequence[BatchCommand],
    ) -> list[list[RecordedEvent]]:
        # Ours are the log's last len(rows) entries, in version order.
        positions = [entry[0] for entry in log[len(log) - len(rows) :]]
        if len(positions) != len(rows):
            raise StoreError("the sequencer tail did not position this append's events")
        last = rows[-1]
        self._written_heads[stream_id] = (last[1], last[10])
        self.seen.saw_stream(stream_id, last[1], last[10], positions[-1])
        self.seen.saw_log(log[-1][0], log[-1][2])
        return self._reader.appended(positions, rows, commands)

    def _tag_rows(self, stream_id: str, head_version: int, rows: list[EventRow]) -> list[Any]:
        """This transaction's append tag (adapters/store/tags.py); none without a key."""
        if self.tagger is None:
            return []
        return [self.tagger.row(stream_id, head_version, len(rows), rows[-1][10])]

    @staticmethod
    def _columns(
        stream_id: str, rows: list[EventRow], commands: Sequence[BatchCommand]
    ) -> list[list[Any]]:
        """The multi-row insert's parameters: one array per column of ``events``, then of
        ``commands``."""
        columns = [list(column) for column in zip(*rows, strict=True)]
        head_version = rows[0][1] - 1
        command_columns = [
            list(column)
            for column in zip(*command_rows(stream_id, head_version, commands), strict=True)
        ]
        return [*columns, *command_columns]

    def _insert(
        self,
        conn: Any,
        pipeline: Any,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
    ) -> tuple[int, list[EventRow]] | None:
        """Send the inserts of new commands (not awaited): the stream's head version and the rows;
        ``None`` if all are recorded already."""
        known = self._written_heads.get(stream_id)
        if known is not None and known[0] == expected_version:
            # This store wrote the stream's head itself: no round trip to read it. Were it stale
            # (another process appended since) or a command id recorded already, the unique keys
            # refuse the inserts and the caller's handler answers as the slow path would.
            head_version, head_hash = known
        else:
            head_version, head_hash = 0, GENESIS_HASH
            ids = [command_id for command_id, _ in commands]
            held = self.seen.held(stream_id)  # before the read is sent (heads_seen.py)
            result = conn.execute(self.SELECT_COMMAND_AND_HEAD, (ids, stream_id))
            # In pipeline mode a fetch may return before the result has arrived; a sync may not.
            pipeline.sync()
            found: dict[str, tuple[str, int, int]] = {}
            log_head = (0, GENESIS_HASH)
            for kind, a, b, c, d in result.fetchall():
                if kind == 0:
                    found[a] = (b, c, d)
                elif kind == 1:
                    head_hash, head_version = a, c
                else:
                    log_head = (c, a)
            # What this store saw must still be there: the log never goes back (heads_seen.py).
            link = self._pipeline_probe(conn, pipeline, self.LINK, stream_id)
            self.seen.check_stream(held, stream_id, head_version, head_hash, link)
            log_probe = self._pipeline_probe(conn, pipeline, self.LOG_HASH)
            self.seen.check_log(held, *log_head, log_probe)
            if recorded_ranges(stream_id, ids, found) is not None:
                return None
            check_version(stream_id, expected_version, head_version)
        rows = build_batch_rows(stream_id, head_version, head_hash, commands)
        conn.execute(self.INSERT_COMMAND_EVENTS, self._columns(stream_id, rows, commands))
        for tag in self._tag_rows(stream_id, head_version, rows):
            conn.execute(self.sql(INSERT_TAG), tag)
        return head_version, rows

    def _checked_version(self, conn: Any, stream_id: str) -> int:
        """The stream's head version, once its head and the log's are checked against what this
        store saw (``LogRewritten``): a version conflict is only another writer's if ours is
        still in the log."""
        held = self.seen.held(stream_id)  # before the read is sent (heads_seen.py)
        found = {kind: (int(number), str(digest)) for kind, digest, number in
                 conn.execute(self.HEADS, (stream_id,)).fetchall()}  # fmt: skip
        version, digest = found.get(1, (0, GENESIS_HASH))
        self.seen.check_stream(
            held, stream_id, version, digest, self._probe_stream(conn, stream_id)
        )
        position, chained = found.get(2, (0, GENESIS_HASH))
        self.seen.check_log(held, position, chained, self._probe_log(conn))
        return version

    def _unexplained(self, stream_id: str) -> LogRewritten:
        """The server refused an append whose head was gone, and the heads read since look as
        this store saw them (a race with whoever changed them): refused all the same."""
        finding = Finding(
            self.seen.log_position(),
            stream_id,
            None,
            "rewritten",
            f"the event of stream {stream_id!r} that this append extends is not in the log",
        )
        return self.seen.broken_at(finding)

    def _known_commands(
        self, conn: Any, stream_id: str, ids: Sequence[str]
    ) -> list[list[RecordedEvent]] | None:
        found = {row[0]: tuple(row[1:]) for row in conn.execute(self.SELECT_COMMANDS, (list(ids),))}
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
            tail = conn.execute(self.TAIL, ([], []))
            self._await_tail(pipeline, tail, [] if sign_at is None else [(-1, sign_at)], conn)

    def sequence(self) -> None:
        """Position any committed events a legacy writer left unpositioned (it died between its
        commit and its sequencer pass: the two-transaction append of older versions)."""
        with self._connection() as conn:
            self._sequence_pass(conn, None)

    def verify_tags(self, stream_id: str, after_version: int = 0) -> None:
        self._retrying(
            lambda: super(PostgresEventStore, self).verify_tags(stream_id, after_version),
            "verify_tags",
        )

    def checkpoint(self, at: datetime) -> Checkpoint:
        self._need_signer()
        with self._connection() as conn:
            self._sequence_pass(conn, at)
            row = conn.execute(
                "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
                "ORDER BY id DESC LIMIT 1"
            ).fetchone()
        return checkpoint_of(row)
