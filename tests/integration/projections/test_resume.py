"""A projection that crashes half-way resumes from its checkpoint without counting anything
twice: the rows and the checkpoint of a batch commit together or not at all.

In-process: a projection raises in the middle of a batch. Out of process: the runner's process
is killed inside the batch's transaction, just before it commits (SQLite and PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from adapters.projections import ProjectionRunner
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer

from . import session as s
from .conftest import Opener
from .support import dump, report

REPO = Path(__file__).resolve().parents[3]


class Crash(Exception):
    pass


def _reference(until: int) -> dict[str, Any]:
    """The projections of the same evening as of position ``until``, built from zero apart."""
    memory = InMemoryEventStore(Signer.generate())
    s.play_evening(s.Session(memory))
    runner = ProjectionRunner(memory)
    runner.catch_up(until=until)
    return dump(runner)


def test_a_crash_half_way_through_a_batch_resumes_without_double_counting(
    any_opener: Opener,
) -> None:
    store = any_opener()
    s.play_evening(s.Session(store))
    runner = ProjectionRunner(store, batch_size=10)

    def crash(projection: str, event: Any) -> None:
        # Positions 31..40 are one batch: the bankroll and rotation projections have applied
        # theirs when the round history fails at its 5th event (round 2's settlement is near).
        if projection == "rounds" and event.position == 35:
            raise Crash

    runner.faults["event"] = crash
    with pytest.raises(Crash):
        runner.catch_up()
    assert set(runner.positions().values()) == {30}  # three batches committed, not the fourth
    assert dump(runner) == _reference(30)

    ProjectionRunner(store, batch_size=10).catch_up()  # a new run resumes from position 30
    figures = report(ProjectionRunner(store), None)
    assert figures["players"] == s.PLAYERS
    assert figures["house"] == [s.HOUSE]
    assert figures["accounting"] == [s.ACCOUNTING]


KILLED = textwrap.dedent(
    """
    import os, sys
    from adapters.projections import ProjectionRunner
    from adapters.store import open_store
    from adapters.store.signing import Signer

    store = open_store(sys.argv[1], signing_key=Signer.generate())
    runner = ProjectionRunner(store, batch_size=20)
    batches = []

    def die() -> None:
        batches.append(1)
        if len(batches) == 3:  # inside the third batch's transaction, its rows written
            os._exit(9)

    runner.faults["before_commit"] = die
    runner.catch_up()
    """
)


def test_a_runner_killed_before_its_commit_loses_that_batch_only(
    sql_opener: Opener, tmp_path: Path
) -> None:
    store = sql_opener()
    s.play_evening(s.Session(store))
    url = store.engine.url.render_as_string(hide_password=False)
    script = tmp_path / "killed_runner.py"
    script.write_text(KILLED)
    done = subprocess.run(
        [sys.executable, str(script), url], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 9, done.stderr
    runner = ProjectionRunner(store)
    assert set(runner.positions().values()) == {40}
    assert dump(runner) == _reference(40)
    runner.catch_up()
    figures = report(runner, None)
    assert figures["players"] == s.PLAYERS
    assert figures["accounting"] == [s.ACCOUNTING]
    assert figures["rotation"] == [s.ROTATION]


def test_two_runners_at_once_never_apply_a_batch_twice(sql_opener: Opener) -> None:
    """Runner A reads a batch; before it writes, runner B (another process) applies everything.
    A sees the checkpoints moved inside its transaction, drops its batch and reads on from B's."""
    store = sql_opener()
    s.play_evening(s.Session(store))
    other = ProjectionRunner(sql_opener())
    slow = ProjectionRunner(store, batch_size=25)
    reads = []
    read_all = store.read_all

    def read_then_let_the_other_run(after: int = 0, limit: int | None = None) -> Any:
        events = read_all(after, limit)
        reads.append(after)
        if len(reads) == 2:
            other.catch_up()
        return events

    store.read_all = read_then_let_the_other_run
    slow.catch_up()
    assert reads[:3] == [0, 25, 81]  # the second batch was read again from B's checkpoints
    figures = report(ProjectionRunner(store), None)
    assert figures["players"] == s.PLAYERS
    assert figures["accounting"] == [s.ACCOUNTING]
    assert figures["offers"] and len(figures["offers"]) == len(s.OFFERS)
