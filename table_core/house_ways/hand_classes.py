"""Every seven-card hand of a deck, as weighted classes a House Way decides once each.

A House Way that reads suits only through straights and flushes (``HouseWay.by_rank_pattern``,
a file's ``suit_blind``) decides two hands alike when one is the other with its suits renamed: a
renaming maps flushes to flushes, and the way's ranks, pairs and straights do not move. So the
hands fall into suit classes (the orbits of the 24 renamings of the four suits, the joker fixed),
and one hand of each class, weighted by the class's size, stands for all of them. Among the hands
of one rank pattern that cannot form a flush, the rank-pattern memo's own promise
(``house_ways/memo.py``) goes further: they all get the same decision, so they are one class.

The classes come from one rank at a time (ranks high to low): the suits not told apart yet form
groups; a rank of ``k`` cards takes some cards from each group (the first suits of it, weighted by
the ways to choose them) and splits the group into the suits it took and the others. Every hand is
in exactly one class, and every hand of a class is its representative with the suits renamed;
tests/unit/house_ways/test_hand_classes.py checks both against every hand of a small deck. A
branch whose suits can no longer reach five of one suit (the joker counted) is not followed: all
its hands join the pattern's class that cannot form a flush.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from math import comb

from table_core.cards import ACE, DECK_SIZE, JOKER, Card, make_card

ALL_RANKS: tuple[int, ...] = tuple(range(ACE, 1, -1))
SUITS = 4
HAND = 7

#: A rank pattern: (rank, count) for each rank held, ranks high to low, and the joker's count.
Pattern = tuple[tuple[tuple[int, int], ...], int]
#: One class of hands: a representative's seven cards and how many hands the class holds.
HandClass = tuple[tuple[Card, ...], int]


def rank_patterns(ranks: Sequence[int] = ALL_RANKS, joker: bool = True) -> list[Pattern]:
    """Every rank pattern of seven cards from ``ranks`` (four suits each) and the joker."""
    ordered = sorted(ranks, reverse=True)
    out: list[Pattern] = []

    def walk(index: int, left: int, held: tuple[tuple[int, int], ...], jokers: int) -> None:
        if left == 0:
            out.append((held, jokers))
            return
        if index == len(ordered):
            return
        for count in range(min(SUITS, left), -1, -1):
            more = (*held, (ordered[index], count)) if count else held
            walk(index + 1, left - count, more, jokers)

    walk(0, HAND, (), 0)
    if joker:
        walk(0, HAND - 1, (), 1)
    return out


def pattern_hands(pattern: Pattern) -> int:
    """How many hands share ``pattern``."""
    total = 1
    for _, count in pattern[0]:
        total *= comb(SUITS, count)
    return total


def hand_classes(pattern: Pattern) -> Iterator[HandClass]:
    """The classes of ``pattern``'s hands: one per suit class that can form a flush, and one
    for all its hands that cannot (their decisions are one, by rank pattern)."""
    held, jokers = pattern
    plain: list[tuple[Card, ...]] = []  # a representative of the hands that cannot form a flush
    plain_weight = 0
    # Hands still to place after each rank, for the branches cut short.
    after = [1] * (len(held) + 1)
    for i in range(len(held) - 1, -1, -1):
        after[i] = after[i + 1] * comb(SUITS, held[i][1])
    # A suit takes at most one card of a rank: the ranks still to place bound what it can gain.
    ranks_after = [len(held) - i for i in range(len(held) + 1)]
    joker_cards = (JOKER,) * jokers

    def walk(
        index: int,
        groups: tuple[tuple[int, ...], ...],
        cards: tuple[Card, ...],
        counts: tuple[int, ...],
        weight: int,
    ) -> Iterator[HandClass]:
        nonlocal plain_weight
        if max(counts) + ranks_after[index] + jokers < 5:  # no flush can be formed any more
            if not plain:
                plain.append(cards + _any_suits(held[index:]) + joker_cards)
            plain_weight += weight * after[index]
            return
        if index == len(held):
            yield cards + joker_cards, weight  # max(counts) + jokers >= 5: a flush can be formed
            return
        rank, count = held[index]
        for takes in _takes(groups, count):
            new_groups: list[tuple[int, ...]] = []
            chosen: list[int] = []
            ways = 1
            for group, take in zip(groups, takes, strict=True):
                ways *= comb(len(group), take)
                if take:
                    chosen.extend(group[:take])
                    new_groups.append(group[:take])
                if take < len(group):
                    new_groups.append(group[take:])
            new_counts = list(counts)
            for suit in chosen:
                new_counts[suit] += 1
            yield from walk(
                index + 1,
                tuple(new_groups),
                cards + tuple(make_card(rank, suit) for suit in chosen),
                tuple(new_counts),
                weight * ways,
            )

    yield from walk(0, (tuple(range(SUITS)),), (), (0,) * SUITS, 1)
    if plain_weight:
        yield plain[0], plain_weight


def _takes(groups: tuple[tuple[int, ...], ...], count: int) -> Iterator[tuple[int, ...]]:
    """Every way to take ``count`` cards from the groups, at most a group's size from each."""
    if not groups:
        if count == 0:
            yield ()
        return
    first, rest = groups[0], groups[1:]
    room = sum(len(group) for group in rest)
    for take in range(min(len(first), count), max(0, count - room) - 1, -1):
        for tail in _takes(rest, count - take):
            yield (take, *tail)


def _any_suits(held: Sequence[tuple[int, int]]) -> tuple[Card, ...]:
    """Cards for the ranks still to place, suits chosen so that no flush forms: each rank's
    cards start one suit further round (a representative of a class that cannot form one)."""
    out: list[Card] = []
    for start, (rank, count) in enumerate(held):
        out.extend(make_card(rank, (start + k) % SUITS) for k in range(count))
    return tuple(out)


def every_hand(ranks: Sequence[int] = ALL_RANKS, joker: bool = True) -> Iterator[tuple[Card, ...]]:
    """Every hand of the deck, one by one (the reference the classes are checked against, and the
    enumeration for a House Way that reads suits otherwise)."""
    deck = [make_card(rank, suit) for rank in sorted(ranks, reverse=True) for suit in range(SUITS)]
    if joker:
        deck.append(JOKER)
    yield from combinations(deck, HAND)


def hands_from(first: Card) -> Iterator[tuple[Card, ...]]:
    """Every hand of the 53-card deck whose lowest card is ``first`` (cards by code, the joker
    52): the deck's hands in ``DECK_SIZE - 6`` disjoint parts, for worker processes."""
    return ((first, *more) for more in combinations(range(first + 1, DECK_SIZE), HAND - 1))
