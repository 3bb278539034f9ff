"""PostgreSQL: the server-side tail ``paigow_sequence_tail`` (migration 0004) writes the global
chain byte for byte as ``core.sequence`` computes it, legacy queue drains included."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import migrate, postgres_engine
from adapters.store.core import sequence
from adapters.store.postgres import PostgresEventStore
from adapters.store.signing import Signer
from eventlog.canonical import GENESIS_HASH
from table_core.ports import ConcurrencyError
from tests.integration.store.conftest import OPENED, wager
from tests.integration.store.crash_writer import legacy_commit


def _store(url: str) -> PostgresEventStore:
    # No open_store: its recovery pass would drain the legacy rows before the append does.
    store = PostgresEventStore(postgres_engine(make_url(url)), signer=Signer.generate())
    # A legacy writer (code before the append tags) writes untagged events: a store that checks
    # tags refuses to sign over them (docs/store.md, "Append tags"). These tests are about the
    # sequencer's chain, so this store signs as the code before the tags did.
    store.tagger = None
    return store


def _log_and_hashes(store: PostgresEventStore) -> tuple[list[Any], dict[int, str]]:
    with store._connection() as conn:
        log = conn.execute(
            "SELECT position, event_id, prev_hash, hash FROM event_log ORDER BY position"
        ).fetchall()
        hashes = dict(conn.execute("SELECT id, hash FROM events").fetchall())
    return log, hashes


def test_the_functions_chain_is_core_sequence_byte_for_byte(pg_url: str) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = _store(pg_url)
    versions: dict[str, int] = {}

    def append(stream: str, size: int, number: int) -> None:
        events = [wager(i % 7 + 1, 100 * (i + 1), number) for i in range(size)]
        store.append(stream, versions.get(stream, 0), events, f"{stream}-{number}")
        versions[stream] = versions.get(stream, 0) + size

    number = 0
    for size in (1, 30, 7, 2, 50, 1, 13):
        append(f"table-{number % 3}", size, number)
        number += 1
    # Legacy writers' unpositioned rows on two streams (one shared with new appends): the next
    # tail drains them first, in event id order.
    for stream, size in (("table-0", 20), ("legacy-9", 11)):
        events = [wager(i % 7 + 1, 5 + i, number) for i in range(size)]
        legacy_commit(store, stream, events, f"legacy-{number}")
        versions[stream] = versions.get(stream, 0) + size
        number += 1
    append("table-0", 30, number)
    number += 1
    store.checkpoint(OPENED + timedelta(hours=1))
    for size in (30, 30, 5, 60, 1, 9):
        append(f"table-{number % 3}", size, number)
        number += 1
    legacy_commit(store, "legacy-9", [wager(1, 1, number)] * 3, "legacy-last")
    store.sequence()  # a pass with empty arrays drains it

    log, hashes = _log_and_hashes(store)
    assert len(log) == 303
    expected = sequence(
        [(event_id, hashes[event_id]) for _, event_id, _, _ in log], 0, GENESIS_HASH
    )
    assert [tuple(row) for row in log] == expected
    # The drained legacy rows came first in their tail, in id order: ids rise with positions
    # within each tail here (one writer), so across the whole log.
    assert [event_id for _, event_id, _, _ in log] == sorted(hashes)
    assert store.verify().ok
    store.close()


def test_the_function_refuses_other_isolation_levels_and_may_write_nothing(pg_url: str) -> None:
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = _store(pg_url)
    store.append("table-1", 0, [wager(1, 100)], "one")
    with store._connection() as conn:
        with (
            pytest.raises(psycopg.errors.RaiseException, match="READ COMMITTED only"),
            conn.transaction(),
        ):
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            conn.execute("SELECT * FROM paigow_sequence_tail(%s, %s)", ([], []))
        # Empty arrays, empty queue: the head only, nothing written.
        with conn.transaction():
            rows = conn.execute("SELECT * FROM paigow_sequence_tail(%s, %s)", ([], [])).fetchall()
    log = _log_and_hashes(store)[0]
    assert rows == [(1, None, log[0][3])]
    assert len(log) == 1
    store.close()


def test_a_writer_that_loses_the_race_at_its_commit_gets_a_concurrency_error(pg_url: str) -> None:
    # The loser has no fault hook, so it does not sync before its COMMIT: the unique violation of
    # its insert (the rival held version 1 uncommitted, then committed) surfaces at the end of its
    # transaction, the tail skipped. It answers as before and its connection is usable again.
    migrate.upgrade(pg_url, load_settings().pg_roles())
    rival, loser = _store(pg_url), _store(pg_url)
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        release.wait(30)

    rival.faults["before_commit"] = hold
    winner = threading.Thread(target=rival.append, args=("race", 0, [wager(1, 100)], "rival"))
    winner.start()
    assert inside.wait(30)
    outcome: list[BaseException | None] = []

    def lose() -> None:
        try:
            loser.append("race", 0, [wager(2, 200)], "loser")
            outcome.append(None)
        except Exception as error:
            outcome.append(error)

    racer = threading.Thread(target=lose)
    racer.start()
    racer.join(1.0)
    assert racer.is_alive()  # waiting on the rival's unique key
    release.set()
    winner.join(30)
    racer.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], ConcurrencyError), outcome
    assert outcome[0].actual_version == 1
    assert [e.position for e in loser.append("race", 1, [wager(3, 300)], "next")] == [2]
    assert loser.verify().ok
    rival.close()
    loser.close()


def test_a_batchs_checkpoints_land_on_its_commands_after_a_drained_legacy_queue(
    pg_url: str,
) -> None:
    # The tail positions the legacy rows first: a checkpoint after command i is at that command's
    # last event, counted from the end of the tail's rows, never from the log head before it.
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = _store(pg_url)
    store.append("table-1", 0, [wager(1, 100)], "first")
    legacy_commit(store, "legacy-9", [wager(2, 5, 1)] * 4, "legacy-1")
    rounds = [
        (f"r{n}:{what}", [wager(3, 100 * n, n)] * size)
        for n in (1, 2)
        for what, size in (("bets", 3), ("close", 2))
    ]
    recorded = store.append_batch("table-1", 1, rounds, checkpoint_after=[1, 3])

    assert [e.position for command in recorded for e in command] == list(range(6, 16))
    log, _ = _log_and_hashes(store)
    checkpoints = store.checkpoints()
    assert [(c.position, c.hash) for c in checkpoints] == [(10, log[9][3]), (15, log[14][3])]
    assert [c.at for c in checkpoints] == [OPENED + timedelta(minutes=n) for n in (1, 2)]
    report = store.verify()
    assert report.ok and report.checkpoints == 2
    store.close()
