"""The event feed's reads (service_layer/feed.py, docs/feed.md): the global log by position, as
stored, filtered by stream and type; the log's head; the checkpoints by position; and where a
round ends.

Rows are returned as the verifier reads them (``eventlog.query.ROW_COLUMNS``: the event's columns,
then its ``event_log`` link), never lifted by upcasters: a consumer recomputes each hash from
exactly what was stored. ``SqlFeedReads`` serves both SQL stores (a PostgreSQL read lost to a
failover is retried as the store's other reads are); ``MemoryFeedReads`` the in-memory fake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

#: The feed's rows: ``eventlog.query.LOG_QUERY``'s columns, after a position, filtered.
_FEED = (
    "SELECT g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, "
    "e.recorded_at, e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash, "
    "g.prev_hash, g.hash FROM event_log g JOIN events e ON e.id = g.event_id "
    "WHERE g.position > ?{where} ORDER BY g.position LIMIT ?"
)
_HEAD = "SELECT max(position) FROM event_log"
#: The checkpoints from ``first`` up to the first one at or after ``last`` (which seals it).
_SEALING = (
    "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
    "WHERE position >= ? AND position <= COALESCE("
    "(SELECT min(position) FROM checkpoints WHERE position >= ?), ?) ORDER BY position, id"
)
_CHECKPOINTS_AFTER = (
    "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
    "WHERE position > ? ORDER BY position, id LIMIT ?"
)
#: The first event of ``types`` on a stream after a version (the ``(stream_id, version)`` key).
_FIRST_OF = (
    "SELECT version, type, payload FROM events WHERE stream_id = ? AND version > ?{where} "
    "ORDER BY version LIMIT 1"
)


#: A test of a row: (its SQL column, its index in a row, the values, whether it must NOT be one).
RowTest = tuple[str, int, frozenset[str], bool]


class FeedRows:
    """``feed_rows`` of both stores: its filters turned into tests of a row once, each store
    applying them its own way (``_rows_after``: a ``WHERE`` clause, or a loop over its rows)."""

    def feed_rows(
        self,
        after: int,
        limit: int,
        streams: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        exclude_streams: Sequence[str] = (),
    ) -> list[tuple[Any, ...]]:
        """Up to ``limit`` log rows after position ``after``, in position order: only the
        ``streams`` and ``types`` given (``None``: any), never ``exclude_streams``."""
        tests: list[RowTest] = [
            (column, index, frozenset(values), negate)
            for column, index, values, negate in (
                ("e.stream_id", 1, streams, False),
                ("e.type", 3, types, False),
                ("e.stream_id", 1, exclude_streams or None, True),
            )
            if values is not None
        ]
        return self._rows_after(after, limit, tests)

    def _rows_after(self, after: int, limit: int, tests: list[RowTest]) -> list[tuple[Any, ...]]:
        raise NotImplementedError


class SqlFeedReads(FeedRows):
    """The feed's reads of a SQL store (mixed into ``SqlEventStore``)."""

    dialect: str
    _connection: Callable[..., Any]
    sql: Callable[[str], str]

    def _feed_read(self, read: Callable[[], T], what: str) -> T:
        retrying = getattr(self, "_retrying", None)  # PostgreSQL: a failover is retried
        return read() if retrying is None else retrying(read, what)

    def _in(
        self, column: str, values: Sequence[str], negate: bool = False
    ) -> tuple[str, list[Any]]:
        """``column`` in (or not in) ``values``: an array on PostgreSQL (one statement text
        whatever the count), a list of placeholders on SQLite."""
        if self.dialect == "postgresql":
            test = "<> ALL(?)" if negate else "= ANY(?)"
            return f" AND {column} {test}", [list(values)]
        marks = ", ".join("?" * len(values))
        return f" AND {column} {'NOT IN' if negate else 'IN'} ({marks})", list(values)

    def _rows_after(self, after: int, limit: int, tests: list[RowTest]) -> list[tuple[Any, ...]]:
        where, params = "", [after]
        for column, _index, values, negate in tests:
            text, values_params = self._in(column, sorted(values), negate)
            where += text
            params += values_params
        statement = self.sql(_FEED.format(where=where))
        params.append(limit)

        def read() -> list[tuple[Any, ...]]:
            with self._connection() as conn:
                return [tuple(row) for row in conn.execute(statement, params)]

        return self._feed_read(read, "feed_rows")

    def feed_head(self) -> int:
        """The log's last position (0: empty)."""

        def read() -> int:
            with self._connection() as conn:
                return int(conn.execute(_HEAD).fetchone()[0] or 0)

        return self._feed_read(read, "feed_head")

    def sealing_checkpoints(self, first: int, last: int) -> list[tuple[Any, ...]]:
        """(position, hash, signed_at, key_id, signature) of the checkpoints at positions from
        ``first`` up to the first at or after ``last``, in order."""
        statement = self.sql(_SEALING)

        def read() -> list[tuple[Any, ...]]:
            with self._connection() as conn:
                return [tuple(row) for row in conn.execute(statement, (first, last, last))]

        return self._feed_read(read, "sealing_checkpoints")

    def checkpoints_after(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        statement = self.sql(_CHECKPOINTS_AFTER)

        def read() -> list[tuple[Any, ...]]:
            with self._connection() as conn:
                return [tuple(row) for row in conn.execute(statement, (after, limit))]

        return self._feed_read(read, "checkpoints_after")

    def first_of_types(
        self, stream_id: str, after_version: int, types: Sequence[str]
    ) -> tuple[int, str, str] | None:
        """(version, type, payload) of the first event of ``types`` on ``stream_id`` after
        ``after_version``, or ``None``."""
        where, params = self._in("type", types)
        statement = self.sql(_FIRST_OF.format(where=where))

        def read() -> tuple[int, str, str] | None:
            with self._connection() as conn:
                row = conn.execute(statement, (stream_id, after_version, *params)).fetchone()
            return None if row is None else (int(row[0]), str(row[1]), str(row[2]))

        return self._feed_read(read, "first_of_types")


class MemoryFeedReads(FeedRows):
    """The same reads over the in-memory store's rows (``query.ROW_COLUMNS`` order)."""

    rows: list[tuple[Any, ...]]
    checkpoint_rows: list[tuple[Any, ...]]
    _streams: dict[str, list[int]]
    _lock: Any

    def _rows_after(self, after: int, limit: int, tests: list[RowTest]) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        with self._lock:
            rows = list(self.rows)
        for row in rows:
            if row[0] <= after:
                continue
            if any((row[index] in values) == negate for _c, index, values, negate in tests):
                continue
            out.append(row)
            if len(out) >= limit:
                break
        return out

    def feed_head(self) -> int:
        with self._lock:
            return int(self.rows[-1][0]) if self.rows else 0

    def sealing_checkpoints(self, first: int, last: int) -> list[tuple[Any, ...]]:
        with self._lock:
            found = sorted(self.checkpoint_rows, key=lambda c: c[0])
        end = next((c[0] for c in found if c[0] >= last), last)
        return [c for c in found if first <= c[0] <= end]

    def checkpoints_after(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        with self._lock:
            found = sorted(self.checkpoint_rows, key=lambda c: c[0])
        return [c for c in found if c[0] > after][:limit]

    def first_of_types(
        self, stream_id: str, after_version: int, types: Sequence[str]
    ) -> tuple[int, str, str] | None:
        with self._lock:
            indexes = self._streams.get(stream_id, [])[after_version:]
            for index in indexes:
                row = self.rows[index]
                if row[3] in types:
                    return int(row[2]), str(row[3]), str(row[5])
        return None
