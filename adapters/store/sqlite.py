"""The SQLite event store: the embedded default. One writer at a time by design, so an append is
one ``BEGIN IMMEDIATE`` transaction that takes the write lock first (a writer never fails "busy"
half-way), checks the stream version, inserts the events and their global positions, and commits.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from adapters.store.across import answer_refused
from adapters.store.append_checks import StreamAppend, check_version, recorded_ranges
from adapters.store.core import (
    CheckpointMarks,
    chain_batch,
    checkpoint_of,
    command_rows,
    marked_parts,
)
from adapters.store.sql import (
    EVENT_COLUMNS,
    INSERT_CHECKPOINT,
    INSERT_TAG,
    SELECT_GLOBAL_HEAD,
    SqlEventStore,
    _SlowPath,
)
from eventlog.canonical import GENESIS_HASH
from eventlog.verifier import Finding
from table_core.ports import (
    Checkpoint,
    InvalidEvent,
    RecordedEvent,
    StoreError,
    UntaggedEvents,
)


def _placeholders(rows: int, columns: int) -> str:
    row = "(" + ", ".join("?" * columns) + ")"
    return ", ".join([row] * rows)


class SqliteEventStore(SqlEventStore):
    dialect = "sqlite"
    placeholder = "?"
    INSERT_LOG = "INSERT INTO event_log (position, event_id, prev_hash, hash) VALUES (?, ?, ?, ?)"
    # Rows per multi-row INSERT: one statement for a whole round (an SQLite statement takes at
    # most 32,766 parameters; 12 columns x 1,000 rows stays well below).
    CHUNK = 1_000
    # The command ids of a batch, the stream head and the log head: one statement, one step.
    LOOKUP = (
        "SELECT 0, command_id, stream_id, first_version, last_version FROM commands "
        "WHERE command_id IN ({ids}) "
        "UNION ALL SELECT 1, hash, NULL, version, NULL FROM (SELECT version, hash FROM events "
        "WHERE stream_id = ? ORDER BY version DESC LIMIT 1) "
        "UNION ALL SELECT 2, hash, NULL, position, NULL FROM (SELECT position, hash "
        "FROM event_log ORDER BY position DESC LIMIT 1)"
    )

    HEADS = (
        "SELECT 1, hash, version FROM (SELECT version, hash FROM events WHERE stream_id = ? "
        "ORDER BY version DESC LIMIT 1) "
        "UNION ALL SELECT 2, hash, position FROM (SELECT position, hash FROM event_log "
        "ORDER BY position DESC LIMIT 1)"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._statements: dict[tuple[str, int], str] = {}
        # SQLite takes one writer at a time anyway: this process's appends share one connection
        # (no pool checkout per append), one after another under this lock; other processes
        # still meet at SQLite's write lock (BEGIN IMMEDIATE).
        self._writer: Any = None
        self._write_lock = threading.Lock()
        #: The heads the open write transaction leaves, remembered once it commits (HeadsSeen).
        self._leaves: list[tuple[str, int, str, int, str]] = []

    def close(self) -> None:
        with self._write_lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
        super().close()

    def _statement(self, kind: str, rows: int) -> str:
        """The SQL text for ``rows`` rows (cached: sqlite3 keeps its prepared statement by text)."""
        key = (kind, rows)
        text = self._statements.get(key)
        if text is None:
            if kind == "events":
                text = f"INSERT INTO events (id, {EVENT_COLUMNS}) VALUES {_placeholders(rows, 12)}"
            elif kind == "log":
                text = (
                    "INSERT INTO event_log (position, event_id, prev_hash, hash) "
                    f"VALUES {_placeholders(rows, 4)}"
                )
            elif kind == "commands":
                text = (
                    "INSERT INTO commands (command_id, stream_id, first_version, last_version) "
                    f"VALUES {_placeholders(rows, 4)}"
                )
            else:
                text = self.LOOKUP.format(ids=", ".join("?" * rows))
            self._statements[key] = text
        return text

    def _insert_flat(self, conn: Any, kind: str, values: list[Any], width: int) -> None:
        """``_insert`` for rows already flattened, ``width`` values each."""
        step = self.CHUNK * width
        for start in range(0, len(values), step):
            chunk = values[start : start + step] if len(values) > step else values
            conn.execute(self._statement(kind, len(chunk) // width), chunk)

    def _insert(self, conn: Any, kind: str, rows: Sequence[Sequence[Any]]) -> None:
        for start in range(0, len(rows), self.CHUNK):
            chunk = rows[start : start + self.CHUNK]
            flat = [value for row in chunk for value in row]
            conn.execute(self._statement(kind, len(chunk)), flat)

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        """A write transaction holding SQLite's write lock from its first statement."""
        with self._write_lock:
            if self._writer is None:
                self._writer = self.engine.raw_connection()
            conn = self._writer.driver_connection
            self._leaves.clear()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                self._fault("before_commit")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            for stream_id, version, digest, position, chained in self._leaves:
                self.seen.saw_stream(stream_id, version, digest, position)
                self.seen.saw_log(position, chained)

    def _lookup(
        self, conn: Any, stream_id: str, ids: Sequence[str]
    ) -> tuple[dict[str, tuple[str, int, int]], tuple[int, str], tuple[int, str]]:
        """The recorded ones among ``ids``, the stream head and the global head."""
        found: dict[str, tuple[str, int, int]] = {}
        head = (0, GENESIS_HASH)
        global_head = (0, GENESIS_HASH)
        for start in range(0, len(ids), self.CHUNK):
            chunk = ids[start : start + self.CHUNK]
            for kind, a, b, c, d in conn.execute(
                self._statement("lookup", len(chunk)), (*chunk, stream_id)
            ):
                if kind == 0:
                    found[a] = (b, c, d)
                elif kind == 1:
                    head = (c, a)
                else:
                    global_head = (c, a)
        return found, head, global_head

    def _append(self, part: StreamAppend, marks: CheckpointMarks) -> list[list[RecordedEvent]]:
        self._may_append(bool(marks))
        stream_id, expected_version, commands = part
        for _ in range(3):
            recorded = self._written(lambda conn: self._append_new(conn, part, marks))
            if recorded is not None:
                return recorded
            # A command id already recorded (its unique key refused it) or a stream that moved
            # on: nothing was written. A retried batch is answered, a mixed one or a stale one
            # refused, as the port says.
            ids = [command_id for command_id, _ in commands]
            with self._write() as conn:
                found, (head_version, _), _ = self._lookup(conn, stream_id, ids)
                ranges = recorded_ranges(stream_id, ids, found)
                if ranges is not None:
                    return [self._read_stream(conn, stream_id, a - 1, b) for a, b in ranges]
                check_version(stream_id, expected_version, head_version)
            # Neither, by now: another process wrote in between; try again.
        raise StoreError(f"stream {stream_id!r} kept changing under this append; try again")

    def _append_streams(
        self, parts: Sequence[StreamAppend], checkpoint: bool
    ) -> list[list[RecordedEvent]]:
        """Every part in one ``BEGIN IMMEDIATE`` transaction: each part's heads are read after
        the inserts of the parts before it, so the global chain runs on across them."""
        self._may_append(checkpoint)

        def every_part(conn: Any) -> list[list[RecordedEvent]]:
            out = []
            for part, marks in marked_parts(parts, checkpoint):
                out.extend(self._append_new(conn, part, marks))
            return out

        written = self._written(every_part)
        if written is not None:
            return written
        # Nothing was written: a retry, or a refusal (store/across.py says which).
        with self._write() as conn:
            found: dict[str, tuple[str, int, int]] = {}
            heads: dict[str, int] = {}
            for stream_id, _, commands in parts:
                ids = [command_id for command_id, _ in commands]
                known, (heads[stream_id], _), _ = self._lookup(conn, stream_id, ids)
                found.update(known)
            return answer_refused(
                parts, found, heads, lambda s, a, b: self._read_stream(conn, s, a, b)
            )

    def _written(
        self, write: Callable[[Any], list[list[RecordedEvent]]]
    ) -> list[list[RecordedEvent]] | None:
        """``write`` in one write transaction, committed; ``None`` when it wrote nothing because a
        command id was already recorded (its unique key refused it) or a stream had moved on."""
        try:
            with self._write() as conn:
                recorded = write(conn)
        except sqlite3.IntegrityError as error:
            if "events.id" in str(error):
                raise self._unpositioned() from None
            if "commands.command_id" not in str(error):
                raise
            return None
        except _SlowPath:
            return None
        self._fault("after_commit")
        return recorded

    def _unpositioned(self) -> UntaggedEvents:
        """An ``events`` row holds the id (the position) the append would take, and the log has
        no entry for it: the store writes both together, so someone INSERTed it behind its back.
        Named as the first such row (nothing was written)."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT e.id, e.stream_id, e.version FROM events e WHERE NOT EXISTS "
                "(SELECT 1 FROM event_log g WHERE g.event_id = e.id) ORDER BY e.id LIMIT 1"
            ).fetchone()
        position, stream_id, version = row if row is not None else (0, None, None)
        return UntaggedEvents(
            f"an event the store did not append holds position {position} and has no place "
            "in the log; nothing was written",
            Finding(
                position,
                stream_id,
                version,
                "unpositioned",
                "an event with no global position: inserted behind the store's back",
            ),
        )

    def _append_new(
        self, conn: Any, part: StreamAppend, marks: CheckpointMarks
    ) -> list[list[RecordedEvent]]:
        """Write a batch of commands presumed new: the command rows go first, so a command id
        seen before fails at once on its unique key, before anything else is built."""
        stream_id, expected_version, commands = part
        held = self.seen.held(stream_id)
        (head_version, head_hash), (position, global_head) = self._heads(conn, stream_id)
        # What this store saw must still be there: the log never goes back (heads_seen.py).
        probe = self._probe_stream(conn, stream_id)
        self.seen.check_stream(held, stream_id, head_version, head_hash, probe)
        self.seen.check_log(held, position, global_head, self._probe_log(conn))
        if head_version != expected_version:
            raise _SlowPath  # stale, or a retry sent with its old version: look the ids up
        self._insert(conn, "commands", command_rows(stream_id, head_version, commands))
        # One writer at a time: an event's id is its position, no sequencer needed; the rows,
        # the global chain and the recorded events come out of one pass.
        rows, log, recorded, chained = chain_batch(
            stream_id, head_version, head_hash, commands, position, global_head, self._reader
        )
        # ``rows`` and ``log`` are flat: the last event's version, hash and position at their ends.
        self._leaves.append((stream_id, rows[-10], rows[-1], log[-4], chained))
        self._insert_flat(conn, "events", rows, 12)
        self._insert_flat(conn, "log", log, 4)
        if self.tagger is not None:  # this transaction's tag (adapters/store/tags.py)
            count = len(log) // 4  # ``rows`` is flat: the last value is the last event's hash
            conn.execute(INSERT_TAG, self.tagger.row(stream_id, head_version, count, rows[-1]))
        if marks:
            # Sign only over events this store or another holder of the key appended.
            self._check_tags(conn)
            # ``log`` is flat, four values an event: the position, then the global hash at +3.
            signed = self._signed_row
            conn.executemany(
                INSERT_CHECKPOINT,
                self._signed_rows(
                    [
                        signed(log[4 * through - 4], log[4 * through - 1], at)
                        for through, at in marks
                    ]
                ),
            )
        return recorded

    def _heads(self, conn: Any, stream_id: str) -> tuple[tuple[int, str], tuple[int, str]]:
        head = (0, GENESIS_HASH)
        global_head = (0, GENESIS_HASH)
        for kind, digest, number in conn.execute(self.HEADS, (stream_id,)):
            if kind == 1:
                head = (number, digest)
            else:
                global_head = (number, digest)
        return head, global_head

    def checkpoint(self, at: datetime) -> Checkpoint:
        self._need_signer()
        with self._write() as conn:
            held = self.seen.held("")
            head = conn.execute(SELECT_GLOBAL_HEAD).fetchone()
            if head is None:
                raise InvalidEvent("an empty log has nothing to sign")
            self.seen.check_log(held, head[0], head[1], self._probe_log(conn))
            self._check_tags(conn)
            row = self._signed_rows([self._signed_row(head[0], head[1], at)])[0]
            conn.execute(INSERT_CHECKPOINT, row)
        return checkpoint_of(row)
