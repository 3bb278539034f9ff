"""R-DEAL-4 on real stores (SQLite and PostgreSQL): a deck-and-dice source that does not shuffle
deals the same order again and again; the audit names every repeat, and the earlier deal.

The source here is what a tampered ``adapters/rng.py`` makes of the secure one (its class and
its declared ``os.urandom`` kept, its shuffle gone): ``service_started`` names a cryptographic
source, so the log's deals are judged.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SecureDeckAndDice, SeededDeckAndDice
from audit.sources import open_database
from audit.verify import verify_log
from entrypoints.simulation.mixed_session import Session
from service_layer.service import TableService
from table_core.cards import FULL_DECK, Card
from tests.integration.backends import Opener, open_backend

START = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)


class Unshuffled(SecureDeckAndDice):
    """The dice still fair, the deck never shuffled."""

    def shuffled_deck(self) -> list[Card]:
        return list(FULL_DECK)


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    yield from open_backend(request.param, request, tmp_path)


def play(store: Any, source: Any, rounds: int, prefix: str = "PG-") -> None:
    service = TableService(store, clock=SteppingClock(START, timedelta(seconds=1)), source=source)
    service.start()
    Session(service, seed=5, tables=1, prefix=prefix).play(rounds)
    service.stop()


def audit(store: Any) -> Any:
    source = open_database(store.engine.url.render_as_string(hide_password=False))
    source.public_key = store.public_key
    return verify_log(source)


def electronic_deals(store: Any) -> list[int]:
    return [
        e.position
        for e in store.read_all()
        if e.type == "stacks_dealt" and e.payload["source"] == "electronic"
    ]


def test_every_repeated_deck_order_is_named_with_the_first_deal(database: Opener) -> None:
    store = database()
    play(store, Unshuffled(), 4)
    first, *again = electronic_deals(store)
    assert len(again) >= 2
    report = audit(database())
    assert [(f.kind, f.clause, f.position) for f in report.findings] == [
        ("procedure", "R-DEAL-4", position) for position in again
    ]
    assert report.findings[0].message.endswith(
        f"was dealt the same deck order as the electronic deal at position {first}: a shuffle "
        "from a cryptographic generator does not repeat an order (odds about 1 in 53!)"
    )


def test_secure_and_seeded_deals_raise_nothing(database: Opener) -> None:
    """The secure source's decks are judged and differ; a seeded simulation's are not judged
    (two services on one seed deal the same decks: a simulation, named as one at its start)."""
    play(database(), SecureDeckAndDice(), 3, prefix="A-")
    play(database(), SeededDeckAndDice(9), 2, prefix="B-")
    play(database(), SeededDeckAndDice(9), 2, prefix="C-")
    assert [str(f) for f in audit(database()).findings] == []
