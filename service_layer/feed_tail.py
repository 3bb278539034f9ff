"""The log's latest rows, read once for every live follower of the server process (docs/feed.md,
"Live events").

Twenty followers at the head would otherwise each read the same new events from the database at
every commit (three statements a page). The feed's watcher (``feed_watch.py``) calls
``refresh()`` when the log grows: it reads the rows after the last it holds, and the checkpoints
signed since, once; ``page(after, limit, scope)`` then answers a follower from memory, exactly as
``Feed.page`` would from the database (the same rows, seals and withheld cards), or ``None`` when
``after`` is outside what it holds (a follower catching up reads the database) or when it was not
refreshed for ``STALE_S`` seconds (a watcher stuck or gone must not stall the followers).

Followers at the head ask for the same page: each wake-up, every one of them is after the same
position with the same scope (an auditor's twenty consumers, say). A page is built once per
``(after, limit, scope)`` until the next refresh that changes what is held, and the same
``FeedPage`` object is given to each of them (its events are shared and never changed), so the
SSE routes can write its text once too (entrypoints/http/feed_routes.py).

What it holds is contiguous: every row from ``base`` (exclusive) to ``last``, read in position
order, so "no round mark after this event up to ``last``" is "the round is open as of ``last``",
and ``next_after`` of a page that is not full is ``last``. At most ``capacity`` rows are kept (the
oldest go first); a watcher that comes back after the log grew past that starts afresh at the
head (followers behind it read the database until they reach it).
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Sequence
from typing import Any

from service_layer.feed import ROUND_MARKS, SECRET_TYPES, FeedPage, FeedScope, event_line, render

#: Rows read per statement while the tail catches up.
_READ = 1000
#: Pages kept for the followers that ask for them again before the next change (a bound: a
#: follower asks one page at a time, so this many followers at distinct positions at most).
_PAGES_KEPT = 256
#: A tail not refreshed for this long is not trusted (its watcher is stuck or gone): pages are
#: read from the database instead (seconds; the watcher reads the head every second at least).
STALE_S = 3.0


class FeedTail:
    def __init__(self, store: Any, capacity: int = 20_000, stale_s: float = STALE_S) -> None:
        self.store = store
        self.capacity = capacity
        self.stale_s = stale_s
        self.base: int | None = None  # the position before the first row held; None: empty
        self.last = 0
        self._positions: list[int] = []
        self._rows: list[Sequence[Any]] = []
        self._seals: list[int] = []  # checkpoint positions after ``base``, sorted
        self._seal_cursor = 0  # checkpoints are read after this position
        self._marks: dict[str, int] = {}  # stream -> position of its last round mark held
        # position -> (sealed_by, round over, event, payload, line): each event is written once
        # for every follower, again only when its seal or its withheld cards change.
        self._written: dict[int, tuple[Any, bool, dict[str, Any], str, str]] = {}
        # (after, limit, scope) -> the page built for it since the last change of what is held.
        self._pages: dict[tuple[int, int, FeedScope], FeedPage] = {}
        self._lock = threading.Lock()
        self.refreshed_at = 0.0  # time.monotonic() of the last refresh

    def refresh(self) -> int:
        """Read what was appended since; the last position held (the watcher's head)."""
        started = time.monotonic()
        head = int(self.store.feed_head())
        if self.base is None or head - self.last > self.capacity:
            with self._lock:  # start afresh at the head
                self.base = self.last = self._seal_cursor = head
                self._positions, self._rows, self._seals, self._marks = [], [], [], {}
                self._written, self._pages = {}, {}
                self.refreshed_at = started
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
            if new or seals:  # a page built before may no longer be what the log says
                self._pages = {}
            self._trim()
            self.refreshed_at = started
            return self.last

    def _trim(self) -> None:
        extra = len(self._rows) - self.capacity
        if extra <= self.capacity // 2:  # trimmed now and then, not at every row
            return
        self.base = self._positions[extra - 1]
        del self._positions[:extra], self._rows[:extra]
        del self._seals[: bisect.bisect_right(self._seals, self.base)]
        self._written = {p: w for p, w in self._written.items() if p > self.base}

    def page(self, after: int, limit: int, scope: FeedScope) -> FeedPage | None:
        """The events of ``scope`` after ``after``, from memory; ``None`` when ``after`` is not
        within what is held."""
        with self._lock:
            if self.base is None or not self.base <= after <= self.last:
                return None
            if time.monotonic() - self.refreshed_at > self.stale_s:
                return None
            key = (after, limit, scope)
            page = self._pages.get(key)
            if page is None:
                if len(self._pages) >= _PAGES_KEPT:
                    self._pages = {}
                page = self._pages[key] = self._build(after, limit, scope)
            return page

    def _build(self, after: int, limit: int, scope: FeedScope) -> FeedPage:
        """The page of ``scope`` after ``after`` (held), from the rows. Under the lock."""
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
        events, payloads, lines = [], [], []
        for row in rows:
            written = self._write(row)
            events.append(written[2])
            payloads.append(written[3])
            lines.append(written[4])
        return FeedPage(events, next_after, self.last, full, payloads, lines)

    def _write(self, row: Sequence[Any]) -> tuple[Any, bool, dict[str, Any], str, str]:
        """The event of ``row`` as ``render`` makes it, and its line; kept until its seal or
        its round's state changes. Under the lock."""
        position = row[0]
        at = bisect.bisect_left(self._seals, position)
        sealed_by = self._seals[at] if at < len(self._seals) else None
        over = row[3] in SECRET_TYPES and self._marks.get(row[1], 0) > position
        written = self._written.get(position)
        if written is None or written[0] != sealed_by or written[1] != over:
            events, payloads = render([row], self._seals, lambda _row, _round: over)
            line = event_line(events[0], payloads[0])
            written = self._written[position] = (sealed_by, over, events[0], payloads[0], line)
        return written
