"""Event store throughput: ours against the ``eventsourcing`` library's own recorders, same run.

For SQLite and PostgreSQL, one writer:
  command   one command per transaction, 30 events (about one round of a full table)
  event     one event per transaction
  read      the global log, in pages of 10,000
and on SQLite, replay: read + verify every hash and checkpoint + fold, the cost of a restart.

The peer is ``eventsourcing``'s application recorder (the one with a global notification order,
which is what our global position is), given the same payloads serialised to JSON inside the timed
region (any application must serialise; we also canonicalise, hash and chain). Durability is the
same on both sides: SQLite in WAL mode with synchronous=FULL, PostgreSQL with its defaults.

Usage (repo root): ``.venv/bin/python benchmarks/bench_store.py [--commands 300] [--single 1500]
[--engines sqlite,postgresql]``
Prints the figures and ratios, then ONE JSON line of them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.store import open_store
from adapters.store.signing import Signer
from benchmarks.common import PG, drop_schema, fresh_schema, percentile
from eventlog.envelope import NewEvent
from table_core.ports import Actor

ROUND = 30
TABLES = 8
DEALER = Actor("dealer-ann", "dealer")
START = datetime(2025, 3, 14, 20, 0, tzinfo=UTC)


def payload(n: int) -> dict[str, Any]:
    """A wager-sized payload: what most events of a round look like."""
    return {"position": n % 7 + 1, "main": 2500 + n, "side": {"fortune": 500}, "round": n // 30}


def new_events(n: int, count: int) -> list[NewEvent]:
    at = START + timedelta(seconds=n)
    return [NewEvent("wager_placed", 1, payload(n + i), DEALER, at) for i in range(count)]


def timed(batches: int, size: int, run: Callable[[int], None]) -> dict[str, float]:
    """Wall-clock rates and latencies, and this process's CPU per transaction: the fsync wait is
    the disk's (the same for both sides), the CPU is what each side's code costs."""
    latencies = []
    started = time.perf_counter()
    cpu = time.process_time()
    for number in range(batches):
        before = time.perf_counter()
        run(number)
        latencies.append(time.perf_counter() - before)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu
    return {
        "tx_per_s": round(batches / elapsed, 1),
        "events_per_s": round(batches * size / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 3),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 3),
        "cpu_us_per_tx": round(cpu / batches * 1e6, 1),
    }


# -- ours -----------------------------------------------------------------------------------


def ours_writes(store: Any, batches: int, size: int, tag: str) -> dict[str, float]:
    versions = dict.fromkeys(range(TABLES), 0)

    def run(number: int) -> None:
        table = number % TABLES
        events = new_events(number * size, size)
        store.append(f"{tag}-{table}", versions[table], events, f"{tag}-{number}")
        versions[table] += size

    return timed(batches, size, run)


def ours_batches(store: Any, batches: int, commands: int, size: int) -> dict[str, float]:
    """``append_batch``: ``commands`` commands of ``size`` events each, one transaction (a round
    of a table as the service writes it), each event under its own command id."""
    version = 0

    def run(number: int) -> None:
        nonlocal version
        batch = [
            (f"batch-{number}-{k}", new_events((number * commands + k) * size, size))
            for k in range(commands)
        ]
        store.append_batch("batch-table", version, batch)
        version += commands * size

    return timed(batches, commands * size, run)


def ours_read(store: Any) -> dict[str, float]:
    started = time.perf_counter()
    position, count = 0, 0
    while batch := store.read_all(after_position=position, limit=10_000):
        count += len(batch)
        position = batch[-1].position
    return {"events": count, "events_per_s": round(count / (time.perf_counter() - started), 1)}


def ours_replay(store: Any) -> dict[str, float]:
    def fold(money: dict[str, int], event: Any) -> dict[str, int]:
        # A bankroll projection: the sort of fold a table or the cage does.
        money[event.stream_id] = money.get(event.stream_id, 0) + event.payload["main"]
        return money

    events = len(store.read_all())
    best = best_cpu = 0.0
    for _ in range(3):
        started, cpu = time.perf_counter(), time.process_time()
        store.replay(fold, {})
        best = max(best, events / (time.perf_counter() - started))
        best_cpu = max(best_cpu, events / (time.process_time() - cpu))
    return {
        "events": events,
        "events_per_s": round(best, 1),
        "events_per_cpu_s": round(best_cpu, 1),
    }


# -- the peer -------------------------------------------------------------------------------


def peer_writes(recorder: Any, batches: int, size: int) -> dict[str, float]:
    from eventsourcing.persistence import StoredEvent

    ids = [uuid.uuid4() for _ in range(TABLES)]
    versions = dict.fromkeys(range(TABLES), 0)

    def run(number: int) -> None:
        table = number % TABLES
        base = number * size
        recorder.insert_events(
            [
                StoredEvent(
                    originator_id=ids[table],
                    originator_version=versions[table] + i + 1,
                    topic="wager_placed",
                    state=json.dumps(payload(base + i)).encode(),
                )
                for i in range(size)
            ]
        )
        versions[table] += size

    return timed(batches, size, run)


def peer_read(recorder: Any) -> dict[str, float]:
    started = time.perf_counter()
    start, count = 1, 0
    while batch := recorder.select_notifications(start, 10_000):
        count += len(batch)
        for notification in batch:
            json.loads(notification.state)
        start = batch[-1].id + 1
    return {"events": count, "events_per_s": round(count / (time.perf_counter() - started), 1)}


# -- engines --------------------------------------------------------------------------------


def sqlite_pair(folder: Path) -> tuple[Any, Any]:
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    ours = open_store(f"sqlite:///{folder / 'ours.db'}")
    datastore = SQLiteDatastore(str(folder / "peer.db"))
    peer = SQLiteApplicationRecorder(datastore)
    peer.create_table()
    return ours, peer


def postgres_pair(schema: str) -> tuple[Any, Any]:
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
    from sqlalchemy.engine import make_url

    url = make_url(PG)
    ours = open_store(fresh_schema(schema), signing_key=Signer.generate())
    datastore = PostgresDatastore(
        url.database or "test", url.host or "127.0.0.1", url.port or 5432,
        url.username or "postgres", url.password or "", schema=schema,
    )  # fmt: skip
    peer = PostgresApplicationRecorder(datastore)
    peer.create_table()
    return ours, peer


def measure(engine: str, ours: Any, peer: Any, commands: int, single: int) -> dict[str, Any]:
    # Warm both (connections, prepared statements, page cache) before timing.
    ours_writes(ours, 20, ROUND, "warm")
    peer_writes(peer, 20, ROUND)
    figures: dict[str, Any] = {}
    figures["ours_command"] = ours_writes(ours, commands, ROUND, "round")
    figures["peer_command"] = peer_writes(peer, commands, ROUND)
    figures["ours_event"] = ours_writes(ours, single, 1, "single")
    figures["peer_event"] = peer_writes(peer, single, 1)
    figures["ours_batch"] = ours_batches(ours, commands // 3, 10, 3)
    figures["ours_read"] = ours_read(ours)
    figures["peer_read"] = peer_read(peer)
    for kind in ("command", "event", "read"):
        figures[f"ratio_{kind}"] = round(
            figures[f"ours_{kind}"]["events_per_s"] / figures[f"peer_{kind}"]["events_per_s"], 2
        )
    for kind in ("command", "event"):  # CPU per transaction: peer / ours, higher is ours faster
        figures[f"cpu_ratio_{kind}"] = round(
            figures[f"peer_{kind}"]["cpu_us_per_tx"] / figures[f"ours_{kind}"]["cpu_us_per_tx"], 2
        )
    return figures


def show(engine: str, figures: dict[str, Any]) -> None:
    print(f"\n{engine}")
    for kind in ("command", "event"):
        for who in ("ours", "peer"):
            f = figures[f"{who}_{kind}"]
            print(
                f"  {kind:8} {who:5} {f['events_per_s']:>10,.0f} events/s "
                f"{f['tx_per_s']:>9,.0f} tx/s  p50 {f['p50_ms']:.3f} ms  p99 {f['p99_ms']:.3f} ms"
                f"  CPU {f['cpu_us_per_tx']:,.0f} us/tx"
            )
        print(
            f"  {kind:8} ours / eventsourcing: {figures[f'ratio_{kind}']}x "
            f"(CPU per transaction, eventsourcing / ours: {figures[f'cpu_ratio_{kind}']}x)"
        )
    f = figures["ours_batch"]
    print(
        f"  batch    ours  {f['events_per_s']:>10,.0f} events/s {f['tx_per_s']:>9,.0f} tx/s  "
        f"(10 commands x 3 events a transaction)  CPU {f['cpu_us_per_tx']:,.0f} us/tx"
    )
    for who in ("ours", "peer"):
        f = figures[f"{who}_read"]
        print(f"  read     {who:5} {f['events_per_s']:>10,.0f} events/s ({f['events']} events)")
    print(f"  read     ours / eventsourcing: {figures['ratio_read']}x")


def sqlite_figures(args: argparse.Namespace, result: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        ours, peer = sqlite_pair(Path(folder))
        result["sqlite"] = measure("SQLite", ours, peer, args.commands, args.single)
        show("SQLite (WAL, synchronous=FULL)", result["sqlite"])
        ours.close()

        replay_store = open_store(f"sqlite:///{Path(folder) / 'replay.db'}")
        for number in range(args.replay // ROUND):
            table = f"table-{number % TABLES}"
            replay_store.append(
                table,
                (number // TABLES) * ROUND,
                new_events(number * ROUND, ROUND),
                f"r-{number}",
                checkpoint=True,
            )
        result["sqlite_replay"] = ours_replay(replay_store)
        replay_store.close()
        rate = result["sqlite_replay"]["events_per_s"]
        cpu_rate = result["sqlite_replay"]["events_per_cpu_s"]
        print(
            f"  replay   ours  {rate:>10,.0f} events/s, {cpu_rate:,.0f} per CPU-s "
            "(read + verify chain + fold, best of 3)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=300, help="30-event commands per side")
    parser.add_argument("--single", type=int, default=1500, help="one-event transactions")
    parser.add_argument("--replay", type=int, default=100_000, help="events in the replay log")
    parser.add_argument("--no-postgres", action="store_true", help="same as --engines sqlite")
    parser.add_argument(
        "--engines",
        default="sqlite,postgresql",
        help="comma-separated: sqlite (with its replay), postgresql",
    )
    args = parser.parse_args()
    engines = {name.strip() for name in args.engines.split(",")}
    if args.no_postgres:
        engines.discard("postgresql")
    result: dict[str, Any] = {"load_average": round(os.getloadavg()[0], 2)}
    if "sqlite" in engines:
        sqlite_figures(args, result)
    if "postgresql" in engines:
        schema = f"bench_{os.getpid()}"
        try:
            ours, peer = postgres_pair(schema)
            result["postgresql"] = measure("PostgreSQL", ours, peer, args.commands, args.single)
            show("PostgreSQL (psycopg 3, loopback)", result["postgresql"])
            ours.close()
            peer.datastore.close()
        finally:
            drop_schema(schema)
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
