"""Failover under play (issue 23): how long commands stop when the primary dies, and what the
synchronous standby costs a command the rest of the time.

Same run, same machine, same load (``--tables`` tables over HTTP at ``--rate`` commands a second,
``paigow serve`` on one process):

1. a single PostgreSQL server under Patroni (no standby: each commit waits for its own disk
   only) for ``--steady`` seconds: the command latency's p50/p99;
2. the pair (synchronous standby, deploy/ha/) with the leader's postmaster SIGKILLed ``--kills``
   times, each after the pair is healthy again: the failover time (the kill to the first 2xx answer
   of a command sent after it), median and worst; the command p99 outside the failover windows
   (a kill to the pair healthy again), and its ratio to the single server's.

Needs Debian's ``patroni`` and ``etcd-server`` (``.ci/run`` installs them). Ends with one JSON
line. Figures: benchmarks/README.md, "Failover".

    PYTHONPATH=. .venv/bin/python benchmarks/bench_failover.py [--kills 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.ha import harness


def _latencies(attempts: list[harness.Attempt]) -> list[float]:
    return [(a.answered - a.sent) * 1000 for a in attempts]


def single(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    with harness.HaCluster(members=1) as server:
        served = harness.serve(server, folder)
        play = harness.Play(served, tables=args.tables, rate=args.rate)
        try:
            play.start()
            time.sleep(args.steady)
        finally:
            play.stop()
            served.stop()
        ms = _latencies(play.answered()[args.tables * 5 :])  # past the tables' opening
    return {
        "commands": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(harness.percentile(ms, 0.99), 2),
    }


def pair(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    with harness.HaCluster() as cluster:
        served = harness.serve(cluster, folder)
        play = harness.Play(served, tables=args.tables, rate=args.rate)
        kills = []
        try:
            play.start()
            time.sleep(args.between)
            for _ in range(args.kills):
                kills.append(harness.kill_and_heal(cluster))
                time.sleep(args.between)
        finally:
            play.stop()
            served.stop()
        times = [harness.failover_time(kill, play.attempts) for kill in kills]
        ms = _latencies(harness.outside(kills, play.answered()[args.tables * 5 :]))
        heal = [kill.healthy_at - kill.at for kill in kills]
    return {
        "kills": len(kills),
        "failover_median_s": round(statistics.median(times), 2),
        "failover_worst_s": round(max(times), 2),
        "rejoined_median_s": round(statistics.median(heal), 2),
        "commands_outside": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(harness.percentile(ms, 0.99), 2),
        "failed": len(play.failures),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rate", type=float, default=50.0, help="commands a second, all tables")
    parser.add_argument("--steady", type=float, default=30.0, help="seconds on the single server")
    parser.add_argument("--between", type=float, default=3.0, help="seconds of play between kills")
    args = parser.parse_args()
    missing = harness.missing_tools()
    if missing:
        sys.exit("bench_failover: not installed: " + ", ".join(missing))
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        (Path(tmp) / "single").mkdir()
        (Path(tmp) / "pair").mkdir()
        one = single(args, Path(tmp) / "single")
        print("single server:", one, flush=True)
        two = pair(args, Path(tmp) / "pair")
        print("pair:", two, flush=True)
    result = {
        "bench": "failover",
        "tables": args.tables,
        "rate": args.rate,
        "single": one,
        "pair": two,
        "p99_ratio_outside_failover": round(two["p99_ms"] / one["p99_ms"], 2),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
