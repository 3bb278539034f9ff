"""PostgreSQL behind a failover (deploy/ha/README.md): a lost connection is the store unavailable.

When the primary dies, every pooled connection to it is dead and, until the standby is promoted,
no new one reaches a read-write server (the URL's ``target_session_attrs=read-write`` refuses a
standby). The store turns those errors into :class:`~table_core.ports.StoreUnavailable`, drops the
whole pool (its connections all went to the dead server: each would fail once more), and retries
the operation for ``retry_s`` seconds, reconnecting each time: an append retried with its command
id either finds its events recorded (the first try committed on the primary and its standby before
the crash, only the answer was lost) or writes them once. Past the deadline, the caller gets
``StoreUnavailable`` (HTTP: 503 with ``Retry-After``).

An error is a lost connection when the connection is broken or closed afterwards, when the server
said so (class 08 connection exceptions, 57P01-57P03 shutdowns and "cannot connect now"), when a
connection reached a server that is read-only now (25006, a demoted primary) or when no server
could be connected at all. Anything else (a unique violation, a bad statement) is the store's
usual error and passes through unchanged.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from adapters.logging import get_logger
from adapters.store.primary import PrimaryWatch, server_of
from table_core.ports import StoreUnavailable

T = TypeVar("T")
log = get_logger(component="store")

#: SQLSTATEs that say the server is going, gone, or cannot take writes (psycopg names them).
_LOST_STATES = frozenset({"57P01", "57P02", "57P03", "25006"})
#: How long to wait between attempts: doubling from the first to the last value.
_FIRST_PAUSE_S = 0.05
_LONGEST_PAUSE_S = 0.5


def connection_lost(error: BaseException, conn: Any = None) -> bool:
    """Whether ``error`` means the database connection (or every server) is gone."""
    import psycopg

    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        error = error.orig if error.orig is not None else error
    if conn is not None and (getattr(conn, "broken", False) or getattr(conn, "closed", False)):
        return isinstance(error, psycopg.Error)
    if not isinstance(error, psycopg.Error):
        return False
    state = error.sqlstate
    if state is None:  # raised by the client: connect refused, connection closed or lost
        return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)
    return state.startswith("08") or state in _LOST_STATES


def unavailable(error: BaseException) -> StoreUnavailable:
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return StoreUnavailable(f"no database primary is reachable now: {first}")


@contextlib.contextmanager
def pooled_connection(engine: Engine, watch: PrimaryWatch | None = None) -> Iterator[Any]:
    """A pooled DBAPI connection; a lost connection raises ``StoreUnavailable`` and drops the
    pool (a new one connects afresh, to the primary of the moment). ``watch`` hears of the loss
    (adapters/store/primary.py)."""
    try:
        pooled = engine.raw_connection()
    except Exception as error:  # the pool raises the driver's own error when it cannot connect
        if connection_lost(error):
            if watch is not None:
                watch.lost(None)
            raise unavailable(error) from error
        raise
    conn = pooled.driver_connection
    if watch is not None:
        watch.seen(server_of(conn))
    try:
        yield conn
    except Exception as error:
        if not connection_lost(error, conn):
            raise
        if watch is not None:
            watch.lost(server_of(conn))
        pooled.invalidate()
        # Every idle connection went to the same server: drop them (those checked out by other
        # threads are closed when returned). The pool's events carry over to the new pool.
        engine.dispose()
        raise unavailable(error) from error
    finally:
        pooled.close()


#: Seconds an operation whose connection was lost is retried when the caller names none: the
#: ``db_retry_s`` setting's default (adapters/settings.py).
DEFAULT_RETRY_S = 2.0


def retrying(operation: Callable[[], T], retry_s: float, what: str) -> T:
    """``operation()``, tried again on ``StoreUnavailable`` until ``retry_s`` seconds have passed
    (then the last ``StoreUnavailable`` is raised). The operation must be safe to repeat: a read,
    or an append by command id."""
    deadline = time.monotonic() + retry_s
    pause = _FIRST_PAUSE_S
    attempts = 0
    while True:
        try:
            found = operation()
        except StoreUnavailable as error:
            attempts += 1
            if attempts == 1:
                log.warning("store_connection_lost", operation=what, error=str(error))
            if time.monotonic() + pause > deadline:
                log.warning("store_unavailable", operation=what, attempts=attempts)
                raise
            time.sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE_S)
            continue
        if attempts:
            log.info("store_reconnected", operation=what, attempts=attempts + 1)
        return found
