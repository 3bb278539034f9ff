"""A regulator's archive under play (issue 33; deploy/archive/README.md): the replication lag and
the follower's verdict delay with three properties playing at once.

Four local PostgreSQL clusters (``deploy/archive/three_clusters.sh``: properties a, b and c, the
archive fed by logical replication), ``paigow audit follow --archive`` running over the three,
then ``--rounds`` rounds on each property at the same time (``paigow simulate --commit-rounds 1``
at full speed: one transaction and one signed checkpoint a round; the system clock, so each
checkpoint's ``signed_at`` is this machine's time). A sampler reads each property's new
checkpoints in the archive every ``--sample`` seconds. For every checkpoint signed during play:

- replication lag: signed (its ``signed_at``) -> first seen in the archive's copy (the property's
  own commit after signing and the sample interval included);
- verdict delay: signed -> the follower's line saying it verified that property up to it or past.

Needs PostgreSQL's server programs (Debian's ``postgresql``). ``--fast`` turns fsync off on the
four clusters. Ends with one JSON line. Figures: benchmarks/README.md, "Regulator's archive".

    PYTHONPATH=. .venv/bin/python benchmarks/bench_archive.py [--rounds 30] [--fast]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.archive.harness import NAMES, Archive, Clusters, missing


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figures(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"count": 0}
    ms = [s * 1000 for s in seconds]
    return {
        "count": len(ms),
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(percentile(ms, 0.95), 1),
        "max_ms": round(max(ms), 1),
    }


class Sampler:
    """Each property's checkpoints as they appear in the archive: (position, signed_at, seen)."""

    def __init__(self, archive: Archive, every: float) -> None:
        self.archive, self.every = archive, every
        self.seen: dict[str, list[tuple[int, float, float]]] = {name: [] for name in NAMES}
        self.last = {name: 0 for name in NAMES}
        self.stopping = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with self.archive.admin() as connection:
            while not self.stopping:
                for name in NAMES:
                    rows = connection.execute(
                        f"SELECT id, position, signed_at FROM property_{name}.checkpoints "
                        "WHERE id > %s ORDER BY id",
                        (self.last[name],),
                    ).fetchall()
                    now = time.time()
                    for checkpoint_id, position, signed_at in rows:
                        signed = datetime.fromisoformat(signed_at).timestamp()
                        self.seen[name].append((int(position), signed, now))
                        self.last[name] = max(self.last[name], int(checkpoint_id))
                time.sleep(self.every)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds on each property (30)")
    parser.add_argument("--sample", type=float, default=0.01, help="sampler interval, s (0.01)")
    parser.add_argument("--fast", action="store_true", help="fsync off on the four clusters")
    args = parser.parse_args(argv)
    lacking = missing()
    if lacking:
        print(f"not installed: {lacking}", file=sys.stderr)
        return 2
    with Clusters(fast=args.fast) as archive:
        archive.play(1, *NAMES)  # each store opened once: its gaming day and tables exist
        archive.wait_replicated(*NAMES)
        sampler = Sampler(archive, args.sample)
        sampler.last = {name: archive.archived_head(name)[0] for name in NAMES}
        follower = archive.start_follow("--poll", "0.2")
        try:
            for name in NAMES:
                follower.verified(name, archive.head(name)[1])
            sampler.thread.start()
            started = time.time()
            load_before = os.getloadavg()[0]
            for process in archive.start_play(args.rounds, *NAMES, commit_rounds="1"):
                _out, err = process.communicate(timeout=1800)
                assert process.returncode == 0, err
            played = time.time() - started
            archive.wait_replicated(*NAMES)
            for name in NAMES:
                follower.verified(name, archive.head(name)[1])
            load_after = os.getloadavg()[0]
        finally:
            sampler.stopping = True
            follower.process.terminate()
            follower.process.wait(timeout=60)
        time.sleep(0.1)
        lag: list[float] = []
        verdict: list[float] = []
        passes = list(zip(follower.arrived, follower.lines, strict=True))
        for name in NAMES:
            verified = [
                (at, int(x["verified"]))
                for at, x in passes
                if x.get("property") == name and "verified" in x
            ]
            for position, signed, seen in sampler.seen[name]:
                lag.append(seen - signed)
                said = [at for at, v in verified if v >= position]
                if said:
                    verdict.append(min(said) - signed)
        alerts = [x for x in follower.lines if "alert" in x]
    checkpoints = sum(len(v) for v in sampler.seen.values())
    result = {
        "bench": "archive",
        "properties": len(NAMES),
        "rounds_each": args.rounds,
        "fsync": not args.fast,
        "played_s": round(played, 2),
        "rounds_per_s_all": round(len(NAMES) * args.rounds / played, 2),
        "checkpoints": checkpoints,
        "replication_lag": figures(lag),
        "verdict_delay": figures(verdict),
        "sample_interval_ms": round(args.sample * 1000, 1),
        "alerts": len(alerts),
        "load_avg": [round(load_before, 2), round(load_after, 2)],
    }
    print(
        f"{len(NAMES)} properties x {args.rounds} rounds in {played:.1f} s; "
        f"{checkpoints} checkpoints; replication lag {result['replication_lag']}; "
        f"verdict delay {result['verdict_delay']}; alerts {len(alerts)}",
        file=sys.stderr,
    )
    print(json.dumps(result))
    return 0 if not alerts else 1


if __name__ == "__main__":
    sys.exit(main())
