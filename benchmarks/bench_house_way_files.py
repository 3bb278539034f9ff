"""Benchmark (issue 32): the four built-in House Way files against the Python ways, on every hand.

Usage: python benchmarks/bench_house_way_files.py [--ways fr,es,...] [--limit N] [--rate-hands N]

Every one of the 154,143,080 seven-card hands of the 53-card deck is covered, in two parts:

- the 6,416,124 hands that can form a flush (five of a suit, the joker counting) are each set by
  the Python way and by the file, ``decide(analyse(cards))`` without memo, and compared exactly
  (front, back, both strengths, clause id); one Shape serves all eight decisions of a hand;
- the other 147,726,956 hands: with no flush possible, a built-in's decision depends on the rank
  pattern alone (the premise of ``house_ways.memo``, checked by tests/unit/house_ways/test_memo.py)
  and so does a file's (no word of ``spec_words`` reads a suit outside straights and flushes), so
  two suit assignments of each of the 67,600 rank patterns are compared and stand for them all.

Then the speed, both on the same hands in the same run: ``decide`` hands/s on flush hands (no
memo) and the memoised setters' hands/s on uniform random hands, the file against the Python way.
Ends with one JSON line. Exits 1 when any hand differs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from itertools import combinations
from math import comb
from typing import Any

from adapters.house_way_files import built_in_text
from table_core.cards import FULL_DECK, JOKER, Card, cards_text
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.memo import rank_pattern
from table_core.house_ways.shape import Decision, Shape, analyse
from table_core.house_ways.spec import house_way_from_text

ALL_HANDS = comb(53, 7)
Decide = Callable[[Shape], Decision]


def flush_hands() -> Iterator[tuple[Card, ...]]:
    """Every hand that can form a flush, once: at most one suit can hold five (the joker's four)."""
    for suit in range(4):
        mine = [c for c in range(52) if c & 3 == suit]
        others = [c for c in range(52) if c & 3 != suit]
        for joker, least in (((), 5), ((JOKER,), 4)):
            for k in range(least, 8 - len(joker)):
                for these in combinations(mine, k):
                    for rest in combinations(others, 7 - len(joker) - k):
                        yield these + rest + joker


def flush_hand_count() -> int:
    plain = sum(comb(13, k) * comb(39, 7 - k) for k in range(5, 8))
    joker = sum(comb(13, k) * comb(39, 6 - k) for k in range(4, 7))
    return 4 * (plain + joker)


def rank_patterns() -> Iterator[tuple[bool, tuple[int, ...]]]:
    """(joker, how many cards of each rank 2..A) for every seven-card rank pattern."""

    def fill(rank: int, left: int) -> Iterator[tuple[int, ...]]:
        if rank == 14:
            if left <= 4:
                yield (left,)
            return
        for n in range(min(4, left) + 1):
            for tail in fill(rank + 1, left - n):
                yield (n, *tail)

    for joker in (False, True):
        for counts in fill(2, 7 - joker):
            yield joker, counts


def suited(joker: bool, counts: tuple[int, ...], order: tuple[int, ...]) -> list[Card]:
    """One hand of the pattern with its suits spread (no flush possible): each rank takes the
    suits holding fewest cards so far, ties broken by ``order``."""
    held = [0, 0, 0, 0]
    cards: list[Card] = [JOKER] if joker else []
    for rank_index, n in enumerate(counts):
        suits = sorted(range(4), key=lambda s: (held[s], order.index(s)))[:n]
        for s in suits:
            held[s] += 1
            cards.append(rank_index * 4 + s)
    return cards


def compare(hand: list[Card] | tuple[Card, ...], ways: list[tuple[str, Decide, Decide]]) -> str:
    """The first way on which the file and the Python way differ for ``hand`` ('' when none)."""
    shape = analyse(hand)
    for name, python_way, file_way in ways:
        if python_way(shape) != file_way(shape):
            return name
    return ""


def interleaved(
    sides: dict[str, Callable[[tuple[Card, ...]], object]], hands: list[tuple[Card, ...]]
) -> dict[str, int]:
    """Hands/s of each side over the same hands, in alternating chunks of 1,000 (so both sides
    see the same load on a shared host)."""
    spent = dict.fromkeys(sides, 0.0)
    for start in range(0, len(hands), 1_000):
        chunk = hands[start : start + 1_000]
        for label, run in sides.items():
            began = time.perf_counter()
            for cards in chunk:
                run(cards)
            spent[label] += time.perf_counter() - began
    return {label: round(len(hands) / seconds) for label, seconds in spent.items()}


def rates(ways: list[tuple[str, Decide, Decide]], hands: list[tuple[Card, ...]]) -> dict[str, Any]:
    """``decide(analyse(cards))`` hands/s, without memo, of each way and its file."""
    tables = tables_for("second")

    def direct(decide: Decide) -> Callable[[tuple[Card, ...]], object]:
        return lambda cards: decide(analyse(cards, tables))

    return {
        name: interleaved({"python": direct(python_way), "file": direct(file_way)}, hands)
        for name, python_way, file_way in ways
    }


def memo_rates(names: list[str], count: int) -> dict[str, Any]:
    """The memoised setters' hands/s (what a table or a simulation uses) on random hands."""
    rng = random.Random(7)
    hands = [tuple(rng.sample(FULL_DECK, 7)) for _ in range(count)]
    return {
        name: interleaved(
            {
                "python": get_house_way(name).setter(),
                "file": house_way_from_text(built_in_text(name)).setter(),
            },
            hands,
        )
        for name in names
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ways", default=",".join(BUILT_IN))
    parser.add_argument("--limit", type=int, default=0, help="only the first N flush hands")
    parser.add_argument("--rate-hands", type=int, default=100_000)
    args = parser.parse_args()
    names = args.ways.split(",")
    ways = [
        (name, get_house_way(name).decide, house_way_from_text(built_in_text(name)).decide)
        for name in names
    ]
    started = time.perf_counter()
    patterns = differ = 0
    examples: list[str] = []
    for joker, counts in rank_patterns():
        for order in ((0, 1, 2, 3), (3, 2, 1, 0)):
            spread = suited(joker, counts, order)
            assert not rank_pattern(spread)[1], "a spread hand can form no flush"
            name = compare(spread, ways)
            if name:
                differ += 1
                examples.append(f"{name}: {' '.join(cards_text(spread))}")
        patterns += 1
    pattern_s = time.perf_counter() - started
    print(f"rank patterns: {patterns:,} (two suit spreads each), {pattern_s:.0f} s")

    total = flush_hand_count()
    wanted = min(args.limit, total) if args.limit else total
    started = time.perf_counter()
    sample: list[tuple[Card, ...]] = []
    done = 0
    for hand in flush_hands():
        if done == wanted:
            break
        if len(sample) < args.rate_hands and done % 7 == 0:
            sample.append(hand)
        name = compare(hand, ways)
        if name:
            differ += 1
            if len(examples) < 20:
                examples.append(f"{name}: {' '.join(cards_text(hand))}")
        done += 1
        if done % 500_000 == 0:
            elapsed = time.perf_counter() - started
            print(f"  {done:,} of {wanted:,} flush hands, {elapsed:.0f} s", file=sys.stderr)
    flush_s = time.perf_counter() - started
    covered = done + (ALL_HANDS - total if not args.limit else 0)
    print(f"flush hands: {done:,} of {total:,} compared one by one, {flush_s:.0f} s")
    print(f"hands covered: {covered:,} of {ALL_HANDS:,}; hands that differ: {differ}")
    for example in examples:
        print("  differs:", example)

    decide_rates = rates(ways, sample)
    setter_rates = memo_rates(names, args.rate_hands * 10)
    print(f"{'House Way':>12} | decide, flush hands (file / python) | memoised, random hands")
    for name in names:
        d, m = decide_rates[name], setter_rates[name]
        print(
            f"{name:>12} | {d['file']:>7,} / {d['python']:>7,} hands/s"
            f" ({d['file'] / d['python']:.2f}x) | {m['file']:>9,} / {m['python']:>9,} hands/s"
            f" ({m['file'] / m['python']:.2f}x)"
        )
    result = {
        "hands": ALL_HANDS,
        "covered": covered,
        "flush_hands_compared": done,
        "rank_patterns": patterns,
        "differ": differ,
        "seconds": round(pattern_s + flush_s),
        "decide_hands_per_s": decide_rates,
        "memoised_hands_per_s": setter_rates,
    }
    print(json.dumps(result))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
