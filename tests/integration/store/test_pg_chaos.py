"""Concurrency chaos on PostgreSQL (the small CI size; benchmarks/bench_pg_concurrency.py runs
the 100,000-event one): concurrent writers, rolled-back and slow transactions, a follower on the
global position. Nothing lost, skipped or duplicated; no duplicate stream version."""

from __future__ import annotations

from adapters.settings import load_settings
from adapters.store import migrate
from tests.integration.store.chaos import run_chaos


def test_followers_see_every_committed_event_once_in_dense_order(pg_url: str) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    outcome = run_chaos(pg_url, writers=4, commands=60)

    assert outcome.problems == []
    assert outcome.commands > 150  # about 10% are rolled back on purpose
    assert outcome.events >= outcome.commands
    assert outcome.reads > 1  # it really followed while the writers wrote
