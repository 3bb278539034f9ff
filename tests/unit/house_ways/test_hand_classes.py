"""The suit-class reduction certification relies on, proved on small decks against every hand.

On a deck of four ranks and the joker (19,448 hands, straights and flushes through the joker
included), the weighted classes of ``hand_classes`` give exactly the counts that deciding every
hand one by one gives: per clause, per R-HW-3 family, the banker's back category, the front's
category and high card, for every built-in House Way. The classes that can form a flush are the
suit classes themselves (the orbits of the 24 renamings of the suits), one each.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import permutations
from math import comb

import pytest

from table_core.cards import JOKER, Card, make_card
from table_core.house_ways import BUILT_IN, get_house_way
from table_core.house_ways.certify import tally_hands, tally_patterns
from table_core.house_ways.hand_classes import (
    every_hand,
    hand_classes,
    pattern_hands,
    rank_patterns,
)
from table_core.house_ways.memo import rank_pattern

LOW = (5, 4, 3, 2)  # with the joker as an ace: the wheel
HIGH = (14, 13, 12, 11)  # the joker completes a broadway or a fifth ace


def _renamed(cards: tuple[Card, ...], order: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(sorted(c if c == JOKER else make_card((c >> 2) + 2, order[c & 3]) for c in cards))


def _suit_class(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return min(_renamed(cards, order) for order in permutations(range(4)))


@pytest.mark.parametrize("ranks", [LOW, HIGH], ids=["low", "high"])
def test_every_hand_is_in_exactly_one_class(ranks: tuple[int, ...]) -> None:
    patterns = rank_patterns(ranks)
    assert sum(pattern_hands(p) for p in patterns) == comb(4 * len(ranks) + 1, 7)
    flushable_orbits: set[tuple[Card, ...]] = set()
    plain_by_pattern: dict[int, int] = defaultdict(int)
    for cards in every_hand(ranks):
        pattern, flush = rank_pattern(cards)
        if flush:
            flushable_orbits.add(_suit_class(cards))
        else:
            plain_by_pattern[pattern] += 1
    seen_orbits: list[tuple[Card, ...]] = []
    for pattern in patterns:
        for cards, weight in hand_classes(pattern):
            key, flush = rank_pattern(cards)
            if flush:
                orbit = _suit_class(cards)
                seen_orbits.append(orbit)
                assert weight == len({_renamed(cards, o) for o in permutations(range(4))})
            else:
                assert weight == plain_by_pattern.pop(key)
    assert sorted(seen_orbits) == sorted(flushable_orbits)  # each orbit once
    assert not plain_by_pattern


@pytest.mark.parametrize("name", BUILT_IN)
@pytest.mark.parametrize("ranks", [LOW, HIGH], ids=["low", "high"])
def test_classes_count_as_every_hand(name: str, ranks: tuple[int, ...]) -> None:
    way = get_house_way(name)
    by_class = tally_patterns(way, rank_patterns(ranks))
    by_hand = tally_hands(way, every_hand(ranks))
    assert by_class.hands == by_hand.hands == comb(4 * len(ranks) + 1, 7)
    assert by_class.decisions < by_hand.decisions
    for figure in ("clauses", "families", "back", "front", "front_high", "failures"):
        assert getattr(by_class, figure) == getattr(by_hand, figure), figure
    assert not by_hand.failures


def test_the_full_deck_has_every_hand() -> None:
    patterns = rank_patterns()
    assert len(patterns) == 67_600
    assert sum(pattern_hands(p) for p in patterns) == 154_143_080
