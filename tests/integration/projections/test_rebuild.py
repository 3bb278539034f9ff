"""Rebuilding from zero gives exactly the projections maintained event by event, on SQLite and
PostgreSQL; a rebuild of one projection leaves the others alone."""

from __future__ import annotations

from adapters.projections import ProjectionRunner
from adapters.projections.schema import bankroll_players, rounds

from . import session as s
from .conftest import Opener
from .support import dump


def test_a_rebuild_from_zero_equals_the_incrementally_maintained_projections(
    sql_opener: Opener,
) -> None:
    store = sql_opener()
    # A follower that catches up after every command, in small batches that split commands.
    follower = ProjectionRunner(store, batch_size=3)
    s.play_evening(s.Session(store, after=follower.catch_up))
    incremental = dump(follower)
    assert set(follower.positions().values()) == {store.read_all()[-1].position}

    rebuilt = ProjectionRunner(sql_opener())  # another process, one big batch
    rebuilt.rebuild()
    assert dump(rebuilt) == incremental
    assert len(incremental[rounds.name]) == 5 and len(incremental[bankroll_players.name]) == 3


def test_a_rebuild_of_one_projection_leaves_the_others_and_ends_where_they_are(
    sql_opener: Opener,
) -> None:
    store = sql_opener()
    s.play_evening(s.Session(store))
    runner = ProjectionRunner(store)
    runner.catch_up()
    before = dump(runner)
    runner.reset(["rounds"])
    emptied = dump(runner)
    assert (
        emptied[rounds.name] == []
        and emptied[bankroll_players.name] == before[bankroll_players.name]
    )
    assert runner.positions()["rounds"] == 0 < runner.positions()["bankroll"]
    runner.catch_up()  # only the rounds projection has anything to apply
    assert dump(runner) == before
    assert len(set(runner.positions().values())) == 1
