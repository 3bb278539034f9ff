"""CI check (issue 3): millions of random seven-card hands, set without a foul by every House Way.

Usage: python benchmarks/ci_house_way_large_sample.py [--hands 2000000] [--seed 7]
Exits 1 on the first foul or error. Ends with one JSON line of hands/s per House Way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from table_core.cards import FULL_DECK, cards_text
from table_core.errors import DomainError
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.shape import analyse


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    tables = tables_for("second")
    rates = {}
    for name in BUILT_IN:
        way = get_house_way(name)
        rng = random.Random(args.seed)  # the same hands for every House Way, dealt as we go
        sample = rng.sample
        started = time.perf_counter()
        for _ in range(args.hands):
            cards = sample(FULL_DECK, 7)
            chosen, clause = way.decide(analyse(cards, tables))
            if not chosen.legal or clause not in way.clauses:
                shown = " ".join(cards_text(cards))
                print(f"FAIL {name}: {shown} -> {clause} fouled or undocumented", file=sys.stderr)
                return 1
        elapsed = time.perf_counter() - started
        rates[name] = round(args.hands / elapsed)
        print(f"{name:>12}: {args.hands:,} hands set, no foul, {rates[name]:,} hands/s")
    print(json.dumps({"hands": args.hands, "seed": args.seed, "hands_per_s": rates}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DomainError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        sys.exit(1)
