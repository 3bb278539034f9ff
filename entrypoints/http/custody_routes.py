"""The deck chain of custody over HTTP (R20): the floor's routes under ``/tables/{table_id}/decks``,
part of ``command_routes.ROUTES``."""

from __future__ import annotations

from entrypoints.http.models import (
    DeckBody,
    HoldDeckBody,
    InspectDeckBody,
    LoadShufflerBody,
    ReceiveDeckBody,
    ReleaseDeckBody,
    RetireDeckBody,
)
from entrypoints.http.route_spec import CommandRoute, route
from table_core import commands as c

CUSTODY_ROUTES: tuple[CommandRoute, ...] = (
    route(
        "/decks/receive",
        "receive_deck",
        "A deck (or package) reaches the table: its id and seal (floor, R20)",
        ReceiveDeckBody,
        lambda t, b, a, at: c.ReceiveDeck(
            deck_id=b.deck_id, seal=b.seal, package_id=b.package_id, actor=a, at=at
        ),
    ),
    route(
        "/decks/inspect",
        "inspect_deck",
        "The deck counted (53 to pass) and its inspector (floor, R20)",
        InspectDeckBody,
        lambda t, b, a, at: c.InspectDeck(
            deck_id=b.deck_id, card_count=b.card_count, inspector=b.inspector, actor=a, at=at
        ),
    ),
    route(
        "/decks/shuffler",
        "load_shuffler",
        "The shuffler's receipt of the deck: serial and time (floor, R20)",
        LoadShufflerBody,
        lambda t, b, a, at: c.LoadShuffler(
            deck_id=b.deck_id,
            shuffler_serial=b.shuffler_serial,
            received_at=b.received_at or at,
            actor=a,
            at=at,
        ),
    ),
    route(
        "/decks/use",
        "put_deck_in_use",
        "Put an inspected deck in use (floor, R20)",
        DeckBody,
        lambda t, b, a, at: c.PutDeckInUse(deck_id=b.deck_id, actor=a, at=at),
    ),
    route(
        "/decks/retire",
        "retire_deck",
        "Retire (or destroy) a deck, with a reason (floor, R20)",
        RetireDeckBody,
        lambda t, b, a, at: c.RetireDeck(
            deck_id=b.deck_id, reason=b.reason, destroyed=b.destroyed, actor=a, at=at
        ),
    ),
    route(
        "/decks/hold",
        "hold_deck",
        "Keep a deck intact for a dispute or an investigation (floor, R20)",
        HoldDeckBody,
        lambda t, b, a, at: c.HoldDeck(
            deck_id=b.deck_id, reason=b.reason, dispute_id=b.dispute_id, actor=a, at=at
        ),
    ),
    route(
        "/decks/release",
        "release_deck",
        "Lift the hold on a deck, with a reason (floor, R20)",
        ReleaseDeckBody,
        lambda t, b, a, at: c.ReleaseDeck(deck_id=b.deck_id, reason=b.reason, actor=a, at=at),
    ),
)
