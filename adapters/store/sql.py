"""The event store on SQLAlchemy: SQLite (embedded default) and PostgreSQL (psycopg 3).

SQLAlchemy gives the engine, pool, dialect and migrations; the hot path speaks the driver's own
SQL through the pooled DBAPI connection, because an append is a handful of fixed statements and
the ORM's per-statement cost would be most of its time (see benchmarks/README.md, "Store").

SQLite: one writer at a time by design, so an append is one ``BEGIN IMMEDIATE`` transaction that
takes the write lock first (a writer never fails "busy" half-way), checks the stream version,
inserts the events and their global positions, and commits.

PostgreSQL: writers to different tables must not wait for each other, so an append commits its
events WITHOUT a global position (transaction 1, fully concurrent) and then a short sequencer pass
(transaction 2, one at a time under an advisory lock) gives every committed, unpositioned event
the next dense positions and the global chain. A reader follows ``event_log`` only, which grows by
whole committed passes in position order: it can never see position n + 1 before n. docs/store.md
has the argument.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Engine

from adapters.store.canonical import GENESIS_HASH, format_time
from adapters.store.core import (
    READ_COLUMNS,
    AppendEntrances,
    EventReader,
    EventRow,
    build_batch_rows,
    check_version,
    checkpoint_of,
    command_rows,
    recorded_ranges,
    sequence,
)
from adapters.store.replay import ReplayBroken, replay_rows, tamper_detected
from adapters.store.signing import Signer
from adapters.store.verify import (
    CHECKPOINT_QUERY,
    Finding,
    Report,
    verify,
)
from table_core.ports import (
    BatchCommand,
    Checkpoint,
    ConcurrencyError,
    InvalidEvent,
    RecordedEvent,
    SigningKeyMissing,
    StoreError,
    Upcasters,
)

State = TypeVar("State")
PAGE = 10_000

SELECT_COMMAND = "SELECT stream_id, first_version, last_version FROM commands WHERE command_id = ?"
SELECT_HEAD = "SELECT version, hash FROM events WHERE stream_id = ? ORDER BY version DESC LIMIT 1"
SELECT_GLOBAL_HEAD = "SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1"
SELECT_STREAM = (
    f"SELECT {READ_COLUMNS} FROM events e LEFT JOIN event_log g ON g.event_id = e.id "
    "WHERE e.stream_id = ? AND e.version > ? AND e.version <= ? ORDER BY e.version"
)
SELECT_ALL = (
    f"SELECT {READ_COLUMNS} FROM event_log g JOIN events e ON e.id = g.event_id "
    "WHERE g.position > ? ORDER BY g.position LIMIT ?"
)
SELECT_LOG = (
    f"SELECT {READ_COLUMNS}, g.prev_hash, g.hash FROM event_log g "
    "JOIN events e ON e.id = g.event_id WHERE g.position > ? ORDER BY g.position LIMIT ?"
)
COUNT_UNPOSITIONED = (
    "SELECT count(*) FROM events e WHERE NOT EXISTS "
    "(SELECT 1 FROM event_log g WHERE g.event_id = e.id)"
)
INSERT_COMMAND = (
    "INSERT INTO commands (command_id, stream_id, first_version, last_version) VALUES (?, ?, ?, ?)"
)
INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) VALUES (?, ?, ?, ?, ?)"
)
EVENT_COLUMNS = (
    "stream_id, version, type, schema_version, payload, recorded_at, actor_id, actor_role, "
    "command_id, prev_hash, hash"
)


class _SlowPath(Exception):
    """Internal (SQLite): the stream is not at the expected version; see whether it is a retry."""


class _Retried(Exception):
    """Internal: the command is already recorded, leave the write transaction and read it."""


class SqlEventStore(AppendEntrances):
    """Shared by both engines: reads, verification, replay. Subclasses append."""

    dialect = ""
    placeholder = "?"

    def __init__(
        self,
        engine: Engine,
        *,
        signer: Signer | None = None,
        public_key: bytes | None = None,
        upcasters: Upcasters | None = None,
    ) -> None:
        self.engine = engine
        self.signer = signer
        self.public_key = signer.public_raw if signer is not None else public_key
        self._reader = EventReader(upcasters)
        self.faults: dict[str, Callable[[], None]] = {}  # test hooks, see _fault
        self._sql: dict[str, str] = {}

    # -- plumbing ---------------------------------------------------------------------------

    def sql(self, text: str) -> str:
        """The statement in this driver's parameter style (written with ``?``)."""
        cached = self._sql.get(text)
        if cached is None:
            cached = self._sql[text] = text.replace("?", self.placeholder)
        return cached

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        pooled = self.engine.raw_connection()
        try:
            yield pooled.driver_connection
        finally:
            pooled.close()

    def _fault(self, point: str) -> None:
        """Test hooks: ``before_commit`` runs inside the append transaction, after its inserts;
        ``after_commit`` between the commit and (PostgreSQL) the sequencer pass."""
        hook = self.faults.get(point)
        if hook is not None:
            hook()

    def _signed_row(self, position: int, chain_hash: str, at: datetime) -> tuple[Any, ...]:
        assert self.signer is not None
        signed_at = format_time(at)
        signature = self.signer.sign(position, chain_hash, signed_at)
        return (position, chain_hash, signed_at, self.signer.key_id, signature)

    def _need_signer(self) -> None:
        if self.signer is None:
            raise SigningKeyMissing(
                "no signing key is configured for checkpoints (set PAIGOW_SIGNING_KEY)"
            )

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> SqlEventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads --------------------------------------------------------------------------------

    def _stream_rows(
        self, conn: Any, stream_id: str, after_version: int, last_version: int
    ) -> list[Any]:
        return list(conn.execute(self.sql(SELECT_STREAM), (stream_id, after_version, last_version)))

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        with self._connection() as conn:
            return self._read_stream(conn, stream_id, after_version, 2**31 - 1)

    def _read_stream(
        self, conn: Any, stream_id: str, after_version: int, last_version: int
    ) -> list[RecordedEvent]:
        rows = self._stream_rows(conn, stream_id, after_version, last_version)
        if rows and rows[-1][0] is None:
            # Committed but not yet positioned (PostgreSQL only: a writer died between its
            # commit and its sequencer pass). Position them, then read again.
            self._sequence_pass(conn, None)
            rows = self._stream_rows(conn, stream_id, after_version, last_version)
        return self._reader.events(rows)

    def read_all(self, after_position: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        with self._connection() as conn:
            rows = conn.execute(
                self.sql(SELECT_ALL), (after_position, 2**62 if limit is None else limit)
            )
            return self._reader.events(rows)

    def stream_version(self, stream_id: str) -> int:
        with self._connection() as conn:
            head = conn.execute(self.sql(SELECT_HEAD), (stream_id,)).fetchone()
            return int(head[0]) if head else 0

    def events_of_command(self, command_id: str) -> list[RecordedEvent] | None:
        with self._connection() as conn:
            known = conn.execute(self.sql(SELECT_COMMAND), (command_id,)).fetchone()
            if known is None:
                return None
            stream_id, first, last = known
            return self._read_stream(conn, stream_id, first - 1, last)

    def checkpoints(self) -> list[Checkpoint]:
        with self._connection() as conn:
            return [checkpoint_of(row) for row in conn.execute(CHECKPOINT_QUERY)]

    def _log_pages(self, conn: Any) -> Iterator[Sequence[Any]]:
        """The whole log, position order, in pages (keyset: constant memory, any size)."""
        after = 0
        while True:
            page = conn.execute(self.sql(SELECT_LOG), (after, PAGE)).fetchall()
            yield from page
            if len(page) < PAGE:
                return
            after = page[-1][0]

    def raw_log(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with self._connection() as conn:
            self._sequence_pass(conn, None)
            rows = [tuple(row) for row in self._log_pages(conn)]
            checkpoint_rows = [tuple(row) for row in conn.execute(CHECKPOINT_QUERY)]
        return rows, checkpoint_rows

    def verify(self) -> Report:
        """Verify the chain and every checkpoint; also that no event lacks a global position."""
        with self._connection() as conn:
            self._sequence_pass(conn, None)
            checkpoint_rows = list(conn.execute(CHECKPOINT_QUERY))
            report = verify(self._log_pages(conn), checkpoint_rows, self.public_key)
            if report.ok:
                orphans = conn.execute(COUNT_UNPOSITIONED).fetchone()[0]
                if orphans:
                    finding = Finding(
                        report.events + 1,
                        None,
                        None,
                        "sequence",
                        f"{orphans} recorded events have no global position",
                    )
                    return Report(
                        report.events, report.checkpoints, report.signatures_checked, finding
                    )
            return report

    def replay(self, fold: Callable[[State, RecordedEvent], State], state: State) -> State:
        """Read every event, verify its hashes, links and checkpoints, and fold it, in one pass
        (``replay.replay_rows``); ``TamperDetected`` naming the first event or checkpoint that
        does not hold."""
        with self._connection() as conn:
            self._sequence_pass(conn, None)
            checkpoint_rows = list(conn.execute(CHECKPOINT_QUERY))
            try:
                return replay_rows(
                    self._log_pages(conn),
                    checkpoint_rows,
                    self.public_key,
                    self._reader.upcasters,
                    fold,
                    state,
                )
            except ReplayBroken:
                pass
        raise tamper_detected(self.verify())

    # -- writes -------------------------------------------------------------------------------

    def checkpoint(self, at: datetime) -> Checkpoint:
        raise NotImplementedError

    def _sequence_pass(self, conn: Any, sign_at: datetime | None) -> Any:
        """Give committed events their global positions (PostgreSQL; SQLite does it inline)."""
        return None


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
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                self._fault("before_commit")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

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

    def _append(
        self,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        checkpoint: bool,
    ) -> list[list[RecordedEvent]]:
        if checkpoint:
            self._need_signer()
        for _ in range(3):
            try:
                with self._write() as conn:
                    recorded = self._append_new(
                        conn, stream_id, expected_version, commands, checkpoint
                    )
            except sqlite3.IntegrityError as error:
                if "commands.command_id" not in str(error):
                    raise
            except _SlowPath:
                pass
            else:
                self._fault("after_commit")
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

    def _append_new(
        self,
        conn: Any,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        checkpoint: bool,
    ) -> list[list[RecordedEvent]]:
        """Write a batch of commands presumed new: the command rows go first, so a command id
        seen before fails at once on its unique key, before anything else is built."""
        (head_version, head_hash), (position, global_head) = self._heads(conn, stream_id)
        if head_version != expected_version:
            raise _SlowPath  # stale, or a retry sent with its old version: look the ids up
        self._insert(conn, "commands", command_rows(stream_id, head_version, commands))
        rows = build_batch_rows(stream_id, head_version, head_hash, commands)
        # One writer at a time: an event's id is its position, no sequencer needed.
        first_id = position + 1
        self._insert(conn, "events", [(first_id + i, *row) for i, row in enumerate(rows)])
        log = sequence(
            ((first_id + i, row[10]) for i, row in enumerate(rows)), position, global_head
        )
        self._insert(conn, "log", log)
        if checkpoint:
            at = commands[-1][1][-1].at
            conn.execute(INSERT_CHECKPOINT, self._signed_row(log[-1][0], log[-1][3], at))
        return self._reader.appended([entry[0] for entry in log], rows, commands)

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
            head = conn.execute(SELECT_GLOBAL_HEAD).fetchone()
            if head is None:
                raise InvalidEvent("an empty log has nothing to sign")
            row = self._signed_row(head[0], head[1], at)
            conn.execute(INSERT_CHECKPOINT, row)
        return checkpoint_of(row)


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
