"""The deck chain of custody (R20): receiving, inspecting, loading, using, holding and retiring
decks, and which deck a round is dealt from.

A table keeps custody from its first ``deck_received`` (before it, a deal names no deck, as every
table did before custody existed). From then on a deal names a deck that is in use, whose last
inspection counted 53 cards (R-CARD-1) and that is not held; a deal that names none takes the one
deck in use. A profile with ``deck_custody_required`` (the default of a new profile) refuses a
physical deal (``live``) before the table keeps custody: there is no deck to name. A held deck (a
dispute's, or an investigation's) is kept intact: it is not dealt from, retired or destroyed until
it is released. Custody is the floor's: a floor supervisor
records every custody fact. Every refusal names the duty (``rule="R20"``).

``apply_custody`` is the fold's half: the deck records the events leave (``TableState.decks``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from table_core.cards import DECK_SIZE
from table_core.commands import (
    Command,
    DealCards,
    HoldDeck,
    InspectDeck,
    LoadShuffler,
    PutDeckInUse,
    ReceiveDeck,
    ReleaseDeck,
    RetireDeck,
)
from table_core.custody_events import CustodyEvent
from table_core.errors import DomainError
from table_core.events import (
    DeckDealt,
    DeckHeld,
    DeckInspected,
    DeckInUse,
    DeckLoaded,
    DeckReceived,
    DeckReleased,
    DeckRetired,
    Event,
)
from table_core.rules import TableRules
from table_core.table.guards import opened, require
from table_core.table.state import Deck, TableState

DUTY = "R20"
FLOOR_ROLES = frozenset({"floor"})
#: R17: a dispute is opened by the floor or an auditor, and its opening holds the decks that
#: dealt its rounds: a hold naming a dispute is theirs; every other custody fact the floor's.
DISPUTE_ROLES = frozenset({"floor", "auditor"})


class CustodyError(DomainError):
    """A custody fact the deck's record refuses (always duty R20)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule=DUTY)


def _table_fact(
    state: TableState, cmd: Command, action: str, roles: frozenset[str] = FLOOR_ROLES
) -> dict[str, Any]:
    """The floor records custody at an open table; custody facts are the table's (no round)."""
    opened(state, action)
    require(cmd.actor, roles, action)
    return {"table_id": state.table_id, "actor": cmd.actor, "at": cmd.at}


def _said(value: object, what: str, limit: int = 500) -> str:
    """Text a custody event records: not empty, not over ``limit`` characters."""
    if not isinstance(value, str) or not value.strip():
        raise CustodyError(f"{what} must not be empty")
    if len(value) > limit:
        raise CustodyError(f"{what} is longer than {limit} characters")
    return value


def _known(state: TableState, deck_id: str) -> Deck:
    deck = state.decks.get(deck_id)
    if deck is None:
        raise CustodyError(f"unknown deck {deck_id!r} at table {state.table_id}")
    return deck


def _not_retired(deck: Deck, action: str) -> None:
    if deck.status == "retired":
        raise CustodyError(f"deck {deck.deck_id} is retired: it cannot be {action}")


def _not_held(deck: Deck, action: str) -> None:
    if deck.held:
        raise CustodyError(
            f"deck {deck.deck_id} is held ({deck.hold_reason}): it cannot be {action}"
        )


# --- the floor's commands --------------------------------------------------------------------


def receive_deck(state: TableState, cmd: ReceiveDeck) -> list[Event]:
    env = _table_fact(state, cmd, "receive a deck")
    deck_id = _said(cmd.deck_id, "a deck id", 100)
    if deck_id in state.decks:
        raise CustodyError(f"deck {deck_id} is already recorded at table {state.table_id}")
    seal = _said(cmd.seal, "the seal number")
    package = None if cmd.package_id is None else _said(cmd.package_id, "a package id")
    return [DeckReceived(**env, deck_id=deck_id, seal=seal, package_id=package)]


def inspect_deck(state: TableState, cmd: InspectDeck) -> list[Event]:
    env = _table_fact(state, cmd, "inspect a deck")
    deck = _known(state, cmd.deck_id)
    _not_retired(deck, "inspected")
    if deck.status == "in_use":
        raise CustodyError(f"deck {deck.deck_id} is in use: it was inspected before play")
    inspector = _said(cmd.inspector, "the inspector")
    if type(cmd.card_count) is not int or not 0 <= cmd.card_count <= 1000:
        raise CustodyError(f"a card count is a whole number from 0, not {cmd.card_count!r}")
    passed = cmd.card_count == DECK_SIZE  # R-CARD-1: 52 cards and one joker
    return [
        DeckInspected(
            **env,
            deck_id=deck.deck_id,
            card_count=cmd.card_count,
            inspector=inspector,
            passed=passed,
        )
    ]


def load_shuffler(state: TableState, cmd: LoadShuffler) -> list[Event]:
    env = _table_fact(state, cmd, "record a shuffler's receipt")
    deck = _known(state, cmd.deck_id)
    _not_retired(deck, "loaded")
    serial = _said(cmd.shuffler_serial, "the shuffler serial")
    if not isinstance(cmd.received_at, datetime) or cmd.received_at.utcoffset() is None:
        raise CustodyError("the shuffler's receipt time needs its offset (an aware time)")
    return [
        DeckLoaded(**env, deck_id=deck.deck_id, shuffler_serial=serial, received_at=cmd.received_at)
    ]


def put_deck_in_use(state: TableState, cmd: PutDeckInUse) -> list[Event]:
    env = _table_fact(state, cmd, "put a deck in use")
    deck = _known(state, cmd.deck_id)
    _not_retired(deck, "put in use")
    _not_held(deck, "put in use")
    if deck.status == "in_use":
        raise CustodyError(f"deck {deck.deck_id} is already in use")
    if not deck.inspected:
        found = "no inspection" if deck.card_count is None else f"{deck.card_count} cards"
        raise CustodyError(
            f"deck {deck.deck_id} has not passed inspection ({found}; {DECK_SIZE} needed)"
        )
    return [DeckInUse(**env, deck_id=deck.deck_id)]


def retire_deck(state: TableState, cmd: RetireDeck) -> list[Event]:
    env = _table_fact(state, cmd, "retire a deck")
    reason = _said(cmd.reason, "the reason")
    deck = _known(state, cmd.deck_id)
    _not_held(deck, "destroyed" if cmd.destroyed else "retired")
    # a retired deck may still be destroyed later, once nothing holds it
    if deck.status == "retired" and (deck.destroyed or not cmd.destroyed):
        raise CustodyError(f"deck {deck.deck_id} is already retired")
    return [DeckRetired(**env, deck_id=deck.deck_id, reason=reason, destroyed=cmd.destroyed)]


def hold_deck(state: TableState, cmd: HoldDeck) -> list[Event]:
    roles = FLOOR_ROLES if cmd.dispute_id is None else DISPUTE_ROLES
    env = _table_fact(state, cmd, "hold a deck", roles)
    reason = _said(cmd.reason, "the reason")
    deck = _known(state, cmd.deck_id)
    if deck.destroyed:
        raise CustodyError(f"deck {deck.deck_id} was destroyed: there is nothing to hold")
    if deck.held:
        raise CustodyError(f"deck {deck.deck_id} is already held ({deck.hold_reason})")
    dispute = None if cmd.dispute_id is None else _said(cmd.dispute_id, "a dispute id")
    return [DeckHeld(**env, deck_id=deck.deck_id, reason=reason, dispute_id=dispute)]


def release_deck(state: TableState, cmd: ReleaseDeck) -> list[Event]:
    env = _table_fact(state, cmd, "release a deck")
    reason = _said(cmd.reason, "the reason")
    deck = _known(state, cmd.deck_id)
    if not deck.held:
        raise CustodyError(f"deck {deck.deck_id} is not held")
    return [DeckReleased(**env, deck_id=deck.deck_id, reason=reason)]


# --- the deal ---------------------------------------------------------------------------------


def custody_required(rules: TableRules | None, source: str) -> bool:
    """Whether the profile requires a deck in custody for a deal from ``source`` (R20): a
    physical deck only (``live``: a shuffler or card reader reports its order). An electronic
    deal's order is the service's own draw (R-DEAL-4), checked whole on every deal; there is no
    physical deck to receive or inspect. A table that keeps custody anyway (it received a deck)
    names a deck on every deal, electronic or not."""
    return source == "live" and rules is not None and rules.deck_custody_required


def deck_of_deal(state: TableState, cmd: DealCards) -> str | None:
    """The deck a deal comes from (R20), checked; ``None`` when the table keeps no custody and
    its profile (the live round's) does not require it for this deal."""
    rules = state.round.rules if state.round is not None else state.rules
    required = custody_required(rules, cmd.source)
    if not state.keeps_custody:
        if cmd.deck_id is not None:
            raise CustodyError(f"unknown deck {cmd.deck_id!r} at table {state.table_id}")
        if not required:
            return None
        raise CustodyError(
            f"table {state.table_id} requires deck custody for a physical deal: no deck was "
            "received; receive, inspect and put one in use first"
        )
    if cmd.deck_id is None:
        in_use = [deck.deck_id for deck in state.decks.values() if deck.status == "in_use"]
        if not in_use:
            raise CustodyError(f"no deck is in use at table {state.table_id}: nothing to deal")
        if len(in_use) > 1:
            raise CustodyError(f"decks {', '.join(in_use)} are in use: name the one dealt from")
        deck = state.decks[in_use[0]]
    else:
        deck = _known(state, cmd.deck_id)
    if deck.status != "in_use":
        raise CustodyError(f"deck {deck.deck_id} is not in use ({deck.status})")
    _not_held(deck, "dealt from")
    return deck.deck_id


def deck_dealt(state: TableState, cmd: DealCards, deck_id: str, round_number: int) -> DeckDealt:
    return DeckDealt(
        table_id=state.table_id, actor=cmd.actor, at=cmd.at, round=round_number, deck_id=deck_id
    )


# --- the fold's half ----------------------------------------------------------------------------


def apply_custody(decks: dict[str, Deck], event: CustodyEvent) -> None:
    """Record one custody event in ``decks`` (the draft's own mapping)."""
    if isinstance(event, DeckReceived):
        decks[event.deck_id] = Deck(event.deck_id, event.seal, event.package_id)
        return
    deck = decks[event.deck_id]
    decks[event.deck_id] = replace(deck, **_changes(deck, event))


def _changes(deck: Deck, event: CustodyEvent) -> Mapping[str, Any]:
    if isinstance(event, DeckInspected):
        return {
            "inspected": event.passed,
            "card_count": event.card_count,
            "inspector": event.inspector,
        }
    if isinstance(event, DeckLoaded):
        return {"shuffler_serial": event.shuffler_serial, "loaded_at": event.received_at}
    if isinstance(event, DeckInUse):
        return {"status": "in_use"}
    if isinstance(event, DeckDealt):
        return {"rounds": (*deck.rounds, event.round)}
    if isinstance(event, DeckRetired):
        return {"status": "retired", "retired_reason": event.reason, "destroyed": event.destroyed}
    if isinstance(event, DeckHeld):
        return {"held": True, "hold_reason": event.reason, "hold_dispute": event.dispute_id}
    if isinstance(event, DeckReleased):
        return {"held": False, "hold_reason": None, "hold_dispute": None}
    raise DomainError(f"not a custody event: {event.type}")
