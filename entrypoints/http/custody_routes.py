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
        c.ReceiveDeck,
    ),
    route(
        "/decks/inspect",
        "inspect_deck",
        "The deck counted (53 to pass) and its inspector (floor, R20)",
        InspectDeckBody,
        c.InspectDeck,
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
        c.PutDeckInUse,
    ),
    route(
        "/decks/retire",
        "retire_deck",
        "Retire (or destroy) a deck, with a reason (floor, R20)",
        RetireDeckBody,
        c.RetireDeck,
    ),
    route(
        "/decks/hold",
        "hold_deck",
        "Keep a deck intact for a dispute or an investigation (floor, R20)",
        HoldDeckBody,
        c.HoldDeck,
    ),
    route(
        "/decks/release",
        "release_deck",
        "Lift the hold on a deck, with a reason (floor, R20)",
        ReleaseDeckBody,
        c.ReleaseDeck,
    ),
)
