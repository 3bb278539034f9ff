"""Side-bet lines and the hand classes the seven-card classifier answers (R-VAR-2..7).

A *line* is what a pay table pays ("four_of_a_kind"). A *hand class* (``Kind``, a small int) is
what the classifier answers for seven cards: finer than a line, because one hand holds several
lines (a royal + royal match also holds a royal flush and a straight flush) and different tables pay
different ones (Emperor's Treasure has no royal match line, so that hand is paid as a royal). Each
class lists the lines it holds, best first; a pay table pays the best-paying of them
(:mod:`table_core.side_bets.pay_tables`). Classes are ints so the exhaustive count is one list of
counters indexed by class.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from table_core.hands import (
    CATEGORY_NAMES,
    FIVE_ACES,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
)

Line = Literal[
    "natural_seven_card_straight_flush",
    "royal_flush_royal_match",
    "royal_flush_ace_king_suited",
    "seven_card_straight_flush_with_joker",
    "five_aces",
    "royal_flush",
    "straight_flush",
    "four_of_a_kind",
    "full_house",
    "flush",
    "three_of_a_kind",
    "straight",
    "pai_gow_nine_high",
    "pai_gow_ten_high",
    "pai_gow_jack_high",
    "pai_gow_queen_high",
    "pai_gow_king_high",
    "pai_gow_ace_high",
]

#: What a losing hand is called in results and counts (R-VAR-7 "nothing").
NOTHING: Final = "nothing"

#: Every line in rulebook order (a named line beside the royal match, the other royal + two).
LINES: tuple[Line, ...] = get_args(Line)
#: Pai gow (no pair, straight or flush) by highest card, 9-high..A-high (R-VAR-4, R-VAR-5).
PAI_GOW_LINES: tuple[Line, ...] = tuple(line for line in LINES if line.startswith("pai_gow_"))
#: Named lines a casino's card may post beside Fortune's (issue 20): Washington's Emperor's
#: Treasure pays a "royal flush plus ace-king suited" (``As Ks Qs Js Ts Ad Kd``). Each is a hand
#: class of its own that also holds the royal flush: a table without the line pays the royal.
NAMED_LINES: tuple[Line, ...] = ("royal_flush_ace_king_suited",)
#: The poker lines in Fortune's order, best first (R-VAR-3): trips sits above the straight.
POKER_LINES: tuple[Line, ...] = tuple(
    line for line in LINES if line not in PAI_GOW_LINES and line not in NAMED_LINES
)
#: The lines that are not pai gow lines (a progressive pays these).
POKER_AND_NAMED_LINES: tuple[Line, ...] = tuple(line for line in LINES if line not in PAI_GOW_LINES)

#: Lines of four of a kind or better: the hands that earn Envy (R-VAR-3).
ENVY_LINES: tuple[Line, ...] = POKER_LINES[:7]

Kind = int

# Hand classes. The order is the classifier's, not a payout order.
NATURAL_7SF_ROYAL = 0  # 8..A of one suit: a natural 7-card straight flush holding a royal
NATURAL_7SF = 1
ROYAL_MATCH = 2  # a royal (natural or with the joker) + a natural suited K-Q of another suit
JOKER_7SF_ROYAL = 3  # six suited cards + the joker make 7 in a row, and a royal among them
JOKER_7SF = 4
FIVE_ACES_KIND = 5
ROYAL = 6
STRAIGHT_FLUSH_KIND = 7
QUADS = 8
FULL_HOUSE_KIND = 9
FLUSH_KIND = 10
TRIPS = 11
TRIPS_AND_STRAIGHT = 12  # best five cards a straight, but trips are held too: paid as trips
STRAIGHT_KIND = 13
THREE_PAIR = 14
TWO_PAIR_KIND = 15
ONE_PAIR_KIND = 16
PAI_GOW_NINE_HIGH = 17  # 17..22: pai gow by highest card, 9..A (the joker is then an ace)
# A royal (natural or with the joker) + a natural suited A-K of another suit (issue 20): last, so
# the classes before it keep their numbers.
ROYAL_ACE_KING_SUITED = 23
KIND_COUNT = 24


def pai_gow_kind(top_rank: int) -> Kind:
    """The pai gow class of a no-pair hand whose highest card is ``top_rank`` (9..14)."""
    return PAI_GOW_NINE_HIGH + top_rank - 9


_SF_DOWN: tuple[Line, ...] = ("straight_flush", "flush", "straight")
_ROYAL_DOWN: tuple[Line, ...] = ("royal_flush", *_SF_DOWN)

#: Per class: name, the best five-card category of the seven cards (R-HI-1; royal flush apart),
#: and the lines it holds, best first.
KINDS: tuple[tuple[str, str, tuple[Line, ...]], ...] = (
    (
        "natural_seven_card_straight_flush_royal",
        "royal_flush",
        ("natural_seven_card_straight_flush", *_ROYAL_DOWN),
    ),
    (
        "natural_seven_card_straight_flush",
        "straight_flush",
        ("natural_seven_card_straight_flush", *_SF_DOWN),
    ),
    ("royal_flush_royal_match", "royal_flush", ("royal_flush_royal_match", *_ROYAL_DOWN)),
    (
        "seven_card_straight_flush_with_joker_royal",
        "royal_flush",
        ("seven_card_straight_flush_with_joker", *_ROYAL_DOWN),
    ),
    (
        "seven_card_straight_flush_with_joker",
        "straight_flush",
        ("seven_card_straight_flush_with_joker", *_SF_DOWN),
    ),
    ("five_aces", "five_aces", ("five_aces", "four_of_a_kind", "three_of_a_kind")),
    ("royal_flush", "royal_flush", _ROYAL_DOWN),
    ("straight_flush", "straight_flush", _SF_DOWN),
    ("four_of_a_kind", "four_of_a_kind", ("four_of_a_kind", "three_of_a_kind")),
    ("full_house", "full_house", ("full_house", "three_of_a_kind")),
    ("flush", "flush", ("flush",)),
    ("three_of_a_kind", "three_of_a_kind", ("three_of_a_kind",)),
    ("three_of_a_kind_and_straight", "straight", ("three_of_a_kind", "straight")),
    ("straight", "straight", ("straight",)),
    ("three_pair", "two_pair", ()),
    ("two_pair", "two_pair", ()),
    ("one_pair", "one_pair", ()),
    *((line, "high_card", (line,)) for line in PAI_GOW_LINES),
    ("royal_flush_ace_king_suited", "royal_flush", ("royal_flush_ace_king_suited", *_ROYAL_DOWN)),
)

KIND_NAMES: tuple[str, ...] = tuple(name for name, _, _ in KINDS)

#: The eleven best-five-card categories of R-VAR-7, best first (royal flush counted apart).
#: They are the hands' categories, best first, with the royal flush beside five aces.
CATEGORIES: tuple[str, ...] = (
    CATEGORY_NAMES[FIVE_ACES],
    "royal_flush",
    *reversed(CATEGORY_NAMES[:FIVE_ACES]),
)

#: Plain (not suited) five-card category -> class, for the groupings a rank multiset decides.
PLAIN_CATEGORY_KIND: dict[int, Kind] = {
    FIVE_ACES: FIVE_ACES_KIND,
    FOUR_OF_A_KIND: QUADS,
    FULL_HOUSE: FULL_HOUSE_KIND,
    THREE_OF_A_KIND: TRIPS,
    STRAIGHT: STRAIGHT_KIND,
    TWO_PAIR: TWO_PAIR_KIND,
    ONE_PAIR: ONE_PAIR_KIND,
}
# Categories a suited five can reach (R-HI-1): used to tell the flush classes apart.
SUITED_CATEGORIES = (STRAIGHT_FLUSH, FLUSH)
HIGH_CARD_CATEGORY = HIGH_CARD

assert len(KINDS) == KIND_COUNT
