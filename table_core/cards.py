"""Cards as small integers (R-CARD-1, R-CARD-2).

A card is an ``int``: ``(rank - 2) * 4 + suit`` for the 52 standard cards (rank 2..14, ace 14;
suit 0..3 = s h d c) and ``JOKER`` (52). Small integers index the evaluator's precomputed tables
directly, so the inner loops never touch strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from table_core.errors import CardError

Card = int

JOKER: Card = 52
DECK_SIZE = 53
SUITS = "shdc"
RANK_CHARS = "23456789TJQKA"
ACE = 14

#: Every card of the 53-card deck, in encoding order (R-CARD-1).
FULL_DECK: tuple[Card, ...] = tuple(range(DECK_SIZE))

_RANK_BY_CHAR = {ch: i + 2 for i, ch in enumerate(RANK_CHARS)}
_RANK_BY_CHAR["10"] = 10  # R-CARD-2: "10" is accepted on input.
_SUIT_BY_CHAR = {ch: i for i, ch in enumerate(SUITS)}


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (2..14) and ``suit`` (0..3)."""
    return (rank - 2) * 4 + suit


def rank_of(card: Card) -> int:
    """Rank 2..14; the joker answers 14 (it is an ace wherever it completes nothing, R-HI-3)."""
    return ACE if card == JOKER else (card >> 2) + 2


def suit_of(card: Card) -> int:
    """Suit 0..3; the joker has none (-1)."""
    return -1 if card == JOKER else card & 3


def card_text(card: Card) -> str:
    """Canonical text: upper-case rank, lower-case suit (``Td``), ``JK`` for the joker."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < JOKER:
        raise CardError(f"not a card: {card!r}")
    return RANK_CHARS[card >> 2] + SUITS[card & 3]


#: Each card by its canonical text (``As``, ``Td``, ``JK``): how recorded events and the deck's
#: report write them, looked up once instead of parsed (the audit parses a deck a round).
_BY_TEXT: dict[str, Card] = {card_text(card): card for card in FULL_DECK}


def parse_card(text: str) -> Card:
    """Parse one card, case-insensitively (R-CARD-2)."""
    card = _BY_TEXT.get(text)  # the canonical text, as events record it: what the rest gives
    if card is not None:
        return card
    token = text.strip()
    upper = token.upper()
    if upper in ("JK", "JOKER"):
        return JOKER
    rank = _RANK_BY_CHAR.get(upper[:-1])
    suit = _SUIT_BY_CHAR.get(token[-1:].lower())
    if rank is None or suit is None:
        raise CardError(f"unknown card: {token}")
    return make_card(rank, suit)


def parse_cards(text: str | Iterable[str], count: int | Sequence[int] | None = None) -> list[Card]:
    """Parse distinct cards from ``"As Ks JK"`` or a list of tokens.

    ``count`` (one size or several allowed sizes) checks the number of cards; a duplicate, an
    unknown card or a wrong count raises :class:`CardError` with a message a dealer understands.
    """
    tokens = text.split() if isinstance(text, str) else list(text)
    cards = [parse_card(token) for token in tokens]
    check_distinct(cards)
    if count is not None:
        allowed = (count,) if isinstance(count, int) else tuple(count)
        if len(cards) not in allowed:
            wanted = " or ".join(str(n) for n in allowed)
            raise CardError(f"expected {wanted} cards, got {len(cards)}")
    return cards


_SEQUENCES = (list, tuple)
_CARDS = frozenset(range(DECK_SIZE))


def check_distinct(cards: Iterable[Card]) -> None:
    """Raise :class:`CardError` naming the first card seen twice (R-CARD-2)."""
    if not isinstance(cards, _SEQUENCES):
        cards = list(cards)
    if cards and len(set(cards)) == len(cards) and _CARDS.issuperset(cards):
        return  # the common case, without a Python-level loop (the loop decides the others)
    seen: set[Card] = set()
    for card in cards:
        if not 0 <= card < DECK_SIZE:
            raise CardError(f"not a card: {card!r}")
        if card in seen:
            raise CardError(f"duplicate card: {card_text(card)}")
        seen.add(card)


def check_deck(order: Sequence[Card]) -> None:
    """A shuffled deck is exactly the 53 distinct cards (R-CARD-1, R-DEAL-2)."""
    check_distinct(order)
    if len(order) != DECK_SIZE:
        missing = sorted(set(FULL_DECK) - set(order))
        names = " ".join(card_text(c) for c in missing)
        raise CardError(f"a deck has 53 cards, got {len(order)} (missing: {names})")


def cards_text(cards: Iterable[Card]) -> list[str]:
    """Canonical text of each card, in order."""
    return [card_text(card) for card in cards]
