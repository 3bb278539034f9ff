"""``paigow keys``: create (the token shown once, or written to a 0600 file), list (never a token),
revoke, re-role. A store's first key is a security key made without a key (the bootstrap); every
later change acts as a security key (R5/R19), each a sealed system event naming who made it."""

from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

from tests.e2e.conftest import Run

DB = "sqlite:///keys.db"


def _bootstrap(paigow: Run) -> tuple[dict[str, str], tuple[str, str]]:
    """A new casino: the database, then its first key, a security key written to sec.key."""
    assert paigow("db", "upgrade", "--db", DB).returncode == 0  # keys go into a database
    made = paigow(
        "keys", "create", "--role", "security", "--actor", "sec-1", "--out", "sec.key", "--db", DB
    )
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout), ("--key-file", "sec.key")


def test_create_list_and_revoke_a_key(paigow: Run, tmp_path: Path) -> None:
    security, sec = _bootstrap(paigow)
    assert security == {
        "key_id": security["key_id"],
        "actor": "sec-1",
        "role": "security",
        "key_file": "sec.key",
    }
    assert stat.S_IMODE(os.stat(tmp_path / "sec.key").st_mode) == 0o600
    created = paigow("keys", "create", "--role", "cage", "--actor", "cage-3", "--db", DB, *sec)
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)
    assert (key["actor"], key["role"]) == ("cage-3", "cage")
    assert "shown only now" in created.stderr
    default = json.loads(paigow("keys", "create", "--role", "auditor", "--db", DB, *sec).stdout)
    assert default["actor"].startswith("auditor-") and default["key_id"] != key["key_id"]
    listed = paigow("keys", "list", "--db", DB)
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted(r["key_id"] for r in rows) == sorted(
        [security["key_id"], key["key_id"], default["key_id"]]
    )
    assert all(r["in_log"] for r in rows)
    assert key["token"] not in listed.stdout and default["token"] not in listed.stdout
    revoked = paigow("keys", "revoke", key["key_id"], "--db", DB, *sec)
    assert revoked.stdout == f"revoked {key['key_id']}\n"
    again = paigow("keys", "revoke", key["key_id"], "--db", DB, *sec)
    assert (again.returncode, again.stderr) == (1, f"paigow: no active key {key['key_id']}\n")
    rows = [json.loads(line) for line in paigow("keys", "list", "--db", DB).stdout.splitlines()]
    assert [r["revoked_at"] is not None for r in rows if r["key_id"] == key["key_id"]] == [True]


def test_a_key_file_that_cannot_be_written_leaves_no_key_behind(
    paigow: Run, tmp_path: Path
) -> None:
    """The file is opened before the key is made: a token nobody holds never enters the log."""
    _, sec = _bootstrap(paigow)
    before = paigow("keys", "list", "--db", DB).stdout
    refused = paigow(
        "keys", "create", "--role", "floor", "--out", "no-such-folder/floor.key", "--db", DB, *sec
    )
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2,
        "",
        "paigow: cannot write no-such-folder/floor.key: No such file or directory\n",
    )
    assert paigow("keys", "list", "--db", DB).stdout == before


def test_the_first_key_is_a_security_key_and_then_keys_need_one(paigow: Run) -> None:
    """The bootstrap: no key yet, a security key is made without one; from then on every change
    of keys acts as a security key, and the last one is kept."""
    assert paigow("db", "upgrade", "--db", DB).returncode == 0
    first = paigow("keys", "create", "--role", "floor", "--db", DB)
    assert (first.returncode, first.stdout) == (2, "")
    suggested = (
        f"paigow keys create --role security --out security.key --db {DB}"  # runs as printed
    )
    assert first.stderr == (
        "paigow: this store has no API key yet: its first key is a security key, which then "
        f"creates the others (`{suggested}`)\n"
    )
    made = paigow(*shlex.split(suggested)[1:])
    assert made.returncode == 0, made.stderr
    security, sec = json.loads(made.stdout), ("--key-file", "security.key")
    keyless = paigow("keys", "create", "--role", "floor", "--db", DB)
    assert keyless.returncode == 2 and "acts as an operator: give --key-file FILE" in keyless.stderr
    floor = paigow("keys", "create", "--role", "floor", "--out", "floor.key", "--db", DB, *sec)
    assert floor.returncode == 0, floor.stderr
    assert "token" not in json.loads(floor.stdout)  # written to the file only
    as_floor = ("--key-file", "floor.key")
    for args in (
        ["create", "--role", "cage"],
        ["revoke", security["key_id"]],
        ["role", security["key_id"], "--role", "floor", "--reason", "x"],
    ):
        done = paigow("keys", *args, "--db", DB, *as_floor)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.startswith(f"paigow: the floor role may not run paigow keys {args[0]}")
    for args in (
        ["revoke", security["key_id"]],
        ["role", security["key_id"], "--role", "floor", "--reason", "x"],
    ):
        done = paigow("keys", *args, "--db", DB, *sec)
        assert (done.returncode, done.stderr) == (
            2,
            f"paigow: key {security['key_id']} is the last active security key: create another "
            "one first\n",
        )
    exists = paigow("keys", "create", "--role", "cage", "--out", "floor.key", "--db", DB, *sec)
    assert (exists.returncode, exists.stderr) == (
        2,
        "paigow: floor.key exists: a key file is never overwritten\n",
    )


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
    """R5/R19: each key's creation and revocation is on the hashed, signed system stream, with
    who made it: the bootstrap, then the security key."""
    from adapters.store import open_store

    security, sec = _bootstrap(paigow)
    made = paigow("keys", "create", "--role", "floor", "--actor", "floor-9", "--db", DB, *sec)
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)
    assert paigow("keys", "revoke", key["key_id"], "--db", DB, *sec).returncode == 0
    store = open_store(f"sqlite:///{tmp_path / 'keys.db'}")
    try:
        events = [e for e in store.read_stream("system") if e.type.startswith("api_key_")]
        assert store.verify().ok
    finally:
        store.close()
    assert [(e.type, e.payload["key_id"], e.actor.role) for e in events] == [
        ("api_key_created", security["key_id"], "bootstrap"),
        ("api_key_created", key["key_id"], "security"),
        ("api_key_revoked", key["key_id"], "security"),
    ]
    assert events[0].actor.id.startswith("cli:") and events[1].actor.id == "sec-1"
    assert events[1].payload["key_actor"] == "floor-9" and events[1].payload["role"] == "floor"
    assert all(key["token"] not in json.dumps(e.payload) for e in events)


def test_a_keys_role_changes_with_a_reason_recorded_without_the_token(
    paigow: Run, tmp_path: Path
) -> None:
    """R5/R19: ``paigow keys role`` records ``api_key_role_changed`` (old and new role, the
    reason, who ran it); an empty reason, the same role or an unknown key write nothing."""
    from adapters.store import open_store

    _, sec = _bootstrap(paigow)
    key = json.loads(paigow("keys", "create", "--role", "dealer", "--db", DB, *sec).stdout)
    changed = paigow(
        "keys", "role", key["key_id"], "--role", "floor", "--reason", "promoted", "--db", DB, *sec
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
        done = paigow("keys", "role", key["key_id"], *flags, "--db", DB, *sec)
        assert (done.returncode, done.stderr) == (code, message)
    unknown = paigow("keys", "role", "0" * 12, "--role", "cage", "--reason", "x", "--db", DB, *sec)
    assert (unknown.returncode, unknown.stderr) == (1, f"paigow: no active key {'0' * 12}\n")
    rows = [json.loads(line) for line in paigow("keys", "list", "--db", DB).stdout.splitlines()]
    assert [r["role"] for r in rows] == ["security", "floor"]
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
    assert event.payload["actor_id"] == "sec-1" and key["token"] not in json.dumps(event.payload)
