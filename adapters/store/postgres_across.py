"""PostgreSQL's append to several streams in one transaction (``append_streams``,
``adapters/store/across.py``): one pipelined transaction, ONE sequencer tail, all or nothing.
A part of ``PostgresEventStore``, kept apart from its one-stream append."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from adapters.store.across import answer_refused
from adapters.store.append_checks import StreamAppend, command_ids
from adapters.store.core import EventRow
from adapters.store.sql import _Retried
from table_core.ports import ConcurrencyError, RecordedEvent, StoreUnavailable


class AcrossStreams:
    """The multi-stream append of ``PostgresEventStore``: its methods take that store as ``self``
    (typed ``Any``: a mixin cannot name the class it is mixed into)."""

    def _append_streams(
        self: Any, parts: Sequence[StreamAppend], checkpoint: bool
    ) -> list[list[RecordedEvent]]:
        """Every part in one pipelined transaction and ONE sequencer tail (the parts' events
        positioned in the order given); tried again by its command ids after a lost connection,
        as ``_append``."""

        def attempt() -> list[list[RecordedEvent]]:
            try:
                written: list[list[RecordedEvent]] = self._append_streams_once(parts, checkpoint)
                return written
            except StoreUnavailable:
                for part in parts:
                    self._written_heads.pop(part[0], None)
                raise

        done: list[list[RecordedEvent]] = self._retrying(attempt, "append")
        return done

    def _append_streams_once(
        self: Any, parts: Sequence[StreamAppend], checkpoint: bool
    ) -> list[list[RecordedEvent]]:
        import psycopg

        self._may_append(checkpoint)
        with self._connection() as conn:
            try:
                written, log = self._streams_in_pipeline(conn, parts, checkpoint)
            except (_Retried, psycopg.errors.UniqueViolation, ConcurrencyError):
                for part in parts:
                    self._written_heads.pop(part[0], None)
                refused: list[list[RecordedEvent]] = self._answer_refused(conn, parts)
                return refused
            self._fault("after_commit")
            out: list[list[RecordedEvent]] = []
            end = len(log)
            # Ours are the log's last entries, in the parts' order: count back from the end.
            starts = []
            for _, rows in reversed(written):
                end -= len(rows)
                starts.append(end)
            for (stream_id, rows), start, part in zip(
                written, reversed(starts), parts, strict=True
            ):
                out.extend(self._appended(stream_id, rows, log[: start + len(rows)], part[2]))
            return out

    def _streams_in_pipeline(
        self: Any, conn: Any, parts: Sequence[StreamAppend], checkpoint: bool
    ) -> tuple[list[tuple[str, list[EventRow]]], list[tuple[int, int | None, str]]]:
        import psycopg

        with conn.pipeline() as pipeline, conn.transaction():
            written: list[tuple[str, list[EventRow]]] = []
            ranges = []
            links = []
            for stream_id, expected_version, commands in parts:
                done = self._insert(conn, pipeline, stream_id, expected_version, commands)
                if done is None:
                    raise _Retried
                written.append((stream_id, done[1]))
                ranges.append((stream_id, done[0], done[0] + len(done[1])))
                links.append((stream_id, done[0], done[1][0][9]))
            arrays = " || ".join(
                "ARRAY(SELECT {c} FROM events WHERE stream_id = %s AND version > %s "
                "AND version <= %s ORDER BY version)"
                for _ in ranges
            )
            values = [value for r in ranges for value in r]
            sql = (
                f"SELECT * FROM paigow_sequence_tail(({arrays.format(c='id')})::bigint[], "
                f"({arrays.format(c='hash')})::text[])"
            )
            last_at = parts[-1][2][-1][1][-1].at
            try:
                if self.faults:
                    pipeline.sync()
                    self._fault("before_commit")
                tail = conn.execute(sql, [*values, *values])
                signs = [(-1, last_at)] if checkpoint else []
                log = self._await_tail(pipeline, tail, signs, conn, links)
            except psycopg.Error:
                with contextlib.suppress(psycopg.Error):
                    pipeline.sync()
                raise
        if log is None:
            log = tail.fetchall()
        return written, log

    def _answer_refused(
        self: Any, conn: Any, parts: Sequence[StreamAppend]
    ) -> list[list[RecordedEvent]]:
        """Nothing was written: the recorded events of a retry, else the refusal."""
        ids = command_ids(parts)
        found = {row[0]: tuple(row[1:]) for row in conn.execute(self.SELECT_COMMANDS, (ids,))}
        heads = {part[0]: self._checked_version(conn, part[0]) for part in parts}
        return answer_refused(parts, found, heads, lambda s, a, b: self._read_stream(conn, s, a, b))
