"""Failover under play (issue 23): how long commands stop when the primary dies, and what the
synchronous standby costs a command the rest of the time.

Same run, same machine, same load (``--tables`` tables over HTTP at ``--rate`` commands a second,
``paigow serve`` on one process per database):

1. steady play, no kill, in alternating segments of ``--segment`` seconds (A/B/A/B, ``--rounds``
   of each): A on a single PostgreSQL server under Patroni (no standby: each commit waits for its
   own disk only), B on the pair (synchronous standby, ``synchronous_commit=on``, deploy/ha/).
   Both sets run the whole time, so both see the same machine: the command latency's p50/p99 of
   each, their ratios, the load average at each segment;
2. the pair with the leader's postmaster SIGKILLed ``--kills`` times, each after the pair is
   healthy again: the failover time (the kill to the first 2xx answer of a command sent after it),
   median and worst; the command p99 outside the failover windows (a kill to the pair healthy
   again).

Needs Debian's ``patroni`` and ``etcd-server`` (``.ci/run`` installs them). Ends with one JSON
line. Figures: benchmarks/README.md, "Failover".

    PYTHONPATH=. .venv/bin/python benchmarks/bench_failover.py [--kills 10] [--rounds 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.ha import harness


def _latencies(attempts: list[harness.Attempt]) -> list[float]:
    return [(a.answered - a.sent) * 1000 for a in attempts]


def _figures(ms: list[float]) -> dict[str, float]:
    return {
        "commands": len(ms),
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(harness.percentile(ms, 0.99), 2),
    }


def interleaved(
    args: argparse.Namespace, single: harness.Served, pair: harness.Served
) -> dict[str, object]:
    """A/B/A/B steady segments; each segment plays new tables (its own prefix)."""
    ms: dict[str, list[float]] = {"single": [], "pair": []}
    loads: list[float] = []
    for n in range(args.rounds):
        for name, served in (("single", single), ("pair", pair)):
            play = harness.Play(served, tables=args.tables, rate=args.rate, prefix=f"{name}{n}")
            try:
                play.start()
                time.sleep(args.segment)
            finally:
                play.stop()
            loads.append(os.getloadavg()[0])
            ms[name] += _latencies(play.played())
            print(f"segment {name} {n}: load {loads[-1]:.1f}", _figures(ms[name]), flush=True)
    one, two = _figures(ms["single"]), _figures(ms["pair"])
    return {
        "single": one,
        "pair": two,
        "p50_ratio": round(two["p50_ms"] / one["p50_ms"], 2),
        "p99_ratio": round(two["p99_ms"] / one["p99_ms"], 2),
        "load_min": round(min(loads), 1),
        "load_max": round(max(loads), 1),
    }


def kills(
    args: argparse.Namespace, cluster: harness.HaCluster, served: harness.Served
) -> dict[str, float]:
    """The pair's leader killed ``--kills`` times under play."""
    play = harness.Play(served, tables=args.tables, rate=args.rate, prefix="kill")
    kills = []
    try:
        play.start()
        time.sleep(args.between)
        for _ in range(args.kills):
            kills.append(harness.kill_and_heal(cluster))
            time.sleep(args.between)
    finally:
        play.stop()
    times = [harness.failover_time(kill, play.attempts) for kill in kills]
    ms = _latencies(harness.outside(kills, play.played()))
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
    parser.add_argument(
        "--steady", type=float, default=80.0, help="seconds of steady play on each set, in all"
    )
    parser.add_argument("--rounds", type=int, default=4, help="A/B segment pairs (4)")
    parser.add_argument("--between", type=float, default=3.0, help="seconds of play between kills")
    args = parser.parse_args()
    args.segment = args.steady / max(1, args.rounds)
    missing = harness.missing_tools()
    if missing:
        sys.exit("bench_failover: not installed: " + ", ".join(missing))
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        (Path(tmp) / "single").mkdir()
        (Path(tmp) / "pair").mkdir()
        with harness.HaCluster(members=1) as server, harness.HaCluster() as cluster:
            one = harness.serve(server, Path(tmp) / "single")
            two = harness.serve(cluster, Path(tmp) / "pair")
            try:
                steady = interleaved(args, one, two)
                one.stop()  # the kills' phase: the pair alone
                print("interleaved:", steady, flush=True)
                failover = kills(args, cluster, two)
                print("kills:", failover, flush=True)
            finally:
                one.stop()
                two.stop()
    result = {
        "bench": "failover",
        "tables": args.tables,
        "rate": args.rate,
        "single": steady["single"],
        "pair": failover,
        "interleaved": steady,
        "p99_ratio_outside_failover": steady["p99_ratio"],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
