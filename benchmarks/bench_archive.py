"""A regulator's archive under play (issue 33; deploy/archive/README.md): the replication lag and
the follower's verdict delay with three properties playing at once.

Four local PostgreSQL clusters (``deploy/archive/three_clusters.sh``: properties a, b and c, the
archive fed by logical replication), ``paigow audit follow --archive`` running over the three,
then ``--rounds`` rounds on each property at the same time: at full speed (``paigow simulate
--commit-rounds 1``: one transaction and one signed checkpoint a round), or with ``--pace R`` at R
rounds a second on each property (a table service in this process per property, its rounds
spread over ``--tables`` tables, as a casino's floor plays). The system clock throughout, so each
checkpoint's ``signed_at`` is this machine's time. For every checkpoint signed during play,
on this one machine's clock:

- replication lag: the property's commit of the checkpoint (``track_commit_timestamp``) -> its
  arrival in the archive (the archive's own ``archived_at`` column, filled at the insert);
- verdict delay: the property's commit -> the follower's line saying it verified that property up
  to the checkpoint or past it (its arrival in this process).

Needs PostgreSQL's server programs (Debian's ``postgresql``). ``--fast`` turns fsync off on the
four clusters. Ends with one JSON line. Figures: benchmarks/README.md, "Regulator's archive".

    PYTHONPATH=. .venv/bin/python benchmarks/bench_archive.py [--rounds 30] [--pace 2] [--fast]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import percentile
from tests.integration.archive.harness import NAMES, Archive, Clusters, missing


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


COMMITTED = (
    "SELECT id, position, extract(epoch FROM pg_xact_commit_timestamp(xmin))::float8 "
    "FROM checkpoints WHERE id > %s"
)
ARCHIVED = (
    "SELECT id, extract(epoch FROM archived_at)::float8 FROM property_{}.checkpoints WHERE id > %s"
)


def paced(archive: Archive, name: str, rounds: int, pace: float, tables: int) -> None:
    """``rounds`` rounds on property ``name`` through its table service, ``pace`` a second."""
    from adapters.clock import system_clock
    from adapters.rng import SecureDeckAndDice
    from adapters.store import open_store
    from entrypoints.simulation.mixed_session import Session
    from service_layer.service import TableService

    store = open_store(archive.url(name), signing_key=archive.key(name), create=False)
    try:
        service = TableService(store, clock=system_clock, source=SecureDeckAndDice())
        service.start()
        session = Session(service, seed=len(name), tables=tables, prefix=f"{name.upper()}-")
        started = time.monotonic()
        for number in range(rounds):
            wait = started + number / pace - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            session.round(session.tables[number % tables])
        assert not session.stats.refused, session.stats.refused[:3]
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds on each property (30)")
    parser.add_argument(
        "--pace", type=float, default=0.0, help="rounds a second on each property (0: full speed)"
    )
    parser.add_argument("--tables", type=int, default=4, help="tables a property, with --pace")
    parser.add_argument("--fast", action="store_true", help="fsync off on the four clusters")
    args = parser.parse_args(argv)
    lacking = missing()
    if lacking:
        print(f"not installed: {lacking}", file=sys.stderr)
        return 2
    with Clusters(fast=args.fast) as archive:
        archive.play(1, *NAMES)  # each store opened once: its gaming day and tables exist
        archive.wait_replicated(*NAMES)
        before = {name: archive.archived_head(name)[0] for name in NAMES}
        follower = archive.start_follow("--poll", "0.2")
        try:
            for name in NAMES:
                follower.verified(name, archive.head(name)[1])
            started = time.time()
            load_before = os.getloadavg()[0]
            if args.pace > 0:
                players = [
                    threading.Thread(
                        target=paced, args=(archive, name, args.rounds, args.pace, args.tables)
                    )
                    for name in NAMES
                ]
                for player in players:
                    player.start()
                for player in players:
                    player.join()
            else:
                for process in archive.start_play(args.rounds, *NAMES, commit_rounds="1"):
                    _out, err = process.communicate(timeout=1800)
                    assert process.returncode == 0, err
            played = time.time() - started
            archive.wait_replicated(*NAMES)
            for name in NAMES:
                follower.verified(name, archive.head(name)[1])
            load_after = os.getloadavg()[0]
        finally:
            follower.process.terminate()
            follower.process.wait(timeout=60)
        time.sleep(0.1)
        lag: list[float] = []
        verdict: list[float] = []
        passes = list(zip(follower.arrived, follower.lines, strict=True))
        checkpoints = 0
        with archive.admin() as admin:
            for name in NAMES:
                with archive.publisher(name) as publisher:
                    committed = publisher.execute(COMMITTED, (before[name],)).fetchall()
                arrived = dict(admin.execute(ARCHIVED.format(name), (before[name],)).fetchall())
                verified = [
                    (at, int(x["verified"]))
                    for at, x in passes
                    if x.get("property") == name and "verified" in x
                ]
                for checkpoint_id, position, at in committed:
                    checkpoints += 1
                    lag.append(arrived[checkpoint_id] - at)
                    said = [t for t, v in verified if v >= position]
                    if said:
                        verdict.append(min(said) - at)
        alerts = [x for x in follower.lines if "alert" in x]
    result = {
        "bench": "archive",
        "properties": len(NAMES),
        "rounds_each": args.rounds,
        "pace": args.pace or "full speed",
        "fsync": not args.fast,
        "played_s": round(played, 2),
        "rounds_per_s_all": round(len(NAMES) * args.rounds / played, 2),
        "checkpoints": checkpoints,
        "replication_lag": figures(lag),
        "verdict_delay": figures(verdict),
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
