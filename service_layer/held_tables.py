"""The tables a service holds in memory: each the fold of its committed events, caught up with
the store by reading only the events after the version held (recorded events never change).

A table is marked stale when the store showed it behind (another process appended to it): it is
caught up on its next use. Request threads share what is held, and the state held for a table
never goes back to an older version.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

from eventlog.mapper import parse_event
from eventlog.verifier import Finding
from table_core.events import Event
from table_core.ports import (
    ConcurrencyError,
    EventStore,
    LogRewritten,
    RecordedEvent,
    TamperDetected,
    UntaggedEvents,
)
from table_core.table import TableState, fold


def table_events(recorded: Sequence[RecordedEvent]) -> list[Event]:
    """Domain events from their records (the store has already upcast old schema versions)."""
    return [parse_event(dict(r.payload)) for r in recorded]


class HeldTables:
    """The states held for ``store``'s tables, by table id."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._tables: dict[str, TableState] = {}
        #: Tables held in memory that the store showed to be behind: caught up on next use.
        self._stale: set[str] = set()
        self._keeping = threading.Lock()  # request threads share the tables held in memory
        #: Each held table's last event as read or written here: its global position and time
        #: (R4: the service checks that a table's next event is not earlier, or a clock step
        #: recorded after it).
        self._last: dict[str, tuple[int, datetime]] = {}
        #: The store's memory of the heads it saw (a SQL store's, adapters/store/heads_seen.py):
        #: told of what the service holds, so that an append notices a cut or rewrite of it.
        self._seen = getattr(store, "seen", None)

    def refresh(self, table_id: str) -> TableState:
        """The table as the store holds it now: the state in memory plus the events after its
        version, folded (recorded events never change, so nothing before them is read again);
        the whole stream when nothing is held."""
        self._stale.discard(table_id)  # before the read: a mark made during it is kept
        held = self._tables.get(table_id)
        after = 0 if held is None else held.version
        events = self.store.read_stream(table_id, after)
        if not events:
            return held if held is not None else self.keep(table_id, fold([]))
        try:
            # Issue 17: fold nothing a holder of the key did not append (an insider's INSERT,
            # with or without a place in the global log).
            self._positioned(table_id, events)
            self.store.verify_tags(table_id, after)
        except TamperDetected:
            self._stale.add(table_id)
            raise
        return self.keep(table_id, fold(table_events(events), held), events[-1])

    def _positioned(self, table_id: str, events: Sequence[RecordedEvent]) -> None:
        """Every event read has its global position: the store gives one in the same transaction
        as the event (and positions a legacy writer's queue before it answers a read), so an
        event without one was INSERTed behind its back, outside any checkpoint's reach."""
        for index, event in enumerate(events):
            if event.position is None:
                before = max((e.position or 0 for e in events[:index]), default=0)
                last = self._last.get(table_id)
                position = max(before, last[0] if last else 0) + 1
                raise UntaggedEvents(
                    f"an event the store did not append: stream {table_id!r} version "
                    f"{event.version} has no global position; nothing was folded",
                    Finding(
                        position,
                        table_id,
                        event.version,
                        "unpositioned",
                        "an event with no global position: inserted behind the store's back",
                    ),
                )

    def went_back(self, conflict: ConcurrencyError, state: TableState) -> None:
        """A version conflict whose stream is now BEHIND the version this service holds (read
        or written by it) is no other writer's doing: its events were cut. ``LogRewritten``
        naming the position of the last event held (the service then refuses, never 409)."""
        if conflict.actual_version >= state.version:
            return
        last = self._last.get(conflict.stream_id)
        position = last[0] if last else 0
        self._stale.add(conflict.stream_id)
        raise LogRewritten(
            f"stream {conflict.stream_id!r} went back from version {state.version} to "
            f"{conflict.actual_version}; nothing was written",
            Finding(
                position,
                conflict.stream_id,
                state.version,
                "rewound",
                f"stream {conflict.stream_id!r} was at version {state.version} (position "
                f"{position}) and is now at {conflict.actual_version}: its events after version "
                f"{conflict.actual_version} were cut",
            ),
        )

    def current(self, table_id: str) -> TableState:
        """What commands decide on: the state in memory, caught up first only when the store
        showed it stale (otherwise the store's version check at the append is the test)."""
        held = self._tables.get(table_id)
        if held is None or table_id in self._stale:
            return self.refresh(table_id)
        return held

    def keep(
        self, table_id: str, state: TableState, last: RecordedEvent | None = None
    ) -> TableState:
        """Hold ``state`` unless a newer one is held already (a reader catching up and a command
        finishing may cross): the state held never goes back. ``last``: the recorded event that
        state ends with. Returns the state held."""
        with self._keeping:
            held = self._tables.get(table_id)
            if held is not None and held.version > state.version:
                return held
            self._tables[table_id] = state
            if last is not None:
                self._last[table_id] = (last.position, last.at)
                if self._seen is not None and last.position is not None:
                    self._seen.saw_stream(table_id, last.version, last.hash, last.position)
            return state

    def held(self) -> dict[str, TableState]:
        """Every table held now, by id (a copy: the snapshots' taker reads it beside requests)."""
        with self._keeping:
            return dict(self._tables)

    def last_event(self, table_id: str) -> tuple[int, datetime] | None:
        """The global position and time of the table's last event held (``None``: none)."""
        return self._last.get(table_id)

    def mark_stale(self, table_id: str) -> None:
        """The store showed this table behind (another writer moved it on): catch up next time."""
        self._stale.add(table_id)

    def forget(self, table_id: str) -> None:
        """Hold nothing for this table (an id nobody opened: keep no empty state in memory)."""
        with self._keeping:
            self._tables.pop(table_id, None)
            self._last.pop(table_id, None)
        self._stale.discard(table_id)
