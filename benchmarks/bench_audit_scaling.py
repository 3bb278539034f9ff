"""Issue 33: how much of ``paigow audit verify --jobs 2`` is serial, and what that allows.

The log: the mixed session at ``--tables`` tables, interleaved (``bench_audit.generate``; kept in
``--db`` for the next run, its generation not timed), or any database given by ``--url``.

Timed, in alternating runs (``--pairs`` times, the machine is shared):

  one job      ``verify_log(jobs=1)``: everything in one process
  spread       ``verify_log(jobs=2)``: each worker reads its stretches of positions and checks
               their chain and signatures, the main process joins them (``audit.position_ranges``)
  main chain   the same with the stretches refused (the source's ``ranges`` left out): the main
               process reads every row and checks the chain, workers re-derive by table ranges
               (``audit.ranges``): the design before, the named peer

For each run the main process's CPU (``time.process_time``) and its workers' (``getrusage`` of the
children), and the wall time. The serial share is the main process's CPU over the run's whole
CPU; Amdahl's law then bounds the speed-up of N workers at ``1 / (s + (1 - s) / N)``, given for
8, 16 and 64; the measured speed-up of two is the one job's wall time over two jobs' (same pair).

Usage (repo root): ``.venv/bin/python benchmarks/bench_audit_scaling.py [--rounds 8000]
[--tables 8] [--pairs 2] [--db /tmp/audit33.db | --url URL --public-key KEY]``. Prints the
figures, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit.sources import open_database
from audit.verify import verify_log
from table_core.hands import tables_for


def audit(url: str, key: str | None, jobs: int, spread: bool) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    started = time.perf_counter()
    source = open_database(url, key)
    if not spread:
        source.ranges = None
    report = verify_log(source, jobs=jobs, stretches_from=2)
    source.close()
    seconds = time.perf_counter() - started
    main = time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not report.ok:
        raise SystemExit(f"the benchmark's log does not verify: {report.findings[:3]}")
    workers = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": seconds, "main": main, "workers": workers, "events": report.events,
            "rounds": report.rounds}  # fmt: skip


def amdahl(serial: float, workers: int) -> float:
    return 1 / (serial + (1 - serial) / workers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/audit33.db"))
    parser.add_argument("--rounds", type=int, default=8_000, help="rounds generated (missing db)")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--url", default=None, help="audit this database instead of --db")
    parser.add_argument("--public-key", default=None)
    args = parser.parse_args()
    url = args.url
    if url is None:
        if not args.db.exists():
            from bench_audit import generate

            print(f"playing {args.rounds:,} rounds at {args.tables} tables into {args.db}")
            generate(args.db, args.rounds, args.tables, 2026)
        url = f"sqlite:///{args.db}"
    tables_for("second")  # the five-card tables, outside every timer
    tables_for("lowest")
    runs: dict[str, list[dict[str, Any]]] = {"one": [], "spread": [], "main_chain": []}
    for number in range(1, args.pairs + 1):
        runs["one"].append(audit(url, args.public_key, 1, True))
        runs["spread"].append(audit(url, args.public_key, 2, True))
        runs["main_chain"].append(audit(url, args.public_key, 2, False))
        line = ", ".join(
            f"{name} {r[-1]['seconds']:.1f} s (main {r[-1]['main']:.1f} + workers "
            f"{r[-1]['workers']:.1f} CPU-s)"
            for name, r in runs.items()
        )
        print(f"run {number}: {line}; load average {os.getloadavg()[0]:.1f}")

    def median(name: str, what: str) -> float:
        return statistics.median(r[what] for r in runs[name])

    def share(name: str) -> float:
        return statistics.median(r["main"] / (r["main"] + r["workers"]) for r in runs[name])

    def speedup(name: str) -> float:
        return statistics.median(
            one["seconds"] / two["seconds"]
            for one, two in zip(runs["one"], runs[name], strict=True)
        )

    first = runs["one"][0]
    figures: dict[str, Any] = {"events": first["events"], "rounds": first["rounds"]}
    for name in ("spread", "main_chain"):
        serial = share(name)
        figures[name] = {
            "seconds": round(median(name, "seconds"), 2),
            "main_cpu_s": round(median(name, "main"), 2),
            "workers_cpu_s": round(median(name, "workers"), 2),
            "serial_share": round(serial, 4),
            "measured_speedup_2": round(speedup(name), 2),
            "amdahl": {str(n): round(amdahl(serial, n), 1) for n in (2, 8, 16, 64)},
        }
    figures["one_job_seconds"] = round(median("one", "seconds"), 2)
    print(f"log: {figures['events']:,} events, {figures['rounds']:,} rounds")
    for name, label in (("spread", "stretches in the workers"), ("main_chain", "chain in main")):
        f = figures[name]
        print(
            f"--jobs 2, {label}: serial share {f['serial_share']:.1%} (main {f['main_cpu_s']} of "
            f"{f['main_cpu_s'] + f['workers_cpu_s']:.1f} CPU-s); measured "
            f"{f['measured_speedup_2']}x one job; Amdahl 8: {f['amdahl']['8']}x, "
            f"16: {f['amdahl']['16']}x, 64: {f['amdahl']['64']}x"
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
