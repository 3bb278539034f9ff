"""Dealing with dice (R-DEAL-1..4): positions, stacks, the dice total and the deck source port.

Places are the physical spots at the table: 0 is the dealer's place, 1..6 the player seats
counterclockwise from the dealer. Positions are counted counterclockwise from the banker, who is
position 1 (R-DEAL-1), so they move when a player takes the bank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from table_core.cards import DECK_SIZE, FULL_DECK, Card, check_deck, check_distinct, parse_card
from table_core.errors import CardError, DomainError

POSITIONS = 7
STACK_SIZE = 7
UNUSED_CARDS = DECK_SIZE - POSITIONS * STACK_SIZE  # four, recorded for audit (R-DEAL-2)
DEALER_PLACE = 0
SEATS = tuple(range(1, POSITIONS))

CardInput = Card | str
_INT = {int}
_CARD_SET = frozenset(FULL_DECK)


class DeckAndDiceSource(Protocol):
    """What an electronic table asks for each round (R-DEAL-4).

    The secure adapter draws a uniform shuffle and fair dice from the operating system's
    cryptographic generator without modulo bias; a test adapter may replay fixed values. Either
    way the values enter the core as command inputs and are recorded, so replay needs no source.
    """

    def shuffled_deck(self) -> Sequence[Card]:
        """A uniformly shuffled order of the 53 cards."""
        ...

    def roll_dice(self) -> tuple[int, int, int]:
        """Three fair dice, each 1..6."""
        ...


def position_of(place: int, banker_place: int) -> int:
    """R-DEAL-1: the position of ``place`` counted counterclockwise from the banker as 1."""
    return (place - banker_place) % POSITIONS + 1


def place_at(position: int, banker_place: int) -> int:
    """The place holding ``position`` (the inverse of :func:`position_of`)."""
    return (banker_place + position - 1) % POSITIONS


def check_dice(faces: Sequence[int]) -> tuple[int, int, int]:
    """Three dice, each 1..6; anything else is a reporting error to re-enter (R-DEAL-3)."""
    if len(faces) != 3 or any(type(f) is not int or not 1 <= f <= 6 for f in faces):
        raise DomainError(f"three dice of 1..6 are rolled, got {list(faces)}", rule="R-DEAL-3")
    return faces[0], faces[1], faces[2]


def first_position(total: int) -> int:
    """R-DEAL-3: the position that receives stack 1 for a dice total of 3..18."""
    if not 3 <= total <= 18:
        raise DomainError(f"three dice total 3..18, got {total}", rule="R-DEAL-3")
    return (total - 1) % POSITIONS + 1


def stack_for(position: int, first: int) -> int:
    """R-DEAL-3: ``first`` gets stack 1, the next positions counterclockwise stacks 2..7."""
    return (position - first) % POSITIONS + 1


#: Per banker place and first position, each position's ``(position, place, stack)``: R-DEAL-1
#: and R-DEAL-3 for every deal, from ``place_at`` and ``stack_for``.
ASSIGNMENT_ORDER: tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...] = tuple(
    tuple(
        tuple(
            (position, place_at(position, banker), stack_for(position, first))
            for position in range(1, POSITIONS + 1)
        )
        for first in range(POSITIONS + 1)  # index 0 unused: positions are 1..7
    )
    for banker in range(POSITIONS)
)
#: The seven stacks' slices of a deck in cut order (R-DEAL-2).
STACK_SLICES = tuple(slice(i, i + STACK_SIZE) for i in range(0, POSITIONS * STACK_SIZE, STACK_SIZE))


@dataclass(frozen=True, slots=True)
class Deal:
    """The seven stacks in cut order, the four unused cards and the deck order when known."""

    deck: tuple[Card, ...] | None
    stacks: tuple[tuple[Card, ...], ...]
    unused: tuple[Card, ...]


def to_card(value: CardInput) -> Card:
    """An int card as is (checked) or card text parsed (R-CARD-2)."""
    if type(value) is int and 0 <= value < DECK_SIZE:  # an electronic deck's cards: first
        return value
    if isinstance(value, str):
        return parse_card(value)
    raise CardError(f"not a card: {value!r}")


def deal_deck(order: Sequence[CardInput]) -> Deal:
    """R-DEAL-2: cut a shuffled deck into seven stacks of seven; :class:`CardError` when the
    order is not exactly the 53 distinct cards."""
    given = tuple(order)
    if set(map(type, given)) == _INT and _CARD_SET.issuperset(given):
        deck = cast(tuple[Card, ...], given)  # ints that are cards: what to_card answers for each
        if len(deck) != DECK_SIZE or len(set(deck)) != DECK_SIZE:
            check_deck(deck)  # raises, naming the fault: 53 distinct cards are the whole deck
    else:
        deck = tuple(map(to_card, given))
        check_deck(deck)
    return Deal(deck, tuple(map(deck.__getitem__, STACK_SLICES)), deck[POSITIONS * STACK_SIZE :])


def deal_hands(hands: Sequence[Sequence[CardInput]]) -> Deal:
    """A live table's report of the seven stacks (in cut order): seven hands of seven distinct
    cards; the four unused cards are the rest of the deck. :class:`CardError` otherwise."""
    if len(hands) != POSITIONS:
        raise CardError(f"a deal has {POSITIONS} hands, got {len(hands)}")
    stacks = tuple(tuple(map(to_card, hand)) for hand in hands)
    for number, stack in enumerate(stacks, start=1):
        if len(stack) != STACK_SIZE:
            raise CardError(f"hand {number} has {len(stack)} cards, not {STACK_SIZE}")
    check_distinct(c for stack in stacks for c in stack)
    dealt = {c for stack in stacks for c in stack}
    return Deal(None, stacks, tuple(c for c in FULL_DECK if c not in dealt))
