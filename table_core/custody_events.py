"""The decks' chain of custody (R20, decided in ``table/custody.py``)."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    AwareDatetime,
    Field,
    Strict,
)

from table_core.event_base import (
    EventBase,
    RoundEventBase,
)

# --- deck chain of custody (R20) ------------------------------------------------------------------
#
# Table facts (``round=None``) but ``deck_dealt``, which names the deck a round was dealt from.
# A table keeps custody from its first ``deck_received``: from then on every deal names a deck in
# use whose last inspection passed (table_core.table.custody).

DeckId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"\S")]
Said = Annotated[str, Field(min_length=1, max_length=500, pattern=r"\S")]


class DeckReceived(EventBase):
    """A deck (or a package of decks) reaches the table: its id, package id and seal number."""

    type: Literal["deck_received"] = "deck_received"
    deck_id: DeckId
    seal: Said
    package_id: Said | None = None


class DeckInspected(EventBase):
    """The deck counted and checked by ``inspector``: ``passed`` when it holds 53 cards
    (R-CARD-1); a deck that failed cannot be put in use."""

    type: Literal["deck_inspected"] = "deck_inspected"
    deck_id: DeckId
    card_count: Annotated[int, Strict(), Field(ge=0, le=1000)]
    inspector: Said
    passed: bool


class DeckLoaded(EventBase):
    """The shuffler's (or the pre-shuffle service's) receipt: its serial and when it took the
    deck; the employee is the event's actor."""

    type: Literal["deck_loaded"] = "deck_loaded"
    deck_id: DeckId
    shuffler_serial: Said
    received_at: AwareDatetime


class DeckInUse(EventBase):
    """The deck comes into play: deals may name it from now on."""

    type: Literal["deck_in_use"] = "deck_in_use"
    deck_id: DeckId


class DeckDealt(RoundEventBase):
    """Round ``round`` was dealt from this deck (it follows the round's ``stacks_dealt``)."""

    type: Literal["deck_dealt"] = "deck_dealt"
    deck_id: DeckId


class DeckRetired(EventBase):
    """The deck leaves play for good, and why; ``destroyed`` when it was destroyed too."""

    type: Literal["deck_retired"] = "deck_retired"
    deck_id: DeckId
    reason: Said
    destroyed: bool = False


class DeckHeld(EventBase):
    """The deck is kept intact (a dispute or an investigation, ``dispute_id`` when one is open):
    a held deck is not dealt from, retired or destroyed until it is released."""

    type: Literal["deck_held"] = "deck_held"
    deck_id: DeckId
    reason: Said
    dispute_id: Said | None = None


class DeckReleased(EventBase):
    """The hold on the deck is lifted, and why."""

    type: Literal["deck_released"] = "deck_released"
    deck_id: DeckId
    reason: Said


#: Every custody event, in the order of the table's ``Event`` union (which holds this union).
CustodyEvent = (
    DeckReceived
    | DeckInspected
    | DeckLoaded
    | DeckInUse
    | DeckDealt
    | DeckRetired
    | DeckHeld
    | DeckReleased
)
#: The custody events' type names, as the fold and the audit look them up (read from the classes).
CUSTODY_TYPES = frozenset(cls.model_fields["type"].default for cls in get_args(CustodyEvent))
