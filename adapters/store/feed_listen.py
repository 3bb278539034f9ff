"""PostgreSQL's wake-up for the event feed: a connection of its own that LISTENs on
``paigow_events``, which migration 0014 has ``event_log`` NOTIFY at each append's commit (payload:
the schema, so the appends of other schemas of the same database are ignored).

The connection is taken from the store's engine and detached from its pool (same server, same
search path, no pool slot held); it is autocommit, since a notification is delivered between
transactions only. LISTEN needs no right on any table.
"""

from __future__ import annotations

from typing import Any

CHANNEL = "paigow_events"
#: How long the notifications after a first one are gathered into one wake-up (seconds).
COALESCE_S = 0.04


class PgListener:
    def __init__(self, engine: Any) -> None:
        pooled = engine.raw_connection()
        self.connection = connection = pooled.driver_connection  # before: detached, it is gone
        pooled.detach()
        self._pooled = pooled
        if not connection.autocommit:
            connection.rollback()
            connection.autocommit = True
        self.schema = connection.execute("SELECT current_schema()").fetchone()[0]
        connection.execute(f"LISTEN {CHANNEL}")

    def wait(self, timeout: float) -> bool:
        """Until a notification for this schema (``True``) or ``timeout`` seconds. The
        notifications that follow within ``COALESCE_S`` are taken with it: the appends of a busy
        casino wake the followers at most about twenty-five times a second, not once a commit
        each (every wake costs each follower a write), for 40 ms more delay at most, as SQLite's
        polling every 50 ms does (the push stays well within its 100 ms)."""
        # Each ``notifies`` holds the connection's lock until it ends: never one inside another.
        notes = list(self.connection.notifies(timeout=timeout, stop_after=1))
        if not any(note.payload in ("", self.schema) for note in notes):
            return False
        for _ in self.connection.notifies(timeout=COALESCE_S):
            pass
        return True

    def close(self) -> None:
        self.connection.close()


def listener_for(store: Any) -> Any:
    """A factory of ``PgListener`` for a PostgreSQL store; ``None`` for any other (poll)."""
    if getattr(store, "dialect", "") != "postgresql":
        return None
    engine = store.engine
    return lambda: PgListener(engine)
