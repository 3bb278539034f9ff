"""``paigow keys``: create (the token shown once), list (never a token), revoke."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Run

DB = "sqlite:///keys.db"


def test_create_list_and_revoke_a_key(paigow: Run) -> None:
    assert paigow("db", "upgrade", "--db", DB).returncode == 0  # keys go into an existing database
    created = paigow("keys", "create", "--role", "cage", "--actor", "cage-3", "--db", DB)
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)
    assert (key["actor"], key["role"]) == ("cage-3", "cage")
    assert "shown only now" in created.stderr
    default = json.loads(paigow("keys", "create", "--role", "auditor", "--db", DB).stdout)
    assert default["actor"].startswith("auditor-") and default["key_id"] != key["key_id"]
    listed = paigow("keys", "list", "--db", DB)
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted(r["key_id"] for r in rows) == sorted([key["key_id"], default["key_id"]])
    assert key["token"] not in listed.stdout and default["token"] not in listed.stdout
    assert (
        paigow("keys", "revoke", key["key_id"], "--db", DB).stdout == f"revoked {key['key_id']}\n"
    )
    again = paigow("keys", "revoke", key["key_id"], "--db", DB)
    assert (again.returncode, again.stderr) == (1, f"paigow: no active key {key['key_id']}\n")
    rows = [json.loads(line) for line in paigow("keys", "list", "--db", DB).stdout.splitlines()]
    assert [r["revoked_at"] is not None for r in rows if r["key_id"] == key["key_id"]] == [True]


def test_a_key_needs_a_role_the_api_knows_and_a_database(paigow: Run, tmp_path: Path) -> None:
    wrong = paigow("keys", "create", "--role", "pit_boss", "--db", DB)
    assert wrong.returncode == 2 and "invalid choice 'pit_boss'" in wrong.stderr
    memory = paigow("keys", "create", "--role", "dealer", "--db", "memory://")
    assert memory.returncode == 2
    assert (
        memory.stderr
        == "paigow: keys of a memory:// store vanish with the process: use a database\n"
    )
    missing = paigow("keys", "create", "--role", "dealer", "--db", DB)  # no database made for it
    assert (missing.returncode, missing.stderr) == (
        2,
        f"paigow: no database at keys.db; `paigow db upgrade --db {DB}` creates one\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_keys_created_and_revoked_are_system_events_without_the_token(
    paigow: Run, tmp_path: Path
) -> None:
    """R5/R19: each key's creation and revocation is on the hashed, signed system stream."""
    from adapters.store import open_store

    assert paigow("db", "upgrade", "--db", "sqlite:///k.db").returncode == 0
    made = paigow(
        "keys", "create", "--role", "floor", "--actor", "floor-9", "--db", "sqlite:///k.db"
    )
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)
    assert paigow("keys", "revoke", key["key_id"], "--db", "sqlite:///k.db").returncode == 0
    store = open_store(f"sqlite:///{tmp_path / 'k.db'}")
    try:
        events = [e for e in store.read_stream("system") if e.type.startswith("api_key_")]
        assert store.verify().ok
    finally:
        store.close()
    assert [(e.type, e.payload["key_id"]) for e in events] == [
        ("api_key_created", key["key_id"]),
        ("api_key_revoked", key["key_id"]),
    ]
    assert events[0].payload["key_actor"] == "floor-9" and events[0].payload["role"] == "floor"
    assert all(key["token"] not in json.dumps(e.payload) for e in events)


def test_a_keys_role_changes_with_a_reason_recorded_without_the_token(
    paigow: Run, tmp_path: Path
) -> None:
    """R5/R19: ``paigow keys role`` records ``api_key_role_changed`` (old and new role, the
    reason, who ran it); an empty reason, the same role or an unknown key write nothing."""
    from adapters.store import open_store

    assert paigow("db", "upgrade", "--db", DB).returncode == 0
    key = json.loads(paigow("keys", "create", "--role", "dealer", "--db", DB).stdout)
    changed = paigow(
        "keys", "role", key["key_id"], "--role", "floor", "--reason", "promoted", "--db", DB
    )
    assert changed.returncode == 0, changed.stderr
    assert json.loads(changed.stdout) == {
        "key_id": key["key_id"],
        "old_role": "dealer",
        "role": "floor",
    }
    refused = [
        (
            ["--role", "cage", "--reason", "  "],
            2,
            "paigow: a change of role states its reason (--reason)\n",
        ),
        (
            ["--role", "floor", "--reason", "again"],
            2,
            f"paigow: key {key['key_id']} already has the role floor\n",
        ),
    ]
    for flags, code, message in refused:
        done = paigow("keys", "role", key["key_id"], *flags, "--db", DB)
        assert (done.returncode, done.stderr) == (code, message)
    unknown = paigow("keys", "role", "0" * 12, "--role", "cage", "--reason", "x", "--db", DB)
    assert (unknown.returncode, unknown.stderr) == (1, f"paigow: no active key {'0' * 12}\n")
    rows = [json.loads(line) for line in paigow("keys", "list", "--db", DB).stdout.splitlines()]
    assert [r["role"] for r in rows] == ["floor"]
    store = open_store(f"sqlite:///{tmp_path / 'keys.db'}")
    try:
        events = [e for e in store.read_stream("system") if e.type == "api_key_role_changed"]
        assert store.verify().ok
    finally:
        store.close()
    (event,) = events
    assert {k: event.payload[k] for k in ("key_id", "old_role", "new_role", "reason")} == {
        "key_id": key["key_id"],
        "old_role": "dealer",
        "new_role": "floor",
        "reason": "promoted",
    }
    assert event.payload["actor_id"].startswith("cli:") and key["token"] not in json.dumps(
        event.payload
    )
