"""CI check (issues 3 and 32): millions of seven-card hands, set without a foul by every House Way,
and set by the four built-in House Way files exactly as by the Python ways.

Usage: python benchmarks/ci_house_way_large_sample.py [--hands 2000000] [--file-hands 2000000]
       [--seed 7]
First ``--hands`` random hands per House Way, no foul. Then ``--file-hands`` hands shared out across
the four ways (500,000 each by default), drawn by scripts/house_way_sample.py (uniform hands, the
joker, flushes, straights, many equal ranks): the file's split (front, back, both strengths) and
clause id must equal the Python way's, without the rank-pattern memo; ``--file-hands 0`` skips it.
Exits 1 on the first foul, error or difference. Ends with one JSON line of hands/s per House Way.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.house_way_files import built_in_text
from benchmarks.common import counts_parser
from scripts.house_way_sample import fixed_sample
from table_core.cards import FULL_DECK, cards_text
from table_core.errors import DomainError
from table_core.hands import FiveCardTables, tables_for
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.shape import analyse
from table_core.house_ways.spec import house_way_from_text


def no_foul(name: str, hands: int, seed: int, tables: FiveCardTables) -> int | None:
    """Hands/s of ``name`` over ``hands`` random hands; None after printing the first foul."""
    way = get_house_way(name)
    rng = random.Random(seed)  # the same hands for every House Way, dealt as we go
    sample = rng.sample
    started = time.perf_counter()
    for _ in range(hands):
        cards = sample(FULL_DECK, 7)
        chosen, clause = way.decide(analyse(cards, tables))
        if not chosen.legal or clause not in way.clauses:
            shown = " ".join(cards_text(cards))
            print(f"FAIL {name}: {shown} -> {clause} fouled or undocumented", file=sys.stderr)
            return None
    return round(hands / (time.perf_counter() - started))


def file_equals(name: str, hands: int, seed: int, tables: FiveCardTables) -> bool:
    """The built-in file ``name`` sets ``hands`` sampled hands as the Python way does."""
    python_way = get_house_way(name).decide
    file_way = house_way_from_text(built_in_text(name)).decide
    for cards in fixed_sample(hands, seed=f"{seed}-{name}"):
        shape = analyse(cards, tables)  # one shape for both: the comparison, not the speed
        expected, found = python_way(shape), file_way(shape)
        if found != expected:
            shown = " ".join(cards_text(cards))
            print(f"FAIL {name}: {shown}: {found[1]}, python: {expected[1]}", file=sys.stderr)
            return False
    return True


def main() -> int:
    args = counts_parser(__doc__, hands=2_000_000, file_hands=2_000_000, seed=7).parse_args()
    tables = tables_for("second")
    rates = {}
    for name in BUILT_IN:
        rate = no_foul(name, args.hands, args.seed, tables)
        if rate is None:
            return 1
        rates[name] = rate
        print(f"{name:>12}: {args.hands:,} hands set, no foul, {rate:,} hands/s")
    per_way = args.file_hands // len(BUILT_IN)
    for name in BUILT_IN if per_way else ():
        if not file_equals(name, per_way, args.seed, tables):
            return 1
        print(f"{name:>12}: {per_way:,} sampled hands, the file {name}.toml sets each alike")
    result = {"hands": args.hands, "seed": args.seed, "hands_per_s": rates}
    print(json.dumps({**result, "file_hands": per_way * len(BUILT_IN)}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DomainError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        sys.exit(1)
