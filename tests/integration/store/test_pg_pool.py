"""PostgreSQL connections: pinged only after sitting idle, and a dead one is replaced before use."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy.engine import make_url

import adapters.store as store_module
from adapters.store import postgres_engine


def _terminate(application_name: str) -> int:
    with psycopg.connect("host=127.0.0.1 dbname=test user=postgres", autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s",
            (application_name,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_connection_killed_while_idle_is_replaced_before_the_next_command(
    pg_url_empty: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "PING_AFTER_IDLE_S", 0.0)  # every checkout counts as idle
    url = make_url(pg_url_empty).update_query_dict({"application_name": "paigow-pool-test"})
    engine = postgres_engine(url, pool_size=1)
    try:
        pooled = engine.raw_connection()
        pooled.close()
        assert _terminate("paigow-pool-test") == 1  # the server restarted, say
        pooled = engine.raw_connection()
        assert pooled.driver_connection.execute("SELECT 42").fetchone() == (42,)
        assert pooled.driver_connection.autocommit  # the ping left no transaction open
        pooled.close()
    finally:
        engine.dispose()


def test_a_connection_returned_moments_ago_is_not_pinged(pg_url_empty: str) -> None:
    url = make_url(pg_url_empty).update_query_dict({"application_name": "paigow-pool-test-2"})
    engine = postgres_engine(url, pool_size=1)
    try:
        first = engine.raw_connection()
        driver = first.driver_connection
        first.close()
        statements: list[str] = []
        original = driver.execute

        def counting(query: str, *args: object, **kwargs: object) -> object:
            statements.append(query)
            return original(query, *args, **kwargs)  # type: ignore[arg-type]

        driver.execute = counting  # type: ignore[method-assign]
        again = engine.raw_connection()
        assert again.driver_connection is driver
        again.close()
        assert statements == []  # no "SELECT 1" on a connection back in the pool moments ago
    finally:
        engine.dispose()
