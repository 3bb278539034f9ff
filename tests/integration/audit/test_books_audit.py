"""The audit of the books (issue 18, R16; audit/books.py): the scripted gaming day of the
projection tests passes; each way of breaking its books is one ``money`` / ``books`` finding at
the event that breaks them."""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import Any

import pytest

from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from audit.books import BooksAudit
from audit.findings import Finding
from service_layer.held_tables import table_events
from table_core.events import Actor, Event
from tests.integration.projections import books_day as d
from tests.integration.projections import session as s


def _day() -> list[tuple[Any, Event]]:
    store = InMemoryEventStore(Signer.generate())
    d.play_books_day(s.Session(store))
    recorded = store.read_stream(s.TABLE)
    return list(zip(recorded, table_events(recorded), strict=True))


def _audit(rows: list[tuple[Any, Event]]) -> tuple[BooksAudit, list[Finding]]:
    found: list[Finding] = []
    audit = BooksAudit(s.TABLE, found.append)
    for _, command in groupby(rows, key=lambda row: row[0].command_id):
        metas, events = zip(*command, strict=True)
        audit.apply(metas, events)
    audit.finish()
    return audit, found


def test_the_scripted_day_balances_to_the_cent() -> None:
    audit, found = _audit(_day())
    assert found == [] and audit.days_checked == 1
    assert audit.tray == 116_500 and audit.counted == {d.DAY}


def _tamper(kind: str, change: Callable[[Event], dict[str, Any]]) -> list[Finding]:
    rows = [(m, e.model_copy(update=change(e)) if e.type == kind else e) for m, e in _day()]
    return _audit(rows)[1]


@pytest.mark.parametrize(
    ("kind", "change", "says"),
    [
        ("gaming_day_closed", lambda e: {"expected": e.expected + 100, "variance": -150},
         "the inventory equation gives a tray of 116550"),
        ("tray_filled", lambda e: {"issued_by": Actor(id="dealer-x", role="dealer")},
         "slip F-1 is signed by ('floor', 'dealer', 'dealer')"),
        ("drop_counted", lambda e: {"gaming_day": d.DAY.replace(day=15)},
         "gaming day 2026-03-15 is not a closed, uncounted day"),
        ("drop_counted", lambda e: {"cash": e.cash + 1},
         "cash 70001 + markers 30000 is not the total 100000"),
        ("rating_corrected", lambda e: {"rating_start": e.at},
         "the rating of ana that started"),
        ("tray_credited", lambda e: {"total": e.total + 2_500},
         "the slip's chips add up to 25000, not its total 27500"),
    ],
)  # fmt: skip
def test_broken_books_are_found(kind: str, change: Callable[[Event], Any], says: str) -> None:
    found = _tamper(kind, change)
    assert found, kind
    assert found[0].kind == "money" and found[0].clause == "books"
    assert found[0].event_type == kind and says in found[0].message, found[0].message
