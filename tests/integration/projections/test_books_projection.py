"""The books and the ratings projections (issue 18, R16) over a scripted gaming day, on SQLite and
PostgreSQL: the report's figures as written out by hand in ``books_day``, the ratings likewise,
and a rebuild from zero equal to the projections kept event by event."""

from __future__ import annotations

from adapters.projections import ProjectionRunner
from adapters.projections.books import read_tables
from adapters.projections.ratings import read_ratings
from adapters.projections.schema import books_days, ratings

from . import books_day as d
from . import session as s
from .conftest import Opener
from .support import dump, report


def test_the_report_of_a_books_day_is_the_one_written_by_hand(sql_opener: Opener) -> None:
    store = sql_opener()
    d.play_books_day(s.Session(store))
    runner = ProjectionRunner(store)
    (row,) = report(runner, d.DAY)["accounting"]
    assert row == d.ACCOUNTING
    with runner.db.read() as tx:
        assert read_tables(tx) == [
            {"table_id": s.TABLE, "gaming_day": "2026-03-14", "house_way": "fr",
             "status": "closed", "books": "tracked"}
        ]  # fmt: skip
        rated = {r["player_id"]: r for r in read_ratings(tx)}
    for player, expected in d.RATINGS.items():
        got = rated[player]
        assert {k: got[k] for k in expected} == expected, player
        assert got["card"] == f"CLUB-{player}" and got["gaming_day"] == "2026-03-14"
        assert got["edges_version"] == "2026-12-01.1"


def test_books_and_ratings_rebuilt_from_zero_equal_the_incremental_ones(
    sql_opener: Opener,
) -> None:
    store = sql_opener()
    follower = ProjectionRunner(store, batch_size=3)
    d.play_books_day(s.Session(store, after=follower.catch_up))
    incremental = dump(follower)
    rebuilt = ProjectionRunner(sql_opener())
    rebuilt.rebuild()
    assert dump(rebuilt) == incremental
    assert len(incremental[books_days.name]) == 1 and len(incremental[ratings.name]) == 3
