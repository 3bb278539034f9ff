"""Start-up to ready over a large log (issue 22): ``paigow serve`` from zero vs from snapshots.

Goal: a table service over a log of 1 million events is ready in under 5 s. Each start is timed
from the process's launch to ``/ready`` answering 200, then to the first read of the table
(``GET /tables/{id}``, which needs the table's state: folded from zero, or already held from its
snapshot). Both ways run in the same run on the same file, alternating, and each start is stopped
with SIGTERM (the service records its stop, and with snapshots on takes one there).

    paigow simulate --rounds 46000 --players 6 --seed 1 --commit-rounds 50 --fast-sync \\
        --db sqlite:////tmp/snap22/1m.db           # ~1.04 million events, once (~5 min)
    python benchmarks/bench_startup.py --db sqlite:////tmp/snap22/1m.db --table SIM-1 --starts 3

"From zero" is ``PAIGOW_SNAPSHOT_ROUNDS=0`` (snapshots neither used nor taken): today's start,
the whole store verified, the table folded from its first event on first use. The last line is
ONE JSON object with the medians and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 5.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _key(db: str) -> str:
    """An auditor's key to read the table with (created once per run, in process: the
    benchmark is the casino's own tool, and a simulated file has no key officer)."""
    from datetime import UTC, datetime

    sys.path.insert(0, str(ROOT))
    from adapters.store import open_store
    from service_layer.operators.keys import key_store_for

    store = open_store(db, create=False)
    try:
        return key_store_for(store).create("auditor-bench", "auditor", datetime.now(UTC))[1]
    finally:
        store.close()


def one_start(db: str, table: str, key: str, snapshots: bool, log: Path) -> dict[str, float]:
    """Seconds from launch to /ready 200 and to the table's first read; the server stopped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAIGOW_LOG_LEVEL": "info"}
    if not snapshots:
        env["PAIGOW_SNAPSHOT_ROUNDS"] = "0"
    port = _free_port()
    started = time.perf_counter()
    with log.open("ab") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "entrypoints.cli.main", "serve", "--db", db,
             "--port", str(port)],
            cwd=ROOT, env=env, stdout=sink, stderr=sink,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        ready = _wait_ready(base, server)
        with httpx.Client(base_url=base, timeout=600) as client:
            answer = client.get(f"/tables/{table}", headers={"Authorization": f"Bearer {key}"})
            answer.raise_for_status()
        first_read = time.perf_counter() - started
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=600)
    return {"ready_s": ready - started, "first_read_s": first_read}


def _wait_ready(base: str, server: subprocess.Popen[bytes]) -> float:
    with httpx.Client(base_url=base, timeout=5) as client:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"paigow serve exited with {server.returncode}")
            try:
                if client.get("/ready").status_code == 200:
                    return time.perf_counter()
            except httpx.TransportError:
                pass
            time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--table", default="SIM-1")
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--log", type=Path, default=Path("/tmp/bench_startup.log"))
    parser.add_argument(
        "--ways",
        default="zero,snapshot",
        help="which starts to time: zero,snapshot (both, the ratio) or snapshot alone",
    )
    args = parser.parse_args()
    ways = [way for way in ("zero", "snapshot") if way in args.ways.split(",")]
    key = _key(args.db)
    # A first start with snapshots on leaves one at its stop (a log never served has none).
    one_start(args.db, args.table, key, True, args.log)
    runs: dict[str, list[dict[str, float]]] = {way: [] for way in ways}
    for _ in range(args.starts):
        for name in runs:
            result = one_start(args.db, args.table, key, name == "snapshot", args.log)
            runs[name].append(result)
            print(name, json.dumps(result), file=sys.stderr)
    medians = {
        f"{name}_{what}": round(statistics.median(r[what] for r in results), 3)
        for name, results in runs.items()
        for what in ("ready_s", "first_read_s")
    }
    print(
        json.dumps(
            {
                "benchmark": "startup",
                "db": args.db.split("://")[0],
                "events": _events(args.db),
                "starts": args.starts,
                **medians,
                **_ratios(medians),
                "goal_s": GOAL_S,
                "goal_met": medians["snapshot_first_read_s"] < GOAL_S,
                "load_avg": round(os.getloadavg()[0], 2),
            }
        )
    )


def _ratios(medians: dict[str, float]) -> dict[str, float]:
    """From zero against from the snapshot, when both were timed."""
    if "zero_ready_s" not in medians or "snapshot_ready_s" not in medians:
        return {}
    return {
        "ratio_ready": round(medians["zero_ready_s"] / medians["snapshot_ready_s"], 1),
        "ratio_first_read": round(
            medians["zero_first_read_s"] / medians["snapshot_first_read_s"], 1
        ),
    }


def _events(db: str) -> int:
    sys.path.insert(0, str(ROOT))
    from adapters.store import open_store

    store = open_store(db, create=False)
    try:
        with store._connection() as conn:
            return int(conn.execute("SELECT max(position) FROM event_log").fetchone()[0])
    finally:
        store.close()


if __name__ == "__main__":
    main()
