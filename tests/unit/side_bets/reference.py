"""A slow, readable reading of R-VAR-3..5 that the fast classifier is checked against.

It shares nothing with the classifier but ``five_card_strength`` (R-HI's one evaluator): the best
five cards are the best of the 21 fives, and each special line is read straight from its clause.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from table_core.cards import ACE, JOKER, Card, make_card, rank_of, suit_of
from table_core.hands import (
    FIVE_ACES,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    ROYAL_ORDER,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    five_card_strength,
)

PAI_GOW_WORDS = {9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace"}


def _seven_in_a_row(ranks: set[int]) -> bool:
    """Seven consecutive ranks (the ace high or low) could hold these distinct ranks."""
    windows = [set(range(low, low + 7)) for low in range(2, 9)] + [{ACE, 2, 3, 4, 5, 6, 7}]
    return any(ranks <= window for window in windows)


def reference_kind_name(seven: Sequence[Card]) -> str:
    """The hand class name (``table_core.side_bets.lines.KINDS``) of seven cards, read slowly."""
    fives = [five_card_strength(five) for five in combinations(seven, 5)]
    best = max(fives)
    category = best >> 20
    real = [c for c in seven if c != JOKER]
    joker = len(real) == 6
    suits = Counter(suit_of(c) for c in real)
    one_suit = len(suits) == 1
    royal = category == STRAIGHT_FLUSH and (best >> 16) & 15 == ROYAL_ORDER
    ranks = {rank_of(c) for c in real}
    if one_suit and _seven_in_a_row(ranks) and len(ranks) == len(real):
        name = (
            "seven_card_straight_flush_with_joker" if joker else "natural_seven_card_straight_flush"
        )
        return f"{name}_royal" if royal else name
    if royal:
        royal_suit = suits.most_common(1)[0][0]
        for other in range(4):
            king, queen = make_card(13, other), make_card(12, other)
            if other != royal_suit and king in seven and queen in seven:
                return "royal_flush_royal_match"
        for other in range(4):
            ace, king = make_card(14, other), make_card(13, other)
            if other != royal_suit and ace in seven and king in seven:
                return "royal_flush_ace_king_suited"
        return "royal_flush"
    if category == STRAIGHT:
        trips = any(strength >> 20 == THREE_OF_A_KIND for strength in fives)
        return "three_of_a_kind_and_straight" if trips else "straight"
    if category == TWO_PAIR:
        pairs = [n for n in Counter(rank_of(c) for c in seven).values() if n == 2]  # JK is an ace
        return "three_pair" if len(pairs) == 3 else "two_pair"
    if category == HIGH_CARD:
        return f"pai_gow_{PAI_GOW_WORDS[max(rank_of(c) for c in seven)]}_high"
    return {
        FIVE_ACES: "five_aces",
        STRAIGHT_FLUSH: "straight_flush",
        FOUR_OF_A_KIND: "four_of_a_kind",
        FULL_HOUSE: "full_house",
        FLUSH: "flush",
        THREE_OF_A_KIND: "three_of_a_kind",
        ONE_PAIR: "one_pair",
    }[category]
