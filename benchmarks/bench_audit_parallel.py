"""``paigow audit verify --jobs``: one job against two on one busy table and on eight (issue 22).

Two logs, generated once through the application service and kept for the next run:
  one table    ``paigow simulate --rounds R --players 6 --seed 1`` (the issue's log at R=5000)
  8 tables     the mixed session (``entrypoints.simulation.mixed_session``) at 8 tables, interleaved

Timed on each log, in alternating pairs (one job, then two, ``--pairs`` times): the wall time of
``audit.verify.verify_log`` over ``audit.sources.open_database``, and the CPU it took (the main
process's, and its workers' from ``getrusage(RUSAGE_CHILDREN)``). The ratio is taken within each
pair, then the median; the machine is shared, so its load average is printed with each pair.

Then the chain pass alone, on the one-table log's rows held in memory (what the main process
does for every row, whatever ``--jobs``):
  chain, audit     ``audit.chain.Integrity.check`` on every row: the store's verifier (two SHA-256,
                   the canonical-form check of each payload, the links) and each checkpoint's
                   Ed25519 signature, with the audit's bookkeeping
  chain, floor     the least such a pass can do in Python: the two SHA-256 over the stored bytes,
                   the links and the positions, one signature check a checkpoint
  links only       the floor without the hashing: positions, links, checkpoint heads and
                   signatures (what would be left in the main process if the workers, which
                   receive every table row anyway, recomputed the two hashes of each)

Usage (repo root): ``.venv/bin/python benchmarks/bench_audit_parallel.py [--rounds 5000]
[--tables-rounds 4000] [--pairs 3] [--dir /tmp]``. Prints the figures, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import sys
import time
from hashlib import sha256
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.chain import Integrity
from audit.sources import open_database
from audit.verify import verify_log
from entrypoints.cli.main import main as paigow
from eventlog.canonical import GENESIS_HASH, quote
from eventlog.keys import checkpoint_signature_holds
from eventlog.query import CHECKPOINT_QUERY, LOG_QUERY


def one_table(path: Path, rounds: int) -> None:
    if not path.exists():
        print(f"simulating {rounds:,} rounds at one table into {path}", file=sys.stderr)
        paigow(["simulate", "--db", f"sqlite:///{path}", "--rounds", str(rounds), "--players",
                "6", "--seed", "1", "--quiet", "--fast-sync"])  # fmt: skip


def eight_tables(path: Path, rounds: int) -> None:
    if not path.exists():
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_audit import generate

        print(f"playing {rounds:,} rounds at 8 tables into {path}", file=sys.stderr)
        generate(path, rounds, 8, 2026)


def verify(path: Path, jobs: int) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    source = open_database(f"sqlite:///{path}")
    started = time.perf_counter()
    report = verify_log(source, jobs=jobs)
    seconds = time.perf_counter() - started
    source.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not report.ok:
        raise SystemExit(f"the benchmark's log does not verify: {report.findings[:3]}")
    workers = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {
        "seconds": seconds,
        "events": report.events,
        "rounds": report.rounds,
        "cpu": time.process_time() - cpu + workers,
    }


def pairs(path: Path, count: int) -> dict[str, Any]:
    ratios, one, two, cpu_ratios = [], [], [], []
    for number in range(1, count + 1):
        alone = verify(path, 1)
        shared = verify(path, 2)
        ratios.append(alone["seconds"] / shared["seconds"])
        cpu_ratios.append(shared["cpu"] / alone["cpu"])
        one.append(alone["seconds"])
        two.append(shared["seconds"])
        load = os.getloadavg()[0]
        print(
            f"  pair {number}: 1 job {alone['seconds']:.1f} s ({alone['cpu']:.1f} s CPU), "
            f"2 jobs {shared['seconds']:.1f} s ({shared['cpu']:.1f} s CPU): "
            f"{ratios[-1]:.2f}x, load average {load:.1f}"
        )
    events = alone["events"]
    return {
        "events": events,
        "rounds": alone["rounds"],
        "jobs1_seconds": [round(s, 2) for s in one],
        "jobs2_seconds": [round(s, 2) for s in two],
        "jobs1_events_per_s": round(events / statistics.median(one)),
        "jobs2_events_per_s": round(events / statistics.median(two)),
        "ratio_median": round(statistics.median(ratios), 2),
        "ratios": [round(r, 2) for r in ratios],
        # CPU of two jobs (main + workers) over one job's: the work the split adds.
        "cpu_ratio_median": round(statistics.median(cpu_ratios), 3),
    }


def chain_inputs(path: Path) -> tuple[list[Any], list[Any], bytes | None, float]:
    """The log's rows and checkpoints held in memory, the key beside it, and the seconds the rows
    took to read."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    started = time.perf_counter()
    rows = connection.execute(LOG_QUERY).fetchall()
    read = time.perf_counter() - started
    checkpoints = connection.execute(CHECKPOINT_QUERY).fetchall()
    connection.close()
    source = open_database(f"sqlite:///{path}")
    key = source.public_key
    source.close()
    return rows, checkpoints, key, read


def chain_passes(path: Path) -> dict[str, Any]:
    rows, checkpoints, key, read = chain_inputs(path)
    integrity = Integrity(checkpoints, key)
    started = time.perf_counter()
    for row in rows:
        integrity.check(row)
    audit_s = time.perf_counter() - started
    assert not integrity.findings and integrity.checkpoints_checked == len(checkpoints)
    started = time.perf_counter()
    assert floor_pass(rows, checkpoints, key) == len(checkpoints)
    floor_s = time.perf_counter() - started
    started = time.perf_counter()
    assert links_pass(rows, checkpoints, key) == len(checkpoints)
    links_s = time.perf_counter() - started
    return {
        "events": len(rows),
        "read_rows_per_s": round(len(rows) / read),
        "audit_per_s": round(len(rows) / audit_s),
        "floor_per_s": round(len(rows) / floor_s),
        "links_only_per_s": round(len(rows) / links_s),
    }


def links_pass(rows: list[Any], checkpoints: list[Any], key: bytes | None) -> int:
    """The floor pass without its two hashes: positions, links, signed heads and signatures."""
    return floor_pass(rows, checkpoints, key, hashes=False)


def floor_pass(
    rows: list[Any], checkpoints: list[Any], key: bytes | None, *, hashes: bool = True
) -> int:
    """Two SHA-256 over the stored bytes (unless not ``hashes``: the links pass), every link and
    position, one signature a checkpoint."""
    name = "floor" if hashes else "links"
    heads: dict[str, str] = {}
    global_head, expected = GENESIS_HASH, 1
    signed = {c[0]: c for c in checkpoints}
    checked = 0
    for (position, stream, version, kind, schema, payload, at, actor, role, command, prev,
         event_hash, global_prev, global_hash) in rows:  # fmt: skip
        if hashes and (
            sha256(
                f'["paigow-event-v1","{prev}",{quote(stream)},{version},{quote(kind)},{schema},'
                f"{quote(at)},{quote(actor)},{quote(role)},{quote(command)}]\n{payload}".encode()
            ).hexdigest()
            != event_hash
            or sha256(
                f'["paigow-global-v1","{global_prev}",{position},"{event_hash}"]'.encode()
            ).hexdigest()
            != global_hash
        ):
            raise SystemExit(f"the floor pass disagrees at position {position}")
        if (
            global_prev != global_head
            or position != expected
            or heads.get(stream, GENESIS_HASH) != prev
        ):
            raise SystemExit(f"the {name} pass disagrees at position {position}")
        heads[stream] = event_hash
        global_head, expected = global_hash, expected + 1
        checkpoint = signed.get(position)
        if checkpoint is not None and key is not None:
            if checkpoint[1] != global_hash or not checkpoint_signature_holds(
                key, checkpoint[4], position, checkpoint[1], checkpoint[2]
            ):
                raise SystemExit(f"the {name} pass: checkpoint at {position} does not hold")
            checked += 1
    return checked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5_000, help="rounds at the one table")
    parser.add_argument("--tables-rounds", type=int, default=4_000, help="rounds at 8 tables")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--chain-only", action="store_true", help="the chain passes alone")
    args = parser.parse_args()
    single = args.dir / f"paigow-bench-parallel-1x{args.rounds}.db"
    several = args.dir / f"paigow-bench-parallel-8x{args.tables_rounds}.db"
    one_table(single, args.rounds)
    eight_tables(several, args.tables_rounds)
    figures: dict[str, Any] = {"cores": len(os.sched_getaffinity(0))}
    for name, path in () if args.chain_only else (("one_table", single), ("eight_tables", several)):
        print(f"{name} ({path}):")
        figures[name] = pairs(path, args.pairs)
        print(
            f"  median: 1 job {figures[name]['jobs1_events_per_s']:,} events/s, 2 jobs "
            f"{figures[name]['jobs2_events_per_s']:,} events/s, ratio "
            f"{figures[name]['ratio_median']}x (CPU 2 jobs / 1 job "
            f"{figures[name]['cpu_ratio_median']})"
        )
    chain = figures["chain_pass"] = chain_passes(single)
    print(
        f"chain pass alone ({chain['events']:,} events in memory): the audit's "
        f"{chain['audit_per_s']:,} events/s, the floor {chain['floor_per_s']:,} events/s, links "
        f"only {chain['links_only_per_s']:,} events/s; "
        f"reading the rows {chain['read_rows_per_s']:,} rows/s"
    )
    figures["load_average"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
