"""Five-card (back) and two-card (front) hands: evaluation, fouls and comparison.

Clauses: R-HI-1..5 (five-card ranking with the semi-wild joker), R-LO-1 (two-card ranking),
R-SET-1 (foul check), R-SET-3 (comparison, copies to the banker).

Speed (treys' approach): a five-card hand's key is the product of one prime per rank (the joker has
its own prime), so a hand's value is one dict lookup, in the flush table when all its suited cards
share one suit and in the plain table otherwise. Both tables are built once per ``wheel_rank`` from
the slow, readable reference rules below, which are also what the tests read.

A strength is one ``int``: higher is better, equal is a copy. ``strength_list`` unpacks it into the
public form ``[category, tie-breakers…]`` (ranks 2..14, ace 14) that compares the same way as a
Python list. Straights carry one tie-breaker, their *order*: the top rank for 6-high to K-high,
15 for A-K-Q-J-T, and for the wheel A-2-3-4-5 14 (``wheel_rank="second"``, R-HI-2) or 5
(``"lowest"``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Literal

from table_core.cards import ACE, JOKER, Card, check_distinct, suit_of
from table_core.errors import CardError

WheelRank = Literal["second", "lowest"]
WHEEL_RANKS: tuple[WheelRank, ...] = ("second", "lowest")

# Category values (R-HI-1); a royal flush is a straight flush that is reported by its own name.
HIGH_CARD, ONE_PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT = 0, 1, 2, 3, 4
FLUSH, FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_ACES = 5, 6, 7, 8, 9

CATEGORY_NAMES = (
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "five_aces",
)
ROYAL_ORDER = 15  # the order of A-K-Q-J-T among straights

_RANK_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_JOKER_PRIME = 43
_JOKER_RANK = 15  # the joker's place in a rank multiset before it is resolved

#: Prime of each card's rank (index = card), the joker's own prime last.
CARD_PRIME: tuple[int, ...] = (*(_RANK_PRIMES[c >> 2] for c in range(52)), _JOKER_PRIME)
#: One bit per suit; the joker has none, so a hand is suited when its bits OR to a single bit.
CARD_SUIT_BIT: tuple[int, ...] = (*(1 << (c & 3) for c in range(52)), 0)


def pack(category: int, tiebreak: Sequence[int]) -> int:
    """Pack a category and up to five tie-breakers (each < 16) into one comparable int."""
    value = category
    for i in range(5):
        value = (value << 4) | (tiebreak[i] if i < len(tiebreak) else 0)
    return value


# --- reference rules (readable; used to build the tables and by the tests) -------------------


def straight_order(ranks: set[int] | frozenset[int], wheel_rank: WheelRank) -> int:
    """Order of the best straight made by five distinct ``ranks``, or 0 when they make none."""
    if len(ranks) != 5:
        return 0
    top = max(ranks)
    if top - min(ranks) == 4:
        return ROYAL_ORDER if top == ACE else top
    if ranks == {ACE, 2, 3, 4, 5}:
        return 14 if wheel_rank == "second" else 5  # R-HI-2
    return 0


def _best_joker_straight(others: list[int], wheel_rank: WheelRank) -> int:
    """Best straight order the joker can complete with four distinct ranks (R-HI-4), else 0."""
    present = set(others)
    if len(present) != 4:
        return 0
    return max(
        (straight_order(present | {r}, wheel_rank) for r in range(2, 15) if r not in present),
        default=0,
    )


def _grouped(ranks: list[int]) -> tuple[int, list[int]]:
    """Category and tie-breakers of five ranks without straights or flushes (R-HI-1, R-HI-5)."""
    counts = Counter(ranks)
    # Larger groups first, then higher ranks: the usual poker order of tie-breakers.
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = [r for r, _ in groups]
    if shape[0] == 5:
        return FIVE_ACES, []
    if shape[0] == 4:
        return FOUR_OF_A_KIND, order
    if shape[:2] == [3, 2]:
        return FULL_HOUSE, order
    if shape[0] == 3:
        return THREE_OF_A_KIND, order
    if shape[:2] == [2, 2]:
        return TWO_PAIR, order
    if shape[0] == 2:
        return ONE_PAIR, order
    return HIGH_CARD, order


def _reference(
    ranks: Sequence[int],
    wheel_rank: WheelRank,
    straight: int,
    stand_in: Callable[[list[int]], int],
    rest: Callable[[list[int]], tuple[int, list[int]]],
) -> tuple[int, list[int]]:
    """What plain and flush hands share: the best straight (``straight``'s category), the joker
    filling a gap if there is one; else ``rest`` of the five ranks, the joker as ``stand_in``."""
    others = [r for r in ranks if r != _JOKER_RANK]
    if len(others) == 5:
        order = straight_order(set(others), wheel_rank)
    else:
        order = _best_joker_straight(others, wheel_rank)
    if order:
        return straight, [order]
    if len(others) < 5:
        others.append(stand_in(others))
    return rest(others)


def reference_plain(ranks: Sequence[int], wheel_rank: WheelRank) -> tuple[int, list[int]]:
    """Five ranks (the joker as 15) not all of one suit: category and tie-breakers (R-HI-1..5)."""
    # R-HI-3: a joker that completes no straight is an ace.
    return _reference(ranks, wheel_rank, STRAIGHT, lambda _others: ACE, _grouped)


def _highest_absent(others: list[int]) -> int:
    """The highest rank absent from the suit: the joker's rank in a flush (R-HI-4)."""
    return max(r for r in range(2, 15) if r not in others)


def _flush(ranks: list[int]) -> tuple[int, list[int]]:
    return FLUSH, sorted(ranks, reverse=True)


def reference_flush(ranks: Sequence[int], wheel_rank: WheelRank) -> tuple[int, list[int]]:
    """Five ranks (the joker as 15) whose real cards share one suit (R-HI-3, R-HI-4)."""
    return _reference(ranks, wheel_rank, STRAIGHT_FLUSH, _highest_absent, _flush)


# --- the tables --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FiveCardTables:
    """Lookup tables for one ``wheel_rank``: prime product -> packed strength."""

    wheel_rank: WheelRank
    plain: dict[int, int]
    flush: dict[int, int]


def _key(ranks: Sequence[int]) -> int:
    key = 1
    for r in ranks:
        key *= _JOKER_PRIME if r == _JOKER_RANK else _RANK_PRIMES[r - 2]
    return key


@cache
def tables_for(wheel_rank: WheelRank = "second") -> FiveCardTables:
    """The five-card tables for ``wheel_rank``, built once from the reference rules."""
    if wheel_rank not in WHEEL_RANKS:
        raise CardError(f"unknown wheel rank: {wheel_rank!r} (second or lowest)")
    if wheel_rank == "second":
        return build_tables(wheel_rank, range(2, 15))
    # R-HI-2: the wheel's rank is the one difference between the settings, and only a hand whose
    # real cards are all of the wheel's ranks can make a wheel (with the joker or without): those
    # few dozen hands are valued again over the "second" tables (a test compares a full build).
    return build_tables(wheel_rank, (2, 3, 4, 5, ACE), base=tables_for("second"))


def build_tables(
    wheel_rank: WheelRank, ranks: Sequence[int], base: FiveCardTables | None = None
) -> FiveCardTables:
    """Every hand of ``ranks`` (and the joker) valued by the reference rules, over ``base``."""
    plain: dict[int, int] = dict(base.plain) if base is not None else {}
    flush: dict[int, int] = dict(base.flush) if base is not None else {}
    for n_jokers in (0, 1):
        for combo in combinations_with_replacement(ranks, 5 - n_jokers):
            if max(Counter(combo).values()) > 4:
                continue
            hand = [*combo] + [_JOKER_RANK] * n_jokers
            plain[_key(hand)] = pack(*reference_plain(hand, wheel_rank))
        for combo in combinations(ranks, 5 - n_jokers):
            hand = [*combo] + [_JOKER_RANK] * n_jokers
            flush[_key(hand)] = pack(*reference_flush(hand, wheel_rank))
    return FiveCardTables(wheel_rank, plain, flush)


_DEFAULT = tables_for("second")


def five_card_strength(
    cards: Sequence[Card],
    tables: FiveCardTables = _DEFAULT,
    _prime: tuple[int, ...] = CARD_PRIME,
    _suit: tuple[int, ...] = CARD_SUIT_BIT,
) -> int:
    """Packed strength of five distinct, valid cards: the lean inner loop (no validation)."""
    a, b, c, d, e = cards
    suits = _suit[a] | _suit[b] | _suit[c] | _suit[d] | _suit[e]
    key = _prime[a] * _prime[b] * _prime[c] * _prime[d] * _prime[e]
    if suits & (suits - 1) == 0:
        return tables.flush[key]
    return tables.plain[key]


def two_card_strength(cards: Sequence[Card]) -> int:
    """Packed front strength (R-LO-1): ``256 + 16*r`` for a pair, ``16*high + low`` otherwise."""
    a, b = cards
    ra = 14 if a == JOKER else (a >> 2) + 2
    rb = 14 if b == JOKER else (b >> 2) + 2
    if ra == rb:
        return 256 + (ra << 4)
    return (ra << 4) | rb if ra > rb else (rb << 4) | ra


def front_is_pair(front_strength: int) -> bool:
    return front_strength >= 256


# --- fouls and comparison ----------------------------------------------------------------------


def is_legal_split(back_strength: int, front_strength: int) -> bool:
    """R-SET-1: the back must outrank the front, judged against the back's pair structure.

    A front pair needs a back of two pair or better, or one pair at least as high. An unpaired
    front needs a back of one pair or better, or a back whose two highest cards are at least the
    front's (a tie goes to the back, which holds more cards).
    """
    category = back_strength >> 20
    if front_strength >= 256:
        if category >= TWO_PAIR:
            return True
        return category == ONE_PAIR and ((back_strength >> 16) & 15) >= ((front_strength >> 4) & 15)
    if category >= ONE_PAIR:
        return True
    return ((back_strength >> 12) & 0xFF) >= front_strength


# --- descriptions ------------------------------------------------------------------------------

_ONE_RANK = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
#: ``rank: (one, many)``, from deuce (2) to ace (14); the plural is regular but for "sixes".
_RANK_WORDS = {
    rank: (word, word + ("es" if word.endswith("x") else "s"))
    for rank, word in enumerate(_ONE_RANK, start=2)
}


def _one(rank: int) -> str:
    return _RANK_WORDS[rank][0]


def _many(rank: int) -> str:
    return _RANK_WORDS[rank][1]


def _dashed(ranks: Sequence[int]) -> str:
    return "-".join(_one(r) for r in ranks)


def strength_list(strength: int) -> list[int]:
    """The public form of a five-card strength: ``[category, tie-breakers…]``."""
    category = strength >> 20
    nibbles = [(strength >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    length = {
        FIVE_ACES: 0,
        STRAIGHT_FLUSH: 1,
        FOUR_OF_A_KIND: 2,
        FULL_HOUSE: 2,
        FLUSH: 5,
        STRAIGHT: 1,
        THREE_OF_A_KIND: 3,
        TWO_PAIR: 3,
        ONE_PAIR: 4,
        HIGH_CARD: 5,
    }[category]
    return [category, *nibbles[:length]]


def _straight_top(order: int) -> str:
    if order == ROYAL_ORDER:
        return "ace high"
    if order in (5, 14):  # the wheel: 14 under wheel_rank=second, 5 under lowest
        return "five high (wheel)"
    return f"{_one(order)} high"


def five_card_category(strength: int) -> str:
    """Category name; the A-high straight flush is reported as ``royal_flush`` (R-HI-1)."""
    category = strength >> 20
    if category == STRAIGHT_FLUSH and ((strength >> 16) & 15) == ROYAL_ORDER:
        return "royal_flush"
    return CATEGORY_NAMES[category]


# What a dealer reads aloud for each category, from the tie-breakers ``t`` of ``strength_list``.
_FIVE_CARD_NAMES: dict[int, Callable[[list[int]], str]] = {
    FIVE_ACES: lambda t: "Five aces",
    STRAIGHT_FLUSH: lambda t: (
        "Royal flush" if t[0] == ROYAL_ORDER else f"Straight flush, {_straight_top(t[0])}"
    ),
    FOUR_OF_A_KIND: lambda t: f"Four of a kind, {_many(t[0])}, {_one(t[1])} kicker",
    FULL_HOUSE: lambda t: f"Full house, {_many(t[0])} full of {_many(t[1])}",
    FLUSH: lambda t: f"Flush, {_dashed(t[:2])} high",
    STRAIGHT: lambda t: f"Straight, {_straight_top(t[0])}",
    THREE_OF_A_KIND: lambda t: f"Three of a kind, {_many(t[0])}, {_dashed(t[1:])} kickers",
    TWO_PAIR: lambda t: f"Two pair, {_many(t[0])} and {_many(t[1])}",
    ONE_PAIR: lambda t: f"Pair of {_many(t[0])}, {_dashed(t[1:])} kickers",
    HIGH_CARD: lambda t: f"Pai gow, {_dashed(t[:2])} high",
}


def five_card_name(strength: int) -> str:
    """A name a dealer reads aloud: "Flush, ace-king high", "Two pair, kings and sevens"."""
    category, *t = strength_list(strength)
    return _FIVE_CARD_NAMES[category](t)


def two_card_list(strength: int) -> list[int]:
    """Public form of a front strength: ``[1, r, r]`` for a pair, ``[0, high, low]`` otherwise."""
    if strength >= 256:
        rank = (strength >> 4) & 15
        return [1, rank, rank]
    return [0, strength >> 4, strength & 15]


def two_card_name(strength: int) -> str:
    kind, high, low = two_card_list(strength)
    if kind:
        return f"Pair of {_many(high)}"
    return f"{_one(high).capitalize()}-{_one(low)}"


# --- validated entry points --------------------------------------------------------------------


@dataclass(frozen=True)
class HandValue:
    """The value of one five- or two-card hand, as the command line and events show it."""

    size: int
    category: str
    strength: int
    strength_list: tuple[int, ...]
    name: str


def evaluate_hand(cards: Sequence[Card], wheel_rank: WheelRank = "second") -> HandValue:
    """Evaluate five (R-HI) or two (R-LO) distinct cards, checking them first (R-CARD-2)."""
    check_distinct(cards)
    if len(cards) == 5:
        strength = five_card_strength(cards, tables_for(wheel_rank))
        return HandValue(
            5,
            five_card_category(strength),
            strength,
            tuple(strength_list(strength)),
            five_card_name(strength),
        )
    if len(cards) == 2:
        strength = two_card_strength(cards)
        return HandValue(
            2,
            "one_pair" if strength >= 256 else "high_card",
            strength,
            tuple(two_card_list(strength)),
            two_card_name(strength),
        )
    raise CardError(f"a hand has 5 or 2 cards, got {len(cards)}")


def is_suited(cards: Sequence[Card]) -> bool:
    """All real cards share one suit (the joker fits any)."""
    return len({suit_of(c) for c in cards if c != JOKER}) <= 1
