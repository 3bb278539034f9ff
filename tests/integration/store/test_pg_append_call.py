"""PostgreSQL: the common append is ONE call of ``paigow_append`` (migration 0005), with the same
outcomes as the pipelined transaction: the chain verifies, a stale writer is refused and writes
nothing, a retried command answers its first events."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import migrate, postgres_engine
from adapters.store.postgres import PostgresEventStore
from adapters.store.signing import Signer
from table_core.ports import ConcurrencyError
from tests.integration.store.conftest import wager


@pytest.fixture
def stores(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, list[str]]:
    """Two stores (two servers) on one schema, each noting when it took the pipeline."""
    migrate.upgrade(pg_url, load_settings().pg_roles())
    pipelined: list[str] = []
    original = PostgresEventStore._append_in_pipeline

    def spy(self: PostgresEventStore, conn: Any, stream_id: str, *rest: Any) -> Any:
        pipelined.append(stream_id)
        return original(self, conn, stream_id, *rest)

    monkeypatch.setattr(PostgresEventStore, "_append_in_pipeline", spy)
    a, b = (
        PostgresEventStore(postgres_engine(make_url(pg_url)), signer=Signer.generate())
        for _ in range(2)
    )
    return a, b, pipelined


def test_appends_on_a_head_the_store_wrote_take_one_call(stores: Any) -> None:
    a, _, pipelined = stores
    version = 0
    for number, size in enumerate((1, 30, 3, 1, 12)):
        a.append("PG-1", version, [wager(i % 6 + 1, 100 + i) for i in range(size)], f"c-{number}")
        version += size
    a.append("PG-2", 0, [wager(1, 500)], "other-table")
    # Only each table's first append read a head (the pipeline); the other four were one call.
    assert pipelined == ["PG-1", "PG-2"]
    assert [e.version for e in a.read_stream("PG-1")] == list(range(1, 48))
    assert [e.position for e in a.read_all()] == list(range(1, 49))
    assert a.verify().first_bad is None


def test_a_stale_head_on_the_one_call_path_is_a_concurrency_error_and_writes_nothing(
    stores: Any,
) -> None:
    a, b, pipelined = stores
    a.append("PG-1", 0, [wager(1, 100)], "first")
    b.append("PG-1", 1, [wager(2, 200)], "from-the-other-server")  # b reads the head: pipeline
    with pytest.raises(ConcurrencyError) as refused:
        a.append("PG-1", 1, [wager(3, 300)], "stale")  # a still holds version 1 as the head
    assert (refused.value.expected_version, refused.value.actual_version) == (1, 2)
    assert pipelined == ["PG-1", "PG-1"]
    assert [e.command_id for e in a.read_all()] == ["first", "from-the-other-server"]
    # Having forgotten the head it held, the store reads it again and appends.
    a.append("PG-1", 2, [wager(3, 300)], "again")
    assert [e.version for e in a.read_stream("PG-1")] == [1, 2, 3]
    assert a.verify().first_bad is None


def test_a_retried_command_on_the_one_call_path_answers_its_first_events(stores: Any) -> None:
    a, _, pipelined = stores
    a.append("PG-1", 0, [wager(1, 100)], "first")
    first = a.append("PG-1", 1, [wager(2, 200), wager(3, 300)], "bets")
    again = a.append("PG-1", 3, [wager(2, 200), wager(3, 300)], "bets")
    assert again == first
    assert pipelined == ["PG-1"]
    assert len(a.read_all()) == 3


def test_payload_text_reaches_the_table_byte_for_byte_through_the_json_batch(stores: Any) -> None:
    """The one call sends the rows as JSON: quotes, backslashes, escapes and non-ASCII text in a
    payload are stored as the very bytes the client hashed (the chain verifies)."""
    a, _, pipelined = stores
    a.append("PG-1", 0, [wager(1, 100)], "first")
    odd = 'say "hi" \\ back\\slash \\u0000 tab\t newline\n é 庄 🂡 </script>'
    event = wager(2, 200)
    event = type(event)(
        event.type, event.schema_version, {"note": odd, "n": -(2**62)}, event.actor, event.at
    )
    recorded = a.append("PG-1", 1, [event], "odd")
    assert pipelined == ["PG-1"]
    assert a.read_stream("PG-1", 1)[0].payload == {"note": odd, "n": -(2**62)}
    assert a.read_stream("PG-1", 1)[0].hash == recorded[0].hash
    assert a.verify().first_bad is None
