"""Cards: the 53-card deck (R-CARD-1) and the text form dealers type and read (R-CARD-2)."""

from __future__ import annotations

import random

import pytest

from table_core.cards import (
    DECK_SIZE,
    FULL_DECK,
    JOKER,
    card_text,
    cards_text,
    check_deck,
    check_distinct,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from table_core.errors import CardError, DomainError

SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3


# --- R-CARD-1: the deck ------------------------------------------------------------------------


def test_the_deck_has_52_standard_cards_and_one_joker() -> None:
    assert DECK_SIZE == 53
    assert len(FULL_DECK) == 53
    assert FULL_DECK.count(JOKER) == 1
    standard = {(rank_of(c), suit_of(c)) for c in FULL_DECK if c != JOKER}
    assert standard == {(rank, suit) for rank in range(2, 15) for suit in range(4)}


def test_every_card_has_its_own_canonical_text() -> None:
    texts = cards_text(FULL_DECK)
    assert len(set(texts)) == 53
    assert texts[:5] == ["2s", "2h", "2d", "2c", "3s"]
    assert texts[-5:] == ["As", "Ah", "Ad", "Ac", "JK"]


def test_rank_and_suit_of_cards() -> None:
    ace_of_spades = make_card(14, SPADES)
    assert (rank_of(ace_of_spades), suit_of(ace_of_spades)) == (14, SPADES)
    ten_of_clubs = make_card(10, CLUBS)
    assert (rank_of(ten_of_clubs), suit_of(ten_of_clubs)) == (10, CLUBS)
    # The joker has no suit; outside straights and flushes it is an ace (R-HI-3, R-LO-1).
    assert (rank_of(JOKER), suit_of(JOKER)) == (14, -1)


# --- R-CARD-2: text in and out -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("As", "As"),
        ("as", "As"),
        ("AS", "As"),
        ("aS", "As"),
        ("Td", "Td"),
        ("td", "Td"),
        ("TD", "Td"),
        ("10d", "Td"),
        ("10D", "Td"),
        ("2c", "2c"),
        ("9h", "9h"),
        ("Jh", "Jh"),
        ("qS", "Qs"),
        ("kc", "Kc"),
        ("JK", "JK"),
        ("jk", "JK"),
        ("Jk", "JK"),
    ],
)
def test_card_text_is_case_insensitive_and_prints_canonically(typed: str, canonical: str) -> None:
    assert card_text(parse_card(typed)) == canonical


def test_ten_is_accepted_as_10_and_printed_as_t() -> None:
    assert parse_card("10h") == parse_card("Th") == make_card(10, HEARTS)
    assert card_text(make_card(10, HEARTS)) == "Th"


def test_every_card_round_trips_through_its_text() -> None:
    for card in FULL_DECK:
        text = card_text(card)
        assert parse_card(text) == card
        assert parse_card(text.lower()) == card
        assert parse_card(text.upper()) == card


def test_joker_text_is_jk() -> None:
    assert card_text(JOKER) == "JK"
    assert parse_card("JK") == JOKER


def test_parse_cards_reads_a_dealt_hand_in_order() -> None:
    cards = parse_cards("as 10h jk 2c kd qs 9s", 7)
    assert cards_text(cards) == ["As", "Th", "JK", "2c", "Kd", "Qs", "9s"]


def test_parse_cards_accepts_a_list_of_tokens() -> None:
    assert cards_text(parse_cards(["Ks", "kh"], 2)) == ["Ks", "Kh"]


def test_parse_cards_accepts_several_allowed_counts() -> None:
    assert len(parse_cards("As Ks", (5, 2))) == 2
    assert len(parse_cards("As Ks Qs Js Ts", (5, 2))) == 5


def test_duplicate_card_is_named_in_canonical_text() -> None:
    with pytest.raises(CardError) as caught:
        parse_cards("As Kd as", 3)
    assert str(caught.value) == "duplicate card: As"
    assert caught.value.rule == "R-CARD-2"


def test_duplicate_written_two_ways_is_still_a_duplicate() -> None:
    with pytest.raises(CardError, match=r"^duplicate card: Td$"):
        parse_cards("Td 10d")


def test_two_jokers_are_a_duplicate() -> None:
    with pytest.raises(CardError, match=r"^duplicate card: JK$"):
        parse_cards("JK As jk")


@pytest.mark.parametrize("typed", ["1s", "11h", "Ax", "Zs", "A", "10", "s", "JJ", "Kss", "♠A"])
def test_unknown_card_is_refused_with_the_typed_text(typed: str) -> None:
    with pytest.raises(CardError) as caught:
        parse_card(typed)
    assert str(caught.value) == f"unknown card: {typed}"
    assert isinstance(caught.value, DomainError)


def test_unknown_card_inside_a_hand_is_refused() -> None:
    with pytest.raises(CardError, match=r"^unknown card: 1s$"):
        parse_cards("As Ks 1s Qs Js", 5)


@pytest.mark.parametrize(
    ("typed", "count", "message"),
    [
        ("As Ks Qs Js Ts 9s", 7, "expected 7 cards, got 6"),
        ("As Ks Qs Js Ts 9s 8s 7s", 7, "expected 7 cards, got 8"),
        ("As Ks Qs", (5, 2), "expected 5 or 2 cards, got 3"),
        ("", 2, "expected 2 cards, got 0"),
    ],
)
def test_wrong_card_count_is_refused(
    typed: str, count: int | tuple[int, ...], message: str
) -> None:
    with pytest.raises(CardError) as caught:
        parse_cards(typed, count)
    assert str(caught.value) == message


def test_card_text_refuses_a_number_that_is_no_card() -> None:
    with pytest.raises(CardError, match=r"^not a card: 53$"):
        card_text(53)
    with pytest.raises(CardError, match=r"^not a card: -1$"):
        card_text(-1)


def test_check_distinct_refuses_a_number_that_is_no_card() -> None:
    with pytest.raises(CardError, match=r"^not a card: 53$"):
        check_distinct([0, 53])


# --- the deck check (R-CARD-1, R-DEAL-2) -------------------------------------------------------


def test_a_shuffled_full_deck_passes() -> None:
    order = list(FULL_DECK)
    random.Random(2024).shuffle(order)
    check_deck(order)
    check_deck(FULL_DECK)


def test_a_deck_missing_a_card_names_it() -> None:
    order = [c for c in FULL_DECK if c != parse_card("Qh")]
    with pytest.raises(CardError) as caught:
        check_deck(order)
    assert str(caught.value) == "a deck has 53 cards, got 52 (missing: Qh)"


def test_a_deck_missing_the_joker_names_it() -> None:
    with pytest.raises(CardError, match=r"^a deck has 53 cards, got 52 \(missing: JK\)$"):
        check_deck(FULL_DECK[:-1])


def test_a_deck_with_a_card_twice_is_refused_even_at_53_cards() -> None:
    order = [*FULL_DECK[:-1], parse_card("7c")]  # the joker replaced by a second 7c
    assert len(order) == 53
    with pytest.raises(CardError, match=r"^duplicate card: 7c$"):
        check_deck(order)
