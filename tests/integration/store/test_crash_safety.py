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

from adapters.store import migrate, open_store
from tests.integration.store.crash_writer import round_events

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        target = f"sqlite:///{tmp_path / 'crash.db'}"
    else:
        target = request.getfixturevalue("pg_url")
    migrate.upgrade(target)
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
    store = open_store(url)
    store.append("table-1", 0, round_events(99)[:1], "opening")
    store.close()

    _kill_when_inside(url, "before_commit")

    store = open_store(url)
    assert store.stream_version("table-1") == 1
    assert store.events_of_command("doomed") is None
    assert store.verify().ok
    recorded = store.append("table-1", 1, round_events(1), "next-round")
    assert [e.position for e in recorded] == list(range(2, 32))
    store.close()


def test_killed_after_commit_keeps_the_whole_command(url: str) -> None:
    # On PostgreSQL this is the gap between the events' commit and their sequencer pass: the
    # events are kept, and get their global positions when the store is next opened.
    _kill_when_inside(url, "after_commit")

    store = open_store(url)
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

    store = open_store(url)
    report = store.verify()
    assert report.ok, report.first_bad
    per_command = Counter(e.command_id for e in store.read_all())
    assert set(per_command.values()) == {30}, per_command
    assert committed <= set(per_command)  # nothing announced as committed is missing
    store.close()
