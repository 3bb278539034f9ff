"""``kill -9`` while a new SQLite file is created (issue 17) leaves no database or a whole one,
never tables without ``alembic_version``; a half one made by older code is refused clearly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from eventlog.keys import key_paths, load_public_key
from table_core.ports import StoreError

# A process that opens a new store with the migration stopped between two revisions: it says
# where it is, then sleeps until killed.
SLOW_CREATION = """
import sys, time
from alembic import command
from adapters.store import migrate, open_store

real = command.upgrade

def slow(config, revision):
    real(config, "0002_projections")
    print("half-way", flush=True)
    time.sleep(600)

command.upgrade = slow
open_store(sys.argv[1])
"""


def _killed_half_way(folder: Path, url: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_CREATION, url],
        cwd=folder,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "half-way"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def test_kill_9_during_creation_leaves_no_database_and_a_later_open_makes_a_whole_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "casino.db"
    _killed_half_way(tmp_path, f"sqlite:///{path}")
    assert not path.exists()  # nothing under the name: the half-made file was a temporary one
    leftovers = list(tmp_path.glob(".casino.db.creating-*"))
    assert leftovers  # the dead process's temporary file, not yet cleaned
    store = open_store(f"sqlite:///{path}")
    try:
        assert store.read_all() == []
    finally:
        store.close()
    assert not list(tmp_path.glob(".casino.db.creating-*"))  # removed: its process is dead
    with create_engine(f"sqlite:///{path}").connect() as connection:
        assert migrate.current_revision(connection) == migrate.head_revision()


def test_db_upgrade_creates_atomically_too(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    assert (
        migrate.upgrade(f"sqlite:///{path}", load_settings().pg_roles()) == migrate.head_revision()
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.db"]


def test_an_empty_file_is_replaced_by_a_whole_database(tmp_path: Path) -> None:
    path = tmp_path / "casino.db"
    path.touch()
    store = open_store(f"sqlite:///{path}", signing_key=Signer.generate())
    store.close()
    with create_engine(f"sqlite:///{path}").connect() as connection:
        assert migrate.current_revision(connection) == migrate.head_revision()


def test_a_half_made_file_from_older_code_is_refused_with_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "casino.db"
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE events (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    for attempt in (
        lambda: open_store(f"sqlite:///{path}", signing_key=Signer.generate()),
        lambda: migrate.upgrade(f"sqlite:///{path}", load_settings().pg_roles()),
    ):
        with pytest.raises(StoreError, match="creation was killed half-way"):
            attempt()


def test_two_processes_creating_at_once_both_get_the_same_whole_database(tmp_path: Path) -> None:
    """Both see a new file: one database and one key come of it, both processes sign with that
    key, and neither says a word on standard error (no traceback of a key file met half-way)."""
    path = tmp_path / "casino.db"
    code = (
        "import sys; from adapters.store import open_store; store = open_store(sys.argv[1]); "
        "print(store.signer.key_id); store.close()"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    started = time.monotonic()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, f"sqlite:///{path}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outcomes = [(p.wait(timeout=120), *p.communicate()) for p in processes]
    assert [(status, err) for status, _, err in outcomes] == [(0, ""), (0, "")], (
        time.monotonic() - started
    )
    keys = {out.strip() for _, out, _ in outcomes}
    assert keys == {Signer.from_file(key_paths(path)[0]).key_id}
    assert (
        load_public_key(key_paths(path)[1].read_bytes())
        == Signer.from_file(key_paths(path)[0]).public_raw
    )
    assert not list(tmp_path.glob(".casino.db*"))  # no temporary file left behind
    with create_engine(f"sqlite:///{path}").connect() as connection:
        assert migrate.current_revision(connection) == migrate.head_revision()


def test_a_key_is_never_seen_half_written(tmp_path: Path) -> None:
    """Key files are written under a temporary name and linked whole; none is left behind, and
    a pair that exists is never written over."""
    from adapters.store.signing import create_key_files

    made = create_key_files(tmp_path / "casino.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "casino.db.signing-key",
        "casino.db.signing-key.pub",
    ]
    assert os.stat(tmp_path / "casino.db.signing-key").st_mode & 0o777 == 0o600
    # Made again (another process that saw no key): the key already there, unchanged.
    assert create_key_files(tmp_path / "casino.db").key_id == made.key_id
    assert Signer.from_file(tmp_path / "casino.db.signing-key").key_id == made.key_id


def test_a_public_half_without_its_key_is_refused_in_one_line(tmp_path: Path) -> None:
    from adapters.store.signing import create_key_files

    (tmp_path / "casino.db.signing-key.pub").write_bytes(Signer.generate().public_pem())
    with pytest.raises(StoreError, match="exists without its private key"):
        create_key_files(tmp_path / "casino.db")
    assert not (tmp_path / "casino.db.signing-key").exists()
