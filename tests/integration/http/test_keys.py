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

from adapters.http.keys import MemoryKeyStore, SqlKeyStore, metadata
from adapters.store import migrate
from tests.integration.http.conftest import START


def test_the_api_keys_revision_follows_the_projections() -> None:
    scripts = ScriptDirectory.from_config(migrate.alembic_config())
    assert scripts.get_revision("0003_api_keys").down_revision == "0002_projections"
    # Later revisions build on it (0004: the PostgreSQL sequencer function).
    assert scripts.get_revision("0004_pg_sequencer_tail").down_revision == "0003_api_keys"


def test_the_migrated_table_is_the_key_stores_and_holds_only_hashes(db_url: str) -> None:
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), metadata)
        # The other revisions' tables are theirs to check: only api_keys is compared here.
        assert [d for d in diff if "api_keys" in str(d)] == []
        keys = SqlKeyStore(engine)
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
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    ("actor", "role", "message"),
    [
        ("pit-9", "pit_boss", "unknown role 'pit_boss'"),
        ("", "floor", "an actor id is 1..200 printable characters"),
        ("dealer\n7", "dealer", "an actor id is 1..200 printable characters"),
    ],
)
def test_a_key_needs_a_known_role_and_an_actor(actor: str, role: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MemoryKeyStore().create(actor, role, START)


def test_each_token_is_new_and_a_lookup_needs_the_whole_token() -> None:
    keys = MemoryKeyStore()
    _, one = keys.create("cage-1", "cage", START)
    _, two = keys.create("cage-1", "cage", START)
    assert one != two and len(one) > 40
    assert keys.lookup(one[:-1]) is None and keys.lookup(one + "x") is None


def test_a_keys_role_changes_and_the_old_role_is_answered(db_url: str) -> None:
    """R5/R19: ``change_role`` answers the former role (the system event's ``old_role``)."""
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        keys = SqlKeyStore(engine)
        key, token = keys.create("dealer-7", "dealer", START)
        assert keys.change_role(key.key_id, "floor") == "dealer"
        assert keys.lookup(token) == replace(key, role="floor")  # at once, on the next request
        with pytest.raises(ValueError, match=f"key {key.key_id} already has the role floor"):
            keys.change_role(key.key_id, "floor")
        with pytest.raises(ValueError, match="unknown role 'pit_boss'"):
            keys.change_role(key.key_id, "pit_boss")
        assert keys.change_role("000000000000", "cage") is None  # no such key
        assert keys.revoke(key.key_id, START)
        assert keys.change_role(key.key_id, "cage") is None  # a revoked key keeps its role
        assert [(k.role, k.revoked_at) for k in keys.list()] == [("floor", START.isoformat())]
    finally:
        engine.dispose()


def test_a_memory_keys_role_changes_by_the_same_rules() -> None:
    keys = MemoryKeyStore()
    key, token = keys.create("cage-1", "cage", START)
    assert keys.change_role(key.key_id, "auditor") == "cage"
    assert keys.lookup(token) == replace(key, role="auditor")
    with pytest.raises(ValueError, match="already has the role auditor"):
        keys.change_role(key.key_id, "auditor")
    assert keys.revoke(key.key_id, START) and keys.change_role(key.key_id, "floor") is None
