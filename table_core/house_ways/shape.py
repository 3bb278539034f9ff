"""Shared building blocks of every House Way (R-HW-2..6).

A House Way module reads a :class:`Shape` (the seven cards grouped by rank, the joker counted as an
ace, R-HW-2) and answers which two cards go front and which clause decided it. The blocks here are
the only place that knows how to enumerate splits, find straights and flushes with the semi-wild
joker, and break ties by the best front, then the best back (R-HW-4), so a casino's own House Way
is one new module of clause logic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from operator import itemgetter
from typing import Any, NamedTuple

from table_core.cards import ACE, JOKER, Card, rank_of
from table_core.errors import ConfigurationError
from table_core.hands import (
    CARD_PRIME,
    FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    FiveCardTables,
    five_card_strength,
    is_legal_split,
    tables_for,
    two_card_strength,
)

# Rank groups of R-HW-6 and the published ways.
JACK, QUEEN, KING = 11, 12, 13

_FRONT_INDEXES = tuple(combinations(range(7), 2))
#: For each pair of front positions, a getter of the five back cards (in the shape's order).
_BACK_OF = [
    [itemgetter(*(k for k in range(7) if k not in (i, j))) for j in range(7)] for i in range(7)
]
_SPLITS = tuple((i, j, _BACK_OF[i][j]) for i, j in _FRONT_INDEXES)
#: The same with a bit mask of the back's positions.
_SPLITS_MASKED = tuple((i, j, back_of, 0x7F & ~(1 << i | 1 << j)) for i, j, back_of in _SPLITS)
#: For each set of positions (bit k for position k), the splits whose front holds all of them.
_COVERING = tuple(tuple(s for s in _SPLITS_MASKED if not off & s[3]) for off in range(128))
_DEFAULT_TABLES = tables_for("second")
# Not a range: full house and four of a kind sit between flush and straight flush.
_STRAIGHT_OR_FLUSH = frozenset((STRAIGHT, FLUSH, STRAIGHT_FLUSH))


class Candidate(NamedTuple):
    """One of the 21 ways to set seven cards, with both strengths (a tuple: cheap to build)."""

    front: tuple[Card, Card]
    back: tuple[Card, ...]
    front_strength: int
    back_strength: int

    @property
    def legal(self) -> bool:
        return is_legal_split(self.back_strength, self.front_strength)

    @property
    def back_category(self) -> int:
        return self.back_strength >> 20

    def key(self) -> tuple[int, int, bool, tuple[Card, ...]]:
        """R-HW-4 order: best front, then best back.

        On an exact tie a real ace goes front and the joker stays back (it is never worse there and
        may fill a straight or flush); the card codes come last, only so that the choice is
        deterministic.
        """
        return (
            self.front_strength,
            self.back_strength,
            JOKER not in self.front,
            tuple(sorted(self.front, reverse=True)),
        )


_new_candidate = tuple.__new__  # Candidate(...) without the named tuple's Python-level __new__


@dataclass(slots=True)
class Shape:
    """Seven cards analysed for the House Way (R-HW-2).

    ``groups[rank]`` lists the cards of a rank, the joker among the aces (last, so that a real ace
    is taken first where the cards are otherwise equal). ``quads``, ``trips``, ``pairs`` and
    ``singles`` are ranks, highest first; ``fives`` is ``(14,)`` for five aces.
    """

    cards: tuple[Card, ...]
    tables: FiveCardTables
    groups: dict[int, list[Card]]
    fives: tuple[int, ...]
    quads: tuple[int, ...]
    trips: tuple[int, ...]
    pairs: tuple[int, ...]
    singles: tuple[int, ...]
    _splits: list[Candidate] | None = field(default=None)
    _straight_or_flush: list[Candidate] | None = field(default=None)
    _holds_sf: bool | None = field(default=None)

    # --- shape facts --------------------------------------------------------------------------

    @property
    def has_joker(self) -> bool:
        return JOKER in self.cards

    @property
    def single_ace(self) -> bool:
        """An ace (or the joker) that is not part of a pair (R-HW-2)."""
        return ACE in self.singles

    def single_at_least(self, rank: int) -> bool:
        """A single of ``rank`` or higher can go front (R-HW-6)."""
        return bool(self.singles) and self.singles[0] >= rank

    def cards_of(self, *ranks: int) -> list[Card]:
        """Every card of each rank, in order."""
        out: list[Card] = []
        for rank in ranks:
            out.extend(self.groups[rank])
        return out

    def one_of(self, rank: int) -> Card:
        """One card of ``rank`` (a real card before the joker)."""
        return self.groups[rank][0]

    def highest_singles(self, count: int, exclude: Iterable[int] = ()) -> list[int]:
        """The ``count`` highest single ranks, skipping ``exclude``."""
        skip = set(exclude)
        return [rank for rank in self.singles if rank not in skip][:count]

    # --- splits ---------------------------------------------------------------------------------

    def candidate(self, front: Sequence[Card]) -> Candidate:
        """The split with ``front`` in front and every other card back."""
        a, b = front
        cards = self.cards
        i, j = cards.index(a), cards.index(b)
        back = _BACK_OF[i][j](cards)
        front = (a, b)
        strengths = (two_card_strength(front), five_card_strength(back, self.tables))
        return _new_candidate(Candidate, (front, back, *strengths))

    def splits(self) -> list[Candidate]:
        """All 21 splits (computed once)."""
        if self._splits is None:
            cards, tables = self.cards, self.tables
            out = []
            for i, j, back_of in _SPLITS:
                back = back_of(cards)
                front = (cards[i], cards[j])
                out.append(
                    _new_candidate(
                        Candidate,
                        (front, back, two_card_strength(front), five_card_strength(back, tables)),
                    )
                )
            self._splits = out
        return self._splits

    def straight_or_flush_splits(self) -> list[Candidate]:
        """Splits whose back is a straight, flush or straight flush (joker semi-wild, R-HW-2).

        Empty when the seven hold none (an exact check on rank and suit counts), so most hands
        never enumerate; the others value 21 backs and build only the splits that qualify.
        """
        if self._straight_or_flush is None:
            found: list[Candidate] = []
            if self.has_straight_or_flush:
                cards, tables = self.cards, self.tables
                plain, flush = tables.plain, tables.flush
                # What five_card_strength does for each back, from the seven at once: a back's key
                # is the seven's prime product over its front's two primes, and it is suited when
                # its front holds every real card outside the seven's most common suit.
                primes = [CARD_PRIME[c] for c in cards]
                total = primes[0] * primes[1] * primes[2] * primes[3]
                total *= primes[4] * primes[5] * primes[6]
                counts, mask, joker = _suits_and_ranks(cards)
                suit = counts.index(max(counts))
                off = 0
                for k, c in enumerate(cards):
                    if c != JOKER and c & 3 != suit:
                        off |= 1 << k
                # Without a straight among the seven only suited backs qualify: the splits whose
                # front holds every card off the suit (at most 21, usually one to six).
                scan = _SPLITS_MASKED if _STRAIGHT_WINDOW[mask] + joker >= 5 else _COVERING[off]
                for i, j, back_of, back_mask in scan:
                    key = total // (primes[i] * primes[j])
                    strength = plain[key] if off & back_mask else flush[key]
                    if strength >> 20 in _STRAIGHT_OR_FLUSH:
                        front = (cards[i], cards[j])
                        found.append(
                            Candidate(front, back_of(cards), two_card_strength(front), strength)
                        )
            self._straight_or_flush = found
        return self._straight_or_flush

    @property
    def has_straight_or_flush(self) -> bool:
        """The seven hold a straight, flush or straight flush (exact, from rank and suit counts)."""
        if self._holds_sf is None:
            self._holds_sf = _holds_straight_or_flush(self.cards)
        return self._holds_sf


def _window_max(mask: int) -> int:
    """Most ranks of ``mask`` (bit r-2 for rank r) inside any five-rank straight window."""
    ranks = {r for r in range(2, 15) if mask >> (r - 2) & 1}
    if ACE in ranks:
        ranks.add(1)  # the ace also plays low in the wheel
    return max(len(ranks & set(range(low, low + 5))) for low in range(1, 11))


#: For each set of real ranks (bit r-2), the most of them one straight window holds.
_STRAIGHT_WINDOW = bytes(_window_max(mask) for mask in range(1 << 13))
_RANK = (*((c >> 2) + 2 for c in range(52)), ACE)
#: Sort key: rank high to low; within a rank s h d c, then the joker after the real aces.
_ORDER = (*(-((c >> 2) + 2) * 8 + (c & 3) for c in range(52)), -ACE * 8 + 4)


#: Per card, 1 in its suit's nibble (the joker in all four: it completes a flush of any suit); a
#: flush can be formed when a nibble of the seven's sum reaches 5, so adding 3 sets its bit 3.
_SUIT_COUNT = (*(1 << 4 * (c & 3) for c in range(52)), 0x1111)
#: Per card, its rank bit as in _STRAIGHT_WINDOW; the joker's is bit 13.
_RANK_BIT = (*(1 << (c >> 2) for c in range(52)), 1 << 13)
#: _STRAIGHT_WINDOW plus one when bit 13 (the joker) is set: a straight can be formed at 5.
_STRAIGHT_WITH_JOKER = _STRAIGHT_WINDOW + bytes(n + 1 for n in _STRAIGHT_WINDOW)
_ORDER_KEY = _ORDER.__getitem__


def _suits_and_ranks(cards: Sequence[Card]) -> tuple[list[int], int, int]:
    """How many real cards of each suit, the real ranks as bits (as in _STRAIGHT_WINDOW), and 1
    when the joker is among ``cards`` (else 0)."""
    joker = 0
    suits = [0, 0, 0, 0]
    mask = 0
    for c in cards:
        if c == JOKER:
            joker = 1
        else:
            suits[c & 3] += 1
            mask |= 1 << (c >> 2)
    return suits, mask, joker


def _holds_straight_or_flush(cards: Sequence[Card]) -> bool:
    suits, mask, joker = _suits_and_ranks(cards)
    return max(suits) + joker >= 5 or _STRAIGHT_WINDOW[mask] + joker >= 5


def analyse(cards: Sequence[Card], tables: FiveCardTables | None = None) -> Shape:
    """Group seven cards by rank, the joker as an ace (R-HW-2)."""
    ordered = tuple(sorted(cards, key=_ORDER_KEY))
    groups: dict[int, list[Card]] = {}
    group: list[Card] = []
    suits = mask = last = 0
    for c in ordered:  # ranks high to low; in a rank s h d c, the joker after the real aces
        rank = _RANK[c]
        if rank == last:  # the cards of a rank are next to each other
            group.append(c)
        else:
            group = groups[rank] = [c]
            last = rank
        suits += _SUIT_COUNT[c]
        mask |= _RANK_BIT[c]
    by_size: list[list[int]] = [[], [], [], [], [], []]
    for rank, group in groups.items():
        by_size[len(group)].append(rank)
    # Shape(cards, tables, groups, fives, quads, trips, pairs, singles, _splits,
    # _straight_or_flush, _holds_sf), positionally: _holds_sf is _holds_straight_or_flush, from the
    # same pass over the cards.
    return Shape(
        ordered,
        tables or _DEFAULT_TABLES,
        groups,
        tuple(by_size[5]),
        tuple(by_size[4]),
        tuple(by_size[3]),
        tuple(by_size[2]),
        tuple(by_size[1]),
        None,
        None,
        bool((suits + 0x3333) & 0x8888) or _STRAIGHT_WITH_JOKER[mask] >= 5,
    )


def best(candidates: Iterable[Candidate]) -> Candidate | None:
    """The best front, then the best back (R-HW-4); ``None`` when there is no candidate."""
    return max(candidates, key=Candidate.key, default=None)


def best_front_keeping(
    shape: Shape, keep_back: Callable[[Candidate], bool], *, legal_only: bool = True
) -> Candidate | None:
    """R-HW-4: the best front among the splits whose back satisfies ``keep_back``."""
    return best(c for c in shape.splits() if keep_back(c) and (not legal_only or c.legal))


def front_of(shape: Shape, *choices: Sequence[Card]) -> Candidate:
    """The best of a few explicit fronts (equal cards of one rank may differ in the back)."""
    found = best(shape.candidate(front) for front in choices)
    assert found is not None, "front_of needs at least one front"
    return found


def pair_front(shape: Shape, rank: int) -> Candidate:
    """Two cards of ``rank`` front; from trips, quads or five aces, the pair R-HW-4 prefers (the
    best back: with the joker among the aces, which two go front can change what the back makes)."""
    group = shape.groups[rank]
    if len(group) == 2:
        return shape.candidate(group)
    return front_of(shape, *combinations(group, 2))


def singles_front(shape: Shape, skip: int = 0) -> Candidate:
    """The two highest singles after the ``skip`` highest go front (R-HW-6: "an ace can go front"
    goes with the highest other single)."""
    singles = shape.singles
    return shape.candidate((shape.one_of(singles[skip]), shape.one_of(singles[skip + 1])))


def two_highest_front(shape: Shape, exclude_ranks: Iterable[int] = ()) -> Candidate:
    """The two highest cards by rank that are not of ``exclude_ranks`` go front (R-HW-4)."""
    skip = set(exclude_ranks)
    pool = [c for c in shape.cards if rank_of(c) not in skip]
    return front_of(shape, pool[:2])


# --- R-HW-3: which clause family applies -------------------------------------------------------

#: Clause families in R-HW-3 order; a clause id is ``<house way>.<family>[.<detail>]``.
FAMILIES = (
    "five_aces",
    "four_of_a_kind",
    "straights",
    "full_house",
    "trips",
    "three_pairs",
    "two_pairs",
    "one_pair",
    "no_pair",
)


def redirects(**sends: frozenset[str]) -> dict[str, frozenset[str]]:
    """A House Way's R-HW-3 redirects: for each family, the other families its clauses may hand a
    hand to; ``sends`` names the families that hand any on, every other family hands none."""
    return {each: sends.get(each, frozenset()) for each in FAMILIES}


def family(shape: Shape) -> str:
    """The clause family R-HW-3 selects for ``shape`` (before any clause sends it elsewhere)."""
    if shape.fives:
        return "five_aces"
    if shape.quads:
        return "four_of_a_kind"
    if shape.has_straight_or_flush:
        return "straights"
    if shape.trips and (shape.pairs or len(shape.trips) > 1):
        return "full_house"
    if shape.trips:
        return "trips"
    if len(shape.pairs) >= 3:
        return "three_pairs"
    if len(shape.pairs) == 2:
        return "two_pairs"
    if shape.pairs:
        return "one_pair"
    return "no_pair"


def clause_family(clause: str) -> str:
    """The family part of a clause id (``fr.two_pairs.split_aces`` -> ``two_pairs``)."""
    return clause.split(".")[1]


# --- R-HW-3: one House Way's decision, by family ----------------------------------------------

#: A House Way's answer: the split (as a candidate) and the id of the clause that decided it.
Decision = tuple[Candidate, str]


def by_family(name: str, rules: Mapping[str, Any]) -> Callable[[Shape], Decision]:
    """The ``decide`` of House Way ``name``, the one family dispatch every House Way shares: the
    clause family R-HW-3 selects for the shape (:func:`family`) picks the House Way's rule for it.

    ``rules`` is the House Way module's namespace (``globals()``): each family's rule is its
    function ``_<family>`` (``_five_aces``, ``_four_of_a_kind`` ... ``_no_pair``), one per family
    of :data:`FAMILIES`."""
    missing = [each for each in FAMILIES if not callable(rules.get(f"_{each}"))]
    if missing:
        raise ConfigurationError(f"House Way {name} has no rule for {', '.join(missing)}", "R-HW-3")
    rule_of: Callable[[str], Callable[[Shape], Decision]] = {
        each: rules[f"_{each}"] for each in FAMILIES
    }.__getitem__

    def decide(shape: Shape) -> Decision:
        return rule_of(family(shape))(shape)

    decide.__doc__ = f"The {name} split of ``shape`` and the id of the clause that decided it."
    return decide
