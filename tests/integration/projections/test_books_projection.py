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
        assert got["edges_version"] == "2026-12-01.2"


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


def test_the_rollup_sums_tables_into_pits_and_the_casino_with_the_theoretical_hold(
    sql_opener: Opener,
) -> None:
    from adapters.projections import GamingDay
    from adapters.projections.reports import build_report

    store = sql_opener()
    d.play_books_day(s.Session(store))
    runner = ProjectionRunner(store)
    gaming_day = GamingDay.of("UTC", "06:00")
    out = build_report(runner, gaming_day, day=d.DAY, views=("rollup",), pits={s.TABLE: "main"})
    rows = {(r["level"], r["name"], r["period"]): r for r in out["rollup"]}
    assert set(rows) == {(level, name, period) for level, name in
                         (("table", s.TABLE), ("pit", "main"), ("casino", "casino"))
                         for period in ("day", "mtd", "ytd")}  # fmt: skip
    casino = rows[("casino", "casino", "ytd")]
    # One table day: the casino's year is that day. Theo, by hand: 15,001 x 2.692% + 500 x
    # 11,970,096 / 154,143,080 = 403.827 + 38.828 = 442.655 -> 443; over 15,501 wagered, 2.86%.
    assert {k: casino[k] for k in ("from_day", "tables", "table_days", "drop", "handle",
                                   "side_handle", "win", "game_win", "hold_pct",
                                   "statistical_hold_pct", "theo_win",
                                   "theoretical_hold_pct")} == {
        "from_day": "2026-01-01", "tables": 1, "table_days": 1, "drop": 100_000,
        "handle": 15_001, "side_handle": 500, "win": -8_500, "game_win": -8_450,
        "hold_pct": "-8.50", "statistical_hold_pct": "-54.51", "theo_win": 443,
        "theoretical_hold_pct": "2.86",
    }  # fmt: skip
    assert rows[("pit", "main", "mtd")]["from_day"] == "2026-03-01"
