"""The event store on SQLAlchemy: SQLite (embedded default) and PostgreSQL (psycopg 3).

SQLAlchemy gives the engine, pool, dialect and migrations; the hot path speaks the driver's own
SQL through the pooled DBAPI connection, because an append is a handful of fixed statements and
the ORM's per-statement cost would be most of its time (benchmarks/README.md, `bench_store.py`).

SQLite: one writer at a time by design, so an append is one ``BEGIN IMMEDIATE`` transaction that
takes the write lock first (a writer never fails "busy" half-way), checks the stream version,
inserts the events and their global positions, and commits.

PostgreSQL: writers to different tables must not wait for each other, so an append is one
transaction that first inserts its events and command rows (concurrently; the unique keys are the
concurrency check) and then, as its tail and its LAST lock, takes a per-schema advisory lock, reads
the log head in a new statement, gives its events the next dense positions and the global chain,
and commits. The commit is visible before the lock is released, so the next holder numbers on from
it: ``event_log``, which a reader follows, grows in position order and a reader can never see
position n + 1 before n. Events an older two-transaction writer left unpositioned in
``sequencer_queue`` are drained by the next tail (``_sequence_pass`` runs one on its own).
docs/store.md, "Gap-free global order", has the argument.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Engine

from adapters.store.core import (
    READ_COLUMNS,
    AppendEntrances,
    EventReader,
    checkpoint_of,
)
from adapters.store.feed_reads import SqlFeedReads
from adapters.store.heads_seen import HeadsSeen
from adapters.store.replay import ReplayBroken, replay_rows, tamper_detected
from adapters.store.signing import Signer
from adapters.store.tags import anchor_tag, untagged
from eventlog.canonical import format_time
from eventlog.query import CHECKPOINT_QUERY
from eventlog.verifier import Finding, Report, verify
from table_core.ports import (
    Checkpoint,
    InvalidEvent,
    RecordedEvent,
    SigningKeyMissing,
    Upcasters,
)

State = TypeVar("State")
PAGE = 10_000

SELECT_COMMAND = "SELECT stream_id, first_version, last_version FROM commands WHERE command_id = ?"
SELECT_HEAD = "SELECT version, hash FROM events WHERE stream_id = ? ORDER BY version DESC LIMIT 1"
SELECT_GLOBAL_HEAD = "SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1"
SELECT_HASH_AT_VERSION = "SELECT hash FROM events WHERE stream_id = ? AND version = ?"
SELECT_HASH_AT_POSITION = "SELECT hash FROM event_log WHERE position = ?"
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
INSERT_TAG = (
    "INSERT INTO append_tags (stream_id, first_version, last_version, last_hash, tag) "
    "VALUES (?, ?, ?, ?, ?)"
)
INSERT_ANCHOR = "INSERT INTO append_tag_anchors (position, hash, tag) VALUES (?, ?, ?)"
# Where tags start to be required (tags.floor_position): the newest anchors that carry a tag (an
# untagged row vouches for nothing), with the log's hash at each position; the newest checkpoints
# likewise. The log's hash is looked up per row (a scalar subquery: an index probe whatever the
# planner thinks; as a join, PostgreSQL's generic plan hashed the whole event_log, 31 ms a
# signing).
SELECT_ANCHORS = (
    "SELECT a.position, a.hash, a.tag, "
    "(SELECT g.hash FROM event_log g WHERE g.position = a.position) FROM append_tag_anchors a "
    "WHERE a.id IN (SELECT id FROM append_tag_anchors WHERE tag IS NOT NULL "
    "ORDER BY id DESC LIMIT 8) ORDER BY a.id"
)
SELECT_FLOOR_CHECKPOINTS = (
    "SELECT c.position, c.hash, c.signed_at, c.key_id, c.signature, "
    "(SELECT g.hash FROM event_log g WHERE g.position = c.position) "
    "FROM (SELECT * FROM checkpoints ORDER BY id DESC LIMIT 16) c ORDER BY c.id DESC"
)
# Each event after the floor with every tag that claims to cover it (tags.first_untagged).
SELECT_TAG_CANDIDATES = (
    "SELECT g.position, e.stream_id, e.version, t.first_version, t.last_version, t.last_hash, "
    "t.tag, l.hash FROM event_log g JOIN events e ON e.id = g.event_id "
    "LEFT JOIN append_tags t ON t.stream_id = e.stream_id AND t.last_version >= e.version "
    "AND t.first_version <= e.version "
    "LEFT JOIN events l ON l.stream_id = t.stream_id AND l.version = t.last_version "
    "WHERE g.position > ? {stream} ORDER BY g.position"
)
ALL_CANDIDATES = SELECT_TAG_CANDIDATES.format(stream="")
# PostgreSQL's form: driven by the log's position index over the range (floor, head] and a lookup
# per event (LATERAL; OFFSET 0 keeps the planner from flattening them), so the cost follows the
# events after the floor whatever the planner's statistics say (on a schema not yet analysed, the
# joins above became scans of whole tables: every signing paid for the whole history).
PG_ALL_CANDIDATES = (
    "SELECT g.position, e.stream_id, e.version, t.first_version, t.last_version, t.last_hash, "
    "t.tag, t.now_hash FROM event_log g "
    "JOIN LATERAL (SELECT stream_id, version FROM events WHERE id = g.event_id OFFSET 0) e ON true "
    "LEFT JOIN LATERAL (SELECT a.first_version, a.last_version, a.last_hash, a.tag, "
    "(SELECT l.hash FROM events l WHERE l.stream_id = a.stream_id AND l.version = a.last_version) "
    "AS now_hash FROM append_tags a WHERE a.stream_id = e.stream_id "
    "AND a.last_version >= e.version AND a.first_version <= e.version OFFSET 0) t ON true "
    "WHERE g.position > ? AND g.position <= ? ORDER BY g.position"
)
STREAM_CANDIDATES = SELECT_TAG_CANDIDATES.format(stream="AND e.stream_id = ? AND e.version > ?")
# PostgreSQL's form of the catch-up check, index-driven as PG_ALL_CANDIDATES (same parameters).
PG_STREAM_CANDIDATES = (
    "SELECT g.position, e.stream_id, e.version, t.first_version, t.last_version, t.last_hash, "
    "t.tag, t.now_hash FROM events e "
    "JOIN LATERAL (SELECT position FROM event_log WHERE event_id = e.id OFFSET 0) g ON true "
    "LEFT JOIN LATERAL (SELECT a.first_version, a.last_version, a.last_hash, a.tag, "
    "(SELECT l.hash FROM events l WHERE l.stream_id = a.stream_id AND l.version = a.last_version) "
    "AS now_hash FROM append_tags a WHERE a.stream_id = e.stream_id "
    "AND a.last_version >= e.version AND a.first_version <= e.version OFFSET 0) t ON true "
    "WHERE g.position > ? AND e.stream_id = ? AND e.version > ? ORDER BY g.position"
)
EVENT_COLUMNS = (
    "stream_id, version, type, schema_version, payload, recorded_at, actor_id, actor_role, "
    "command_id, prev_hash, hash"
)


def _observed(
    rows: Iterator[Sequence[Any]], observe: Callable[[Sequence[Any]], None]
) -> Iterator[Sequence[Any]]:
    for row in rows:
        observe(row)
        yield row


@contextlib.contextmanager
def driver_connection(engine: Engine) -> Iterator[Any]:
    """A pooled DBAPI connection (the driver's own, no SQLAlchemy per statement), back in the
    pool after: what the stores and the projections speak SQL through where no failover is
    handled (SQLite; the projections)."""
    pooled = engine.raw_connection()
    try:
        yield pooled.driver_connection
    finally:
        pooled.close()


class _SlowPath(Exception):
    """Internal (SQLite): the stream is not at the expected version; see whether it is a retry."""


class _Retried(Exception):
    """Internal: the command is already recorded, leave the write transaction and read it."""


class SqlEventStore(SqlFeedReads, AppendEntrances):
    STREAM_CANDIDATES = STREAM_CANDIDATES  # the catch-up's tag check (PostgreSQL: its own form)
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
        #: The append tags' key (adapters/store/tags.py); none without a signing key.
        self.tagger = signer.tagger() if signer is not None else None
        self._reader = EventReader(upcasters)
        self.faults: dict[str, Callable[[], None]] = {}  # test hooks, see _fault
        self._sql: dict[str, str] = {}
        #: The heads this store wrote or read: an append checks the log did not go back under it.
        self.seen = HeadsSeen()

    # -- plumbing ---------------------------------------------------------------------------

    def sql(self, text: str) -> str:
        """The statement in this driver's parameter style (written with ``?``)."""
        cached = self._sql.get(text)
        if cached is None:
            cached = self._sql[text] = text.replace("?", self.placeholder)
        return cached

    def _connection(self) -> contextlib.AbstractContextManager[Any]:
        return driver_connection(self.engine)

    def _fault(self, point: str) -> None:
        """Test hooks: ``before_commit`` runs inside the append transaction, after its inserts
        (PostgreSQL: before the sequencer lock); ``holding_lock`` (PostgreSQL) inside the tail,
        the lock held; ``after_commit`` after the commit."""
        hook = self.faults.get(point)
        if hook is not None:
            hook()

    def _signed_row(self, position: int, chain_hash: str, at: datetime) -> tuple[Any, ...]:
        assert self.signer is not None
        signed_at = format_time(at)
        signature = self.signer.sign(position, chain_hash, signed_at)
        return (position, chain_hash, signed_at, self.signer.key_id, signature)

    def _signed_rows(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Checkpoint rows this store signed: their signatures need no check by its tags."""
        if self.tagger is not None:
            for row in rows:
                self.tagger.signed(row)
        return rows

    def _tag_floor(self, conn: Any) -> int:
        assert self.tagger is not None
        anchors = list(conn.execute(SELECT_ANCHORS))
        return self.tagger.floor(anchors, conn.execute(SELECT_FLOOR_CHECKPOINTS))

    def _check_tags(self, conn: Any, stream_id: str | None = None, after_version: int = 0) -> None:
        """``UntaggedEvents`` at the first event after the floor (the last checkpoint that holds)
        that no valid append tag covers: the whole log before a checkpoint is signed, one stream's
        events after ``after_version`` when a table is caught up. No key: nothing to check with."""
        if self.tagger is None:
            return
        floor = self._tag_floor(conn)
        if stream_id is None:
            rows = conn.execute(self.sql(ALL_CANDIDATES), (floor,))
        else:
            rows = conn.execute(self.sql(self.STREAM_CANDIDATES), (floor, stream_id, after_version))
        self.tagger.check(rows)

    def untagged_events(self) -> list[Finding]:
        """Every event after the floor that no valid tag of this store's key covers (what
        ``paigow db adopt`` lists before an operator vouches for them); none without a key."""
        if self.tagger is None:
            return []
        with self._connection() as conn:
            floor = self._tag_floor(conn)
            return list(untagged(self.tagger.key, conn.execute(self.sql(ALL_CANDIDATES), (floor,))))

    def may_record_anchors(self) -> bool:
        """Whether this login may write an anchor (PostgreSQL: the owner's, not the service
        role's, since migration 0012): asked before a rotation or an adoption writes anything."""
        if self.dialect != "postgresql":
            return True
        with self._connection() as conn:
            row = conn.execute("SELECT has_table_privilege('append_tag_anchors', 'INSERT')")
            return bool(row.fetchone()[0])

    def record_tag_anchor(self, signer: Signer, position: int) -> None:
        """Tags of ``signer``'s key are required after ``position`` (an event sealed by a
        checkpoint the previous key signed): what ``paigow keys signing rotate`` records for the
        new key, which cannot check the old key's signature or tags."""
        with self._connection() as conn:
            found = conn.execute(
                self.sql("SELECT hash FROM event_log WHERE position = ?"), (position,)
            ).fetchone()
            if found is None:
                raise InvalidEvent(f"no event at position {position} to anchor the tags at")
            tag = anchor_tag(signer.tagger().key, position, found[0])
            conn.execute(self.sql(INSERT_ANCHOR), (position, found[0], tag))  # autocommit

    def verify_tags(self, stream_id: str, after_version: int = 0) -> None:
        """The catch-up check: ``UntaggedEvents`` when an event of ``stream_id`` after
        ``after_version`` and after the last checkpoint carries no valid append tag."""
        with self._connection() as conn:
            self._check_tags(conn, stream_id, after_version)

    def _need_signer(self) -> None:
        if self.signer is None:
            raise SigningKeyMissing(
                "no signing key is configured for checkpoints (set PAIGOW_SIGNING_KEY)"
            )
        self.seen.refuse_to_sign()  # the log changed under this store: it signs nothing more

    def _may_append(self, signing: bool) -> None:
        """What an append needs before anything is sent: the signing key to tag it with and,
        when it signs checkpoints, a signer that met no rewrite of the log."""
        self.need_key_to_append()
        if signing:
            self._need_signer()

    def need_key_to_append(self) -> None:
        """A SQL store appends only with its signing key: an append it cannot tag would read, to
        every later holder of the key, as a row INSERTed behind its back (store/tags.py)."""
        if self.signer is None:
            from adapters.store.key_advice import key_refusal

            raise SigningKeyMissing(
                key_refusal(self) or "no signing key: this store appends nothing without it"
            )

    @property
    def tampered(self) -> Any:
        """The rewrite of the log this store met (``LogRewritten``), or ``None``."""
        return self.seen.broken

    def _probe_stream(self, conn: Any, stream_id: str) -> Callable[[int], str | None]:
        def probe(version: int) -> str | None:
            row = conn.execute(self.sql(SELECT_HASH_AT_VERSION), (stream_id, version)).fetchone()
            return None if row is None else str(row[0])

        return probe

    def _probe_log(self, conn: Any) -> Callable[[int], str | None]:
        def probe(position: int) -> str | None:
            row = conn.execute(self.sql(SELECT_HASH_AT_POSITION), (position,)).fetchone()
            return None if row is None else str(row[0])

        return probe

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
            events = self._read_stream(conn, stream_id, after_version, 2**31 - 1)
        if events and events[-1].position is not None:
            last = events[-1]
            self.seen.saw_stream(stream_id, last.version, last.hash, last.position)
        return events

    def _read_stream(
        self, conn: Any, stream_id: str, after_version: int, last_version: int
    ) -> list[RecordedEvent]:
        rows = self._stream_rows(conn, stream_id, after_version, last_version)
        if rows and rows[-1][0] is None:
            # Committed but not yet positioned (PostgreSQL only: a legacy two-transaction
            # writer died between its commit and its sequencer pass). Position them, read again.
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

    def last_checkpoint(self) -> Checkpoint | None:
        """The last checkpoint signed (the floor's audit page), without reading them all."""
        query = CHECKPOINT_QUERY.replace("ORDER BY position, id", "ORDER BY position DESC, id DESC")
        with self._connection() as conn:
            row = conn.execute(query + " LIMIT 1").fetchone()
        return None if row is None else checkpoint_of(row)

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

    def verify(self, observe: Callable[[Sequence[Any]], None] | None = None) -> Report:
        """Verify the chain and every checkpoint; also that no event lacks a global position.
        ``observe``: told each row the verification reads (``paigow db verify``'s tail)."""
        with self._connection() as conn:
            self._sequence_pass(conn, None)
            checkpoint_rows = list(conn.execute(CHECKPOINT_QUERY))
            rows = self._log_pages(conn)
            report = verify(rows if observe is None else _observed(rows, observe),
                            checkpoint_rows, self.public_key)  # fmt: skip
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
        report = self.verify()
        if not report.ok:
            raise tamper_detected(report)
        # The fast path starts at position 1; a log that starts at a purge boundary recorded by
        # its range_purged event (R18) verified above: fold it plainly.
        with self._connection() as conn:
            for row in self._log_pages(conn):
                state = fold(state, self._reader.event(row))
        return state

    # -- writes -------------------------------------------------------------------------------

    def checkpoint(self, at: datetime) -> Checkpoint:
        raise NotImplementedError

    def _sequence_pass(self, conn: Any, sign_at: datetime | None) -> Any:
        """Position what a legacy writer left unpositioned (PostgreSQL; SQLite does it inline)."""
        return None
