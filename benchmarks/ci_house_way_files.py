"""CI check (issue 32): the four built-in House Way files set a fixed sample of hands exactly as the
Python ways do (front, back, both strengths, clause id), without the rank-pattern memo.

Usage: python benchmarks/ci_house_way_files.py [--hands 2000000] [--seed 7]
The hands are shared out across the four ways (500,000 each by default), drawn by
scripts/house_way_sample.py: uniform hands, the joker, flushes, straights, many equal ranks.
Exits 1 on the first difference. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.house_way_files import built_in_text
from scripts.house_way_sample import fixed_sample
from table_core.cards import cards_text
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.shape import analyse
from table_core.house_ways.spec import house_way_from_text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    tables = tables_for("second")
    per_way = args.hands // len(BUILT_IN)
    rates = {}
    for name in BUILT_IN:
        python_way = get_house_way(name).decide
        file_way = house_way_from_text(built_in_text(name)).decide
        started = time.perf_counter()
        for cards in fixed_sample(per_way, seed=f"{args.seed}-{name}"):
            shape = analyse(cards, tables)  # one shape for both: the comparison, not the speed
            expected, found = python_way(shape), file_way(shape)
            if found != expected:
                shown = " ".join(cards_text(cards))
                print(f"FAIL {name}: {shown}: {found[1]}, python: {expected[1]}", file=sys.stderr)
                return 1
        rates[name] = round(per_way / (time.perf_counter() - started))
        print(f"{name:>12}: {per_way:,} hands, the file equals the Python way")
    print(json.dumps({"hands": per_way * len(BUILT_IN), "seed": args.seed, "hands_per_s": rates}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
