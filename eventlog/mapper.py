"""The one mapper between the core and the store: a table event to its JSON form and back.

``event_to_dict`` / ``parse_event``: a table event (``table_core.events``) to the JSON-ready dict
that is its stored payload (no floats, ISO times), and back; ``time_text`` writes times as
pydantic's JSON mode does. The store persists exactly this pair, in ``envelope.NewEvent``s; the
canonical bytes and hashes of what it stores are ``eventlog.canonical``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from eventlog._speed import dumper, time_text
from table_core.errors import DomainError
from table_core.events import Event

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

__all__ = ["EventFormatError", "event_to_dict", "parse_event", "time_text"]


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
