"""Which server is the primary, and the failovers this process has seen (issue 23).

The PostgreSQL store's connections go to whichever server the URL's ``target_session_attrs``
picks (``read-write``: the primary). :class:`PrimaryWatch` follows it from two signals:

- every NEW connection (SQLAlchemy's ``connect`` event, and the first connection used) names
  its server, ``host:port`` (never a user or password);
- a lost connection (adapters/store/failover.py) names the server it was connected to (or none
  when no server could be connected at all): the primary is gone, since that moment.

A new connection to another server than the last primary is a failover: counted
(``paigow_store_failovers_total`` in ``/metrics``), logged (``store_failover``: from, to, seconds
without a primary) and kept (:meth:`PrimaryWatch.state`) for ``/ready``, which says "no primary:
failover in progress since …, last primary host:port" while it lasts and names the new primary and
when the failover happened after. The same server back (a restart, a network cut) ends the outage
without a failover. A lost connection to a server that is no longer the primary (a pooled
connection to the old one, noticed late) changes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from adapters.logging import get_logger
from eventlog.canonical import format_time

log = get_logger(component="store")


def several_hosts(url: Any) -> bool:
    """Whether a SQLAlchemy URL names more than one server (``?host=a:1&host=b:2``)."""
    hosts = url.query.get("host", ())
    return len(hosts) > 1 if isinstance(hosts, tuple) else "," in str(hosts)


def server_of(conn: Any) -> str | None:
    """``host:port`` of a psycopg connection's server (``None`` when it cannot say)."""
    try:
        info = conn.info
        return f"{info.host}:{info.port}"
    except Exception:  # a closed or broken connection
        return None


class PrimaryWatch:
    """``failover``: the URL names several servers, so a lost primary means one is under way
    (with one server, :meth:`reason` leaves the store's own error to say what happened)."""

    def __init__(self, failover: bool = True, clock: Callable[[], datetime] | None = None) -> None:
        self.failover = failover
        self._clock = clock or (lambda: datetime.now(UTC))
        self._lock = threading.RLock()  # reason_and_state takes both under one hold
        self.primary: str | None = None
        self.lost_at: datetime | None = None  # set while there is no primary
        self.lost_primary: str | None = None
        self.failovers = 0
        self.last: dict[str, Any] | None = None  # the last failover, as /ready shows it

    def connected(self, server: str | None) -> None:
        """A new connection (to the primary of the moment: the URL asks for one)."""
        if server is None:
            return
        with self._lock:
            before, lost_at = self.primary, self.lost_at
            self.primary, self.lost_at = server, None
            if before is None or server == before:
                return
            now = self._clock()
            since = lost_at or now
            self.failovers += 1
            self.last = {
                "since": format_time(since),
                "recovered_at": format_time(now),
                "last_primary": before,
                "primary": server,
            }
        log.warning(
            "store_failover",
            last_primary=before,
            primary=server,
            seconds=round((now - since).total_seconds(), 3),
        )

    def seen(self, server: str | None) -> None:
        """A connection in use: names the primary when none is known yet."""
        if self.primary is None:
            self.connected(server)

    def lost(self, server: str | None) -> None:
        """A connection to ``server`` (``None``: no server could be reached) was lost."""
        with self._lock:
            if self.lost_at is not None or self.primary is None:
                return
            if server is not None and server != self.primary:
                return  # a connection to an earlier primary, noticed late
            self.lost_at = self._clock()
            self.lost_primary = self.primary

    @property
    def in_progress(self) -> bool:
        return self.lost_at is not None

    def reason(self) -> str | None:
        """Why there is no primary (``None``: there is one, as far as this process knows)."""
        with self._lock:
            if self.lost_at is None or not self.failover:
                return None
            return (
                f"no primary: failover in progress since {format_time(self.lost_at)}, "
                f"last primary {self.lost_primary}"
            )

    def reason_and_state(self) -> tuple[str | None, dict[str, Any]]:
        """``reason()`` and ``state()`` of one moment (``/ready`` shows both: they agree)."""
        with self._lock:
            return self.reason(), self.state()

    def state(self) -> dict[str, Any]:
        """``/ready``'s ``failover`` field: in progress (since, the last primary) or the last one
        seen (since, recovered_at, last_primary, primary), and how many this process saw."""
        with self._lock:
            if self.lost_at is not None:
                found: dict[str, Any] = {
                    "in_progress": True,
                    "since": format_time(self.lost_at),
                    "recovered_at": None,
                    "last_primary": self.lost_primary,
                    "primary": None,
                }
            elif self.last is not None:
                found = {"in_progress": False, **self.last}
            else:
                found = {
                    "in_progress": False,
                    "since": None,
                    "recovered_at": None,
                    "last_primary": None,
                    "primary": self.primary,
                }
            return found | {"count": self.failovers}
