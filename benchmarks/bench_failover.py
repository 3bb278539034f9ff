"""Failover under play (issue 23): how long commands stop when the primary dies, and what the
synchronous standby costs a command the rest of the time.

Same run, same machine, same load (``--tables`` tables over HTTP at ``--rate`` commands a second,
``paigow serve`` on one process per database):

1. steady play, no kill, in alternating segments (A B, B A, A B, B A: ``--rounds`` of each,
   ``--steady`` seconds on each set in all): A on a single PostgreSQL server under Patroni (no
   standby: each commit waits for its own disk only), B on the pair (synchronous standby,
   ``synchronous_commit=on``, deploy/ha/).
   Both sets run the whole time, so both see the same machine: the command latency's p50/p99 of
   each, their ratios, the load average at each segment, and the standby's ``flush_lag`` sampled
   on the leader during the pair's segments (what the synchronous standby adds to a commit);
2. the pair with the leader's postmaster SIGKILLed ``--kills`` times, each after the pair is
   healthy again: the failover time (the kill to the first 2xx answer of a command sent after it),
   median and worst; the command p99 outside the failover windows (a kill to the pair healthy
   again).

Needs Debian's ``patroni`` and ``etcd-server`` (``.ci/run`` installs them). Ends with one JSON
line. Figures: benchmarks/README.md.

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


class LagSampler:
    """The synchronous standby's ``flush_lag`` (pg_stat_replication on the leader: from a WAL
    write on the primary to the standby's report that it flushed it) sampled every 0.25 s."""

    def __init__(self, cluster: harness.HaCluster) -> None:
        self.cluster = cluster
        self.ms: list[float] = []

    def sample(self, seconds: float) -> None:
        import psycopg

        query = (
            "SELECT EXTRACT(epoch FROM flush_lag) * 1000 FROM pg_stat_replication "
            "WHERE sync_state = 'sync' AND flush_lag IS NOT NULL"
        )
        end = time.monotonic() + seconds
        with psycopg.connect(self.cluster.libpq("paigow"), autocommit=True) as conn:
            while time.monotonic() < end:
                self.ms += [float(row[0]) for row in conn.execute(query).fetchall()]
                time.sleep(0.25)

    def figures(self) -> dict[str, float]:
        if not self.ms:
            return {}
        return {
            "samples": len(self.ms),
            "flush_lag_p50_ms": round(statistics.median(self.ms), 2),
            "flush_lag_p99_ms": round(harness.percentile(self.ms, 0.99), 2),
        }


def interleaved(
    args: argparse.Namespace,
    single: harness.Served,
    pair: harness.Served,
    cluster: harness.HaCluster,
) -> dict[str, object]:
    """Steady segments, alternating A B, B A, ... (a load that drifts weighs on both alike);
    each segment plays new tables (its own prefix)."""
    ms: dict[str, list[float]] = {"single": [], "pair": []}
    rounds: list[dict[str, dict[str, float]]] = []  # each A/B pair's own figures
    loads: list[float] = []
    lags = LagSampler(cluster)
    for n in range(args.rounds):
        order = (("single", single), ("pair", pair))
        rounds.append({})
        for name, served in order if n % 2 == 0 else order[::-1]:  # A B, B A, A B, ...
            play = harness.Play(served, tables=args.tables, rate=args.rate, prefix=f"{name}{n}")
            try:
                play.start()
                if name == "pair":
                    lags.sample(args.segment)
                else:
                    time.sleep(args.segment)
            finally:
                play.stop()
            loads.append(os.getloadavg()[0])
            segment = _latencies(play.played())
            ms[name] += segment
            rounds[-1][name] = _figures(segment) | {"load": round(loads[-1], 1)}
            print(f"segment {name} {n}:", rounds[-1][name], flush=True)
    one, two = _figures(ms["single"]), _figures(ms["pair"])
    each = [r["pair"]["p99_ms"] / r["single"]["p99_ms"] for r in rounds]
    return {
        "single": one,
        "pair": two,
        "p50_ratio": round(two["p50_ms"] / one["p50_ms"], 2),
        "p99_ratio": round(two["p99_ms"] / one["p99_ms"], 2),
        # Each A/B pair's p99 ratio: a load spike in one segment moves one of them, not all.
        "p99_ratio_per_pair": [round(r, 2) for r in each],
        "p99_ratio_median_of_pairs": round(statistics.median(each), 2),
        "standby": lags.figures(),
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
                steady = interleaved(args, one, two, cluster)
                one.stop()  # the kills' phase: the pair alone
                print("interleaved:", steady, flush=True)
                failover = kills(args, cluster, two) if args.kills else {}
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
