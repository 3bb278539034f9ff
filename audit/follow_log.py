"""How ``paigow audit follow`` reads a live log: read only, one short snapshot per pass, and a
wake-up when the casino signs a checkpoint.

The connection is ``audit.sources.connect``'s (SQLite ``mode=ro``; PostgreSQL READ ONLY and
REPEATABLE READ), so the follower works with read-only credentials and never writes. Each pass is
one snapshot (``snapshot()``), ended at once so the next pass sees the new commits. Checkpoints are
read by their row id (the primary key, so a poll is one index probe, not a scan of every
checkpoint ever signed): the store inserts them under its sequencer lock, so ids grow with
positions.

Waking up: on PostgreSQL a second connection LISTENs on ``paigow_checkpoint``, which migration
0010 has the ``checkpoints`` table NOTIFY on insert (payload: the table's schema, so followers of
other schemas of the same database ignore it); without a notification (or on SQLite, which has
none) the follower polls every ``poll`` seconds. LISTEN needs no write right: it works in a
session with ``default_transaction_read_only=on``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import Any

from audit.sources import AuditUsageError, connect
from eventlog.query import LOG_QUERY

CHANNEL = "paigow_checkpoint"
_ROWS = LOG_QUERY.replace(
    " ORDER BY g.position", " WHERE g.position > {p} AND g.position <= {p} ORDER BY g.position"
)
_CHECKPOINTS = (
    "SELECT id, position, hash, signed_at, key_id, signature FROM checkpoints "
    "WHERE id > {p} ORDER BY id"
)
_CHECKPOINTS_UP_TO = (
    "SELECT id, position, hash, signed_at, key_id, signature FROM checkpoints "
    "WHERE id <= {p} ORDER BY id"
)
_HEAD_AT = "SELECT hash FROM event_log WHERE position = {p}"
_END = "SELECT max(position) FROM event_log"


class LiveLog:
    """The casino's database, read in short snapshots; ``wait()`` until something may be new."""

    def __init__(self, url: Any, poll: float, *, listen: bool = True) -> None:
        self.connection, self.mark, self.name = connect(url)
        self.postgres = self.mark == "%s"
        self.poll = poll
        self._end()  # ``connect`` opened a snapshot: each pass takes its own
        self.listener: Any = None
        self.schema: str | None = None
        if self.postgres and listen:  # without: the caller waits (audit.follow_archive)
            self._listen(url)

    def _listen(self, url: Any) -> None:
        """A second, autocommit connection that LISTENs (a notification is delivered between
        transactions only, so the reading connection cannot be the one that waits)."""
        listener, _mark, _name = connect(url)
        listener.rollback()
        listener.autocommit = True
        self.schema = listener.execute("SELECT current_schema()").fetchone()[0]
        listener.execute(f"LISTEN {CHANNEL}")
        self.listener = listener

    def _end(self) -> None:
        self.connection.rollback()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[LiveLog]:
        """One consistent view of the log for one pass."""
        if not self.postgres:
            self.connection.execute("BEGIN")
        try:
            yield self
        finally:
            self._end()

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        text = sql.format(p=self.mark)
        return [tuple(row) for row in self.connection.execute(text, params).fetchall()]

    def checkpoints_after(self, checkpoint_id: int) -> list[tuple[Any, ...]]:
        """(id, position, hash, signed_at, key_id, signature) signed after ``checkpoint_id``."""
        return self._query(_CHECKPOINTS, (checkpoint_id,))

    def checkpoints_up_to(self, checkpoint_id: int) -> list[tuple[Any, ...]]:
        return self._query(_CHECKPOINTS_UP_TO, (checkpoint_id,))

    def head_at(self, position: int) -> str | None:
        """The global hash recorded at ``position`` (None: no such position)."""
        found = self._query(_HEAD_AT, (position,))
        return str(found[0][0]) if found else None

    def head_position(self) -> int:
        """The log's last position (0: empty)."""
        return int(self._query(_END, ())[0][0] or 0)

    def rows(self, after: int, up_to: int) -> Iterator[Sequence[Any]]:
        """The log's rows at positions ``after`` < p <= ``up_to``, in position order, streamed
        (a server-side cursor on PostgreSQL: the first pass of a resumed follower reads the whole
        log)."""
        text = _ROWS.format(p=self.mark)
        if not self.postgres:
            yield from self.connection.execute(text, (after, up_to))
            return
        cursor = self.connection.cursor(name="paigow_audit_follow")
        cursor.itersize = 10_000
        try:
            cursor.execute(text, (after, up_to))
            yield from cursor
        finally:
            cursor.close()

    def wait(self, stop: Any) -> None:
        """Until a checkpoint is signed (PostgreSQL: a notification for our schema), ``poll``
        seconds at most, or ``stop()`` says to stop."""
        deadline = time.monotonic() + self.poll
        while not stop():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if self.listener is None:
                time.sleep(min(left, 0.05))
                continue
            for note in self.listener.notifies(timeout=min(left, 0.05), stop_after=1):
                if note.payload in ("", self.schema):
                    return

    def close(self) -> None:
        for connection in (self.connection, self.listener):
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()


def open_live(url: Any, poll: float, *, listen: bool = True) -> LiveLog:
    try:
        return LiveLog(url, poll, listen=listen)
    except AuditUsageError:
        raise
    except Exception as error:  # the driver's own words, on one line
        raise AuditUsageError(f"cannot follow the database: {str(error).splitlines()[0]}") from None
