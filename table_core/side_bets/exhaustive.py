"""Exact counts over all C(53,7) = 154,143,080 seven-card hands (R-VAR-7).

Suits are symmetric in every side-bet rule (R-CARD-3: no suit outranks another, and a royal match
is "another suit", whichever), so the count runs over suit-equivalence classes, each with its
multiplicity (how many hands of the deck it stands for), and calls :func:`classify` — the same
classifier the table uses — once per class: 6,009,159 classes of 52-card hands and 962,988 of
hands holding the joker (six cards + JK) — the orbit counts Burnside's lemma gives — instead of
154 million hands.

A class is built rank by rank, lowest first, choosing which suits hold each rank. Suits that have
held exactly the same ranks so far are interchangeable, so only *how many* suits are taken from
each block of interchangeable suits matters; the multiplicity is the product of the binomial
coefficients, and the taken and untaken suits of each block become new blocks. Every hand of the
deck falls in exactly one class, so the multiplicities add up to C(52,7) and C(52,6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb
from operator import add

from table_core.cards import JOKER, Card
from table_core.side_bets.classifier import best_five_category, classify
from table_core.side_bets.lines import (
    CATEGORIES,
    KIND_COUNT,
    KINDS,
    NOTHING,
    PAI_GOW_LINES,
    pai_gow_kind,
)
from table_core.side_bets.pay_tables import PayTable

TOTAL_HANDS = comb(53, 7)  # 154,143,080
RANKS = range(2, 15)

SuitPattern = tuple[tuple[int, ...], int]  # suits in card order, multiplicity
Progress = Callable[[int], None]  # hands counted so far (out of TOTAL_HANDS)


def _splits(need: int, sizes: list[int]) -> Iterator[tuple[int, ...]]:
    """Ways to take ``need`` suits from blocks of ``sizes``: how many from each block."""
    for taken in product(*(range(min(size, need) + 1) for size in sizes)):
        if sum(taken) == need:
            yield taken


@cache
def suit_patterns(counts: tuple[int, ...]) -> tuple[SuitPattern, ...]:
    """Suit classes of a rank multiset given as counts of its ranks, lowest rank first."""
    patterns: list[SuitPattern] = []

    def walk(rank: int, blocks: list[tuple[int, ...]], suits: tuple[int, ...], mult: int) -> None:
        if rank == len(counts):
            patterns.append((suits, mult))
            return
        for taken in _splits(counts[rank], [len(block) for block in blocks]):
            chosen: tuple[int, ...] = ()
            refined: list[tuple[int, ...]] = []
            weight = mult
            for block, k in zip(blocks, taken, strict=True):
                chosen += block[:k]
                weight *= comb(len(block), k)
                refined += [part for part in (block[:k], block[k:]) if part]
            walk(rank + 1, refined, suits + chosen, weight)

    walk(0, [(0, 1, 2, 3)], (), 1)
    return tuple(patterns)


def rank_multisets(size: int) -> Iterator[tuple[int, ...]]:
    """Count of each rank 2..A (at most four), ``size`` cards in all."""

    def walk(rank_index: int, left: int, counts: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if rank_index == len(RANKS):
            if left == 0:
                yield counts
            return
        for n in range(min(4, left) + 1):
            yield from walk(rank_index + 1, left - n, (*counts, n))

    yield from walk(0, size, ())


def _rank_multisets_as_cards(with_joker: bool) -> Iterator[tuple[list[Card], tuple[int, ...]]]:
    """Each rank multiset as lowest-suit card codes (suit added later), and its rank counts."""
    for counts in rank_multisets(6 if with_joker else 7):
        bases: list[Card] = []
        for rank, n in zip(RANKS, counts, strict=True):
            bases += [(rank - 2) * 4] * n
        if with_joker:
            bases.append(JOKER)  # JOKER + suit 0 is the joker
        yield bases, tuple(n for n in counts if n)


@cache
def _patterns(counts: tuple[int, ...], with_joker: bool) -> tuple[SuitPattern, ...]:
    patterns = suit_patterns(counts)
    return tuple(((*suits, 0), mult) for suits, mult in patterns) if with_joker else patterns


def suit_classes(with_joker: bool) -> Iterator[tuple[list[Card], int]]:
    """Every suit class of seven-card hands without (or with) the joker, and its multiplicity."""
    for bases, present in _rank_multisets_as_cards(with_joker):
        for suits, mult in _patterns(present, with_joker):
            yield list(map(add, bases, suits)), mult


def count_kinds(progress: Progress | None = None) -> tuple[list[int], tuple[int, int]]:
    """How many of the 154,143,080 hands fall in each hand class, exactly; and how many suit
    classes (without, with the joker) were classified to find out.

    ``progress`` is called after each rank multiset with the hands counted so far.
    """
    counts = [0] * KIND_COUNT
    classes = [0, 0]
    done = 0
    for with_joker in (False, True):
        for bases, present in _rank_multisets_as_cards(with_joker):
            patterns = _patterns(present, with_joker)
            for suits, mult in patterns:
                counts[classify(list(map(add, bases, suits)))] += mult
                done += mult
            classes[with_joker] += len(patterns)
            if progress is not None:
                progress(done)
    return counts, (classes[0], classes[1])


@dataclass(frozen=True)
class Exhaustive:
    """The exact counts of every hand class, and what they say about categories and tables."""

    kinds: tuple[int, ...]
    suit_classes: tuple[int, int] = (0, 0)  # classified: without the joker, with it

    @property
    def total(self) -> int:
        return sum(self.kinds)

    def named(self) -> dict[str, int]:
        """Hands in each hand class, by the class's name."""
        return {KINDS[kind][0]: n for kind, n in enumerate(self.kinds)}

    def categories(self) -> dict[str, int]:
        """Hands by best five-card category, R-VAR-7's eleven (royal flush apart)."""
        out = dict.fromkeys(CATEGORIES, 0)
        for kind, n in enumerate(self.kinds):
            out[best_five_category(kind)] += n
        return out

    def pai_gow_by_highest_card(self) -> dict[str, int]:
        return {line: self.kinds[pai_gow_kind(9 + i)] for i, line in enumerate(PAI_GOW_LINES)}

    def lines(self, table: PayTable) -> dict[str, int]:
        """Hands paid on each line of ``table`` (its order), and the losing ones last."""
        out = dict.fromkeys([*table.pays, NOTHING], 0)
        for kind, n in enumerate(self.kinds):
            out[table.line_of(kind)] += n
        return out

    def house_win(self, table: PayTable) -> int:
        """Units the house wins over one unit bet on every hand: the edge's numerator."""
        return sum(n * -table.pays_of(kind) for kind, n in enumerate(self.kinds))

    def house_edge(self, table: PayTable) -> Fraction:
        return Fraction(self.house_win(table), self.total)


def exhaustive(progress: Progress | None = None) -> Exhaustive:
    """Classify every suit class of the 53-card deck: the exact counts of R-VAR-7."""
    kinds, classes = count_kinds(progress)
    return Exhaustive(tuple(kinds), classes)
