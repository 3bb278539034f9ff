"""House Way certification speed (issue 32): all 154,143,080 hands of a House Way file.

Goal: a certification in at most 10 minutes with ``--jobs 2`` on the 2-core host. Peer in the
same run: the built-in Python way of the same name, setting random hands through its rank-pattern
memo (warm: the same hands set once before they are timed), on one core. Certification's figure
is hands certified per second of wall clock (every hand counted, by suit class), so the ratio
says how much the suit classes and the pattern classes save over setting every hand one by one.

Usage: python benchmarks/bench_house_way_certify.py [--way fr] [--jobs 2] [--hands 500000]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from adapters.house_way_files import built_in_text
from service_layer.house_way_certificates import ALL_HANDS, WaySource, certify
from table_core.cards import FULL_DECK
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way

GOAL_SECONDS = 600


def memoised_rate(name: str, hands: int, seed: int) -> float:
    """Hands per second the built-in Python way sets with its memo warm (one core)."""
    rng = random.Random(seed)
    dealt = [rng.sample(FULL_DECK, 7) for _ in range(hands)]
    setter = get_house_way(name).setter(tables_for("second"))
    for cards in dealt:  # fills the memo: the timed pass replays it
        setter(cards)
    started = time.perf_counter()
    for cards in dealt:
        setter(cards)
    return hands / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--way", choices=BUILT_IN, default="fr")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--hands", type=int, default=500_000, help="the peer's random hands")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    peer = memoised_rate(args.way, args.hands, args.seed)
    print(f"{args.way} (Python, memo warm, one core): {peer:>12,.0f} hands/s (peer)")
    source = WaySource(args.way, built_in_text(args.way))
    started = time.perf_counter()
    done = certify(source, args.jobs)
    seconds = time.perf_counter() - started
    rate = ALL_HANDS / seconds
    verdict = "met" if seconds <= GOAL_SECONDS else "not met"
    print(
        f"{args.way}.toml certified ({done.figures['certified']}) with --jobs {args.jobs}: "
        f"{seconds:,.1f} s for {ALL_HANDS:,} hands ({done.figures['decisions']:,} decisions), "
        f"{rate:,.0f} hands/s, {rate / peer:.1f}x the peer; goal {GOAL_SECONDS} s: {verdict}"
    )
    print(
        json.dumps(
            {
                "way": args.way,
                "jobs": args.jobs,
                "certified": done.figures["certified"],
                "seconds": round(seconds, 1),
                "hands_per_s": round(rate),
                "peer_memo_hands_per_s": round(peer),
                "vs_peer": round(rate / peer, 2),
                "goal_met": seconds <= GOAL_SECONDS,
            }
        )
    )


if __name__ == "__main__":
    main()
