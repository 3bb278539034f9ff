"""R-VAR-7: the exact figures docs/rules.md publishes over all C(53,7) = 154,143,080 seven-card
hands.

Copied from the rulebook, the authority the exhaustive count answers to (the unit test and the CI
check both compare against these; nothing in the table reads them).
"""

from __future__ import annotations

CATEGORIES: dict[str, int] = {
    "five_aces": 1_128,
    "royal_flush": 26_132,
    "straight_flush": 184_832,
    "four_of_a_kind": 307_472,
    "full_house": 4_188_528,
    "flush": 6_172_088,
    "straight": 11_236_028,
    "three_of_a_kind": 7_470_676,
    "two_pair": 35_553_816,
    "one_pair": 64_221_960,
    "high_card": 24_780_420,
}
FORTUNE_LINES: dict[str, int] = {
    "natural_seven_card_straight_flush": 32,
    "royal_flush_royal_match": 72,
    "seven_card_straight_flush_with_joker": 196,
    "five_aces": 1_128,
    "royal_flush": 26_020,
    "straight_flush": 184_644,
    "four_of_a_kind": 307_472,
    "full_house": 4_188_528,
    "flush": 6_172_088,
    "three_of_a_kind": 7_672_500,
    "straight": 11_034_204,
    "nothing": 124_556_196,
}
PAI_GOW: dict[str, int] = {
    "pai_gow_nine_high": 31_080,
    "pai_gow_ten_high": 248_640,
    "pai_gow_jack_high": 963_480,
    "pai_gow_queen_high": 2_719_500,
    "pai_gow_king_high": 6_386_940,
    "pai_gow_ace_high": 14_430_780,
}
#: The default Fortune table's house edge, as a fraction.
EDGE: tuple[int, int] = (11_970_096, 154_143_080)
