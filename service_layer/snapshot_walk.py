"""The verified walk of the log from a trusted checkpoint to its head (issue 22).

A restart from snapshots checks the chain as the start check does, but only after the position
it trusts (a signed checkpoint whose hash the log's event there has): positions dense from it,
each event's hash and global hash recomputed from the stored bytes, each stream's version and
``prev_hash`` following on from the head already known, every checkpoint in the range equal to the
chain at its position and signed by the store's key. A stream first met in the range (the
``system`` stream, whose head before it is not known here) is taken as its first row says: that
row's ``prev_hash`` is inside its own hash, which the global chain from the trusted head covers.

The tables' events are folded on the way into the states given (a table first met at version 1
starts from an empty state); the walk returns the heads it ends with, so the next walk (the next
snapshot's) starts where this one stopped. Anything that does not hold raises ``WalkBroken``; the
caller lets the full verifier name it (``store.verify()``), as the replay does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.store.sql import SELECT_LOG
from eventlog.canonical import GENESIS_HASH, event_hash, global_hash
from eventlog.keys import checkpoint_signature_holds
from eventlog.system_events import SYSTEM_STREAM
from service_layer.held_tables import table_events
from table_core.ports import RecordedEvent
from table_core.table import TableState, fold

PAGE = 5_000
CHECKPOINTS_AFTER = (
    "SELECT position, hash, signed_at, key_id, signature FROM checkpoints "
    "WHERE position > ? ORDER BY position, id"
)


class WalkBroken(Exception):
    """A row or checkpoint of the walked range does not hold."""


@dataclass
class Walked:
    """Where a walk stands: the last position and global hash verified, each stream's head
    (version, hash) as far as known, and the tables' states folded (with their last event)."""

    position: int = 0
    hash: str = GENESIS_HASH
    heads: dict[str, tuple[int, str]] = field(default_factory=dict)
    states: dict[str, TableState] = field(default_factory=dict)
    last: dict[str, RecordedEvent] = field(default_factory=dict)
    #: How many table events this walk has folded (after the snapshots: the tail).
    folded: int = 0
    #: Snapshots to take up when the walk passes their position: (table, stream hash, state,
    #: the table's event it ends with), by position.
    installs: dict[int, list[tuple[str, str, TableState, RecordedEvent]]] = field(
        default_factory=dict
    )

    def install(
        self, position: int, table_id: str, stream_hash: str, state: TableState,
        last: RecordedEvent,
    ) -> None:  # fmt: skip
        """A table's snapshot at ``position``: its head and state from there on."""
        self.installs.setdefault(position, []).append((table_id, stream_hash, state, last))
        if position == self.position:
            self._take_up(position, {})

    def _take_up(self, position: int, pending: dict[str, list[RecordedEvent]]) -> None:
        for table_id, stream_hash, state, last in self.installs.pop(position, ()):
            head = self.heads.get(table_id)
            if head is not None and head != (state.version, stream_hash):
                raise WalkBroken(f"table {table_id}: its snapshot is not the chain's head")
            self.heads[table_id] = (state.version, stream_hash)
            self.states[table_id] = state
            self.last[table_id] = last
            dropped = pending.pop(table_id, None)  # events up to the snapshot: it holds them
            self.folded -= len(dropped or ())


def walk(store: Any, at: Walked, *, until: int | None = None, folding: bool = True) -> Walked:
    """Verify the log after ``at.position`` (through ``until``, else to the head), folding the
    tables' events into ``at.states`` when ``folding``; ``at`` is moved on and returned."""
    with store._connection() as conn:
        store._sequence_pass(conn, None)  # PostgreSQL: position what a legacy writer left
        marks = _checkpoints(conn, store, at.position, until)
        pending: dict[str, list[RecordedEvent]] = {}
        for row in _pages(conn, store, at.position, until):
            _check_row(row, at)
            position, digest = row[0], row[13]
            for mark in marks.pop(position, ()):
                if mark[1] != digest:
                    raise WalkBroken(f"the checkpoint at {position} is not the chain's head there")
            if folding and row[1] != SYSTEM_STREAM:
                _collect(store, row, at, pending)
            if position in at.installs:
                at._take_up(position, pending)
    if marks or at.installs:
        past = min(marks or at.installs)
        raise WalkBroken(f"a checkpoint or snapshot past the end of the log (at {past})")
    for table_id, events in pending.items():
        if not events:
            continue
        try:  # a whole page of a table folded at once: the core's fold is fastest that way
            at.states[table_id] = fold(table_events(events), at.states.get(table_id, TableState()))
        except Exception as error:  # an event the core cannot fold is no table we can hold
            raise WalkBroken(f"table {table_id}: {error}") from error
        at.last[table_id] = events[-1]
    return at


def _pages(conn: Any, store: Any, after: int, until: int | None) -> Iterator[Sequence[Any]]:
    """Log rows after ``after`` (through ``until``), position order, in pages (keyset)."""
    while True:
        page = conn.execute(store.sql(SELECT_LOG), (after, PAGE)).fetchall()
        for row in page:
            if until is not None and row[0] > until:
                return
            yield row
        if len(page) < PAGE:
            return
        after = page[-1][0]


def _checkpoints(conn: Any, store: Any, after: int, until: int | None) -> dict[int, list[Any]]:
    """The checkpoints after ``after`` (through ``until``) by position, each signature checked
    (every one, as the start check does: the range is short)."""
    marks: dict[int, list[Any]] = {}
    for row in conn.execute(store.sql(CHECKPOINTS_AFTER), (after,)):
        position, digest, signed_at, _key_id, signature = row
        if until is not None and position > until:
            continue
        if store.public_key is None or not checkpoint_signature_holds(
            store.public_key, signature, position, digest, signed_at
        ):
            raise WalkBroken(f"the checkpoint at {position} is not signed by the store's key")
        marks.setdefault(position, []).append(tuple(row))
    return marks


def _check_row(row: Sequence[Any], at: Walked) -> None:
    """One row against the heads verified before it; the heads move on to it."""
    try:
        (position, stream, version, kind, schema, payload, recorded_at, actor_id, role, command,
         prev, digest, global_prev, global_digest) = row  # fmt: skip
        head = at.heads.get(stream)
        if position != at.position + 1 or global_prev != at.hash:
            raise WalkBroken(f"position {position}: the global chain does not follow on")
        if head is not None and (version != head[0] + 1 or prev != head[1]):
            raise WalkBroken(f"position {position}: stream {stream} does not follow on")
        if digest != event_hash(prev, stream, version, kind, schema, recorded_at, actor_id, role,
                                command, payload):  # fmt: skip
            raise WalkBroken(f"position {position}: the event's hash does not hold")
        if global_digest != global_hash(global_prev, position, digest):
            raise WalkBroken(f"position {position}: the global hash does not hold")
    except (TypeError, ValueError, AttributeError, UnicodeError) as error:
        raise WalkBroken(f"a malformed row: {error}") from error
    at.heads[stream] = (version, digest)
    at.position, at.hash = position, global_digest


def _collect(
    store: Any, row: Sequence[Any], at: Walked, pending: dict[str, list[RecordedEvent]]
) -> None:
    """Keep a table's event for folding: after its snapshot, or from its first event."""
    stream, version = row[1], row[2]
    events = pending.get(stream)
    if events is None:
        held = at.states.get(stream)
        expected = 1 if held is None else held.version + 1
        if version != expected:
            return  # a table whose earlier events are before the walk and not held: not folded
        events = pending[stream] = []
    events.append(store._reader.event(row))
    at.folded += 1
    if len(events) >= PAGE:  # bounded memory: fold a long run now
        at.states[stream] = fold(table_events(events), at.states.get(stream, TableState()))
        at.last[stream] = events[-1]
        events.clear()
