"""A lost PostgreSQL connection is ``StoreUnavailable``, retried, then 503 with ``Retry-After``
(issue 23; the failover itself: tests/e2e/ha). On the real PostgreSQL: a server that refuses
connections, a backend terminated under the store, and what is not a lost connection."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import psycopg
import pytest

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.failover import connection_lost, retrying
from adapters.store.signing import Signer
from eventlog.envelope import NewEvent
from table_core.ports import Actor, StoreUnavailable
from tests.integration.conftest import pg_database, pg_head_template, pg_url  # noqa: F401 (fixtures)
from tests.integration.http.conftest import build_api

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
EVENT = NewEvent(
    type="noted", schema_version=1, payload={"n": 1}, actor=Actor("d-1", "dealer"), at=AT
)


def test_what_counts_as_a_lost_connection() -> None:
    assert connection_lost(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert connection_lost(psycopg.errors.AdminShutdown("terminating connection"))
    assert connection_lost(psycopg.errors.ReadOnlySqlTransaction("read-only transaction"))
    assert not connection_lost(psycopg.errors.UniqueViolation("duplicate key"))
    assert not connection_lost(psycopg.errors.SyntaxError("syntax"))
    assert not connection_lost(ValueError("not the database"))


def test_a_server_that_refuses_is_unavailable_after_the_retry_window() -> None:
    calls = []

    def refuse() -> None:
        calls.append(time.monotonic())
        raise StoreUnavailable("no primary")

    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        retrying(refuse, 0.3, "append")
    assert 0.1 <= time.monotonic() - started < 1.0
    assert len(calls) >= 3  # reconnecting, with growing pauses


def test_a_terminated_backend_is_reconnected_and_the_append_retried_by_command_id(
    pg_url: str,  # noqa: F811
) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = open_store(pg_url, signing_key=Signer.generate())
    try:
        store.append("PG-1", 0, [EVENT], "c-1")
        # Kill this store's own pooled connection (only it: the server is shared).
        with store._connection() as conn:
            pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(pg_url.replace("+psycopg", ""), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        recorded = store.append("PG-1", 1, [EVENT], "c-2")  # reconnects, writes once
        assert [e.version for e in recorded] == [2]
        assert store.append("PG-1", 1, [EVENT], "c-2")[0].position == recorded[0].position
        assert [e.command_id for e in store.read_stream("PG-1")] == ["c-1", "c-2"]
        assert store.verify().ok
    finally:
        store.close()


def test_http_answers_store_unavailable_with_retry_after() -> None:
    from adapters.store import InMemoryEventStore

    class Failing(InMemoryEventStore):
        def append(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise StoreUnavailable("no database primary is reachable now: refused")

    from service_layer.operators.keys import MemoryKeyStore

    # The keys over a store of their own: this one refuses every append, a key's creation too.
    keys = MemoryKeyStore(InMemoryEventStore(Signer.generate()))
    api = build_api(Failing(Signer.generate()), keys)
    response = api.post("floor", "/open", {})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    assert response.json()["error"] == "store_unavailable"
    assert "same Idempotency-Key" in response.json()["message"]
