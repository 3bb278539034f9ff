"""Is a request the one its ``Idempotency-Key`` was first used for? (issue 17; the IETF
Idempotency-Key draft, section 2.7: a key reused for a different request is refused with 422.)

Nothing about the first request is stored beyond its events, and nothing needs to be: the core is
pure. Given the table as it stood before the key's events, the same route with the same body, the
same actor and role, at the events' time, decides exactly those events; another route, body or
role decides others (or is refused). A deal or dice the service drew from its own source cannot be
drawn again: for those the kind of event, its source and the actor must match.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from eventlog.mapper import to_new_event
from service_layer.held_tables import table_events
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.ports import EventStore, RecordedEvent
from table_core.table import decide, fold

#: The first event an electronic deal or roll records.
_DRAWN = {"deal": "stacks_dealt", "dice": "dice_rolled"}


def other_request(
    store: EventStore,
    table_id: str,
    records: list[RecordedEvent],
    build: Callable[[Actor, datetime], c.Command] | None,
    actor: Actor,
    electronic: str | None,
) -> str | None:
    """Why this request is not the one that recorded ``records`` (its key's events on this
    table), or ``None`` when it is."""
    first = records[0]
    if (first.actor.id, first.actor.role) != (actor.id, actor.role):
        return f"first by {first.actor.id} as {first.actor.role}, now {actor.id} as {actor.role}"
    if electronic is not None:
        drawn = _DRAWN[electronic]
        if first.type != drawn or first.payload.get("source", "electronic") != "electronic":
            return f"it recorded {first.type}, this route records {drawn}"
        return None
    assert build is not None
    before = [r for r in store.read_stream(table_id) if r.version < first.version]
    state = fold(table_events(before))
    try:
        decided = [to_new_event(e) for e in decide(state, build(actor, first.at))]
    except DomainError:
        return "this request would have been refused where the first one was recorded"
    if [(e.type, e.payload) for e in decided] != [(r.type, r.payload) for r in records]:
        kinds = ", ".join(r.type for r in records)
        return f"it recorded {kinds}; this route and body record something else"
    return None
