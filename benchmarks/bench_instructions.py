"""Before and after a change of structure, in CPU instructions: load-proof where seconds are not.

A shared, loaded machine moves wall-clock figures by a factor of two from one minute to the next;
``valgrind --tool=callgrind`` counts the instructions a run executes, the same whatever else the
machine does. Each workload runs in a fresh interpreter under callgrind twice, once with ``n``
repetitions and once with ``3n``; the difference is the instructions of ``2n`` repetitions with
start-up and imports cancelled out. Peer in the same run: the commit named by ``--before`` (default:
the last commit before the redesign of issue 16), checked out into a temporary git worktree;
each checkout runs with its own code first on ``PYTHONPATH`` and the same interpreter.

  simulate   ``paigow simulate`` into ``memory://`` (six players, Fortune, seed 1): decide, fold,
             the event mapper, canonical bytes and both hash chains, checkpoints signed
  audit      ``paigow audit verify`` of the committed legacy log (6,784 events, 200 rounds): the
             chain, signatures, every command decided again, the money

Usage (repo root): ``.venv/bin/python benchmarks/bench_instructions.py [--before REF]
[--after REF] [--rounds 40] [--audits 1]``. Prints a table, then ONE JSON line. Needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_before_after import BEFORE_REDESIGN, ROOT, checkout

FIXTURE = ROOT / "tests" / "fixtures" / "legacy_log"
WORKLOAD = """
import sys, contextlib, io, os
# The checkout's own command line: a checkout from before the entry points' folder has it in
# adapters/ (the installed package would otherwise lend it today's).
if os.path.isdir(os.path.join(os.environ["PYTHONPATH"], "entrypoints")):
    from entrypoints.cli.main import main
else:
    from adapters.cli.main import main
kind, times, argument = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for _ in range(times):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        # (an audit that finds something exits 1: each repetition must still run whole)
        if kind == "simulate":
            main(["simulate", "--db", "memory://", "--rounds", argument, "--players", "6",
                  "--fortune", "--seed", "1", "--quiet", "--format", "json"])
        else:
            main(["audit", "verify", "--db", argument, "--format", "json", "--jobs", "1"])
"""


def instructions(tree: Path, kind: str, times: int, argument: str) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                WORKLOAD,
                kind,
                str(times),
                argument,
            ],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"callgrind failed in {tree}: {done.stderr[-1500:]}")
        return int(found.group(1))


def warm_up(tree: Path, kind: str, argument: str) -> None:
    """Run the workload once without callgrind: a first run compiles every module (when bytecode
    may be written), which the two counted runs must not pay one more than the other."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(
        [sys.executable, "-c", WORKLOAD, kind, "1", argument],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        check=False,
    )


def legacy_copy(side: str) -> str:
    """A fresh copy of the legacy log for one side (the audit builds nothing in it, but the
    reading commands of some versions do)."""
    folder = Path(tempfile.mkdtemp(prefix=f"paigow-instr-{side}-"))
    for name in ("seed1_200.db", "seed1_200.db.signing-key.pub"):
        shutil.copy(FIXTURE / name, folder / name)
    return f"sqlite:///{folder / 'seed1_200.db'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE_REDESIGN)
    parser.add_argument("--after", help="default: this checkout as it is")
    parser.add_argument("--rounds", default="40", help="rounds a simulate repetition")
    parser.add_argument("--audits", type=int, default=1, help="audits a repetition")
    parser.add_argument(
        "--only", choices=("simulate", "audit"), help="one workload (default: both)"
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (Debian: apt-get install valgrind)")
    trees = {"before": checkout(args.before), "after": checkout(args.after) if args.after else ROOT}
    result: dict[str, Any] = {"before": args.before, "after": args.after or "this checkout"}
    print(f"{'workload':<10} {'before':>16} {'after':>16} {'after/before':>13}")
    for kind in (args.only,) if args.only else ("simulate", "audit"):
        counts = {}
        for side, tree in trees.items():
            argument = args.rounds if kind == "simulate" else legacy_copy(side)
            once = args.audits if kind == "audit" else 1
            warm_up(tree, kind, argument)  # bytecode compiled once, outside the counts
            low = instructions(tree, kind, once, argument)
            high = instructions(tree, kind, 3 * once, argument)
            counts[side] = high - low
        ratio = counts["after"] / counts["before"]
        result[kind] = {**counts, "after_over_before": round(ratio, 4)}
        print(f"{kind:<10} {counts['before']:>16,} {counts['after']:>16,} {ratio:>12.4f}x")
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
