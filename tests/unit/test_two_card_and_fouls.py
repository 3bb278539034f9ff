"""The two-card front hand (R-LO-1), fouled splits (R-SET-1) and copies to the banker (R-SET-3)."""

from __future__ import annotations

from itertools import combinations

import pytest

from table_core.cards import FULL_DECK, parse_cards
from table_core.errors import CardError, FoulError
from table_core.hands import (
    evaluate_hand,
    five_card_strength,
    is_legal_split,
    two_card_strength,
)
from table_core.settlement import compare
from table_core.split import check_same_cards, make_split, require_legal, value_split


def front(text: str) -> int:
    return two_card_strength(parse_cards(text, 2))


def back(text: str) -> int:
    return five_card_strength(parse_cards(text, 5))


# --- R-LO-1: the two-card hand ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "category", "strength", "name"),
    [
        ("As Ah", "one_pair", [1, 14, 14], "Pair of aces"),
        ("As JK", "one_pair", [1, 14, 14], "Pair of aces"),
        ("JK Ks", "high_card", [0, 14, 13], "Ace-king"),
        ("2d 2c", "one_pair", [1, 2, 2], "Pair of deuces"),
        ("Qh 9c", "high_card", [0, 12, 9], "Queen-nine"),
        ("9c Qh", "high_card", [0, 12, 9], "Queen-nine"),
        ("3s 2s", "high_card", [0, 3, 2], "Three-deuce"),
        ("7h JK", "high_card", [0, 14, 7], "Ace-seven"),
    ],
)
def test_golden_two_card_hand(cards: str, category: str, strength: list[int], name: str) -> None:
    value = evaluate_hand(parse_cards(cards, 2))
    assert value.size == 2
    assert value.category == category
    assert list(value.strength_list) == strength
    assert value.name == name


def test_pair_of_aces_is_the_best_front_and_three_deuce_the_worst() -> None:
    every_front = {two_card_strength(pair) for pair in combinations(FULL_DECK, 2)}
    assert max(every_front) == front("As Ah") == front("Ac JK")
    assert min(every_front) == front("3d 2c")
    # 13 pairs and C(13, 2) = 78 unpaired high/low combinations; the joker adds no new value.
    assert len(every_front) == 13 + 78


def test_the_joker_is_an_ace_in_front_so_a_k_and_jk_k_are_a_copy() -> None:
    assert front("Ah Kd") == front("JK Ks")
    assert compare(front("Ah Kd"), front("JK Ks")) == "copy"


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("As JK", "Ks Kh"),  # A + JK is a pair of aces
        ("2s 2h", "As Kh"),  # any pair beats any unpaired front
        ("3s 3h", "2s 2h"),
        ("As 2h", "Ks Qh"),  # the higher card first ...
        ("As Kh", "As Qh"),  # ... then the lower
        ("Ks 3h", "Qs Jh"),
        ("JK 2h", "Ks Qs"),  # the joker is an ace
        ("4s 2h", "3s 2h"),
    ],
)
def test_front_ordering(better: str, worse: str) -> None:
    assert front(better) > front(worse)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ks Qs", "Kd Qc"),  # no flushes in front
        ("Ts 9s", "Td 9c"),  # no straights either
        ("5h 4h", "5c 4d"),
    ],
)
def test_front_has_no_straights_or_flushes(first: str, second: str) -> None:
    assert front(first) == front(second)


# --- R-SET-1: fouls at the boundary -------------------------------------------------------------

LEGAL_SPLITS = [
    # (back, front, why)
    ("9d 9c Kh 7s 4d", "9s 9h", "front pair of nines, back pair of nines: not higher, legal"),
    ("9d 9c 2h 3s 4d", "8s 8h", "front pair below the back's pair"),
    ("Ad Qc 8h 5s 3d", "As Qh", "front A-Q ties the back's A-Q: the back has more cards"),
    ("Ad Qc 8h 5s 3d", "Ah Jh", "front A-J under the back's A-Q"),
    ("Ad Kc 9h 6s 4d", "As Kh", "front A-K ties the back's A-K"),
    ("Ks Kh 3c 3d 7s", "As Ah", "two pair in back beats any front pair"),
    ("2s 2h 2c 5d 7s", "As JK", "trips in back beat a front pair of aces"),
    ("6c 5d 4h 3s 2c", "Ah Ad", "a straight in back"),
    ("Kd Td 7d 4d 2d", "Ks Kc", "a flush in back"),
    ("2d 2c 5h 4s 3d", "As Kh", "any back pair beats an unpaired front"),
    ("As Ah 7c 5d 2s", "Ac JK", "front pair of aces (with the joker) against a back pair of aces"),
    ("JK Kd 9h 6s 4c", "As Kh", "the back's joker is an ace: A-K against A-K"),
    ("Ad Kc 9h 6s 4d", "JK Kh", "the front's joker is an ace: A-K against A-K"),
]

FOULED_SPLITS = [
    ("9d 9c Ah Ks Qd", "Ts Th", "front pair of tens over a back pair of nines"),
    ("Ad Qc 8h 5s 3d", "As Kh", "front A-K over the back's A-Q"),
    ("Ad Kc 9h 6s 4d", "2s 2h", "back pai gow, front pair of deuces"),
    ("Kd Jc 9h 6s 4d", "Ks Qh", "front K-Q over the back's K-J"),
    ("Ad Jc 9h 6s 4d", "Ah Qd", "front A-Q over the back's A-J: the second card decides"),
    ("Ks Kh 7c 5d 2s", "Ac JK", "front pair of aces (with the joker) over a back pair of kings"),
    ("Kd Qc 9h 6s 4d", "JK 2h", "the front's joker is an ace, over a king-high back"),
]


@pytest.mark.parametrize(("back_cards", "front_cards", "why"), LEGAL_SPLITS)
def test_legal_split(back_cards: str, front_cards: str, why: str) -> None:
    assert is_legal_split(back(back_cards), front(front_cards)), why
    split = make_split(parse_cards(back_cards, 5), parse_cards(front_cards, 2))
    assert value_split(split).legal
    assert require_legal(split).back_strength == back(back_cards)


@pytest.mark.parametrize(("back_cards", "front_cards", "why"), FOULED_SPLITS)
def test_fouled_split(back_cards: str, front_cards: str, why: str) -> None:
    assert not is_legal_split(back(back_cards), front(front_cards)), why
    split = make_split(parse_cards(back_cards, 5), parse_cards(front_cards, 2))
    assert not value_split(split).legal
    with pytest.raises(FoulError) as caught:
        require_legal(split)
    assert caught.value.rule == "R-SET-1"
    assert str(caught.value).startswith("fouled hand: front ")


def test_foul_message_shows_both_hands_in_display_order() -> None:
    split = make_split(parse_cards("9c 9d Ah Ks Qd", 5), parse_cards("Th Ts", 2))
    with pytest.raises(FoulError) as caught:
        require_legal(split)
    assert str(caught.value) == "fouled hand: front Ts Th outranks back Ah Ks Qd 9d 9c"


RANKS = "23456789TJQKA"


@pytest.mark.parametrize("back_rank", RANKS)
def test_every_front_pair_against_every_back_pair(back_rank: str) -> None:
    # R-SET-1: a front pair needs a back pair at least as high; a lower back pair fouls. Only the
    # strengths are compared here, so the two hands need not come from one deck.
    kickers = " ".join(f"{r}d" for r in [r for r in RANKS[::-1] if r != back_rank][:3])
    back_strength = back(f"{back_rank}s {back_rank}h {kickers}")
    for front_rank in RANKS:
        legal = RANKS.index(front_rank) <= RANKS.index(back_rank)
        assert is_legal_split(back_strength, front(f"{front_rank}c {front_rank}d")) == legal


# --- make_split and the seven cards -------------------------------------------------------------


def test_split_lays_cards_out_highest_first() -> None:
    split = make_split(parse_cards("4d 9h JK 6s Kc", 5), parse_cards("2c Ah", 2))
    back_text, front_text = split.text()
    assert back_text == ["JK", "Kc", "9h", "6s", "4d"]
    assert front_text == ["Ah", "2c"]


@pytest.mark.parametrize(
    ("back_cards", "front_cards", "message"),
    [
        ("As Ks Qs Js", "Th 9h", "the back hand has 5 cards, got 4"),
        ("As Ks Qs Js Ts", "9h", "the front hand has 2 cards, got 1"),
        ("As Ks Qs Js Ts", "9h As", "duplicate card: As"),
    ],
)
def test_split_of_wrong_cards_is_refused(back_cards: str, front_cards: str, message: str) -> None:
    with pytest.raises(CardError) as caught:
        make_split(parse_cards(back_cards), parse_cards(front_cards))
    assert str(caught.value) == message


def test_split_must_use_the_seven_cards_dealt() -> None:
    seven = parse_cards("As Kd 9h 7c 5s 3d 2h", 7)
    good = make_split(parse_cards("As 9h 7c 5s 3d", 5), parse_cards("Kd 2h", 2))
    check_same_cards(good, seven)
    swapped = make_split(parse_cards("As 9h 7c 5s 3d", 5), parse_cards("Kd 4h", 2))
    with pytest.raises(CardError, match=r"^the split does not use the cards dealt \(As Kd 9h"):
        check_same_cards(swapped, seven)


# --- R-SET-3: copies go to the banker -----------------------------------------------------------


@pytest.mark.parametrize("judge", [compare])
def test_hand_comparison_and_copies(judge: object) -> None:
    assert callable(judge)
    assert judge(back("As Kd Qc Jh 9s"), back("Ah Ks Qd Jc 9h")) == "copy"
    assert judge(front("Ah Kd"), front("JK Ks")) == "copy"
    assert judge(back("2s 2h 3c 4d 6s"), back("As Kh Qc Jd 9s")) == "win"
    assert judge(front("Qh Jd"), front("Qs Jc")) == "copy"
    assert judge(front("Qh Td"), front("Qs Jc")) == "loss"
