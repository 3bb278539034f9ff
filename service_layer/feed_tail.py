"""The log's latest rows, read once for every live follower of the server process (docs/feed.md,
"Live events").

Twenty followers at the head would otherwise each read the same new events from the database at
every commit (three statements a page). The feed's watcher (``feed_watch.py``) calls
``refresh()`` when the log grows: it reads the rows after the last it holds, and the checkpoints
signed since, once; ``page(after, limit, scope)`` then answers a follower from memory, exactly as
``Feed.page`` would from the database (the same rows, seals and withheld cards), or ``None`` when
``after`` is outside what it holds (a follower catching up reads the database).

What it holds is contiguous: every row from ``base`` (exclusive) to ``last``, read in position
order, so "no round mark after this event up to ``last``" is "the round is open as of ``last``",
and ``next_after`` of a page that is not full is ``last``. At most ``capacity`` rows are kept (the
oldest go first); a watcher that comes back after the log grew past that starts afresh at the
head (followers behind it read the database until they reach it).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from service_layer.feed import ROUND_MARKS, FeedPage, FeedScope, render

#: Rows read per statement while the tail catches up.
_READ = 1000


class FeedTail:
    def __init__(self, store: Any, capacity: int = 20_000) -> None:
        self.store = store
        self.capacity = capacity
        self.base: int | None = None  # the position before the first row held; None: empty
        self.last = 0
        self._positions: list[int] = []
        self._rows: list[Sequence[Any]] = []
        self._seals: list[int] = []  # checkpoint positions after ``base``, sorted
        self._seal_cursor = 0  # checkpoints are read after this position
        self._marks: dict[str, int] = {}  # stream -> position of its last round mark held
        self._lock = threading.Lock()

    def refresh(self) -> int:
        """Read what was appended since; the last position held (the watcher's head)."""
        head = int(self.store.feed_head())
        if self.base is None or head - self.last > self.capacity:
            with self._lock:  # start afresh at the head
                self.base = self.last = self._seal_cursor = head
                self._positions, self._rows, self._seals, self._marks = [], [], [], {}
            return head
        new: list[Sequence[Any]] = []
        after = self.last
        while after < head:
            rows = self.store.feed_rows(after, _READ)
            if not rows:
                break
            new += rows
            after = rows[-1][0]
        seals: list[int] = []
        cursor = self._seal_cursor
        while True:
            found = self.store.checkpoints_after(cursor, _READ)
            seals += [int(c[0]) for c in found]
            if len(found) < _READ:
                break
            cursor = int(found[-1][0])
        with self._lock:
            for row in new:
                self._positions.append(row[0])
                self._rows.append(row)
                if row[3] in ROUND_MARKS:
                    self._marks[row[1]] = row[0]
            if new:
                self.last = new[-1][0]
            for seal in seals:
                if seal > self._seal_cursor:
                    self._seals.append(seal)
                    self._seal_cursor = seal
            self._trim()
            return self.last

    def _trim(self) -> None:
        extra = len(self._rows) - self.capacity
        if extra <= self.capacity // 2:  # trimmed now and then, not at every row
            return
        self.base = self._positions[extra - 1]
        del self._positions[:extra], self._rows[:extra]
        del self._seals[: bisect.bisect_right(self._seals, self.base)]

    def page(self, after: int, limit: int, scope: FeedScope) -> FeedPage | None:
        """The events of ``scope`` after ``after``, from memory; ``None`` when ``after`` is not
        within what is held."""
        with self._lock:
            if self.base is None or not self.base <= after <= self.last:
                return None
            rows: list[Sequence[Any]] = []
            start = bisect.bisect_right(self._positions, after)
            admits = scope.admits
            for row in self._rows[start:]:
                if admits(row[1], row[3]):
                    rows.append(row)
                    if len(rows) >= limit:
                        break
            full = len(rows) >= limit
            next_after = rows[-1][0] if full else self.last
            marks = self._marks
            events, payloads = render(
                rows, self._seals, lambda row, _round: marks.get(row[1], 0) > row[0]
            )
            return FeedPage(events, next_after, self.last, full, payloads)
