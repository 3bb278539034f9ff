"""R-DEAL-4: the audit's memory of electronic deck orders (audit/deck_repeats.py)."""

from __future__ import annotations

import random

from audit.deck_repeats import DeckRepeats
from table_core.cards import FULL_DECK, card_text

ORDER = [card_text(card) for card in FULL_DECK]


def deal(deck: list[str], source: str = "electronic") -> dict[str, object]:
    return {"source": source, "deck": deck}


def test_an_order_dealt_again_names_the_first_deal() -> None:
    decks = DeckRepeats()
    assert decks.seen(deal(ORDER), 10) is None
    assert decks.seen(deal(ORDER[::-1]), 20) is None
    assert decks.seen(deal(ORDER), 30) == 10
    assert decks.seen(deal(ORDER), 40) == 10


def test_live_deals_and_unrecorded_decks_are_not_judged() -> None:
    decks = DeckRepeats()
    assert decks.seen(deal(ORDER, "live"), 1) is None
    assert decks.seen(deal(ORDER, "live"), 2) is None
    assert decks.seen({"source": "electronic", "deck": None}, 3) is None
    assert decks.seen(deal(ORDER), 4) is None  # the live ones were not remembered


def test_thousands_of_shuffles_repeat_nothing_and_one_repeat_is_found() -> None:
    rng = random.Random(4)
    dealt = [rng.sample(ORDER, len(ORDER)) for _ in range(5000)]  # past the first table's size
    decks = DeckRepeats()
    assert [decks.seen(deal(deck), n) for n, deck in enumerate(dealt, start=1)] == [None] * 5000
    assert decks.seen(deal(list(dealt[2999])), 6000) == 3000
