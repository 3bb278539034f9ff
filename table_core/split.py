"""A seven-card hand set into a five-card back and a two-card front (R-SET-1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from table_core.cards import Card, card_text, check_distinct
from table_core.errors import CardError, FoulError
from table_core.hands import (
    FiveCardTables,
    five_card_strength,
    is_legal_split,
    tables_for,
    two_card_strength,
)

#: Sort key of each card: highest rank first (the joker before the aces), then s h d c.
DISPLAY_KEY = (*(-((c >> 2) + 2) * 4 + (c & 3) for c in range(52)), -15 * 4)


def display_order(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Cards as a dealer lays them out: highest rank first (the joker first), then s h d c."""
    return tuple(sorted(cards, key=DISPLAY_KEY.__getitem__))


class Split(NamedTuple):
    """A set hand. ``rule`` is the House Way clause id when a House Way set it, else ``None``.

    A named tuple: immutable and cheap to build in the House Way's inner loop.
    """

    back: tuple[Card, ...]
    front: tuple[Card, ...]
    rule: str | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.back + self.front

    def text(self) -> tuple[list[str], list[str]]:
        return [card_text(c) for c in self.back], [card_text(c) for c in self.front]


@dataclass(frozen=True)
class SplitValue:
    back_strength: int
    front_strength: int
    legal: bool


def make_split(back: Sequence[Card], front: Sequence[Card], rule: str | None = None) -> Split:
    """A split with its cards in display order, checked for size and duplicates (R-CARD-2)."""
    if len(back) != 5:
        raise CardError(f"the back hand has 5 cards, got {len(back)}")
    if len(front) != 2:
        raise CardError(f"the front hand has 2 cards, got {len(front)}")
    check_distinct([*back, *front])
    return Split(display_order(back), display_order(front), rule)


def value_split(split: Split, tables: FiveCardTables | None = None) -> SplitValue:
    """Both strengths and whether the split is legal (R-SET-1)."""
    back = five_card_strength(split.back, tables or tables_for("second"))
    front = two_card_strength(split.front)
    return SplitValue(back, front, is_legal_split(back, front))


def check_same_cards(split: Split, seven: Sequence[Card]) -> None:
    """A player's split must use exactly the seven cards dealt to the seat."""
    if sorted(split.cards) != sorted(seven):
        dealt = " ".join(card_text(c) for c in display_order(seven))
        raise CardError(f"the split does not use the cards dealt ({dealt})")


def require_legal(split: Split, tables: FiveCardTables | None = None) -> SplitValue:
    """The split's value, or :class:`FoulError` when its front outranks its back (R-SET-1)."""
    value = value_split(split, tables)
    if not value.legal:
        back, front = split.text()
        raise FoulError(f"fouled hand: front {' '.join(front)} outranks back {' '.join(back)}")
    return value
