"""Golden seven-card hands for the side bets, written by hand from docs/rules.md R-VAR-3..5.

Each row: clause, the seven cards, the hand class, then the Fortune line and pays on the default
table (R-VAR-3: 8000/2000/1000/400/150/50/25/5/4/3/2) and the Emperor's Treasure line and pays
(R-VAR-4). ``pays`` is "to 1"; -1 is a losing hand, whose line is "nothing".
"""

from __future__ import annotations

import random

import pytest

from table_core.cards import FULL_DECK, JOKER, parse_cards
from table_core.errors import CardError
from table_core.side_bets import (
    EMPERORS_TREASURE,
    FORTUNE_8000,
    best_five_category,
    classify,
    classify_hand,
    kind_name,
    resolve_side_bet,
)
from tests.unit.side_bets.reference import reference_kind_name

NOTHING = ("nothing", -1)
F_ROYAL = ("royal_flush", 150)
ET_ROYAL = ("royal_flush", 150)

GOLDEN: list[tuple[str, str, str, tuple[str, int], tuple[str, int]]] = [
    # --- the seven-card straight flushes ----------------------------------------------------
    (
        "R-VAR-3 natural 7-card straight flush",
        "7h 8h 9h Th Jh Qh Kh",
        "natural_seven_card_straight_flush",
        ("natural_seven_card_straight_flush", 8000),
        ("natural_seven_card_straight_flush", 5000),
    ),
    (
        "R-VAR-3 natural, the ace low (A-2-3-4-5-6-7)",
        "Ad 2d 3d 4d 5d 6d 7d",
        "natural_seven_card_straight_flush",
        ("natural_seven_card_straight_flush", 8000),
        ("natural_seven_card_straight_flush", 5000),
    ),
    (
        "R-VAR-3 natural 8 to ace holds a royal, paid as the 7-card line",
        "8c 9c Tc Jc Qc Kc Ac",
        "natural_seven_card_straight_flush_royal",
        ("natural_seven_card_straight_flush", 8000),
        ("natural_seven_card_straight_flush", 5000),
    ),
    (
        "R-VAR-3 joker 7-card straight flush: the joker extends the top",
        "2s 3s 4s 5s 6s 7s JK",
        "seven_card_straight_flush_with_joker",
        ("seven_card_straight_flush_with_joker", 1000),
        ("seven_card_straight_flush_with_joker", 1000),
    ),
    (
        "R-VAR-3 joker 7-card straight flush: the joker fills the gap",
        "4h 5h 6h 8h 9h Th JK",
        "seven_card_straight_flush_with_joker",
        ("seven_card_straight_flush_with_joker", 1000),
        ("seven_card_straight_flush_with_joker", 1000),
    ),
    (
        "R-VAR-3 joker 7-card straight flush 8 to ace (joker the 8) holds a royal",
        "9d Td Jd Qd Kd Ad JK",
        "seven_card_straight_flush_with_joker_royal",
        ("seven_card_straight_flush_with_joker", 1000),
        ("seven_card_straight_flush_with_joker", 1000),
    ),
    (
        "R-VAR-3 six suited in a row but the seventh card is real, not the joker: a straight flush",
        "2s 3s 4s 5s 6s 7s 9h",
        "straight_flush",
        ("straight_flush", 50),
        ("straight_flush", 50),
    ),
    # --- royal + royal match ----------------------------------------------------------------
    (
        "R-VAR-3 natural royal + natural suited K-Q",
        "As Ks Qs Js Ts Kh Qh",
        "royal_flush_royal_match",
        ("royal_flush_royal_match", 2000),
        ET_ROYAL,  # R-VAR-4 has no royal match line: the hand is paid as the royal it holds
    ),
    (
        "R-VAR-3 a royal completed by the joker, with a natural K-Q match, counts",
        "As Ks Js Ts JK Kd Qd",
        "royal_flush_royal_match",
        ("royal_flush_royal_match", 2000),
        ET_ROYAL,
    ),
    # --- royal + ace-king suited (a named line, issue 20: Washington's Emperor's Treasure) -------
    (
        "issue 20 natural royal + natural suited A-K: its own class, a royal on these tables",
        "As Ks Qs Js Ts Ad Kd",
        "royal_flush_ace_king_suited",
        F_ROYAL,  # neither table posts the named line: paid as the royal it holds
        ET_ROYAL,
    ),
    (
        "issue 20 a royal completed by the joker, with a natural suited A-K",
        "JK Ks Qs Js Ts Ah Kh",
        "royal_flush_ace_king_suited",
        F_ROYAL,
        ET_ROYAL,
    ),
    (
        "issue 20 A and K of two different suits are no ace-king suited",
        "As Ks Qs Js Ts Ad Kh",
        "royal_flush",
        F_ROYAL,
        ET_ROYAL,
    ),
    (
        "R-VAR-3 K-J beside a royal is no royal match",
        "As Ks Qs Js Ts Kh Jh",
        "royal_flush",
        F_ROYAL,
        ET_ROYAL,
    ),
    (
        "R-VAR-3 K and Q of two different suits are no match",
        "As Ks Qs Js Ts Kh Qd",
        "royal_flush",
        F_ROYAL,
        ET_ROYAL,
    ),
    (
        "R-VAR-3 the match must be natural: K + joker beside a royal is a royal",
        "Ac Kc Qc Jc Tc Kh JK",
        "royal_flush",
        F_ROYAL,
        ET_ROYAL,
    ),
    # --- five aces and the five-card lines --------------------------------------------------
    (
        "R-HI-3 four aces + joker: five aces",
        "As Ah Ad Ac JK 7s 2d",
        "five_aces",
        ("five_aces", 400),
        ("five_aces", 500),
    ),
    (
        "R-HI-1 five aces beside a pair of kings is still five aces",
        "As Ah Ad Ac JK Ks Kd",
        "five_aces",
        ("five_aces", 400),
        ("five_aces", 500),
    ),
    ("R-HI-1 natural royal flush", "Ah Kh Qh Jh Th 3c 2d", "royal_flush", F_ROYAL, ET_ROYAL),
    (
        "R-HI-4 royal flush with the joker as the queen",
        "Ah Kh Jh Th JK 3c 2d",
        "royal_flush",
        F_ROYAL,
        ET_ROYAL,
    ),
    (
        "R-HI-1 straight flush",
        "5c 6c 7c 8c 9c Kd 2h",
        "straight_flush",
        ("straight_flush", 50),
        ("straight_flush", 50),
    ),
    (
        "R-HI-4 straight flush, the joker filling the gap",
        "5c 6c 8c 9c JK Kd 2h",
        "straight_flush",
        ("straight_flush", 50),
        ("straight_flush", 50),
    ),
    (
        "R-HI-2 wheel straight flush with the joker as the five; beats four aces",
        "As Ad Ah JK 2s 3s 4s",
        "straight_flush",
        ("straight_flush", 50),
        ("straight_flush", 50),
    ),
    (
        "R-HI-1 four of a kind",
        "9s 9h 9d 9c 2s 5h Kd",
        "four_of_a_kind",
        ("four_of_a_kind", 25),
        ("four_of_a_kind", 25),
    ),
    (
        "R-HI-3 three aces + joker: four aces, better than the flush the joker could make",
        "As Ad Ah JK 3s 7s 9s",
        "four_of_a_kind",
        ("four_of_a_kind", 25),
        ("four_of_a_kind", 25),
    ),
    (
        "R-HI-1 full house",
        "Ks Kh Kd 4c 4s 9h 2d",
        "full_house",
        ("full_house", 5),
        ("full_house", 5),
    ),
    (
        "R-HI-3 full house, aces (A-A-joker) full of eights",
        "As Ad JK 8c 8d 3h 2s",
        "full_house",
        ("full_house", 5),
        ("full_house", 5),
    ),
    (
        "R-HI-1 two trips are a full house",
        "7s 7h 7d 3c 3s 3h Kd",
        "full_house",
        ("full_house", 5),
        ("full_house", 5),
    ),
    ("R-HI-1 flush", "As Ts 8s 5s 2s Kd 3h", "flush", ("flush", 4), ("flush", 4)),
    (
        "R-HI-4 flush with the joker (as the king of spades)",
        "JK As Ts 8s 5s Kd 3h",
        "flush",
        ("flush", 4),
        ("flush", 4),
    ),
    (
        "R-VAR-3 flush and trips: the flush pays more",
        "As Ks 9s 5s 2s Ad Ah",
        "flush",
        ("flush", 4),
        ("flush", 4),
    ),
    (
        "R-HI-1 three of a kind",
        "Qs Qh Qd 9c 6s 4h 2d",
        "three_of_a_kind",
        ("three_of_a_kind", 3),
        ("three_of_a_kind", 3),
    ),
    (
        "R-HI-3 trips of aces with the joker",
        "As Ah JK 9c 6s 4h 2d",
        "three_of_a_kind",
        ("three_of_a_kind", 3),
        ("three_of_a_kind", 3),
    ),
    (
        "R-VAR-3 trips with a straight pay as trips",
        "8s 8h 8d 9c Ts Jh Qd",
        "three_of_a_kind_and_straight",
        ("three_of_a_kind", 3),
        ("three_of_a_kind", 3),
    ),
    (
        "R-VAR-3 the joker in both roles: the ten of a straight and the third ace",
        "Ah Ad Kc Qh Jd JK 3s",
        "three_of_a_kind_and_straight",
        ("three_of_a_kind", 3),
        ("three_of_a_kind", 3),
    ),
    ("R-HI-1 straight", "4s 5h 6d 7c 8s Kh 2d", "straight", ("straight", 2), ("straight", 2)),
    (
        "R-HI-4 straight with the joker as the seven",
        "4s 5h 6d JK 8s Kh 2d",
        "straight",
        ("straight", 2),
        ("straight", 2),
    ),
    (
        "R-HI-2 the wheel with the joker as the ace",
        "JK 2s 3h 4d 5c 9s Kh",
        "straight",
        ("straight", 2),
        ("straight", 2),
    ),
    # --- the losing hands and pai gow by highest card ---------------------------------------
    ("R-VAR-3 three pair loses", "Ks Kh 9s 9h 4d 4c 2s", "three_pair", NOTHING, NOTHING),
    (
        "R-HI-3 three pair with A + joker as the aces",
        "As JK Qh Qd 6c 6s 2h",
        "three_pair",
        NOTHING,
        NOTHING,
    ),
    ("R-VAR-3 two pair loses", "Ks Kh 9s 9h 4d 3c 2s", "two_pair", NOTHING, NOTHING),
    ("R-HI-3 A + joker is a pair of aces", "As JK Th 9h 7d 4c 3s", "one_pair", NOTHING, NOTHING),
    (
        "R-VAR-4 pai gow, nine high",
        "9s 8h 7d 5c 4s 3h 2d",
        "pai_gow_nine_high",
        NOTHING,
        ("pai_gow_nine_high", 40),
    ),
    (
        "R-VAR-4 pai gow, ten high",
        "Ts 8h 7d 5c 4s 3h 2d",
        "pai_gow_ten_high",
        NOTHING,
        ("pai_gow_ten_high", 5),
    ),
    (
        "R-VAR-4 pai gow, jack high",
        "Js 9h 8d 6c 4s 3h 2d",
        "pai_gow_jack_high",
        NOTHING,
        ("pai_gow_jack_high", 2),
    ),
    ("R-VAR-4 pai gow, queen high", "Qs Th 8d 6c 4s 3h 2d", "pai_gow_queen_high", NOTHING, NOTHING),
    ("R-VAR-4 pai gow, king high", "Ks Qh 8d 6c 4s 3h 2d", "pai_gow_king_high", NOTHING, NOTHING),
    ("R-VAR-4 pai gow, ace high", "As Qh 8d 6c 4s 3h 2d", "pai_gow_ace_high", NOTHING, NOTHING),
    (
        "R-HI-3 a joker that completes nothing is an ace: ace-high pai gow",
        "JK Qs Th 8d 6c 3s 2h",
        "pai_gow_ace_high",
        NOTHING,
        NOTHING,
    ),
]


@pytest.mark.parametrize(
    ("clause", "cards", "kind", "fortune", "emperors"), GOLDEN, ids=[g[0] for g in GOLDEN]
)
def test_golden_side_bet_hands(
    clause: str, cards: str, kind: str, fortune: tuple[str, int], emperors: tuple[str, int]
) -> None:
    seven = parse_cards(cards, 7)
    assert kind_name(classify_hand(seven)) == kind, clause
    assert resolve_side_bet(FORTUNE_8000, seven) == fortune, clause
    assert resolve_side_bet(EMPERORS_TREASURE, seven) == emperors, clause
    assert reference_kind_name(seven) == kind, clause  # the golden rows check the reference too


def test_every_fortune_and_emperors_treasure_line_has_a_golden_hand() -> None:
    fortune = {row[3][0] for row in GOLDEN}
    emperors = {row[4][0] for row in GOLDEN}
    assert fortune == {*FORTUNE_8000.pays, "nothing"}
    assert emperors == {*EMPERORS_TREASURE.pays, "nothing"}


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("8c 9c Tc Jc Qc Kc Ac", "royal_flush"),
        ("7h 8h 9h Th Jh Qh Kh", "straight_flush"),
        ("As Ks Js Ts JK Kd Qd", "royal_flush"),
        ("8s 8h 8d 9c Ts Jh Qd", "straight"),
        ("Ks Kh 9s 9h 4d 4c 2s", "two_pair"),
        ("JK Qs Th 8d 6c 3s 2h", "high_card"),
    ],
)
def test_best_five_card_category_of_the_seven(cards: str, category: str) -> None:
    assert best_five_category(classify_hand(parse_cards(cards, 7))) == category


def test_bad_hands_are_refused_with_the_card_rule() -> None:
    with pytest.raises(CardError, match="7 cards, got 6"):
        classify_hand(parse_cards("As Ks Qs Js Ts 9s"))
    six = parse_cards("As Ks Qs Js Ts 9s")
    with pytest.raises(CardError, match="duplicate card: As"):
        classify_hand([*six, six[0]])


def _biased_hand(rng: random.Random) -> list[int]:
    """Random hands, a third of them crowded into one suit (with or without the joker), so the
    flush and straight-flush paths are exercised as often as the plain ones."""
    if rng.random() < 0.35:
        suit = rng.randrange(4)
        pool = [c for c in range(52) if c & 3 == suit] + [JOKER]
        suited = rng.sample(pool, rng.choice((4, 5, 6, 7)))
        rest = [c for c in FULL_DECK if c not in suited]
        return suited + rng.sample(rest, 7 - len(suited))
    return rng.sample(FULL_DECK, 7)


def test_fast_classifier_agrees_with_the_readable_reference() -> None:
    rng = random.Random(20240909)
    for _ in range(6000):
        seven = _biased_hand(rng)
        assert kind_name(classify(seven)) == reference_kind_name(seven), seven


def test_class_does_not_depend_on_card_order_or_suit_names() -> None:
    """R-CARD-3: suits are names only. The exhaustive count's suit classes rely on it."""
    rng = random.Random(7)
    for _ in range(2000):
        seven = _biased_hand(rng)
        kind = classify(seven)
        rng.shuffle(seven)
        assert classify(seven) == kind
        rename = rng.sample(range(4), 4)
        renamed = [c if c == JOKER else (c & ~3) | rename[c & 3] for c in seven]
        assert classify(renamed) == kind, (seven, renamed)
