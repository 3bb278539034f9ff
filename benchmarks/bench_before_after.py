"""Before and after a change of structure: the same benchmarks on two checkouts, interleaved.

Peer in the same run: the commit named by ``--before`` (default: the last commit before the
redesign of issue 16), checked out into a temporary git worktree. Each pair runs every benchmark
once on each checkout, alternating which goes first, with that checkout first on ``PYTHONPATH`` and
the same interpreter, so both meet the same machine load. Figures are the medians over the pairs;
the ratio is after / before (for a latency, before / after, so above 1 is always better).

  core       benchmarks/bench_core.py: six-seat rounds/s on the pure core, and through the aggregate
  simulate   benchmarks/bench_simulate.py: persisted rounds per CPU-second on SQLite (K=10)
  audit      benchmarks/bench_audit.py: ``audit verify`` events/s on one process (its own log)
  http       benchmarks/bench_http.py: place-bet and set-hand p99 at 200 requests/s on PostgreSQL

Usage (repo root): ``.venv/bin/python benchmarks/bench_before_after.py [--before REF]
[--after REF] [--pairs 3] [--only core,simulate,audit,http]``. Prints a table, then ONE JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_REDESIGN = "f818c78"

Pick = Callable[[dict[str, Any]], float]
# name -> (script and arguments, {figure: (pick, higher_is_better)})
BENCHMARKS: dict[str, tuple[list[str], dict[str, tuple[Pick, bool]]]] = {
    "core": (
        [
            "bench_core.py",
            "--rounds",
            "5000",
            "--peer-rounds",
            "1000",
            "--repeat",
            "3",
            "--warm-rounds",
            "10000",
        ],
        {
            "core_rounds_per_s": (lambda f: f["core_rounds_per_s"], True),
            "aggregate_rounds_per_s": (lambda f: f["aggregate_rounds_per_s"], True),
        },
    ),
    "simulate": (
        [
            "bench_simulate.py",
            "--rounds",
            "2000",
            "--memory-rounds",
            "0",
            "--pairs",
            "1",
            "--no-postgres",
        ],
        {"persisted_rounds_per_cpu_s": (lambda f: f["sqlite"]["rounds_per_cpu_s"], True)},
    ),
    "audit": (
        ["bench_audit.py", "--rounds", "3000", "--tables", "4", "--jobs", "1", "--profile", "0"],
        {"audit_events_per_s": (lambda f: f["verify_jobs1_events_per_s"], True)},
    ),
    "http": (
        ["bench_http.py", "--engines", "postgresql", "--runs", "paced", "--seconds", "10"],
        {
            "place_bet_p99_ms": (lambda f: f["postgresql"]["paced"]["place_bet"]["p99_ms"], False),
            "set_hand_p99_ms": (lambda f: f["postgresql"]["paced"]["set_hand"]["p99_ms"], False),
        },
    ),
}


def checkout(ref: str) -> Path:
    """A detached worktree of ``ref`` under the temporary folder, made once and reused."""
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", ref],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    path = Path(tempfile.gettempdir()) / f"paigow-before-{sha}"
    if not path.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), sha],
            capture_output=True,
            check=True,
        )
    return path


def run(tree: Path, name: str, side: str) -> dict[str, Any]:
    script, *arguments = BENCHMARKS[name][0]
    if name == "audit":  # each side generates and reads its own log
        arguments += ["--db", str(Path(tempfile.gettempdir()) / f"paigow-ba-{side}.db")]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / script), *arguments],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise SystemExit(f"{side} {name} failed ({done.returncode}): {done.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE_REDESIGN, help="the peer commit")
    parser.add_argument("--after", help="the commit measured (default: this checkout as it is)")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--only", default=",".join(BENCHMARKS))
    args = parser.parse_args()
    trees = {"before": checkout(args.before), "after": checkout(args.after) if args.after else ROOT}
    samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    chosen = [name for name in args.only.split(",") if name]
    for pair in range(args.pairs):
        order = ("before", "after") if pair % 2 == 0 else ("after", "before")
        for name in chosen:
            for side in order:
                figures = run(trees[side], name, side)
                for figure, (pick, _) in BENCHMARKS[name][1].items():
                    samples[side].setdefault(figure, []).append(float(pick(figures)))
            print(f"pair {pair + 1}/{args.pairs}: {name} done", file=sys.stderr)
    result: dict[str, Any] = {
        "before": args.before,
        "after": args.after or "this checkout",
        "pairs": args.pairs,
        "figures": {},
    }
    print(f"{'figure':<28} {'before':>10} {'after':>10} {'ratio':>7}  (ratio > 1: after better)")
    for name in chosen:
        for figure, (_, higher_is_better) in BENCHMARKS[name][1].items():
            before = statistics.median(samples["before"][figure])
            after = statistics.median(samples["after"][figure])
            ratio = after / before if higher_is_better else before / after
            result["figures"][figure] = {
                "before": before,
                "after": after,
                "ratio": round(ratio, 3),
                "before_runs": samples["before"][figure],
                "after_runs": samples["after"][figure],
            }
            print(f"{figure:<28} {before:>10,.1f} {after:>10,.1f} {ratio:>6.3f}x")
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
