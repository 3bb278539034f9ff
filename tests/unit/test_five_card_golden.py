"""Golden five-card (back) hands, written by hand from docs/rules.md R-HI-1..5 (and R-CARD-3).

Each row is ``clause, cards, wheel_rank, category, strength list, name``. ``wheel_rank`` is
``second`` (the default), ``lowest``, or ``both`` when the setting cannot change the hand. Strength
lists are ``[category, tie-breakers...]``: categories high_card 0 ... five_aces 9, ranks 2..14, and
one *order* for straights (6..13 for six- to king-high, 15 for ace-high, the wheel 14 under
``second`` and 5 under ``lowest``).
"""

from __future__ import annotations

import pytest

from table_core.cards import parse_cards
from table_core.errors import CardError
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
    WheelRank,
    build_tables,
    evaluate_hand,
    five_card_strength,
    tables_for,
)

BOTH = "both"

GOLDEN: list[tuple[str, str, str, str, list[int], str]] = [
    # --- R-HI-1: one natural hand of every category, highest first --------------------------
    ("R-HI-1", "Ah Ad Ac As JK", BOTH, "five_aces", [9], "Five aces"),
    ("R-HI-1", "As Ks Qs Js Ts", BOTH, "royal_flush", [8, 15], "Royal flush"),
    ("R-HI-1", "9h 8h 7h 6h 5h", BOTH, "straight_flush", [8, 9], "Straight flush, nine high"),
    (
        "R-HI-1",
        "Kc Kd Kh Ks 3d",
        BOTH,
        "four_of_a_kind",
        [7, 13, 3],
        "Four of a kind, kings, three kicker",
    ),
    ("R-HI-1", "8s 8h 8d 4c 4s", BOTH, "full_house", [6, 8, 4], "Full house, eights full of fours"),
    ("R-HI-1", "Kd Td 7d 4d 2d", BOTH, "flush", [5, 13, 10, 7, 4, 2], "Flush, king-ten high"),
    ("R-HI-1", "Td 9c 8h 7s 6d", BOTH, "straight", [4, 10], "Straight, ten high"),
    (
        "R-HI-1",
        "7c 7d 7h Ks 2d",
        BOTH,
        "three_of_a_kind",
        [3, 7, 13, 2],
        "Three of a kind, sevens, king-deuce kickers",
    ),
    ("R-HI-1", "Jh Js 4c 4d Ac", BOTH, "two_pair", [2, 11, 4, 14], "Two pair, jacks and fours"),
    (
        "R-HI-1",
        "Qs Qd 9c 5h 3s",
        BOTH,
        "one_pair",
        [1, 12, 9, 5, 3],
        "Pair of queens, nine-five-three kickers",
    ),
    ("R-HI-1", "Ah Jd 8c 5s 2h", BOTH, "high_card", [0, 14, 11, 8, 5, 2], "Pai gow, ace-jack high"),
    ("R-HI-1", "7c 5d 4h 3s 2c", BOTH, "high_card", [0, 7, 5, 4, 3, 2], "Pai gow, seven-five high"),
    # --- R-HI-2: straights, the wheel under both settings, no wrap-around ---------------------
    ("R-HI-2", "As Kd Qc Jh Ts", BOTH, "straight", [4, 15], "Straight, ace high"),
    ("R-HI-2", "Kc Qd Jh Ts 9c", BOTH, "straight", [4, 13], "Straight, king high"),
    ("R-HI-2", "6c 5d 4h 3s 2c", BOTH, "straight", [4, 6], "Straight, six high"),
    ("R-HI-2", "Ac 2d 3h 4s 5c", "second", "straight", [4, 14], "Straight, five high (wheel)"),
    ("R-HI-2", "Ac 2d 3h 4s 5c", "lowest", "straight", [4, 5], "Straight, five high (wheel)"),
    (
        "R-HI-2",
        "Ah 2h 3h 4h 5h",
        "second",
        "straight_flush",
        [8, 14],
        "Straight flush, five high (wheel)",
    ),
    (
        "R-HI-2",
        "Ah 2h 3h 4h 5h",
        "lowest",
        "straight_flush",
        [8, 5],
        "Straight flush, five high (wheel)",
    ),
    (
        "R-HI-2",
        "Qs Kd Ac 2h 3c",
        BOTH,
        "high_card",
        [0, 14, 13, 12, 3, 2],
        "Pai gow, ace-king high",
    ),
    ("R-HI-2", "Kh Ac 2d 3s 4c", BOTH, "high_card", [0, 14, 13, 4, 3, 2], "Pai gow, ace-king high"),
    # --- R-HI-3 / R-HI-4: the joker completing straights ---------------------------------------
    ("R-HI-4", "Ac 2d 3h 4s JK", "second", "straight", [4, 14], "Straight, five high (wheel)"),
    ("R-HI-4", "Ac 2d 3h 4s JK", "lowest", "straight", [4, 5], "Straight, five high (wheel)"),
    ("R-HI-4", "Ac 2d 4h 5s JK", "second", "straight", [4, 14], "Straight, five high (wheel)"),
    # 2-3-4-5 + joker: as an ace it makes the wheel, as a six the six-high straight. The joker is
    # the best card it can be (R-HI-3), so the setting decides which one it is.
    ("R-HI-3", "2c 3d 4h 5s JK", "second", "straight", [4, 14], "Straight, five high (wheel)"),
    ("R-HI-3", "2c 3d 4h 5s JK", "lowest", "straight", [4, 6], "Straight, six high"),
    ("R-HI-4", "Ks Qd Jc Th JK", BOTH, "straight", [4, 15], "Straight, ace high"),
    ("R-HI-4", "As Kd Qc Jh JK", BOTH, "straight", [4, 15], "Straight, ace high"),
    ("R-HI-4", "As Kd Jc Th JK", BOTH, "straight", [4, 15], "Straight, ace high"),
    ("R-HI-4", "9h 8d 6c 5s JK", BOTH, "straight", [4, 9], "Straight, nine high"),
    ("R-HI-4", "9h Td Jc Qs JK", BOTH, "straight", [4, 13], "Straight, king high"),
    ("R-HI-4", "6h 5d 4c 3s JK", BOTH, "straight", [4, 7], "Straight, seven high"),
    # The straight beats the pair of aces the joker would otherwise make with the ace.
    ("R-HI-3", "As 2d 3c 5h JK", "second", "straight", [4, 14], "Straight, five high (wheel)"),
    # --- R-HI-4: the joker in a flush is the highest rank of the suit missing from the hand ----
    ("R-HI-4", "As Ks 7s 4s JK", BOTH, "flush", [5, 14, 13, 12, 7, 4], "Flush, ace-king high"),
    ("R-HI-4", "Ks 9s 7s 4s JK", BOTH, "flush", [5, 14, 13, 9, 7, 4], "Flush, ace-king high"),
    ("R-HI-4", "Ad Kd Qd 9d JK", BOTH, "flush", [5, 14, 13, 12, 11, 9], "Flush, ace-king high"),
    ("R-HI-4", "Ac Kc Qc Jc 2c", BOTH, "flush", [5, 14, 13, 12, 11, 2], "Flush, ace-king high"),
    ("R-HI-4", "Th 8h 5h 2h JK", BOTH, "flush", [5, 14, 10, 8, 5, 2], "Flush, ace-ten high"),
    # --- R-HI-3: the joker completing straight flushes and royals --------------------------
    ("R-HI-3", "8c 7c 5c 4c JK", BOTH, "straight_flush", [8, 8], "Straight flush, eight high"),
    ("R-HI-3", "9c 8c 7c 6c JK", BOTH, "straight_flush", [8, 10], "Straight flush, ten high"),
    ("R-HI-3", "Js Ts 9s 8s JK", BOTH, "straight_flush", [8, 12], "Straight flush, queen high"),
    ("R-HI-3", "Kh Qh Jh 9h JK", BOTH, "straight_flush", [8, 13], "Straight flush, king high"),
    (
        "R-HI-3",
        "Ad 2d 3d 5d JK",
        "second",
        "straight_flush",
        [8, 14],
        "Straight flush, five high (wheel)",
    ),
    (
        "R-HI-3",
        "Ad 2d 3d 5d JK",
        "lowest",
        "straight_flush",
        [8, 5],
        "Straight flush, five high (wheel)",
    ),
    (
        "R-HI-3",
        "2d 3d 4d 5d JK",
        "second",
        "straight_flush",
        [8, 14],
        "Straight flush, five high (wheel)",
    ),
    ("R-HI-3", "2d 3d 4d 5d JK", "lowest", "straight_flush", [8, 6], "Straight flush, six high"),
    ("R-HI-3", "Ks Qs Js Ts JK", BOTH, "royal_flush", [8, 15], "Royal flush"),
    ("R-HI-3", "Ah Kh Qh Th JK", BOTH, "royal_flush", [8, 15], "Royal flush"),
    ("R-HI-3", "Ac Qc Jc Tc JK", BOTH, "royal_flush", [8, 15], "Royal flush"),
    # --- R-HI-3: otherwise the joker is an ace, and pairs nothing but aces --------------------
    (
        "R-HI-3",
        "Qh Jd 8c 4s JK",
        BOTH,
        "high_card",
        [0, 14, 12, 11, 8, 4],
        "Pai gow, ace-queen high",
    ),
    (
        "R-HI-3",
        "Ks Kd JK 7c 2h",
        BOTH,
        "one_pair",
        [1, 13, 14, 7, 2],
        "Pair of kings, ace-seven-deuce kickers",
    ),
    ("R-HI-3", "Ks Kd 7c 7h JK", BOTH, "two_pair", [2, 13, 7, 14], "Two pair, kings and sevens"),
    (
        "R-HI-3",
        "Ks Kd Kh 7c JK",
        BOTH,
        "three_of_a_kind",
        [3, 13, 14, 7],
        "Three of a kind, kings, ace-seven kickers",
    ),
    (
        "R-HI-3",
        "Ks Kd Kh Kc JK",
        BOTH,
        "four_of_a_kind",
        [7, 13, 14],
        "Four of a kind, kings, ace kicker",
    ),
    (
        "R-HI-3",
        "As JK 9d 6c 3h",
        BOTH,
        "one_pair",
        [1, 14, 9, 6, 3],
        "Pair of aces, nine-six-three kickers",
    ),
    (
        "R-HI-3",
        "As Ad JK 7c 2h",
        BOTH,
        "three_of_a_kind",
        [3, 14, 7, 2],
        "Three of a kind, aces, seven-deuce kickers",
    ),
    ("R-HI-3", "As Ad Kc Kh JK", BOTH, "full_house", [6, 14, 13], "Full house, aces full of kings"),
    (
        "R-HI-3",
        "As Ad Ah 7c JK",
        BOTH,
        "four_of_a_kind",
        [7, 14, 7],
        "Four of a kind, aces, seven kicker",
    ),
    # Joker with a pair of kings, three spades: no flush is possible, so it is only an ace.
    (
        "R-HI-3",
        "Ks Kd Qs 9s JK",
        BOTH,
        "one_pair",
        [1, 13, 14, 12, 9],
        "Pair of kings, ace-queen-nine kickers",
    ),
]


def _settings(wheel: str) -> list[WheelRank]:
    if wheel == BOTH:
        return ["second", "lowest"]
    assert wheel in ("second", "lowest")
    return ["second"] if wheel == "second" else ["lowest"]


ROWS = [
    (clause, cards, setting, category, strength, name)
    for clause, cards, wheel, category, strength, name in GOLDEN
    for setting in _settings(wheel)
]


@pytest.mark.parametrize(
    ("clause", "cards", "wheel_rank", "category", "strength", "name"),
    ROWS,
    ids=[f"{row[0]}:{row[1]}:{row[2]}" for row in ROWS],
)
def test_golden_five_card_hand(
    clause: str,
    cards: str,
    wheel_rank: WheelRank,
    category: str,
    strength: list[int],
    name: str,
) -> None:
    value = evaluate_hand(parse_cards(cards, 5), wheel_rank)
    assert value.size == 5
    assert value.category == category
    assert list(value.strength_list) == strength
    assert value.name == name
    # The lean evaluator answers the same packed strength in any card order.
    hand = parse_cards(cards, 5)
    tables = tables_for(wheel_rank)
    assert five_card_strength(hand, tables) == value.strength
    assert five_card_strength(hand[::-1], tables) == value.strength


def test_category_values_follow_the_documented_order() -> None:
    # R-HI-1, lowest first; the public strength list starts with these numbers.
    assert list(range(10)) == [
        HIGH_CARD,
        ONE_PAIR,
        TWO_PAIR,
        THREE_OF_A_KIND,
        STRAIGHT,
        FLUSH,
        FULL_HOUSE,
        FOUR_OF_A_KIND,
        STRAIGHT_FLUSH,
        FIVE_ACES,
    ]
    assert CATEGORY_NAMES[0] == "high_card"
    assert CATEGORY_NAMES[9] == "five_aces"


# --- ordering: (better, worse) under one setting ----------------------------------------------

BETTER_THAN: list[tuple[str, str, str, str]] = [
    # R-HI-1: adjacent categories, the worst hand of the higher one against the best of the lower.
    ("R-HI-1", "Ah Ad Ac As JK", "As Ks Qs Js Ts", BOTH),
    ("R-HI-1", "6c 5c 4c 3c 2c", "As Ah Ad Ac Kd", "second"),
    ("R-HI-1", "Ac 2c 3c 4c 5c", "As Ah Ad Ac Kd", "lowest"),
    ("R-HI-1", "2s 2h 2d 2c 3s", "As Ah Ad Kc Ks", BOTH),
    ("R-HI-1", "2s 2h 2d 3c 3s", "As Ks Qs Js 9s", BOTH),
    ("R-HI-1", "7d 5d 4d 3d 2d", "As Kd Qc Jh Ts", BOTH),
    ("R-HI-1", "6c 5d 4h 3s 2c", "As Ah Ad Kc Qs", "second"),
    ("R-HI-1", "Ac 2d 3h 4s 5c", "As Ah Ad Kc Qs", "lowest"),
    ("R-HI-1", "2s 2h 2d 3c 4s", "As Ah Kc Kd Qs", BOTH),
    ("R-HI-1", "3s 3h 2c 2d 4s", "As Ah Kc Qd Js", BOTH),
    ("R-HI-1", "2s 2h 3c 4d 6s", "As Kh Qc Jd 9s", BOTH),
    # R-HI-1: the royal compares as the best straight flush.
    ("R-HI-1", "As Ks Qs Js Ts", "Kd Qd Jd Td 9d", BOTH),
    ("R-HI-1", "Ks Qs Js Ts JK", "Kd Qd Jd Td 9d", BOTH),
    # R-HI-2: ace-high > wheel > king-high under "second"; the wheel is last under "lowest".
    ("R-HI-2", "As Kd Qc Jh Ts", "Ac 2d 3h 4s 5c", BOTH),
    ("R-HI-2", "Ac 2d 3h 4s 5c", "Kc Qd Jh Ts 9c", "second"),
    ("R-HI-2", "6c 5d 4h 3s 2c", "Ac 2d 3h 4s 5c", "lowest"),
    ("R-HI-2", "Ah 2h 3h 4h 5h", "Kd Qd Jd Td 9d", "second"),
    ("R-HI-2", "6c 5c 4c 3c 2c", "Ah 2h 3h 4h 5h", "lowest"),
    ("R-HI-2", "7c 6d 5h 4s 3c", "6c 5d 4h 3s 2c", BOTH),
    # R-HI-5: within a category, the usual poker ranks then kickers.
    ("R-HI-5", "9s 9h 9d 9c Ks", "9s 9h 9d 9c Qs", BOTH),
    ("R-HI-5", "Ts Th Td Tc 2s", "9s 9h 9d 9c As", BOTH),
    ("R-HI-5", "3s 3h 3d 2c 2s", "2s 2h 2d As Ah", BOTH),
    ("R-HI-5", "Ks Kh Kd 3c 3s", "Ks Kh Kd 2c 2s", BOTH),
    ("R-HI-5", "As Qs 9s 5s 3s", "Ah Jh Th 8h 6h", BOTH),
    ("R-HI-5", "Kd Jd 9d 6d 3d", "Kc Jc 9c 6c 2c", BOTH),
    ("R-HI-5", "As Ks 7s 4s JK", "Ah Kh Jh 9h 8h", BOTH),
    ("R-HI-5", "8s 8h 8d Ac 3s", "8s 8h 8d Kc Qs", BOTH),
    ("R-HI-5", "Ks Kh 3c 3d 2s", "Qs Qh Jc Jd As", BOTH),
    ("R-HI-5", "Ks Kh 4c 4d 2s", "Ks Kh 3c 3d As", BOTH),
    ("R-HI-5", "Ks Kh 4c 4d 5s", "Kc Kd 4h 4s 3s", BOTH),
    ("R-HI-5", "6s 6h 2c 3d 4s", "5c 5d Ah Ks Qd", BOTH),
    ("R-HI-5", "5s 5h Ac 3d 2s", "5c 5d Kh Qs Jd", BOTH),
    ("R-HI-5", "5s 5h Ac 9d 3s", "5c 5d Ah 9c 2s", BOTH),
    ("R-HI-5", "Ks 9h 7c 5d 3s", "Kc 9d 7h 5s 2c", BOTH),
    ("R-HI-5", "Ad 3h 4c 5d 7s", "Kc Qd Jh Ts 8c", BOTH),
    # R-HI-3: the joker is an ace kicker, better than a queen kicker.
    ("R-HI-3", "Ks Kd JK 7c 2h", "Kh Kc Qs 7d 2s", BOTH),
]

COPIES: list[tuple[str, str, str]] = [
    # R-CARD-3: suits never break ties.
    ("R-CARD-3", "As Kd Qc Jh 9s", "Ah Ks Qd Jc 9h"),
    ("R-CARD-3", "Ah Jh 8h 5h 2h", "Ac Jc 8c 5c 2c"),
    ("R-CARD-3", "Ts 9h 8d 7c 6s", "Th 9d 8c 7s 6h"),
    ("R-CARD-3", "As Ks Qs Js Ts", "Ah Kh Qh Jh Th"),
    # R-HI-4: the joker stands for exactly one real card, so these equal natural hands.
    ("R-HI-4", "As Ks 7s 4s JK", "Ad Kd Qd 7d 4d"),
    ("R-HI-4", "9h Td Jc Qs JK", "9c Td Jh Qd Ks"),
    ("R-HI-4", "Ks Qs Js Ts JK", "As Ks Qs Js Ts"),
    # R-HI-3: outside straights and flushes the joker is a plain ace.
    ("R-HI-3", "Ks Kd JK 7c 2h", "Kh Kc As 7d 2s"),
    ("R-HI-3", "Qh Jd 8c 4s JK", "Qs Jc 8d 4h Ad"),
]


BETTER_ROWS = [
    (clause, better, worse, setting)
    for clause, better, worse, wheel in BETTER_THAN
    for setting in _settings(wheel)
]


@pytest.mark.parametrize(
    ("clause", "better", "worse", "wheel_rank"),
    BETTER_ROWS,
    ids=[f"{r[0]}:{r[1]}>{r[2]}:{r[3]}" for r in BETTER_ROWS],
)
def test_better_hand_outranks_worse(
    clause: str, better: str, worse: str, wheel_rank: WheelRank
) -> None:
    high = evaluate_hand(parse_cards(better, 5), wheel_rank)
    low = evaluate_hand(parse_cards(worse, 5), wheel_rank)
    assert high.strength > low.strength
    assert list(high.strength_list) > list(low.strength_list)  # the public form agrees


@pytest.mark.parametrize(
    ("clause", "first", "second"), COPIES, ids=[f"{c[0]}:{c[1]}={c[2]}" for c in COPIES]
)
@pytest.mark.parametrize("wheel_rank", ["second", "lowest"])
def test_equal_hands_are_a_copy(
    clause: str, first: str, second: str, wheel_rank: WheelRank
) -> None:
    a = evaluate_hand(parse_cards(first, 5), wheel_rank)
    b = evaluate_hand(parse_cards(second, 5), wheel_rank)
    assert a.strength == b.strength
    assert a.strength_list == b.strength_list
    assert a.name == b.name


def test_every_golden_category_is_covered() -> None:
    covered = {row[3] for row in GOLDEN}
    assert covered == {*CATEGORY_NAMES, "royal_flush"}


def test_evaluate_hand_checks_its_cards_first() -> None:
    # R-CARD-2: a hand is distinct cards of the right count.
    with pytest.raises(CardError, match=r"^a hand has 5 or 2 cards, got 3$"):
        evaluate_hand(parse_cards("As Ks Qs"))
    with pytest.raises(CardError, match=r"^duplicate card: Ks$"):
        evaluate_hand([*parse_cards("As Ks Qs Js"), parse_cards("Ks")[0]])


def test_unknown_wheel_rank_is_refused() -> None:
    with pytest.raises(CardError, match="unknown wheel rank"):
        tables_for("third")


def test_the_lowest_wheel_tables_equal_a_full_build_of_the_reference_rules() -> None:
    # R-HI-2: "lowest" is derived from "second" by valuing again the hands that can make a wheel;
    # every hand of the deck must be valued as a build from the reference rules values it.
    lowest, second = tables_for("lowest"), tables_for("second")
    assert lowest == build_tables("lowest", range(2, 15))
    assert lowest.plain.keys() == second.plain.keys() and lowest.flush.keys() == second.flush.keys()
    changed = [k for k in second.plain if second.plain[k] != lowest.plain[k]]
    changed += [k for k in second.flush if second.flush[k] != lowest.flush[k]]
    # the wheel, A-2-3-4-5 plain and suited, and the joker standing for any one of its 5 cards
    assert len(changed) == 2 * (1 + 5)
