"""The one mapper between the core and the store: a table event to its JSON form and back.

``event_to_dict`` / ``parse_event``: a table event (``table_core.events``) to the JSON-ready dict
that is its stored payload (no floats, ISO times), and back; ``time_text`` writes times as
pydantic's JSON mode does. ``to_new_event``: the core's event as the store takes it, that payload
in an ``envelope.NewEvent`` (the command path and batches alike); the canonical bytes and hashes of
what the store keeps are ``eventlog.canonical``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from eventlog._speed import dumper, time_text
from eventlog.envelope import NewEvent
from table_core.errors import DomainError
from table_core.events import Event

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

__all__ = ["EventFormatError", "event_to_dict", "parse_event", "time_text", "to_new_event"]


class EventFormatError(DomainError):
    """A stored payload that is not a valid event of this schema."""


def parse_event(data: Mapping[str, Any]) -> Event:
    """Read an event back from ``event_to_dict``'s form (or any JSON-decoded equivalent)."""
    try:
        return _ADAPTER.validate_python(dict(data))
    except ValidationError as error:
        kind = data.get("type", "?")
        raise EventFormatError(f"not a valid {kind} event: {error}") from error


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready dict: ints for money, card text, ISO-8601 times with their offset; exactly
    ``event.model_dump(mode="json")`` (built by ``_speed.dumper``: why, and its guard tests)."""
    return dumper(type(event))(event)


def to_new_event(event: Event) -> NewEvent:
    """A domain event as the store records it: the whole event is the payload, readable alone.

    The payload is pydantic's JSON-mode dump of a model the core validated (string keys, lists,
    integers for money), so the envelope does not walk it again (``serialized``); the store still
    scans the bytes it writes for floats and out-of-range integers. The event's actor is the
    store's (one ``Actor`` type)."""
    return NewEvent(
        type=event.type,
        schema_version=event.schema_version,
        payload=event_to_dict(event),
        actor=event.actor,
        at=event.at,
        serialized=True,
    )
