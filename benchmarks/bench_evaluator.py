"""Five-card evaluator speed: ours (``five_card_strength``) against treys, in the same run.

Both evaluate the same random joker-free five-card hands (fixed seed); ours also times as many
random hands that hold the joker (treys has no joker). Each rate is the median of --repeat timed
passes. Before timing, the script checks that ours and treys ORDER the sample the same way (treys:
lower is better) and exits 1 if not. That check uses ``wheel_rank="lowest"``, where our joker-free
ranking is ordinary poker; under the default ``second`` (R-HI-2) the wheel ranks second among
straights, which treys does not model, so there the wheels are left out of the check.

Last line: one JSON object ``{"ours_per_s", "treys_per_s", "ratio", "joker_per_s"}``.

Usage (from the repo root): .venv/bin/python benchmarks/bench_evaluator.py [--hands 200000]
[--seed 7] [--repeat 5]
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path

from treys import Card as TreysCard
from treys import Evaluator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import counts_parser
from table_core.cards import JOKER, Card, card_text
from table_core.hands import (
    STRAIGHT,
    STRAIGHT_FLUSH,
    FiveCardTables,
    five_card_strength,
    strength_list,
    tables_for,
)

STANDARD_CARDS = tuple(range(52))


def _median_rate(run: Callable[[], None], count: int, repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        rates.append(count / (time.perf_counter() - started))
    return statistics.median(rates)


def _is_wheel(strength: int) -> bool:
    category, *tiebreak = strength_list(strength)
    # The wheel's order is 14 under "second" and 5 under "lowest"; A-K-Q-J-T is 15 (hands.py).
    return category in (STRAIGHT, STRAIGHT_FLUSH) and tiebreak[0] in (5, 14)


def _order_mismatch(ours: Sequence[int], theirs: Sequence[int]) -> str | None:
    """``None`` when ours (higher is better) and treys (lower is better) order hands alike.

    Sorting by our strength, each of our values must meet exactly one treys value, and the treys
    values must strictly fall as ours rise: the same classes of copies, in the same order.
    """
    pairs = sorted(set(zip(ours, theirs, strict=True)))
    for (o1, t1), (o2, t2) in pairwise(pairs):
        if o1 == o2 or t2 >= t1:
            return f"ours {strength_list(o1)} / treys {t1} vs ours {strength_list(o2)} / treys {t2}"
    return None


def _check_order(
    hands: Sequence[Sequence[Card]], treys_hands: Sequence[list[int]], evaluator: Evaluator
) -> None:
    theirs = [evaluator.evaluate(h[:3], h[3:]) for h in treys_hands]
    for wheel_rank in ("lowest", "second"):
        tables = tables_for(wheel_rank)
        ours = [five_card_strength(h, tables) for h in hands]
        keep = [i for i, s in enumerate(ours) if wheel_rank == "lowest" or not _is_wheel(s)]
        mismatch = _order_mismatch([ours[i] for i in keep], [theirs[i] for i in keep])
        if mismatch:
            print(f"ORDER MISMATCH with treys (wheel_rank={wheel_rank}): {mismatch}")
            sys.exit(1)
        print(f"order check (wheel_rank={wheel_rank}): {len(keep):,} hands ordered as treys does")


def main() -> None:
    args = counts_parser(__doc__, hands=200_000, seed=7, repeat=5).parse_args()

    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(STANDARD_CARDS, 5)) for _ in range(args.hands)]
    joker_hands = []
    for _ in range(args.hands):
        cards = [*rng.sample(STANDARD_CARDS, 4), JOKER]
        rng.shuffle(cards)  # the joker anywhere in the hand
        joker_hands.append(tuple(cards))
    # Conversion is setup, not evaluation: treys gets its own card ints, as lists (it adds them).
    treys_hands = [[TreysCard.new(card_text(c)) for c in h] for h in hands]
    evaluator = Evaluator()
    tables: FiveCardTables = tables_for("second")

    _check_order(hands, treys_hands, evaluator)

    def ours() -> None:
        for h in hands:
            five_card_strength(h, tables)

    def treys() -> None:
        evaluate = evaluator.evaluate
        for h in treys_hands:
            evaluate(h[:3], h[3:])

    def with_joker() -> None:
        for h in joker_hands:
            five_card_strength(h, tables)

    ours_rate = _median_rate(ours, len(hands), args.repeat)
    treys_rate = _median_rate(treys, len(hands), args.repeat)
    joker_rate = _median_rate(with_joker, len(joker_hands), args.repeat)
    ratio = ours_rate / treys_rate
    print(f"hands: {args.hands:,} per run, seed {args.seed}, median of {args.repeat} runs")
    print(f"ours  (five_card_strength, no joker): {ours_rate:>12,.0f} hands/s")
    print(f"treys (Evaluator.evaluate, no joker): {treys_rate:>12,.0f} hands/s")
    print(f"ours / treys:                         {ratio:>12.2f}x")
    print(f"ours  (five_card_strength, joker):    {joker_rate:>12,.0f} hands/s")
    print(
        json.dumps(
            {
                "ours_per_s": round(ours_rate),
                "treys_per_s": round(treys_rate),
                "ratio": round(ratio, 2),
                "joker_per_s": round(joker_rate),
            }
        )
    )


if __name__ == "__main__":
    main()
