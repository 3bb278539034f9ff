"""Table snapshots (issue 22): a restart folds only the events after each table's snapshot.

What is stored (``table_snapshots``, migration 0011, insert only): a table's folded state as
canonical JSON (``table_core.table.snapshot``), its stream version and that event's hash, the
position and global hash of the signed checkpoint it was taken at, the time, and an Ed25519
signature by the store's signing key over all of it (the state by its SHA-256): someone who can
write the database but has not the key cannot plant a state.

Taken (:meth:`Snapshots.take`) every ``snapshot_rounds`` rounds closed by this service and at its
stop, at the log's last checkpoint: first the log is verified from where the service's last
verification stopped up to that checkpoint (``snapshot_walk``, only the events since), then every
table held whose version is its stream's verified head there is written. A table in the middle of
an unsealed round, or moved on by another process, is skipped this time.

Used at start (:meth:`Snapshots.restore`), the newest snapshot of each table: its signature, its
state parsing to that table and version, a checkpoint at its position signed over its global
hash, the log's event there having that hash, and the table's event at its version having its
stream hash (the next one after the checkpoint). Then the chain is verified from the oldest
position used to the head, folding the tables' later events. Any of those failing refuses the
snapshots (one ``snapshot_refused`` warning line) and the service does what it did before: the
whole store verified, every table folded from its first event (``restore`` answers ``None``).
One exception: a snapshot naming the store's key whose signature does not hold was written behind
the store's back (``TamperDetected``): the service records ``verification_failed`` and refuses
commands.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import astuple, dataclass
from datetime import datetime
from typing import Any

from eventlog.canonical import canonical_bytes, canonical_json, format_time, loads_json
from eventlog.keys import checkpoint_signature_holds, key_id, signature_holds
from eventlog.system_events import SYSTEM_STREAM
from eventlog.verifier import Finding
from service_layer.held_tables import HeldTables
from service_layer.snapshot_walk import WalkBroken, Walked, walk
from table_core.ports import RecordedEvent, TamperDetected
from table_core.table import TableState
from table_core.table.snapshot import SnapshotFormatError, state_from_dict, state_to_dict

DOMAIN = "paigow-snapshot-v1"
COLUMNS = (
    "table_id, version, stream_hash, position, global_hash, state, taken_at, key_id, signature"
)
NEWEST = (
    f"SELECT {COLUMNS} FROM table_snapshots WHERE id IN "
    "(SELECT max(id) FROM table_snapshots GROUP BY table_id) ORDER BY table_id"
)
INSERT = f"INSERT INTO table_snapshots ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
CHECKPOINTS_AT = "SELECT hash, signed_at, signature FROM checkpoints WHERE position = ?"
LAST_CHECKPOINT = "SELECT position, hash FROM checkpoints ORDER BY position DESC, id DESC LIMIT 1"
CHECKPOINT_BEFORE = (
    "SELECT position FROM checkpoints WHERE position <= ? ORDER BY position DESC, id DESC LIMIT 1"
)
LOG_HASH_AT = "SELECT hash FROM event_log WHERE position = ?"
POSITION_OF = (
    "SELECT g.position FROM events e JOIN event_log g ON g.event_id = e.id "
    "WHERE e.stream_id = ? AND e.version = ?"
)
#: Every stream id, one index probe each (a loose index scan on both engines).
STREAMS = (
    "WITH RECURSIVE s(id) AS (SELECT min(stream_id) FROM events UNION ALL "
    "SELECT (SELECT min(stream_id) FROM events WHERE stream_id > s.id) FROM s "
    "WHERE s.id IS NOT NULL) SELECT id FROM s WHERE id IS NOT NULL"
)


class SnapshotRefused(Exception):
    """A snapshot that does not hold: not used, and the tables are replayed."""


@dataclass(frozen=True)
class Snapshot:
    table_id: str
    version: int
    stream_hash: str
    position: int
    global_hash: str
    state: str
    taken_at: str
    key_id: str
    signature: str

    def message(self) -> bytes:
        """What the signature covers: every column, the state by its SHA-256."""
        digest = hashlib.sha256(self.state.encode()).hexdigest()
        parts = [DOMAIN, self.table_id, self.version, self.stream_hash, self.position,
                 self.global_hash, digest, self.taken_at]  # fmt: skip
        return canonical_bytes(parts)


class Snapshots:
    """Takes and restores the snapshots of ``store``'s tables (a SQL store with a signing key to
    take them, its public key to use them). ``every_rounds``: rounds closed between two."""

    def __init__(self, store: Any, every_rounds: int, log: Any) -> None:
        self.store = store
        self.every_rounds = every_rounds
        self.log = log
        #: Where this service's verification of the log stands (``None``: none yet, no taking).
        self.walked: Walked | None = None
        self._rounds = 0
        self._taking = threading.Lock()

    # --- at start ----------------------------------------------------------------------------

    def restore(self) -> Walked | None:
        """The tables from their newest snapshots and the verified tail, or ``None`` (no snapshot,
        or one refused: logged) for the caller to verify the whole store and replay.
        ``WalkBroken``: the tail does not hold (the caller's full verification names it)."""
        with self.store._connection() as conn:
            snapshots = [Snapshot(*row) for row in conn.execute(NEWEST)]
            if not snapshots:
                return None
            try:
                held = {s.table_id: self._check(conn, s) for s in snapshots}
                start = self._start(conn, snapshots, held)
            except SnapshotRefused as refused:
                self.log.warning("snapshot_refused", reason=str(refused))
                return None
        self.walked = walk(self.store, start)
        return self.walked

    def replay(self) -> Walked:
        """Every table folded from its first event, the log verified on the way (no snapshot)."""
        self.walked = walk(self.store, Walked())
        return self.walked

    def _check(self, conn: Any, snap: Snapshot) -> tuple[TableState, RecordedEvent]:
        """The snapshot's state and the table's event it ends with, or ``SnapshotRefused``."""
        where = f"table {snap.table_id} at position {snap.position}"
        public = self.store.public_key
        if public is None or snap.key_id != key_id(public):
            raise SnapshotRefused(f"{where}: not signed by the store's key")
        if not signature_holds(public, snap.signature, snap.message()):
            # It names this store's key and the key did not sign it: written behind the store's
            # back. Not used, and a tampering of its own (the service records it and refuses).
            raise TamperDetected(
                f"a snapshot of {where} names this store's key and its signature does not hold",
                Finding(
                    snap.position,
                    snap.table_id,
                    snap.version,
                    "snapshot",
                    "a table snapshot naming this store's key whose signature does not hold: "
                    "written behind the store's back",
                ),
            )
        try:
            state = state_from_dict(loads_json(snap.state))
        except (SnapshotFormatError, ValueError) as error:
            raise SnapshotRefused(f"{where}: the state does not parse: {error}") from None
        if state.table_id != snap.table_id or state.version != snap.version or not snap.version:
            raise SnapshotRefused(f"{where}: the state is not that table at that version")
        if not any(
            row[0] == snap.global_hash
            and checkpoint_signature_holds(public, row[2], snap.position, row[0], row[1])
            for row in conn.execute(self.store.sql(CHECKPOINTS_AT), (snap.position,))
        ):
            raise SnapshotRefused(f"{where}: no checkpoint there is signed over its hash")
        self._log_hash_is(conn, snap.position, snap.global_hash, where)
        last = self.store._read_stream(conn, snap.table_id, snap.version - 1, snap.version)
        if not last or last[0].hash != snap.stream_hash or last[0].position > snap.position:
            raise SnapshotRefused(f"{where}: the table's event {snap.version} is not the chain's")
        later = conn.execute(self.store.sql(POSITION_OF), (snap.table_id, snap.version + 1))
        following = later.fetchone()
        if following is not None and following[0] <= snap.position:
            raise SnapshotRefused(f"{where}: the table has later events before the checkpoint")
        return state, last[0]

    def _log_hash_is(self, conn: Any, position: int, digest: str, where: str) -> None:
        row = conn.execute(self.store.sql(LOG_HASH_AT), (position,)).fetchone()
        if row is None or row[0] != digest:
            raise SnapshotRefused(f"{where}: the log's event there has another global hash")

    def _start(
        self,
        conn: Any,
        snapshots: Sequence[Snapshot],
        held: dict[str, tuple[TableState, RecordedEvent]],
    ) -> Walked:
        """Where the walk starts: the oldest snapshot's checkpoint, or earlier when a table has
        no snapshot (its whole stream must be walked), at a signed checkpoint or the genesis."""
        start = min(s.position for s in snapshots)
        for stream in (row[0] for row in conn.execute(STREAMS)):
            if stream != SYSTEM_STREAM and stream not in held:
                first = conn.execute(self.store.sql(POSITION_OF), (stream, 1)).fetchone()
                start = min(start, first[0] - 1) if first else start
        at = Walked()
        if start > 0:
            found = conn.execute(self.store.sql(CHECKPOINT_BEFORE), (start,)).fetchone()
            if found is not None:
                at.position = found[0]
                at.hash = self._signed_hash(conn, found[0])
        for snap in snapshots:
            at.install(snap.position, snap.table_id, snap.stream_hash, *held[snap.table_id])
        return at

    def _signed_hash(self, conn: Any, position: int) -> str:
        """The global hash at ``position`` that a checkpoint there signs and the log holds."""
        for digest, signed_at, signature in conn.execute(
            self.store.sql(CHECKPOINTS_AT), (position,)
        ):
            if checkpoint_signature_holds(self.store.public_key, signature, position, digest,
                                          signed_at):  # fmt: skip
                self._log_hash_is(conn, position, digest, f"the checkpoint at {position}")
                return str(digest)
        raise SnapshotRefused(f"the checkpoint at {position} is not signed by the store's key")

    # --- taking ------------------------------------------------------------------------------

    def due(self, count: int) -> bool:
        """Count ``count`` rounds closed; whether ``every_rounds`` of them are reached (then take
        the snapshots). The clock is read only then: each reading is recorded (R4), and a
        simulation's stepping clock would move on."""
        self._rounds += count
        if self.every_rounds and self._rounds >= self.every_rounds:
            self._rounds = 0
            return True
        return False

    def take(self, tables: HeldTables, now: datetime) -> int:
        """Snapshots of the tables held, at the log's last checkpoint; how many were written."""
        signer = getattr(self.store, "signer", None)
        if self.walked is None or signer is None or getattr(self.store, "tampered", None):
            return 0  # nothing verified by this service to vouch for, no key, or a cut log
        with self._taking:
            try:
                rows = self._rows(tables, signer, format_time(now))
            except WalkBroken as broken:  # the log changed under us: vouch for nothing
                self.log.warning("snapshot_not_taken", reason=str(broken))
                self.walked = None
                return 0
            if rows:
                self._insert(rows)
        self.log.info("snapshots_taken", tables=len(rows))
        return len(rows)

    def _rows(self, tables: HeldTables, signer: Any, at: str) -> list[tuple[Any, ...]]:
        assert self.walked is not None
        with self.store._connection() as conn:
            last = conn.execute(LAST_CHECKPOINT).fetchone()
        if last is None or last[0] < self.walked.position:
            return []  # no checkpoint since the last verified position
        walk(self.store, self.walked, until=last[0], folding=False)
        if self.walked.position != last[0] or self.walked.hash != last[1]:
            return []
        rows = []
        for table_id, state in tables.held().items():
            head = self.walked.heads.get(table_id)
            if head is None or head[0] != state.version or not state.version:
                continue  # moved on past the checkpoint, or not verified here
            text = canonical_json(state_to_dict(state))
            snap = Snapshot(table_id, state.version, head[1], last[0], last[1], text, at,
                            signer.key_id, "")  # fmt: skip
            signature = signer.private_key.sign(snap.message()).hex()
            rows.append((*astuple(snap)[:-1], signature))
        return rows

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        """All the rows in one transaction (the engines' connections are autocommit)."""
        with self.store._connection() as conn:
            cursor = conn.cursor()
            cursor.execute("BEGIN")
            try:
                cursor.executemany(self.store.sql(INSERT), rows)
            except BaseException:
                cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")
