"""Projections: the bankroll, banker rotation, round history and table accounting the floor, the
cage and compliance read, kept from the event store's global position (docs/projections.md).

The API other code uses (``paigow report``, ``paigow recall``, ``audit/``):

- ``ProjectionRunner(store)``: ``catch_up()``, ``rebuild()``, ``positions()``;
- ``recall(source, table_id, round=None, last=None, seat=None, player_id=None)`` ->
  ``list[RoundRecord]``, oldest first;
- ``reports.build_report(runner, gaming_day, day=...)``: the report's views as plain data;
- ``positions.position_rows(record)``: a recalled round by position (the CSV's rows).

``source`` is an open store (SQLite, PostgreSQL or the in-memory fake) or a database URL. Every
read catches the projections up first (``catch_up=False`` reads them as they stand), so nobody
ever reads stale figures.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from adapters.projections.gaming_day import GamingDay
from adapters.projections.projection_runner import ProjectionRunner
from adapters.projections.rounds import RoundRecord, read_rounds

__all__ = [
    "GamingDay",
    "ProjectionRunner",
    "RoundRecord",
    "opened",
    "recall",
]


@contextlib.contextmanager
def opened(source: Any, *, create: bool = True, settings: Any = None) -> Iterator[Any]:
    """The store ``source`` names: itself when it is a store, else the store at that URL (closed
    on leaving; ``create=False``: a missing SQLite file is an error, see ``open_store``), opened
    with the ``settings``' signing key and retry time when given (``open_configured``)."""
    if not isinstance(source, str):
        yield source
        return
    from adapters.store import open_configured, open_store

    if settings is not None:
        store = open_configured(settings, source, create=create)
    else:
        store = open_store(source, create=create)
    try:
        yield store
    finally:
        store.close()


def recall(
    source: Any,
    table_id: str,
    round: int | None = None,
    last: int | None = None,
    *,
    seat: int | None = None,
    player_id: str | None = None,
    catch_up: bool = True,
) -> list[RoundRecord]:
    """Game recall: the table's rounds in order, oldest first. ``round``: that round only (an
    empty list when it does not exist); ``last``: the most recent ``last`` rounds; neither:
    every round. ``seat`` / ``player_id`` keep the rounds where that seat or player had action
    (a main wager, a side bet or the bank). An unfinished round reads ``in_progress``."""
    if last is not None and last < 1:
        raise ValueError("last is a number of rounds from 1")
    from adapters.projections.standby import reader

    with opened(source) as store:
        runner = reader(store) if catch_up else ProjectionRunner(store)
        if catch_up:
            runner.catch_up()
        with runner.db.read() as tx:
            return read_rounds(tx, table_id, round, last, seat, player_id)
