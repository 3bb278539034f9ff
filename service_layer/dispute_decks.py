"""R17 + R20: opening a dispute holds every deck that dealt one of its rounds, in the transaction
of the dispute's own event (``append_streams``: the table's ``deck_held`` events and the system
stream's ``dispute_opened``, all or nothing).

Each round's ``deck_dealt`` names its deck, so the table's folded state knows which rounds each
deck dealt (``Deck.rounds``). For each deck that dealt a disputed round, what the opening records
in ``dispute_opened.decks`` (``{"deck_id", "hold", "note"}``), as a floor supervisor expects it:

- ``held``: the deck is held now, ``deck_held`` naming the dispute (a retired deck too: it still
  exists, and the hold keeps it from being destroyed);
- ``already_held``: an earlier hold stands (another dispute's or an investigation's); it is
  neither replaced nor doubled, ``note`` says whose (``dispute D-…``, or its reason);
- ``destroyed``: the deck was destroyed before the dispute: there is nothing to hold, and the
  dispute says so (``note``: the retirement's reason).

Rounds dealt before the table kept custody name no deck: nothing to hold for them.

Closing a dispute releases nothing: a held deck stays held until the floor releases it
(``paigow deck release``, with its reason), since the evidence may still be asked for after the
outcome (a player's appeal to the regulator); docs/audit.md, "Disputes (R17)".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from eventlog.mapper import to_new_event
from service_layer.held_tables import table_events
from table_core.commands import HoldDeck
from table_core.events import Event
from table_core.ports import EventStore
from table_core.table import TableState, decide, fold


def table_state(store: EventStore, table_id: str) -> TableState:
    """The table as its recorded events leave it."""
    return fold(table_events(store.read_stream(table_id)))


def hold_decks(
    state: TableState,
    rounds: Sequence[int],
    dispute_id: str,
    reason: str,
    actor: Any,
    now: datetime,
) -> tuple[list[Event], list[dict[str, Any]]]:
    """The ``deck_held`` events the opening of ``dispute_id`` on ``rounds`` writes, decided by
    the core (R20, ``HoldDeck`` with the dispute's id), and what it records of each deck."""
    disputed = set(rounds)
    events: list[Event] = []
    decks: list[dict[str, Any]] = []
    for deck in state.decks.values():
        if not disputed.intersection(deck.rounds):
            continue
        if deck.destroyed:
            decks.append(_entry(deck.deck_id, "destroyed", deck.retired_reason))
            continue
        if deck.held:
            whose = f"dispute {deck.hold_dispute}" if deck.hold_dispute else deck.hold_reason
            decks.append(_entry(deck.deck_id, "already_held", whose))
            continue
        command = HoldDeck(
            deck_id=deck.deck_id,
            reason=f"dispute {dispute_id}: {reason}"[:500],
            dispute_id=dispute_id,
            actor=actor,
            at=now,
        )
        held = decide(state, command)  # raises a DomainError the caller reports
        state = fold(held, state)
        events.extend(held)
        decks.append(_entry(deck.deck_id, "held", None))
    return events, decks


def _entry(deck_id: str, hold: str, note: str | None) -> dict[str, Any]:
    return {"deck_id": deck_id, "hold": hold, "note": note}


def new_events(events: Sequence[Event]) -> list[Any]:
    return [to_new_event(e) for e in events]
