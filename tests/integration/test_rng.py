"""Deck-and-dice sources (R-DEAL-4): the secure one is a fair permutation and fair dice."""

from __future__ import annotations

from collections import Counter

import pytest

from adapters.rng import SecureDeckAndDice, SeededDeckAndDice
from table_core.cards import FULL_DECK, check_deck


def test_secure_source_deals_the_53_cards_and_three_dice() -> None:
    source = SecureDeckAndDice()
    for _ in range(200):
        check_deck(source.shuffled_deck())
        dice = source.roll_dice()
        assert len(dice) == 3 and all(1 <= d <= 6 for d in dice)


def test_secure_source_has_no_visible_bias() -> None:
    """Each face ~1/6 and the joker in each of the 53 places ~1/53: within 5 standard deviations."""
    source = SecureDeckAndDice()
    faces = Counter(d for _ in range(20_000) for d in source.roll_dice())
    n = 60_000
    sd = (n * (1 / 6) * (5 / 6)) ** 0.5
    assert all(abs(faces[f] - n / 6) < 5 * sd for f in range(1, 7)), faces
    places = Counter(source.shuffled_deck().index(52) for _ in range(26_500))
    sd = (26_500 * (1 / 53) * (52 / 53)) ** 0.5
    assert all(abs(places[p] - 500) < 5 * sd for p in range(53)), places


def test_seeded_source_replays_the_same_decks_and_dice() -> None:
    one, two = SeededDeckAndDice(42), SeededDeckAndDice(42)
    assert [one.shuffled_deck() for _ in range(3)] == [two.shuffled_deck() for _ in range(3)]
    assert one.roll_dice() == two.roll_dice()
    assert sorted(SeededDeckAndDice(1).shuffled_deck()) == list(FULL_DECK)


def test_a_draw_past_the_largest_multiple_of_the_bound_is_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R-DEAL-4, no modulo bias: for dice (bound 6) the draws 2^32 - 4 .. 2^32 - 1 would favour
    faces 1-4, so they are skipped, and new draws are read when the rejections use the batch up."""
    import array

    import adapters.rng as rng

    batches = [
        [2**32 - 1, 5, 2**32 - 4],  # rejected, face 6, rejected: the batch of three is used up
        [12, 2**32 - 5, 0],  # face 1 (12 % 6 = 0), then 2^32 - 5 (accepted: the last multiple)
    ]

    def urandom(size: int) -> bytes:
        words = batches.pop(0)
        assert size == 4 * len(words)
        return array.array("I", words).tobytes()

    monkeypatch.setattr(rng.os, "urandom", urandom)
    assert rng.uniform_below([6, 6, 6]) == [5, 0, (2**32 - 5) % 6]
    assert batches == []


def test_the_secure_shuffle_is_fisher_yates_on_the_drawn_indices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With every index drawn as 0 the shuffle swaps card i with card 0 for i = 52 .. 1."""
    import adapters.rng as rng

    monkeypatch.setattr(rng.os, "urandom", lambda size: bytes(size))
    expected = list(FULL_DECK)
    for i in range(len(expected) - 1, 0, -1):
        expected[i], expected[0] = expected[0], expected[i]
    assert rng.SecureDeckAndDice().shuffled_deck() == expected
    assert rng.SecureDeckAndDice().roll_dice() == (1, 1, 1)
