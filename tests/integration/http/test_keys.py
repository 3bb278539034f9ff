"""API keys: bound to an actor and a role, stored as SHA-256 only, revocable; their table comes
from migration 0003_api_keys, after 0002_projections, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, pool, text

from adapters.store import InMemoryEventStore, migrate, open_store
from adapters.store.signing import Signer
from eventlog.system_events import SYSTEM_STREAM
from service_layer.operators.keys import MemoryKeyStore, SqlKeyStore, metadata
from table_core.ports import StoreError
from tests.integration.http.conftest import START


def test_the_api_keys_revision_follows_the_projections() -> None:
    scripts = ScriptDirectory.from_config(migrate.alembic_config())
    assert scripts.get_revision("0003_api_keys").down_revision == "0002_projections"
    # Later revisions build on it (0004: the PostgreSQL sequencer function).
    assert scripts.get_revision("0004_pg_sequencer_tail").down_revision == "0003_api_keys"


def test_the_migrated_table_is_the_key_stores_and_holds_only_hashes(db_url: str) -> None:
    engine = create_engine(db_url, poolclass=pool.NullPool)
    store = open_store(db_url, signing_key=Signer.generate())
    try:
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), metadata)
        # The other revisions' tables are theirs to check: only api_keys is compared here.
        assert [d for d in diff if "api_keys" in str(d)] == []
        keys = SqlKeyStore(store)
        key, token = keys.create("dealer-7", "dealer", START)
        assert keys.lookup(token) == key and key.role == "dealer"
        with engine.connect() as connection:
            stored = connection.execute(text("SELECT key_hash, key_id FROM api_keys")).all()
        digest = hashlib.sha256(token.encode()).hexdigest()
        assert stored == [(digest, digest[:12])]
        assert all(token not in str(value) for row in stored for value in row)
        assert keys.revoke(key.key_id, START) and keys.lookup(token) is None
        assert not keys.revoke(key.key_id, START)  # already revoked
        assert [(k.actor_id, k.revoked_at) for k in keys.list()] == [
            ("dealer-7", START.isoformat())
        ]
        # R5/R19: the log records each change, the token's hash bound to the key's creation.
        events = [e for e in store.read_stream(SYSTEM_STREAM) if e.type.startswith("api_key_")]
        assert [(e.type, e.payload["key_id"]) for e in events] == [
            ("api_key_created", key.key_id),
            ("api_key_revoked", key.key_id),
        ]
        assert events[0].payload["key_hash"] == digest
        assert all(token not in str(e.payload) for e in events)
    finally:
        store.close()
        engine.dispose()


def _memory_keys() -> MemoryKeyStore:
    return MemoryKeyStore(InMemoryEventStore(Signer.generate()))


@pytest.mark.parametrize(
    ("actor", "role", "message"),
    [
        ("pit-9", "pit_boss", "unknown role 'pit_boss'"),
        ("", "floor", "an actor id is 1..200 printable characters"),
        ("dealer\n7", "dealer", "an actor id is 1..200 printable characters"),
    ],
)
def test_a_key_needs_a_known_role_and_an_actor(actor: str, role: str, message: str) -> None:
    keys = _memory_keys()
    with pytest.raises(ValueError, match=message):
        keys.create(actor, role, START)
    assert keys.store.read_all() == []  # nothing recorded


def test_each_token_is_new_and_a_lookup_needs_the_whole_token() -> None:
    keys = _memory_keys()
    _, one = keys.create("cage-1", "cage", START)
    _, two = keys.create("cage-1", "cage", START)
    assert one != two and len(one) > 40
    assert keys.lookup(one[:-1]) is None and keys.lookup(one + "x") is None


def test_a_key_is_recorded_only_by_a_store_that_can_seal_it() -> None:
    """R5/R19: an unsealed ``api_key_created`` could not be told from an insider's."""
    keys = MemoryKeyStore(InMemoryEventStore(None))
    with pytest.raises(StoreError, match="cannot sign"):
        keys.create("cage-1", "cage", START)
    assert keys.store.read_all() == []


def test_a_keys_role_changes_and_the_old_role_is_answered(db_url: str) -> None:
    """R5/R19: ``change_role`` answers the former role (the system event's ``old_role``)."""
    store = open_store(db_url, signing_key=Signer.generate())
    try:
        keys = SqlKeyStore(store)
        key, token = keys.create("dealer-7", "dealer", START)
        assert keys.change_role(key.key_id, "floor", "promoted", START) == "dealer"
        assert keys.lookup(token) == replace(key, role="floor")  # at once, on the next request
        with pytest.raises(ValueError, match=f"key {key.key_id} already has the role floor"):
            keys.change_role(key.key_id, "floor", "again", START)
        with pytest.raises(ValueError, match="unknown role 'pit_boss'"):
            keys.change_role(key.key_id, "pit_boss", "why", START)
        with pytest.raises(ValueError, match="states its reason"):
            keys.change_role(key.key_id, "cage", " ", START)
        assert keys.change_role("000000000000", "cage", "x", START) is None  # no such key
        assert keys.revoke(key.key_id, START)
        assert keys.change_role(key.key_id, "cage", "x", START) is None  # revoked: as it was
        assert [(k.role, k.revoked_at) for k in keys.list()] == [("floor", START.isoformat())]
        changed = [e for e in store.read_stream(SYSTEM_STREAM) if e.type == "api_key_role_changed"]
        assert [(e.payload["old_role"], e.payload["new_role"]) for e in changed] == [
            ("dealer", "floor")
        ]
    finally:
        store.close()


def test_a_memory_keys_role_changes_by_the_same_rules() -> None:
    keys = _memory_keys()
    key, token = keys.create("cage-1", "cage", START)
    assert keys.change_role(key.key_id, "auditor", "moved", START) == "cage"
    assert keys.lookup(token) == replace(key, role="auditor")
    with pytest.raises(ValueError, match="already has the role auditor"):
        keys.change_role(key.key_id, "auditor", "again", START)
    assert keys.revoke(key.key_id, START)
    assert keys.change_role(key.key_id, "floor", "x", START) is None
