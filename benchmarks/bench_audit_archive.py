"""Verify a regulator-sized archive on PostgreSQL (issue 22): events/s, rounds/s, peak memory.

The archive is made by ``benchmarks/make_archive.py`` (a schema of its own on the local
PostgreSQL; its last JSON line gives the URL and the key). The audit reads it as a regulator
does: ``audit.sources.open_database`` (one REPEATABLE READ, READ ONLY transaction; the log through
a server-side cursor, ``itersize`` rows a page, so the main process's memory does not grow with
the archive), the casino's public key given (``--public-key``), every check of
``paigow audit verify``, ``--jobs`` worker processes (``audit.ranges``; from 3, the stretches of
``audit.position_ranges``).

The serial share (issue 33): the main process's CPU over the run's (its own and its workers'),
with the speed-up Amdahl's law then allows 2, 8, 16 and 64 workers.

Peak memory: the main process's and the largest worker's peak resident set (``getrusage``:
``RUSAGE_SELF`` and ``RUSAGE_CHILDREN``, which reports the largest child that ended).

Usage (repo root)::

    .venv/bin/python benchmarks/bench_audit_archive.py \\
        --url "$(tail -1 make_archive.out | jq -r .url)" \\
        --public-key /tmp/paigow-archive22.key.pub [--jobs 3] [--limit-events N]

Prints progress and the figures, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit_scaling import amdahl

from audit.sources import open_database
from audit.verify import verify_log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument(
        "--limit-events", type=int, default=0, help="verify only the first N events (0: all)"
    )
    args = parser.parse_args()

    source = open_database(args.url, args.public_key)
    total = source.total or 0
    if args.limit_events:
        source.rows = itertools.islice(source.rows, args.limit_events)
        source.checkpoints = [c for c in source.checkpoints if c[0] <= args.limit_events]
        total = min(total, args.limit_events)
    started = time.perf_counter()
    cpu = time.process_time()
    last = [started]

    def progress(done: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= 30:
            last[0] = now
            rate = done / (now - started)
            print(f"  {done:,} of {total:,} events ({rate:,.0f} events/s)", file=sys.stderr)

    try:
        report = verify_log(source, progress=progress, jobs=args.jobs)
    finally:
        source.close()
    seconds = time.perf_counter() - started
    main_cpu = time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures: dict[str, Any] = {
        "ok": report.ok,
        "findings": len(report.findings),
        "jobs": args.jobs,
        "events": report.events,
        "rounds": report.rounds,
        "tables": report.tables,
        "checkpoints": report.checkpoints,
        "seconds": round(seconds, 1),
        "events_per_s": round(report.events / seconds),
        "rounds_per_s": round(report.rounds / seconds),
        "main_cpu_s": round(main_cpu, 1),
        "workers_cpu_s": round(children.ru_utime + children.ru_stime, 1),
        "peak_rss_main_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_worker_mib": round(children.ru_maxrss / 1024, 1),
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    # The serial share: the main process's CPU over the run's (issue 33), and what Amdahl's law
    # then allows N workers.
    whole = main_cpu + children.ru_utime + children.ru_stime
    serial = main_cpu / whole if whole else 1.0
    figures["serial_share"] = round(serial, 4)
    figures["amdahl"] = {str(n): round(amdahl(serial, n), 1) for n in (2, 8, 16, 64)}
    print(report.summary()[:300])
    for finding in report.findings[:5]:
        print(f"  {finding}")
    print(
        f"{report.events:,} events, {report.rounds:,} rounds in {seconds:,.1f} s: "
        f"{figures['events_per_s']:,} events/s, {figures['rounds_per_s']:,} rounds/s, peak RSS "
        f"{figures['peak_rss_main_mib']} MiB (main), {figures['peak_rss_worker_mib']} MiB "
        f"(largest worker), {args.jobs} job(s)"
    )
    print(
        f"serial share {serial:.1%} (main {main_cpu:.1f} of {whole:.1f} CPU-s); "
        f"Amdahl: 8 workers {figures['amdahl']['8']}x, 16 {figures['amdahl']['16']}x, "
        f"64 {figures['amdahl']['64']}x"
    )
    print(json.dumps(figures))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
