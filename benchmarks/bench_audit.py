"""Audit speed: full verification against the raw read of the same rows, same database, same run.

The session is generated once through the application service with a seeded deck-and-dice source
(``entrypoints.simulation.mixed_session``: several tables under different profiles, side bets, a
rotating bank, fouls, rules changes, voids) into a SQLite file, kept for the next run
(``--db``). Generation is not timed; its durability is relaxed (``PRAGMA synchronous=OFF``)
since only the reading is measured.

Timed, in this order, each pass reading the whole log from the file:
  raw rows    the verifier's query through the standard library's sqlite3: rows fetched, nothing
              decoded (the floor of any reader)
  raw read    the store's own ``read_all`` in pages of 10,000: rows to events, payload JSON decoded
              (what any consumer of the log does, and what bench_store.py calls "read")
  verify      ``audit.verify.verify_log`` over ``audit.sources.open_database``: every hash, link
              and signature, every payload parsed, every command decided again by table_core,
              the books reconciled
Then a profile of the verification on the first ``--profile`` events, by area.

Usage (repo root): ``.venv/bin/python benchmarks/bench_audit.py [--rounds 100000] [--tables 4]
[--db /tmp/paigow-bench-audit.db] [--profile 50000]``. Prints the figures, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import pstats
import sqlite3
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import event

from adapters.clock import SteppingClock
from adapters.logging import configure_logging
from adapters.rng import SeededDeckAndDice
from adapters.store import SqlEventStore, open_store
from audit.sources import LogSource, open_database
from audit.verify import verify_log
from entrypoints.simulation.mixed_session import Session
from eventlog.query import LOG_QUERY
from service_layer.service import TableService

START = datetime(2026, 1, 2, 18, 0, tzinfo=UTC)


def generate(path: Path, rounds: int, tables: int, seed: int) -> dict[str, Any]:
    """The session, written through the service (one command per append, as a table does)."""
    configure_logging(level="warning")
    store = open_store(f"sqlite:///{path}")
    assert isinstance(store, SqlEventStore)

    @event.listens_for(store.engine, "connect")
    def _fast(connection: Any, _record: Any) -> None:  # after the store's own pragmas
        connection.execute("PRAGMA synchronous=OFF")

    store.engine.dispose()  # reconnect with the pragma above
    service = TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(seed)
    )
    service.start()
    session = Session(service, seed=seed, tables=tables)
    per_table = rounds // tables
    started = time.perf_counter()
    done = 0
    while done < per_table:
        step = min(1_000, per_table - done)
        session.play(step)
        done += step
        rate = done * tables / (time.perf_counter() - started)
        print(f"  generated {done * tables:,} rounds ({rate:,.0f} rounds/s)", file=sys.stderr)
    service.stop()
    store.close()
    stats = session.stats
    return {"rounds": stats.rounds, "commands": stats.commands, "refused": len(stats.refused)}


def raw_rows(path: Path) -> tuple[int, float]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    started = time.perf_counter()
    count = sum(1 for _ in connection.execute(LOG_QUERY))
    seconds = time.perf_counter() - started
    connection.close()
    return count, seconds


def raw_read(path: Path) -> tuple[int, float]:
    store = open_store(f"sqlite:///{path}")
    started = time.perf_counter()
    count = 0
    after = 0
    while True:
        page = store.read_all(after, 10_000)
        if not page:
            break
        count += len(page)
        after = page[-1].position
    seconds = time.perf_counter() - started
    store.close()
    return count, seconds


#: Where verification time goes: the cumulative time of the calls that do each part of the work.
AREAS = (
    ("chain: 2 SHA-256, canonical JSON, links (ChainVerifier)", "audit/chain.py", "check"),
    ("signed checkpoints (Ed25519)", "audit/chain.py", "_check_checkpoint"),
    ("payload -> event (pydantic validation)", "eventlog/mapper.py", "parse_event"),
    ("row envelope vs payload", "audit/tables.py", "problems"),
    (
        "decide again (table_core.table.decide, its events built)",
        "table_core/table/__init__.py",
        "decide",
    ),
    ("fold (table_core.table.fold)", "table_core/table/folding.py", "fold"),
    ("command read back from its events", "audit/command_rebuild.py", "command_of"),
    ("money ledger", "audit/rederive.py", "post"),
)
#: Parts measured inside another: (inner, outer) subtracted so nothing counts twice.
NESTED = (
    ("signed checkpoints (Ed25519)", "chain: 2 SHA-256, canonical JSON, links (ChainVerifier)"),
)


def profile(path: Path, limit: int) -> list[tuple[str, float]]:
    source = open_database(f"sqlite:///{path}")
    source.rows = itertools.islice(source.rows, limit)
    source.checkpoints = [c for c in source.checkpoints if c[0] <= limit]
    profiler = cProfile.Profile()
    profiler.enable()
    started = time.perf_counter()
    verify_log(source)
    total = time.perf_counter() - started
    profiler.disable()
    source.close()
    stats: Any = pstats.Stats(profiler)
    cumulative: dict[str, float] = defaultdict(float)
    for (filename, _line, name), (_cc, _nc, _own, cum, _callers) in stats.stats.items():
        for area, where, function in AREAS:
            if filename.endswith(where) and name == function:
                cumulative[area] += cum
    for inner, outer in NESTED:
        cumulative[outer] -= cumulative[inner]
    shares = [(area, cumulative[area] / total) for area, _, _ in AREAS]
    shares.append(("reading rows, comparing events, the rest", 1 - sum(s for _, s in shares)))
    return sorted(shares, key=lambda x: -x[1])


def profile_figures(path: Path, limit: int) -> dict[str, float]:
    """``profile``'s shares, printed (largest first) and as the figures' ``profile``."""
    shares = profile(path, limit)
    print(f"where verification time goes (cProfile, first {limit:,} events):")
    for area, share in shares:
        print(f"  {share:6.1%}  {area}")
    return {area: round(share, 3) for area, share in shares}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--db", type=Path, default=Path("/tmp/paigow-bench-audit.db"))
    parser.add_argument("--profile", type=int, default=50_000, help="events profiled (0: none)")
    parser.add_argument(
        "--jobs", default="1,2", help="worker processes to time verification with (default 1,2)"
    )
    args = parser.parse_args()

    generated: dict[str, Any] = {"reused": True}
    if not args.db.exists():
        print(f"generating {args.rounds:,} rounds at {args.tables} tables into {args.db}")
        generated = generate(args.db, args.rounds, args.tables, args.seed)

    rows, rows_s = raw_rows(args.db)
    read, read_s = raw_read(args.db)
    figures: dict[str, Any] = {
        "raw_rows_per_s": round(rows / rows_s),
        "raw_read_per_s": round(read / read_s),
        **{f"generated_{k}": v for k, v in generated.items()},
    }
    print(f"raw rows (sqlite3 cursor)     {figures['raw_rows_per_s']:>12,} events/s")
    print(f"raw read (store.read_all)     {figures['raw_read_per_s']:>12,} events/s")
    for jobs in (int(j) for j in args.jobs.split(",")):
        source: LogSource = open_database(f"sqlite:///{args.db}")
        report = verify_log(source, jobs=jobs)
        source.close()
        if not report.ok:
            print(f"the benchmark's log does not verify: {report.findings[:3]}", file=sys.stderr)
            return 1
        seconds = report.seconds
        rate = report.events / seconds
        figures.update(events=report.events, rounds=report.rounds, tables=report.tables)
        figures[f"verify_jobs{jobs}_events_per_s"] = round(rate)
        figures[f"verify_jobs{jobs}_rounds_per_s"] = round(report.rounds / seconds)
        figures[f"verify_jobs{jobs}_seconds"] = round(seconds, 1)
        figures[f"verify_jobs{jobs}_share_of_raw_read"] = round(rate / (read / read_s), 3)
        figures[f"verify_jobs{jobs}_share_of_raw_rows"] = round(rate / (rows / rows_s), 3)
        print(
            f"audit verify, {jobs} process(es) {round(rate):>10,} events/s, "
            f"{report.rounds / seconds:,.0f} rounds/s ({seconds:.1f} s for {report.events:,} "
            f"events, {report.rounds:,} rounds, {report.tables} tables): "
            f"{rate / (read / read_s):.1%} of raw read, {rate / (rows / rows_s):.1%} of raw rows "
            "(goal: 25%)"
        )
    if args.profile:
        figures["profile"] = profile_figures(args.db, args.profile)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
