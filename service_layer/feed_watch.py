"""Waking the feed's followers when the log grows: one watcher thread per server process, however
many followers (docs/feed.md, "Live events").

The thread reads the log's head (one cheap query) when woken and counts each change of it in
``mark``. PostgreSQL wakes it with LISTEN/NOTIFY (migration 0014 has ``event_log`` NOTIFY
``paigow_events`` at each append's commit); it still reads the head every ``fallback_s`` seconds,
since a notification is a wake-up, never a fact. SQLite and the in-memory store have no
notifications: the head is read every ``poll_s`` seconds (50 ms by default, the
``feed_poll_ms`` setting). The thread runs while someone follows and stops a few seconds after
the last one leaves.

A follower takes ``mark`` BEFORE it reads a page; if the page was not full it awaits
``changed(mark, timeout)``, which returns at once when the head moved since, so an event committed
between the read and the wait is never missed. Followers are asyncio tasks (the SSE responses):
the thread wakes them through their loops, thread-safely, one call into a loop for all of its
followers, which then wakes them one per turn of the loop (``_relay``): the followers' writes do
not hold the loop, and the commands it answers, for all of them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from adapters.logging import get_logger

log = get_logger(component="feed")

#: How long the thread outlives its last follower (seconds).
IDLE_S = 3.0
#: How long after a failed LISTEN connection another is tried (seconds).
RELISTEN_S = 5.0


class Listener(Protocol):
    def wait(self, timeout: float) -> bool:
        """Until a notification (``True``) or ``timeout`` seconds (``False``)."""
        ...

    def close(self) -> None: ...


class FeedWatch:
    """``head()``: the log's last position. ``listen()``: a new ``Listener`` (PostgreSQL), or
    ``None`` to poll every ``poll_s`` seconds."""

    def __init__(
        self,
        head: Callable[[], int],
        poll_s: float = 0.05,
        listen: Callable[[], Listener | None] | None = None,
        fallback_s: float = 1.0,
    ) -> None:
        self._head = head
        self.poll_s = poll_s
        self._listen = listen
        self.fallback_s = fallback_s
        #: Counts the changes of the head the thread saw.
        self.mark = 0
        self.last_head = -1
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[bool]]] = []
        self._lock = threading.Lock()
        self._followers = 0
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        #: Whether the thread waits on a notification now (else it polls).
        self.listening = False

    # -- followers ----------------------------------------------------------------------------

    @contextmanager
    def following(self) -> Iterator[FeedWatch]:
        """While a follower follows: the thread runs."""
        with self._lock:
            self._followers += 1
            if self._thread is None or not self._thread.is_alive():
                self._stopped.clear()
                self._thread = threading.Thread(target=self._run, name="feed-watch", daemon=True)
                self._thread.start()
        try:
            yield self
        finally:
            with self._lock:
                self._followers -= 1

    async def changed(self, mark: int, timeout: float) -> int:
        """``mark`` as it is once it passed ``mark`` (at once if it has), or after ``timeout``
        seconds, or when the watch stops."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.mark != mark or self._stopped.is_set():
                return self.mark
            future: asyncio.Future[bool] = loop.create_future()
            entry = (loop, future)
            self._waiters.append(entry)
        # A timer of the loop's own, not ``asyncio.wait_for`` (a waiter, a callback and a timer
        # more, for each follower at each wake-up).
        timer = loop.call_later(timeout, _settle, future, False)
        woken = False
        try:
            woken = await future
        finally:
            timer.cancel()
            if not woken:  # timed out or cancelled: still listed
                with self._lock:
                    if entry in self._waiters:
                        self._waiters.remove(entry)
        return self.mark

    def stop(self) -> None:
        """End the thread and wake every follower (the server is stopping)."""
        self._stopped.set()
        self._wake()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # -- the thread ---------------------------------------------------------------------------

    def _wake(self) -> None:
        """Every waiting follower, one call into each loop for all of its followers (a call
        from this thread writes to the loop's wake-up pipe: once a wake-up, not once a
        follower)."""
        with self._lock:
            waiters, self._waiters = self._waiters, []
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[bool]]] = {}
        for loop, future in waiters:
            by_loop.setdefault(loop, []).append(future)
        for loop, futures in by_loop.items():
            with contextlib.suppress(RuntimeError):  # a closed loop: its followers are gone
                loop.call_soon_threadsafe(_relay, loop, futures, 0)

    def _saw(self, head: int) -> None:
        if head != self.last_head:
            with self._lock:
                self.last_head = head
                self.mark += 1
            self._wake()

    def _read_head(self) -> None:
        try:
            self._saw(self._head())
        except Exception as error:  # the store is down: followers wait, the thread tries again
            if self._followers:
                log.warning("feed_head_unread", error=type(error).__name__)

    def _run(self) -> None:
        listener: Listener | None = None
        next_listen = 0.0
        idle_since: float | None = None
        try:
            while not self._stopped.is_set():
                with self._lock:
                    if self._followers > 0:
                        idle_since = None
                    elif idle_since is None:
                        idle_since = time.monotonic()
                    elif time.monotonic() - idle_since > IDLE_S:
                        self._thread = None
                        return
                if listener is None and self._listen is not None and time.monotonic() > next_listen:
                    try:
                        listener = self._listen()
                        self.listening = listener is not None
                    except Exception as error:
                        log.warning("feed_listen_failed", error=type(error).__name__)
                        next_listen = time.monotonic() + RELISTEN_S
                    self._read_head()  # what was appended before the LISTEN began
                if listener is None:
                    self._stopped.wait(self.poll_s)
                    self._read_head()
                    continue
                try:
                    listener.wait(self.fallback_s)
                except Exception as error:  # the connection dropped: poll until a new one
                    log.warning("feed_listen_lost", error=type(error).__name__)
                    _close(listener)
                    listener = None
                    self.listening = False
                    next_listen = time.monotonic() + RELISTEN_S
                self._read_head()
        finally:
            self.listening = False
            if listener is not None:
                _close(listener)


def _relay(loop: asyncio.AbstractEventLoop, futures: list[asyncio.Future[bool]], at: int) -> None:
    """Wake the follower at ``at``, then, in the loop's next turn, the one after it: each follower
    writes in a turn of its own, and the loop reads its sockets and the threads' answers between
    two of them, so a command whose answer comes meanwhile waits for one follower's write, not
    for twenty (the followers' CPU is the same; a follower's push waits a turn per follower
    before it)."""
    while at < len(futures):
        future = futures[at]
        at += 1
        if not future.done():  # else a follower gone (cancelled) or timed out: the next
            future.set_result(True)
            break
    if at < len(futures):
        loop.call_soon(_relay, loop, futures, at)


def _settle(future: asyncio.Future[bool], woken: bool) -> None:
    if not future.done():
        future.set_result(woken)


def _close(listener: Any) -> None:
    with contextlib.suppress(Exception):  # already broken
        listener.close()
