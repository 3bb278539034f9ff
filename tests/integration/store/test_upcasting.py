"""Schema evolution: an event stored long ago under schema version 1 still loads, lifted step by
step (v1 → v2 → v3) on every read, while its stored bytes and hashes stay as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.settings import load_settings
from adapters.store import InMemoryEventStore, SqlEventStore, migrate, open_store
from eventlog.keys import load_public_key
from eventlog.verifier import verify
from table_core.ports import Payload, Upcasters

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "log_wager_v1.json").read_text())


def wager_upcasters() -> Upcasters:
    upcasters = Upcasters()

    @upcasters.register("wager_placed", 1)
    def seat_becomes_position(old: Payload) -> Payload:
        # v2: R-DEAL-1 names places "positions"; a seat was always a position.
        return {"position": old["seat"], "amount": old["amount"]}

    @upcasters.register("wager_placed", 2)
    def amounts_per_bet(old: Payload) -> Payload:
        # v3: one wager event carries every bet of the position (main, then side bets).
        return {"position": old["position"], "bets": {"main": old["amount"]}}

    return upcasters


def _load_fixture(store: Any) -> None:
    """Put the old rows in place exactly as they were stored (no append: they are history)."""
    rows, checkpoints = FIXTURE["log"], FIXTURE["checkpoints"]
    if isinstance(store, InMemoryEventStore):
        store.load(rows, checkpoints)
        return
    assert isinstance(store, SqlEventStore)
    q = store.sql
    pooled = store.engine.raw_connection()
    try:
        connection: Any = pooled.driver_connection
        for row in rows:
            connection.execute(
                q(
                    "INSERT INTO events (id, stream_id, version, type, schema_version, payload, "
                    "recorded_at, actor_id, actor_role, command_id, prev_hash, hash) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                ),
                (row[0], *row[1:12]),
            )
            connection.execute(
                q("INSERT INTO event_log (position, event_id, prev_hash, hash) VALUES (?,?,?,?)"),
                (row[0], row[0], row[12], row[13]),
            )
        for checkpoint in checkpoints:
            connection.execute(
                q(
                    "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) "
                    "VALUES (?, ?, ?, ?, ?)"
                ),
                tuple(checkpoint),
            )
    finally:
        pooled.close()


@pytest.fixture
def old_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    public_key = load_public_key(FIXTURE["public_key"])
    if backend == "memory":
        store: Any = InMemoryEventStore(upcasters=wager_upcasters())
        store.public_key = public_key
    elif backend == "sqlite":
        path = tmp_path / "old.db"
        migrate.upgrade(f"sqlite:///{path}", load_settings().pg_roles())
        Path(f"{path}.signing-key.pub").write_text(FIXTURE["public_key"] + "\n")
        store = open_store(f"sqlite:///{path}", upcasters=wager_upcasters())
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
        store = open_store(url, upcasters=wager_upcasters())
        store.public_key = public_key
    _load_fixture(store)
    yield store
    store.close()


def test_the_old_log_still_verifies_byte_for_byte() -> None:
    report = verify(FIXTURE["log"], FIXTURE["checkpoints"], load_public_key(FIXTURE["public_key"]))
    assert report.ok, report.first_bad
    assert (report.events, report.checkpoints) == (4, 1)


def test_old_wagers_load_in_the_newest_shape(old_store: Any) -> None:
    events = old_store.read_stream("table-3")
    assert [(e.type, e.schema_version) for e in events] == [
        ("table_opened", 1),
        ("wager_placed", 3),
        ("wager_placed", 3),
        ("dice_rolled", 1),
    ]
    assert events[1].payload == {"position": 2, "bets": {"main": 2500}}
    assert events[2].payload == {"position": 5, "bets": {"main": 10_000}}
    assert events[3].payload == {"dice": [4, 2, 6]}
    assert old_store.read_all() == events
    # Reading lifted the payloads, it did not touch what is stored.
    report = old_store.verify()
    assert report.ok and report.signatures_checked


def test_an_upcaster_is_registered_once_per_type_and_version() -> None:
    upcasters = wager_upcasters()
    with pytest.raises(ValueError, match="already registered"):
        upcasters.add("wager_placed", 1, lambda payload: payload)
    assert upcasters.upcast("dice_rolled", 1, {"dice": [1, 2, 3]}) == (1, {"dice": [1, 2, 3]})
    assert upcasters.upcast("wager_placed", 2, {"position": 4, "amount": 5}) == (
        3,
        {"position": 4, "bets": {"main": 5}},
    )
