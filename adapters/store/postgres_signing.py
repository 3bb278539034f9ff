"""PostgreSQL's tail of an append when it signs: the checkpoints signed before the COMMIT, under
the sequencer's lock, after the checks that nothing was cut, rewritten or left untagged. A part of
``PostgresEventStore`` (``postgres.py``), kept apart from its append's statements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from adapters.store.sql import (
    INSERT_CHECKPOINT,
    PG_ALL_CANDIDATES,
    SELECT_ANCHORS,
    SELECT_FLOOR_CHECKPOINTS,
)
from table_core.ports import InvalidEvent


class SignsUnderTheLock:
    """The signing tail of ``PostgresEventStore``'s append: its methods take that store as
    ``self`` (typed ``Any``: a mixin cannot name the class it is mixed into)."""

    def _await_tail(
        self: Any,
        pipeline: Any,
        tail: Any,
        signs: Sequence[tuple[int, datetime]],
        conn: Any,
        links: Sequence[tuple[str, int, str]] = (),
    ) -> list[tuple[int, int | None, str]] | None:
        """Before the COMMIT, when something must see the tail's result first: the signed
        checkpoints (they need the new chain) or a test's ``holding_lock`` fault. ``signs`` are
        (index into the tail's rows, counted from the end: -1 is the new head; the time to sign
        at), one per checkpoint, in position order. Otherwise ``None``:
        the caller sends the COMMIT right behind the tail, and the lock is never held across a
        client round trip. ``tail`` is the cursor of ``paigow_sequence_tail``; its rows are the
        log head before, then (position, event id, global hash) per event it positioned.

        The function takes the per-schema advisory lock as the transaction's LAST lock, then reads
        the log head in a new statement (READ COMMITTED, VOLATILE: a snapshot taken after the
        lock, so it sees every earlier holder's commit), drains the legacy ``sequencer_queue``
        (event id order) before this transaction's own events, and writes ``event_log``. The lock
        goes with the transaction, after the commit is visible. Deadlock-free: while holding it,
        a transaction writes only rows no one else can lock (queue rows and ``event_log`` are
        written only under this lock; its ``events`` rows are its own or committed; checkpoints
        are append-only inserts) and waits for nothing but its own commit.
        """
        if not signs and not self.faults:
            return None
        floor = None
        if signs and self.tagger is not None:
            # Statements after the tail's: their snapshots see every event positioned so far.
            floor = (conn.execute(SELECT_ANCHORS), conn.execute(SELECT_FLOOR_CHECKPOINTS))
        # The lock may make the server wait: only a sync is sure to wait with it. An insert's
        # unique violation (a concurrent writer won) is raised here at the latest; the server then
        # skipped the tail.
        pipeline.sync()
        log: list[tuple[int, int | None, str]] = tail.fetchall()
        if self.faults:
            self._fault("holding_lock")
        if signs:
            # Never sign after a gap: each stream's event this append extends and the log's head
            # before this tail (its first row) must be what this store saw (heads_seen.py).
            self._check_before_signing(conn, pipeline, floor, log, links)
            signed = []
            for index, at in signs:
                position, _, chain_hash = log[index]
                if position == 0:
                    raise InvalidEvent("an empty log has nothing to sign")
                signed.append(self._signed_row(position, chain_hash, at))
            # Pipelined with the COMMIT the caller sends next: no round trip of their own.
            conn.cursor().executemany(self.sql(INSERT_CHECKPOINT), self._signed_rows(signed))
        return log

    def _check_before_signing(
        self: Any,
        conn: Any,
        pipeline: Any,
        floor: tuple[Any, Any] | None,
        log: list[tuple[int, int | None, str]],
        links: Sequence[tuple[str, int, str]],
    ) -> None:
        """Before signing, under the lock, in ONE round trip: each appended stream's event that
        the append extends still there with its hash, then the log's head the tail started from
        (under the lock, every transaction this store saw committed before it: a cut or rewrite
        is ``LogRewritten``), then every event after the floor tagged (``_check_tags``, its floor
        read already, pipelined with the tail)."""
        held = self.seen.held("")
        probes = [
            (stream, version, digest, conn.execute(self.LINK, (stream, version)))
            for stream, version, digest in links
            if version > 0
        ]
        rows = None
        if floor is not None:
            assert self.tagger is not None
            anchors, checkpoints = floor
            start = self.tagger.floor(anchors.fetchall(), checkpoints.fetchall())
            rows = conn.execute(self.sql(PG_ALL_CANDIDATES), (start, log[-1][0]))
        pipeline.sync()
        for stream, version, digest, cursor in probes:
            found = cursor.fetchone()
            self.seen.check_link(stream, version, digest, None if found is None else found[0])
        log_probe = self._pipeline_probe(conn, pipeline, self.LOG_HASH)
        self.seen.check_log(held, log[0][0], log[0][2], log_probe)
        if rows is not None:
            assert self.tagger is not None
            self.tagger.check(rows.fetchall())

    def _pipeline_probe(
        self: Any, conn: Any, pipeline: Any, query: str, *key: Any
    ) -> Callable[[int], str | None]:
        """``HeadsSeen``'s probe inside the pipelined transaction (synced: rarely asked)."""

        def probe(at: int) -> str | None:
            cursor = conn.execute(query, (*key, at))
            pipeline.sync()
            row = cursor.fetchone()
            return None if row is None else str(row[0])

        return probe
