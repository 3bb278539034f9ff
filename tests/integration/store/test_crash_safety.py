"""A process killed in the middle of appending leaves all of a command's events or none, on SQLite
and on PostgreSQL, and the store opens, verifies and goes on afterwards."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from adapters.settings import load_settings
from adapters.store import PostgresEventStore, migrate, open_store, postgres_engine
from adapters.store.signing import Signer
from tests.integration.store.crash_writer import legacy_commit, round_events

#: Appends need the signing key (adapters/store/tags.py); none of these tests signs.
KEY = Signer.generate()

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        target = f"sqlite:///{tmp_path / 'crash.db'}"
    else:
        target = request.getfixturevalue("pg_url")
    migrate.upgrade(target, load_settings().pg_roles())
    return target


def _writer(url: str, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.store.crash_writer", url, mode],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill_when_inside(url: str, mode: str) -> None:
    writer = _writer(url, mode)
    assert writer.stdout is not None
    line = writer.stdout.readline()
    assert line.strip() == "inside", writer.stderr.read() if writer.stderr else line
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL


def test_killed_before_commit_leaves_none_of_the_command(url: str) -> None:
    store = open_store(url, signing_key=KEY)
    store.append("table-1", 0, round_events(99)[:1], "opening")
    store.close()

    _kill_when_inside(url, "before_commit")

    store = open_store(url, signing_key=KEY)
    assert store.stream_version("table-1") == 1
    assert store.events_of_command("doomed") is None
    assert store.verify().ok
    recorded = store.append("table-1", 1, round_events(1), "next-round")
    assert [e.position for e in recorded] == list(range(2, 32))
    store.close()


def test_killed_after_commit_keeps_the_whole_command(url: str) -> None:
    # The commit wrote the events and their global positions together (PostgreSQL too: the
    # sequencer is the append transaction's tail).
    _kill_when_inside(url, "after_commit")

    store = open_store(url, signing_key=KEY)
    events = store.events_of_command("doomed")
    assert events is not None
    assert [e.version for e in events] == list(range(1, 31))
    assert [e.position for e in store.read_all()] == list(range(1, 31))
    assert store.verify().ok
    store.close()


def test_killed_at_a_random_moment_every_command_is_whole(url: str) -> None:
    writer = _writer(url, "loop")
    assert writer.stdout is not None
    for _ in range(3):  # let it commit a few rounds first
        assert writer.stdout.readline().startswith("round-")
    time.sleep(random.uniform(0.0, 0.05))
    writer.send_signal(signal.SIGKILL)
    committed = {line.strip() for line in writer.stdout.read().splitlines()}
    writer.wait(timeout=30)

    store = open_store(url, signing_key=KEY)
    report = store.verify()
    assert report.ok, report.first_bad
    per_command = Counter(e.command_id for e in store.read_all())
    assert set(per_command.values()) == {30}, per_command
    assert committed <= set(per_command)  # nothing announced as committed is missing
    store.close()


def test_killed_holding_the_sequencer_lock_leaves_none_and_blocks_no_one(pg_url: str) -> None:
    # PostgreSQL: the writer dies inside its tail, the advisory lock held, positions drawn but
    # not committed. The server rolls it back and frees the lock; the numbers are given again.
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = open_store(pg_url, signing_key=KEY)
    store.append("table-1", 0, round_events(99)[:1], "opening")
    store.close()

    _kill_when_inside(pg_url, "holding_lock")

    store = open_store(pg_url, signing_key=KEY)
    assert store.events_of_command("doomed") is None
    recorded = store.append("table-2", 0, round_events(1), "next-round")
    assert [e.position for e in recorded] == list(range(2, 32))
    assert store.verify().ok
    store.close()


def _bare_store(url: str) -> PostgresEventStore:
    """A store opened without ``open_store``'s recovery pass."""
    return PostgresEventStore(postgres_engine(make_url(url)), signer=KEY)


@pytest.mark.parametrize("recovery", ["next_append", "open_store", "read_stream", "sequence"])
def test_a_legacy_writer_killed_before_its_pass_is_positioned(pg_url: str, recovery: str) -> None:
    """Older versions appended in two transactions (the events, then the sequencer pass). One
    killed in between left committed ``sequencer_queue`` rows: whatever comes next positions
    them, densely, before anything newer."""
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = _bare_store(pg_url)
    store.append("table-2", 0, round_events(98)[:1], "opening")
    store.close()

    _kill_when_inside(pg_url, "legacy_commit")

    store = _bare_store(pg_url)
    assert [e.position for e in store.read_all()] == [1]  # not in the global order yet
    if recovery == "next_append":
        recorded = store.append("table-2", 1, round_events(97)[:2], "next")
        assert [e.position for e in recorded] == [32, 33]  # after the 30 drained
    elif recovery == "open_store":
        store.close()
        store = open_store(pg_url, signing_key=KEY)
    elif recovery == "read_stream":
        assert [e.position for e in store.read_stream("table-1")] == list(range(2, 32))
    else:
        store.sequence()
    events = store.events_of_command("doomed")
    assert events is not None
    assert [e.version for e in events] == list(range(1, 31))
    assert [e.position for e in events] == list(range(2, 32))
    assert [e.position for e in store.read_all()] == list(range(1, len(store.read_all()) + 1))
    assert store.verify().ok
    store.close()


def test_legacy_queue_rows_and_new_appends_keep_each_streams_order(pg_url: str) -> None:
    # A legacy writer's unpositioned events, then a new append to the SAME stream on top of
    # them: the drained ones take the lower positions, the stream's versions stay in order.
    migrate.upgrade(pg_url, load_settings().pg_roles())
    store = _bare_store(pg_url)
    legacy_commit(store, "table-1", round_events(0)[:3], "legacy")
    recorded = store.append("table-1", 3, round_events(1)[:2], "new")
    assert [(e.version, e.position) for e in recorded] == [(4, 4), (5, 5)]
    assert [(e.version, e.position) for e in store.read_stream("table-1")] == [
        (v, v) for v in range(1, 6)
    ]
    assert store.verify().ok
    store.close()
