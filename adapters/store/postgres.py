"""The PostgreSQL event store (psycopg 3): the production store. See docs/store.md, "Gap-free
global order", for how positions are given without making tables wait for each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from adapters.store.canonical import GENESIS_HASH
from adapters.store.core import (
    EventRow,
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
    # One round trip for every insert of a batch: events, their queue entries, the commands.
    # Arrays go in binary (%b): as text, escaping the JSON payloads was a third of the CPU.
    INSERT_COMMAND_EVENTS = (
        f"WITH ins AS (INSERT INTO events ({EVENT_COLUMNS}) "
        "SELECT * FROM unnest(%b::text[], %b::int[], %b::text[], %b::int[], %b::text[], "
        "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::text[]) "
        "RETURNING id, version, hash), "
        "queued AS (INSERT INTO sequencer_queue (event_id, hash) SELECT id, hash FROM ins), "
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
    DRAIN = (
        "WITH head AS (SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1), "
        "drained AS (DELETE FROM sequencer_queue RETURNING event_id, hash) "
        "SELECT 0, position, hash FROM head UNION ALL SELECT 1, event_id, hash FROM drained"
    )
    INSERT_LOG = (
        "INSERT INTO event_log (position, event_id, prev_hash, hash) "
        "SELECT * FROM unnest(%b::bigint[], %b::bigint[], %b::text[], %b::text[])"
    )
    POSITIONS_OF = "SELECT event_id, position FROM event_log WHERE event_id = ANY(%s)"
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
        with self._connection() as conn:
            try:
                # Pipelined: BEGIN + the head query in one round trip, the inserts + COMMIT in
                # another.
                with conn.pipeline() as pipeline, conn.transaction():
                    written = self._insert(conn, pipeline, stream_id, expected_version, commands)
                    if written is None:  # an idempotent retry: nothing is written
                        raise _Retried
                    if self.faults:
                        pipeline.sync()  # so a test's fault finds the inserts on the server
                        self._fault("before_commit")
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
            assert written is not None
            inserted, rows = written
            id_of_version = {version: event_id for event_id, version in inserted.fetchall()}
            event_ids = [id_of_version[row[1]] for row in rows]
            last_at = commands[-1][1][-1].at if checkpoint else None
            positions = self._sequence_pass(conn, last_at, wanted=event_ids)
            return self._reader.appended([positions[i] for i in event_ids], rows, commands)

    def _insert(
        self,
        conn: Any,
        pipeline: Any,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
    ) -> tuple[Any, list[EventRow]] | None:
        """Queue the inserts of new commands; ``None`` if they are all recorded already."""
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
        return inserted, rows  # the cursor: its ids are read after the commit

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

    def _sequence_pass(
        self, conn: Any, sign_at: datetime | None, wanted: Sequence[int] = ()
    ) -> dict[int, int]:
        """One sequencer pass (its own transaction, one at a time): every event committed and
        queued gets the next dense position, in event id order, which is version order within a
        stream. Returns the positions of ``wanted`` event ids."""
        with conn.pipeline() as pipeline, conn.transaction():
            conn.execute(self.LOCK)
            # A new statement after the lock: its snapshot sees every earlier pass committed.
            drained = conn.execute(self.DRAIN)
            # The lock may make the server wait: only a sync is sure to wait with it.
            pipeline.sync()
            head_position, head_hash = 0, GENESIS_HASH
            queued = []
            for kind, a, b in drained.fetchall():
                if kind == 0:
                    head_position, head_hash = a, b
                else:
                    queued.append((a, b))
            queued.sort()
            log = sequence(queued, head_position, head_hash)
            if log:
                conn.execute(self.INSERT_LOG, [list(column) for column in zip(*log, strict=True)])
                head_position, head_hash = log[-1][0], log[-1][3]
            if sign_at is not None:
                if head_position == 0:
                    raise InvalidEvent("an empty log has nothing to sign")
                conn.execute(
                    self.sql(INSERT_CHECKPOINT),
                    self._signed_row(head_position, head_hash, sign_at),
                )
        positions = {entry[1]: entry[0] for entry in log}
        missing = [event_id for event_id in wanted if event_id not in positions]
        if missing:  # positioned by another writer's pass before ours
            positions.update(conn.execute(self.POSITIONS_OF, (missing,)).fetchall())
        return positions

    def sequence(self) -> None:
        """Position any committed events left by a writer that stopped before its own pass."""
        with self._connection() as conn:
            if conn.execute(self.QUEUE_NOT_EMPTY).fetchone()[0]:
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
