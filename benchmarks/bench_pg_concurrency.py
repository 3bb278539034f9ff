"""PostgreSQL under concurrent tables: our tail-locked sequencer against a table-lock design.

8 writer processes, one casino table each, append 30-event commands (a round) as fast as they
can, once against our store (one transaction: the inserts concurrently, then the advisory lock as
its last step to number the events) and once against the same store made to take
``LOCK TABLE event_log IN EXCLUSIVE MODE`` first and number its events inline (the simple
correct design, which serialises every table of the casino). Same schema, same hashing, same
pipelining, same run: only the ordering mechanism differs.

``--hold-ms`` models a slow statement phase (a slow client, a network hop, a statement that takes
its time): the same delay inside each design's write transaction after its inserts. Ours is then
before its tail lock, so other tables go on; the table lock is already held, so they wait.

``--chaos`` also runs the 100,000-event concurrency chaos (writers on their own and on a shared
table, rolled-back and slow transactions, a follower on the global position; see
tests/integration/store/chaos.py) and fails if anything was lost, skipped or duplicated.

Usage (repo root): ``.venv/bin/python benchmarks/bench_pg_concurrency.py [--tables 8]
[--commands 150] [--chaos]``. Prints figures, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adapters.store import PostgresEventStore, postgres_engine  # noqa: E402
from adapters.store.append_checks import check_request, check_version  # noqa: E402
from adapters.store.core import build_rows, sequence  # noqa: E402
from adapters.store.signing import Signer  # noqa: E402
from benchmarks.common import drop_schema, fresh_schema  # noqa: E402
from eventlog.canonical import GENESIS_HASH  # noqa: E402
from eventlog.envelope import NewEvent  # noqa: E402
from table_core.ports import Actor, RecordedEvent  # noqa: E402

ROUND = 30
DEALER = Actor("dealer-ann", "dealer")
START = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)


class TableLockStore(PostgresEventStore):
    """The baseline: one table lock per append, positions and the global chain inline."""

    # The rows as one JSON text, as our one-call append sends them (psycopg adapts array
    # parameters in Python at many times the cost): the designs differ in their locking only.
    # Each row: the events' columns (sql.EVENT_COLUMNS order), then position, prev and global hash.
    INSERT_ALL = (
        "WITH r AS (SELECT x, n FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS t(x, n)), "
        "ins AS (INSERT INTO events (stream_id, version, type, schema_version, payload, "
        "recorded_at, actor_id, actor_role, command_id, prev_hash, hash) "
        "SELECT x->>0, (x->>1)::int, x->>2, (x->>3)::int, x->>4, x->>5, x->>6, x->>7, x->>8, "
        "x->>9, x->>10 FROM r ORDER BY n RETURNING id, version), "
        "log AS (INSERT INTO event_log (position, event_id, prev_hash, hash) "
        "SELECT (x->>11)::bigint, ins.id, x->>12, x->>13 FROM r JOIN ins "
        "ON (r.x->>1)::int = ins.version), "
        "command AS (INSERT INTO commands VALUES (%s, %s, %s, %s)) SELECT 1"
    )

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Any,
        command_id: str,
        *,
        checkpoint: bool = False,
    ) -> list[RecordedEvent]:
        check_request(stream_id, expected_version, events, command_id)
        with self._connection() as conn, conn.pipeline() as pipeline, conn.transaction():
            conn.execute("LOCK TABLE event_log IN EXCLUSIVE MODE")
            head = conn.execute(
                "SELECT version, hash FROM events WHERE stream_id = %s "
                "ORDER BY version DESC LIMIT 1",
                (stream_id,),
            )
            top = conn.execute(
                "SELECT position, hash FROM event_log ORDER BY position DESC LIMIT 1"
            )
            pipeline.sync()  # wait for the lock: a pipelined fetch alone may not
            head_version, head_hash = head.fetchone() or (0, GENESIS_HASH)
            position, global_head = top.fetchone() or (0, GENESIS_HASH)
            self._fault("before_commit")  # the lock is held from here to the commit
            check_version(stream_id, expected_version, head_version)
            rows = build_rows(stream_id, head_version, head_hash, events, command_id)
            log = sequence(((row[1], row[10]) for row in rows), position, global_head)
            batch = [
                (*row, entry[0], entry[2], entry[3]) for row, entry in zip(rows, log, strict=True)
            ]
            conn.execute(
                self.INSERT_ALL,
                (
                    orjson.dumps(batch).decode(),
                    command_id,
                    stream_id,
                    head_version + 1,
                    head_version + len(rows),
                ),
            )
        return self._reader.events((entry[0], *row) for entry, row in zip(log, rows, strict=True))


def worker(
    url: str, design: str, table: str, commands: int, start_at: float, hold_ms: float
) -> dict[str, Any]:
    engine = postgres_engine(__import__("sqlalchemy").engine.make_url(url), pool_size=1)
    kind = TableLockStore if design == "table_lock" else PostgresEventStore
    store = kind(engine, signer=Signer.generate())
    if hold_ms:
        # A slow statement phase: the same delay in each design's write transaction, after its
        # inserts (ours: before the tail lock; the baseline's table lock is taken first).
        store.faults["before_commit"] = lambda: time.sleep(hold_ms / 1000)

    def command(number: int) -> None:
        at = START + timedelta(seconds=number)
        events = [
            NewEvent("wager_placed", 1, {"position": i % 7 + 1, "main": 100 * i}, DEALER, at)
            for i in range(ROUND)
        ]
        store.append(table, number * ROUND, events, f"{table}-{number}")

    for number in range(3):  # warm: connection, prepared statements
        command(number)
    time.sleep(max(0.0, start_at - time.time()))
    latencies = []
    began = time.time()
    for number in range(3, 3 + commands):
        before = time.perf_counter()
        command(number)
        latencies.append(time.perf_counter() - before)
    ended = time.time()
    store.close()
    return {"began": began, "ended": ended, "latencies": latencies}


def run_design(design: str, tables: int, commands: int, hold_ms: float) -> dict[str, Any]:
    schema = f"bench_{design}_{os.getpid()}"
    url = fresh_schema(schema)
    try:
        start_at = time.time() + 3.0  # every writer warmed up and waiting
        processes = [
            subprocess.Popen(
                [sys.executable, __file__, "--worker", url, design, f"table-{t}", str(commands),
                 str(start_at), str(hold_ms)],
                cwd=REPO, stdout=subprocess.PIPE, text=True,
            )
            for t in range(1, tables + 1)
        ]  # fmt: skip
        results = [json.loads(p.communicate()[0]) for p in processes]
        if any(p.returncode for p in processes):
            raise SystemExit(f"a {design} writer failed")
        store = PostgresEventStore(postgres_engine(__import__("sqlalchemy").engine.make_url(url)))
        report = store.verify()
        store.close()
        if not report.ok:
            raise SystemExit(f"{design}: the log does not verify: {report.first_bad}")
    finally:
        drop_schema(schema)
    elapsed = max(r["ended"] for r in results) - min(r["began"] for r in results)
    latencies = sorted(x for r in results for x in r["latencies"])
    total = tables * commands
    return {
        "commands_per_s": round(total / elapsed, 1),
        "events_per_s": round(total * ROUND / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1000, 2),
        "events_verified": report.events,
    }


def run_chaos_benchmark(writers: int, commands: int) -> dict[str, Any]:
    from tests.integration.store.chaos import run_chaos

    schema = f"bench_chaos_{os.getpid()}"
    url = fresh_schema(schema)
    try:
        outcome = run_chaos(url, writers=writers, commands=commands)
    finally:
        drop_schema(schema)
    if outcome.problems:
        raise SystemExit(f"chaos found problems: {outcome.problems}")
    return {
        "events": outcome.events,
        "commands": outcome.commands,
        "conflicts_retried": outcome.conflicts,
        "follower_reads": outcome.reads,
        "seconds": round(outcome.seconds, 1),
        "events_per_s": round(outcome.events / outcome.seconds, 1),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        url, design, table, commands, start_at, hold = sys.argv[2:8]
        print(json.dumps(worker(url, design, table, int(commands), float(start_at), float(hold))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--commands", type=int, default=150, help="30-event commands per table")
    parser.add_argument(
        "--hold-ms",
        type=float,
        default=0.0,
        help="a slow statement phase in each write transaction (ours: before the tail lock)",
    )
    parser.add_argument("--chaos", action="store_true", help="also the 100,000-event chaos run")
    parser.add_argument("--chaos-commands", type=int, default=4700, help="per chaos writer")
    args = parser.parse_args()

    result: dict[str, Any] = {
        "tables": args.tables,
        "commands_per_table": args.commands,
        "hold_ms": args.hold_ms,
    }
    for design in ("sequencer", "table_lock"):
        figures = run_design(design, args.tables, args.commands, args.hold_ms)
        result[design] = figures
        print(
            f"{design:10} {figures['commands_per_s']:>8,.1f} commands/s "
            f"{figures['events_per_s']:>10,.0f} events/s  p50 {figures['p50_ms']} ms  "
            f"p99 {figures['p99_ms']} ms  ({args.tables} tables, verified)"
        )
    result["ratio"] = round(
        result["sequencer"]["commands_per_s"] / result["table_lock"]["commands_per_s"], 2
    )
    print(f"sequencer / table lock: {result['ratio']}x commands/s")
    if args.chaos:
        chaos = run_chaos_benchmark(8, args.chaos_commands)
        result["chaos"] = chaos
        print(
            f"chaos: {chaos['events']:,} events, {chaos['commands']:,} commands, "
            f"{chaos['conflicts_retried']} conflicts retried, {chaos['follower_reads']} follower "
            f"reads, {chaos['seconds']} s: nothing lost, skipped or duplicated"
        )
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
