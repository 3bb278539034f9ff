"""PostgreSQL: a store appends on the head it wrote itself without reading it again, and a second
writer to the same table (another server) is still refused cleanly on the unique keys."""

from __future__ import annotations

import pytest

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from table_core.ports import ConcurrencyError
from tests.integration.store.conftest import wager


def test_a_stale_own_head_is_refused_then_the_table_is_read_again(pg_url: str) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    key = Signer.generate()
    first, second = open_store(pg_url, signing_key=key), open_store(pg_url, signing_key=key)
    try:
        first.append("PG-1", 0, [wager(1, 2_500)], "bet-1")  # first now knows the head: version 1
        second.append(
            "PG-1", 1, [wager(2, 2_500), wager(3, 2_500)], "bet-2"
        )  # another server: versions 2, 3
        with pytest.raises(ConcurrencyError) as refused:
            first.append("PG-1", 1, [wager(4, 2_500)], "bet-3")  # decided on version 1: stale
        assert (refused.value.expected_version, refused.value.actual_version) == (1, 3)
        recorded = first.append("PG-1", 3, [wager(4, 2_500)], "bet-3")
        assert [e.version for e in recorded] == [4]
        assert [e.position for e in first.read_all()] == [1, 2, 3, 4]
        assert first.verify().ok
    finally:
        first.close()
        second.close()


def test_a_retried_bet_on_the_known_head_answers_the_first_events(pg_url: str) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = open_store(pg_url, signing_key=Signer.generate())
    try:
        placed = store.append("PG-1", 0, [wager(1, 2_500)], "bet-1")
        store.append("PG-1", 1, [wager(2, 2_500)], "bet-2")
        # The terminal timed out and sends bet-2 again, on the version it decided it on... and
        # once more on the version the table is at now (the store's own head): same answer.
        assert store.append("PG-1", 1, [wager(2, 2_500)], "bet-2")[0].version == 2
        again = store.append("PG-1", 2, [wager(2, 2_500)], "bet-2")
        assert [(e.version, e.command_id) for e in again] == [(2, "bet-2")]
        assert [e.version for e in store.read_stream("PG-1")] == [1, 2]
        assert placed[0].position == 1
    finally:
        store.close()
