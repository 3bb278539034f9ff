"""House Way speed (issue 3): hands set per second by each House Way over the same random hands.

Peer in the same run: a brute force that values all 21 splits of each hand and keeps the best
legal front (what a House Way would cost without shape-first decisions). Goal: >= 100,000 hands/s
per House Way on one core. Medians of --repeat runs. Last line: one JSON object of the figures.

Usage: python benchmarks/bench_house_way.py [--hands 100000] [--repeat 3] [--seed 11]
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import counts_parser
from table_core.cards import FULL_DECK, Card
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way
from table_core.house_ways.shape import analyse, best

GOAL = 100_000


def _rate(
    hands: Sequence[Sequence[Card]], work: Callable[[Sequence[Card]], object], repeat: int
) -> float:
    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        for cards in hands:
            work(cards)
        rates.append(len(hands) / (time.perf_counter() - started))
    return statistics.median(rates)


def main() -> None:
    args = counts_parser(__doc__, hands=100_000, repeat=3, seed=11).parse_args()
    rng = random.Random(args.seed)
    hands = [rng.sample(FULL_DECK, 7) for _ in range(args.hands)]
    tables = tables_for("second")

    def brute_force(cards: Sequence[Card]) -> object:
        return best(c for c in analyse(cards, tables).splits() if c.legal)

    peer = _rate(hands, brute_force, args.repeat)
    print(f"{'brute force (21 splits)':>26}: {peer:>10,.0f} hands/s (peer)")
    figures: dict[str, object] = {"hands": args.hands, "brute_force_per_s": round(peer)}
    for name in BUILT_IN:
        way = get_house_way(name)
        decide_rate = _rate(
            hands, lambda cards, way=way: way.decide(analyse(cards, tables)), args.repeat
        )
        set_rate = _rate(hands, lambda cards, name=name: set_by_house_way(cards, name), args.repeat)
        print(
            f"{name:>26}: {set_rate:>10,.0f} hands/s via set_by_house_way, "
            f"{decide_rate:,.0f} via decide; {set_rate / peer:.1f}x the brute force, "
            f"{set_rate / GOAL:.2f}x the goal"
        )
        figures[f"{name}_per_s"] = round(set_rate)
        figures[f"{name}_vs_brute_force"] = round(set_rate / peer, 2)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
