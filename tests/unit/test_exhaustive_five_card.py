"""Every five-card hand of the 53-card deck, counted by category (R-HI-1..4, R-CARD-1).

The expected counts are the published figures for the pai gow deck with a semi-wild joker; they
are reached only if the joker completes exactly the straights and flushes R-HI-3/R-HI-4 allow and
is an ace everywhere else. The wheel setting (R-HI-2) reorders straights but moves none of them
between categories, so both settings give the same counts.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from itertools import combinations
from math import comb

import pytest

from table_core.cards import FULL_DECK
from table_core.hands import (
    CATEGORY_NAMES,
    ROYAL_ORDER,
    STRAIGHT_FLUSH,
    WheelRank,
    five_card_strength,
    pack,
    tables_for,
)

EXPECTED = {
    "five_aces": 1,
    "straight_flush": 204,  # royal flushes included
    "four_of_a_kind": 828,
    "full_house": 4_368,
    "flush": 7_804,
    "straight": 20_532,
    "three_of_a_kind": 63_360,
    "two_pair": 138_600,
    "one_pair": 1_215_024,
    "high_card": 1_418_964,
}
# 4 natural royals, and in each suit the joker standing for any one of the five royal cards.
ROYAL_FLUSHES = 4 + 4 * 5


def test_expected_counts_cover_the_deck() -> None:
    assert sum(EXPECTED.values()) == comb(53, 5) == 2_869_685


@pytest.mark.parametrize("wheel_rank", ["second", "lowest"])
def test_every_five_card_hand_by_category(wheel_rank: WheelRank) -> None:
    evaluate = partial(five_card_strength, tables=tables_for(wheel_rank))
    by_strength = Counter(map(evaluate, combinations(FULL_DECK, 5)))
    by_category: Counter[str] = Counter()
    for strength, n in by_strength.items():
        by_category[CATEGORY_NAMES[strength >> 20]] += n
    assert dict(by_category) == EXPECTED
    assert by_strength[pack(STRAIGHT_FLUSH, [ROYAL_ORDER])] == ROYAL_FLUSHES
