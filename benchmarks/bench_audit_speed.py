"""Issue 22's single-core and memory goals: ``verify_log`` on the six-player simulate log.

The log is what ``paigow simulate --rounds 5000 --players 6 --seed 1`` writes (about 113,700
events; generated into ``--db`` when the file is missing, not timed). Timed in CPU seconds
(``time.process_time``: the machine is shared), the median of ``--repeat`` passes, in this order:

  raw rows     the audit's query through the standard library's sqlite3, rows fetched and nothing
               decoded: the floor of any reader of the log
  core         the pure core on the same log's commands: each command read back from its parsed
               events (``audit.command_rebuild``), ``table_core.table.decide``, the result compared
               with the recorded events, ``fold`` (the events parsed before the timer starts): the
               part of the audit that IS the game, which no audit can skip
  verify       ``audit.verify.verify_log`` over ``audit.sources.open_database``: the chain, every
               signature, every payload, every command decided again, the money and the books
  checks floor the least any Python audit does besides the game (the rows held in memory): the
               two SHA-256 over the stored bytes, the links and positions, one Ed25519 check a
               checkpoint (``bench_audit_parallel.floor_pass``), each payload decoded once
               (``orjson.loads``); with the raw read, it bounds the core's share of any audit that
               keeps these checks: core / (core + raw rows + checks floor)
  signatures   of that floor, the Ed25519 checks alone (one a checkpoint, OpenSSL's code): what
               remains even if every other check were compiled and free, core / (core + raw rows
               + signatures)

Goal: verify >= 5,000 rounds/s. Then where verification time goes (cProfile of the first
``--profile`` events, by area, ``bench_audit.profile``), and the peak RSS of a fresh process
verifying each log given to ``--memory`` (``resource.getrusage().ru_maxrss``; goal: a
100,000-round log within 200 MiB, flat in the log's length).

Usage (repo root): ``.venv/bin/python benchmarks/bench_audit_speed.py [--db /tmp/audit22-5k.db]
[--repeat 3] [--profile 20000] [--memory /tmp/a.db,/tmp/b.db]``. Prints the figures, then ONE JSON
line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_audit_parallel import chain_inputs, floor_pass

from audit.command_rebuild import command_of
from audit.sources import open_database
from audit.verify import verify_log
from eventlog.canonical import loads_json
from eventlog.keys import checkpoint_signature_holds
from eventlog.mapper import parse_event
from eventlog.query import LOG_QUERY
from table_core.hands import tables_for
from table_core.table import TableState, decide, fold

ROOT = Path(__file__).resolve().parents[1]
GOAL_ROUNDS = 5_000
GOAL_MIB = 200
#: A fresh interpreter verifying one log, printing its events, rounds and peak RSS in KiB.
MEMORY_PROBE = """
import resource, sys
from audit.sources import open_database
from audit.verify import verify_log
source = open_database(f"sqlite:///{sys.argv[1]}")
report = verify_log(source)
source.close()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(report.events, report.rounds, int(report.ok), peak)
"""


def generate(path: Path, rounds: int) -> None:
    print(f"generating {rounds:,} rounds into {path} (paigow simulate, not timed)")
    subprocess.run(
        [sys.executable, "-m", "entrypoints.cli.main", "simulate", "--rounds", str(rounds),
         "--players", "6", "--seed", "1", "--quiet", "--db", f"sqlite:///{path}"],
        check=True, cwd=ROOT, stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def cpu(work: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The median CPU seconds of ``repeat`` passes (the collector run before each), the last
    pass's answer."""
    times, answer = [], None
    for _ in range(repeat):
        gc.collect()
        started = time.process_time()
        answer = work()
        times.append(time.process_time() - started)
    return statistics.median(times), answer


def raw_rows(path: Path) -> int:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    count = sum(1 for _ in connection.execute(LOG_QUERY))
    connection.close()
    return count


def table_commands(path: Path) -> list[list[Any]]:
    """Every table command's recorded events, parsed (untimed: the core's input)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    groups: list[list[Any]] = []
    last = None
    for row in connection.execute(LOG_QUERY):
        if row[1] == "system":
            continue
        if (row[1], row[9]) != last:
            groups.append([])
            last = (row[1], row[9])
        groups[-1].append(parse_event(loads_json(row[5])))
    connection.close()
    return groups


def checks_floor(path: Path) -> Callable[[], int]:
    """The chain's least pass and one decode of each payload, over rows already read."""
    rows, checkpoints, key, _ = chain_inputs(path)

    def floor() -> int:
        loads = orjson.loads
        for row in rows:
            loads(row[5])
        return floor_pass(rows, checkpoints, key)

    return floor


def signatures_only(path: Path) -> Callable[[], int]:
    """Each checkpoint's signature checked, nothing else (rows already read)."""
    _, checkpoints, key, _ = chain_inputs(path)
    assert key is not None, "the log has no signing key"

    def signatures() -> int:
        for position, chain_hash, signed_at, _, signature in checkpoints:
            if not checkpoint_signature_holds(key, signature, position, chain_hash, signed_at):
                raise SystemExit(f"checkpoint {position}: signature does not hold")
        return len(checkpoints)

    return signatures


def core(groups: list[list[Any]]) -> int:
    """The commands decided again on the folded state, compared and folded (one table)."""
    state = TableState()
    for events in groups:
        if decide(state, command_of(state, events)) != events:
            raise SystemExit("the core does not decide the recorded events")
        state = fold(events, state)
    return len(groups)


def verify(path: Path) -> Any:
    source = open_database(f"sqlite:///{path}")
    try:
        return verify_log(source)
    finally:
        source.close()


def peak_rss(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(path)], check=True, capture_output=True,
        text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    events, rounds, ok, kib = (int(x) for x in done.stdout.split())
    return {"events": events, "rounds": rounds, "ok": bool(ok), "peak_rss_mib": round(kib / 1024)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("/tmp/audit22-5k.db"))
    parser.add_argument("--rounds", type=int, default=5_000, help="rounds generated (missing db)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=20_000, help="events profiled (0: none)")
    parser.add_argument("--memory", default="", help="logs whose peak RSS is measured, a,b")
    args = parser.parse_args()
    if not args.db.exists():
        generate(args.db, args.rounds)
    tables_for("second")  # the five-card tables, built once, outside every timer
    tables_for("lowest")

    rows_s, events = cpu(lambda: raw_rows(args.db), args.repeat)
    groups = table_commands(args.db)
    core_s, commands = cpu(lambda: core(groups), args.repeat)
    verify_s, report = cpu(lambda: verify(args.db), args.repeat)
    floor_s, _ = cpu(checks_floor(args.db), args.repeat)
    signatures_s, signed = cpu(signatures_only(args.db), args.repeat)
    ceiling = core_s / (core_s + rows_s + floor_s)
    signed_ceiling = core_s / (core_s + rows_s + signatures_s)
    if not report.ok:
        print(f"the log does not verify: {report.findings[:3]}", file=sys.stderr)
        return 1
    rounds = report.rounds
    figures: dict[str, Any] = {
        "events": report.events,
        "rounds": rounds,
        "commands": commands,
        "raw_rows_events_per_cpu_s": round(events / rows_s),
        "core_rounds_per_cpu_s": round(rounds / core_s),
        "verify_rounds_per_cpu_s": round(rounds / verify_s),
        "verify_events_per_cpu_s": round(report.events / verify_s),
        "verify_cpu_s": round(verify_s, 2),
        "core_share_of_verify": round(core_s / verify_s, 3),
        "goal_rounds_per_s": GOAL_ROUNDS,
        "checks_floor_cpu_s": round(floor_s, 2),
        "raw_rows_cpu_s": round(rows_s, 2),
        "core_cpu_s": round(core_s, 2),
        "core_share_ceiling": round(ceiling, 3),
        "signatures_cpu_s": round(signatures_s, 2),
        "checkpoints": signed,
        "core_share_ceiling_signatures_only": round(signed_ceiling, 3),
    }
    print(f"log: {report.events:,} events, {rounds:,} rounds, {commands:,} table commands")
    print(f"raw rows (sqlite3 cursor)   {figures['raw_rows_events_per_cpu_s']:>10,} events/CPU-s")
    print(f"core (decide, compare, fold){figures['core_rounds_per_cpu_s']:>10,} rounds/CPU-s")
    print(
        f"audit verify                {figures['verify_rounds_per_cpu_s']:>10,} rounds/CPU-s, "
        f"{figures['verify_events_per_cpu_s']:,} events/CPU-s ({verify_s:.2f} CPU-s; the core "
        f"alone is {core_s / verify_s:.0%} of it; goal {GOAL_ROUNDS:,} rounds/s)"
    )
    print(
        f"checks floor                {floor_s:.2f} CPU-s (two SHA-256, links, signatures, one "
        f"decode a payload) + {rows_s:.2f} raw rows: the core's share of any audit keeping "
        f"them is at most {ceiling:.0%}"
    )
    print(
        f"  of which signatures       {signatures_s:.2f} CPU-s ({signed:,} checkpoints, "
        f"{signatures_s / signed * 1e6:.0f} us each): with every other check free, at most "
        f"{signed_ceiling:.0%}"
    )
    if args.profile:
        from bench_audit import profile_figures

        figures["profile"] = profile_figures(args.db, args.profile)
    memory = [Path(p) for p in args.memory.split(",") if p]
    figures["memory"] = [{"db": str(p), **peak_rss(p)} for p in memory]
    for each in figures["memory"]:
        print(
            f"peak RSS verifying {each['rounds']:,} rounds ({each['events']:,} events): "
            f"{each['peak_rss_mib']} MiB (goal: {GOAL_MIB} MiB at 100,000 rounds, flat)"
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
