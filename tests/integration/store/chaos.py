"""Concurrency chaos on PostgreSQL, shared by the test (small) and the benchmark (100,000 events).

Writers (separate processes) append to their own table and to one shared table; some of their
transactions are rolled back on purpose, some held open (slow, before the sequencer tail) while
others commit around them. Some commands (5%, on the writer's own table) are committed the way a
legacy two-transaction writer that died before its sequencer pass left them (``sequencer_queue``
rows, no position), for the other writers' tails to drain. A follower reads the global position
the whole time. Afterwards every committed command must have been seen exactly once, in one
piece, in dense positions, and no stream may have a duplicate or missing version.

Writer: ``python -m tests.integration.store.chaos URL WRITER_ID COMMANDS SEED``; it prints one
JSON line: the ids of its committed commands and their event counts.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from eventlog.envelope import NewEvent
from table_core.ports import Actor, ConcurrencyError

REPO = Path(__file__).resolve().parents[3]
SHARED = "table-shared"
START = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)


class RolledBack(Exception):
    """A command abandoned inside its transaction (the dealer cancelled, a check failed)."""


def writer(url: str, writer_id: int, commands: int, seed: int) -> dict[str, Any]:
    from adapters.store import open_store
    from adapters.store.signing import Signer
    from tests.integration.store.crash_writer import legacy_commit

    rng = random.Random(seed)
    store = open_store(url, signing_key=Signer.generate())  # appends need the key
    dealer = Actor(f"dealer-{writer_id}", "dealer")
    own = f"table-{writer_id}"
    committed: dict[str, int] = {}
    conflicts = 0
    for number in range(commands):
        table = SHARED if rng.random() < 0.3 else own
        size = rng.randint(1, 5)
        command = f"w{writer_id}-c{number}"
        at = START + timedelta(seconds=number)
        events = [
            NewEvent("wager_placed", 1, {"writer": writer_id, "n": number, "i": i}, dealer, at)
            for i in range(size)
        ]
        fate = rng.random()
        if fate >= 0.95:
            legacy_commit(store, own, events, command)
            committed[command] = size
            continue
        if fate < 0.1:

            def roll_back() -> None:
                raise RolledBack

            store.faults["before_commit"] = roll_back
        elif fate < 0.2:
            pause = rng.uniform(0.005, 0.03)

            def hold_open(pause: float = pause) -> None:
                time.sleep(pause)  # a slow transaction: others commit around it

            store.faults["before_commit"] = hold_open
        while True:
            try:
                store.append(table, store.stream_version(table), events, command)
                committed[command] = size
                break
            except RolledBack:
                break
            except ConcurrencyError:
                conflicts += 1  # the shared table moved on: reload and decide again
        store.faults.clear()
    store.close()
    return {"committed": committed, "conflicts": conflicts}


@dataclass
class Outcome:
    events: int = 0
    commands: int = 0
    conflicts: int = 0
    reads: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def run_chaos(url: str, writers: int, commands: int, seed: int = 7) -> Outcome:
    """Run the writers against ``url`` (migrated, empty) while following the log; check all."""
    from adapters.store import open_store

    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.integration.store.chaos", url, str(w), str(commands),
             str(seed * 1000 + w)],
            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE, text=True,
        )
        for w in range(1, writers + 1)
    ]  # fmt: skip
    follower = open_store(url)
    outcome = Outcome()
    seen: list[Any] = []
    position = 0

    def follow() -> None:
        nonlocal position
        while True:
            batch = follower.read_all(after_position=position, limit=5000)
            outcome.reads += 1
            if not batch:
                return
            expected = list(range(position + 1, position + 1 + len(batch)))
            if [e.position for e in batch] != expected:
                outcome.problems.append(f"read after {position} skipped: {batch[0].position}")
            seen.extend(batch)
            position = batch[-1].position

    while any(p.poll() is None for p in processes):
        follow()
        time.sleep(0.002)
    results = [json.loads(p.communicate()[0]) for p in processes]
    follower.sequence()  # the legacy commands no later tail has drained
    follow()
    outcome.seconds = time.perf_counter() - started

    committed: dict[str, int] = {}
    for result in results:
        committed.update(result["committed"])
        outcome.conflicts += result["conflicts"]
    per_command = Counter(e.command_id for e in seen)
    if per_command != Counter(committed):
        lost = set(committed) - set(per_command)
        extra = set(per_command) - set(committed)
        outcome.problems.append(f"lost {sorted(lost)[:5]}, unexpected {sorted(extra)[:5]}")
    versions: dict[str, list[int]] = {}
    for event in seen:
        versions.setdefault(event.stream_id, []).append(event.version)
    for stream, numbers in versions.items():
        if numbers != list(range(1, len(numbers) + 1)):
            outcome.problems.append(f"{stream} versions are not 1..n in order")
    report = follower.verify()
    if not report.ok:
        outcome.problems.append(f"verification: {report.first_bad}")
    follower.close()
    outcome.events = len(seen)
    outcome.commands = len(committed)
    return outcome


if __name__ == "__main__":
    url, writer_id, commands, seed = sys.argv[1], *map(int, sys.argv[2:5])
    print(json.dumps(writer(url, writer_id, commands, seed)))
