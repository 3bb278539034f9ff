"""The seven-card classifier of the side bets (R-VAR-2..5, R-HI-3, R-HI-4).

``classify(seven)`` answers the hand class (:mod:`table_core.side_bets.lines`) of seven distinct
cards, the joker semi-wild. It is the inner loop of the exhaustive count (7.3 million calls), so it
is one prime-product lookup for the rank multiset, one suit-count lookup, and, for the few hands
with five or more cards of a suit, one more lookup for the suited cards.

There is no second five-card evaluator here: both memo tables are filled, on first sight of a key,
with the maximum of ``table_core.hands``' own five-card tables over the 21 five-card subsets, so
the seven-card answer is by construction the best five-card hand of R-HI-1..5. What a rank multiset
alone decides (groupings, straights, pai gow by highest card) is memoised by its prime product;
what the suited cards decide (flushes, straight flushes, the two 7-card straight flushes) by the
prime product of the suited ranks. The side bets use the default ``wheel_rank``: the setting only
orders straights and never changes a line (a wheel is a straight, a royal is a royal either way).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from table_core.cards import ACE, JOKER, Card, check_distinct
from table_core.errors import CardError
from table_core.hands import (
    CARD_PRIME,
    HIGH_CARD,
    ROYAL_ORDER,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    tables_for,
)
from table_core.side_bets.lines import (
    FLUSH_KIND,
    JOKER_7SF,
    JOKER_7SF_ROYAL,
    KINDS,
    NATURAL_7SF,
    NATURAL_7SF_ROYAL,
    PLAIN_CATEGORY_KIND,
    ROYAL,
    ROYAL_ACE_KING_SUITED,
    ROYAL_MATCH,
    STRAIGHT_FLUSH_KIND,
    THREE_PAIR,
    TRIPS_AND_STRAIGHT,
    Kind,
    pai_gow_kind,
)

_TABLES = tables_for("second")
_JOKER_PRIME = CARD_PRIME[JOKER]
_KIND_BITS = 5  # a memo entry is ``strength << 5 | kind``
_KIND_MASK = (1 << _KIND_BITS) - 1
_KING, _QUEEN = 13, 12
_ACE_KING = (ACE, _KING)
_KING_QUEEN = (_KING, _QUEEN)

#: Each card adds one to its suit's nibble (suits 0..3), the joker to nibble 4: the sum of seven
#: of these is the suit-count vector, which indexes ``_FLUSH_SUIT``.
_SUIT_COUNT: tuple[int, ...] = (*(1 << (4 * (c & 3)) for c in range(52)), 1 << 16)


def _flush_suit_table() -> list[int]:
    """Suit-count vector -> the suit with five or more cards counting the joker, else -1.

    Two suits can never both qualify (5 + 5 or 4 + 4 + joker is more than seven cards).
    """
    table = [-1] * (2 << 16)
    for joker in (0, 1):
        for counts in _suit_count_vectors(7 - joker):
            index = (joker << 16) | sum(n << (4 * s) for s, n in enumerate(counts))
            for suit, n in enumerate(counts):
                if n + joker >= 5:
                    table[index] = suit
    return table


def _suit_count_vectors(total: int) -> list[tuple[int, int, int, int]]:
    return [
        (a, b, c, total - a - b - c)
        for a in range(total + 1)
        for b in range(total + 1 - a)
        for c in range(total + 1 - a - b)
    ]


_FLUSH_SUIT = _flush_suit_table()
# Memo tables, filled on first sight of a key (the exhaustive count fills them all: about 67,600
# rank multisets and 8,400 suited-rank sets: that is their bound). Safe under threads: a key's
# value is the same whichever thread computes it, and one dict store is atomic.
_PLAIN: dict[int, int] = {}
_SUITED: dict[int, int] = {}


def _ranks(cards: Sequence[Card]) -> list[int]:
    """Ranks with the joker as 15 (its own prime), as the five-card tables key them."""
    return [15 if c == JOKER else (c >> 2) + 2 for c in cards]


def _prime(rank: int) -> int:
    return _JOKER_PRIME if rank == 15 else CARD_PRIME[(rank - 2) * 4]


def _plain_entry(cards: Sequence[Card]) -> int:
    """Best five-card strength of the seven cards as if no five were suited, and its class.

    Suited fives are valued lower by the plain table than by the flush table, so they never win
    the maximum here; the flush path adds them back (``_suited_entry``).
    """
    primes = [_prime(r) for r in _ranks(cards)]
    plain = _TABLES.plain
    best = 0
    trips = False
    for combo in combinations(primes, 5):
        strength = plain[combo[0] * combo[1] * combo[2] * combo[3] * combo[4]]
        best = max(best, strength)
        trips = trips or strength >> 20 == THREE_OF_A_KIND
    category = best >> 20
    if category == HIGH_CARD:  # pai gow: the joker completes nothing, so it is an ace (R-HI-3)
        kind = pai_gow_kind((best >> 16) & 15)
    elif category == STRAIGHT and trips:  # R-VAR-3: trips and a straight are paid as trips
        kind = TRIPS_AND_STRAIGHT
    elif category == TWO_PAIR and _pair_count(cards) == 3:
        kind = THREE_PAIR
    else:
        kind = PLAIN_CATEGORY_KIND[category]
    return best << _KIND_BITS | kind


def _pair_count(cards: Sequence[Card]) -> int:
    """Pairs among the seven, the joker an ace (R-HI-3: A + JK is a pair of aces)."""
    counts = Counter(ACE if c == JOKER else (c >> 2) + 2 for c in cards)
    return sum(1 for n in counts.values() if n == 2)


def _in_a_row(ranks: set[int]) -> bool:
    """Distinct ranks within seven consecutive ranks, the ace high or low (A-2-3-4-5-6-7)."""
    low_ace = {1 if r == ACE else r for r in ranks}
    return max(ranks) - min(ranks) <= 6 or max(low_ace) - min(low_ace) <= 6


def _suited_entry(suited: Sequence[Card]) -> int:
    """Best strength among fives of the suited cards (the joker may join), and its class."""
    ranks = _ranks(suited)
    primes = [_prime(r) for r in ranks]
    flush = _TABLES.flush
    best = max(
        flush[combo[0] * combo[1] * combo[2] * combo[3] * combo[4]]
        for combo in combinations(primes, 5)
    )
    royal = best >> 20 == STRAIGHT_FLUSH and (best >> 16) & 15 == ROYAL_ORDER
    real = {r for r in ranks if r != 15}
    if len(suited) == 7 and _in_a_row(real):  # seven suited cards, or six and the joker
        if len(real) == 7:
            kind = NATURAL_7SF_ROYAL if royal else NATURAL_7SF
        else:
            kind = JOKER_7SF_ROYAL if royal else JOKER_7SF
    elif royal:
        kind = ROYAL
    elif best >> 20 == STRAIGHT_FLUSH:
        kind = STRAIGHT_FLUSH_KIND
    else:
        kind = FLUSH_KIND
    return best << _KIND_BITS | kind


def _suited_beside(cards: Sequence[Card], royal_suit: int, ranks: tuple[int, int]) -> bool:
    """Two natural cards of ``ranks`` in one suit other than the royal's; the joker never counts.

    K-Q is the royal match (R-VAR-3); A-K the "royal flush plus ace-king suited" (issue 20)."""
    held = set(cards)
    high, low = ranks
    return any(
        (high - 2) * 4 + suit in held and (low - 2) * 4 + suit in held
        for suit in range(4)
        if suit != royal_suit
    )


def _flush_kind(cards: Sequence[Card], suit: int, plain_entry: int) -> Kind:
    suited = [c for c in cards if c == JOKER or (c & 3) == suit]
    key = 1
    for c in suited:
        key *= CARD_PRIME[c]
    entry = _SUITED.get(key)
    if entry is None:
        entry = _SUITED[key] = _suited_entry(suited)
    if entry < plain_entry:  # four aces with the joker, or a full house, beats this flush
        return plain_entry & _KIND_MASK
    kind = entry & _KIND_MASK
    if kind == ROYAL:  # five royal cards leave two: a K-Q or an A-K, never both
        if _suited_beside(cards, suit, _KING_QUEEN):
            return ROYAL_MATCH
        if _suited_beside(cards, suit, _ACE_KING):
            return ROYAL_ACE_KING_SUITED
    return kind


def classify(
    cards: Sequence[Card],
    _p: tuple[int, ...] = CARD_PRIME,
    _s: tuple[int, ...] = _SUIT_COUNT,
    _plain: dict[int, int] = _PLAIN,
    _flush_suit: list[int] = _FLUSH_SUIT,
) -> Kind:
    """Hand class of seven distinct, valid cards: the lean inner loop (no validation)."""
    a, b, c, d, e, f, g = cards
    key = _p[a] * _p[b] * _p[c] * _p[d] * _p[e] * _p[f] * _p[g]
    entry = _plain.get(key)
    if entry is None:
        entry = _plain[key] = _plain_entry(cards)
    suit = _flush_suit[_s[a] + _s[b] + _s[c] + _s[d] + _s[e] + _s[f] + _s[g]]
    if suit < 0:
        return entry & _KIND_MASK
    return _flush_kind(cards, suit, entry)


def classify_hand(cards: Sequence[Card]) -> Kind:
    """Hand class of seven cards, checked first (R-CARD-2): the entry point for the table."""
    if len(cards) != 7:
        raise CardError(f"a side bet resolves on 7 cards, got {len(cards)}")
    check_distinct(cards)
    return classify(cards)


def kind_name(kind: Kind) -> str:
    return KINDS[kind][0]


def best_five_category(kind: Kind) -> str:
    """The R-VAR-7 category of the best five cards among the seven (royal flush apart)."""
    return KINDS[kind][1]
