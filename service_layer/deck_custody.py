"""A table's decks as people read them (R20): the custody record and a deck's timeline, for
``paigow deck list|show`` and ``GET /tables/{table_id}/decks``."""

from __future__ import annotations

from typing import Any

from table_core.ports import RecordedEvent
from table_core.table.state import Deck

#: The envelope fields a timeline entry shows in its own words, not repeated from the payload.
_ENVELOPE = frozenset({"type", "schema_version", "table_id", "actor", "at", "deck_id"})


def deck_record(deck: Deck) -> dict[str, Any]:
    """A deck's custody record as the CLI and HTTP show it."""
    return {
        "deck_id": deck.deck_id,
        "package_id": deck.package_id,
        "seal": deck.seal,
        "status": deck.status,
        "inspected": deck.inspected,
        "card_count": deck.card_count,
        "inspector": deck.inspector,
        "shuffler_serial": deck.shuffler_serial,
        "loaded_at": None if deck.loaded_at is None else deck.loaded_at.isoformat(),
        "rounds": list(deck.rounds),
        "held": deck.held,
        "hold_reason": deck.hold_reason,
        "dispute_id": deck.hold_dispute,
        "retired_reason": deck.retired_reason,
        "destroyed": deck.destroyed,
    }


def timeline_entry(event: RecordedEvent) -> dict[str, Any]:
    """One custody event of a deck's timeline: where it is in the log, who, when, what."""
    what = {key: value for key, value in event.payload.items() if key not in _ENVELOPE}
    return {
        "position": event.position,
        "version": event.version,
        "event": event.type,
        "at": event.at.isoformat(),
        "actor": event.actor.id,
        "role": event.actor.role,
        **what,
    }
