"""The ``es`` House Way: seed 002's "Camino de la casa" (R-HW-1), as docs/rules.md reads it.

Dispatch is by clause family in R-HW-3 order (``shape.family``; see ``decide`` for the one
shortcut). Only the straight and flush family enumerates splits; every other clause builds its
front directly (a few explicit choices where cards of one rank, such as a real ace and the joker,
may differ in what the back makes), so the common hands cost one five-card evaluation.

Readings where docs/rules.md is silent (also written in the clause texts below):

* A full-house shape that also holds a straight or flush (only possible with the joker among
  the aces, e.g. A-A-JK K-K Q-J) is decided by the es full-house rule: the es straight clause
  lists no full-house case, and no straight can stay back with a pair of the trips front.
* Where a real ace and the joker are interchangeable (same front, same back), R-HW-4 leaves the
  choice to ``Candidate.key``'s card order, which puts the joker front.
"""

from __future__ import annotations

from table_core.cards import ACE, rank_of
from table_core.house_ways.shape import (
    JACK,
    KING,
    Candidate,
    Decision,
    Shape,
    best,
    by_family,
    front_of,
    pair_front,
    redirects,
    two_highest_front,
)

NAME = "es"

#: Clause id -> what it says, in R-HW-3 order (rendered into the docs table for auditors).
CLAUSES: dict[str, str] = {
    "es.five_aces.split": (
        "Five aces (four aces and the joker): two aces go front, three aces stay back."
    ),
    "es.five_aces.kings_front": (
        "Exception: five aces with a pair of kings: all five aces back, the kings front."
    ),
    "es.four_of_a_kind.pair_front": (
        "Four of a kind with a pair (or three of a kind) among the other three cards: that pair "
        "goes front and the four stay back, whatever their rank."
    ),
    "es.four_of_a_kind.two_to_six_together": (
        "Four deuces to four sixes are never split: the four stay back, the two highest other "
        "cards go front."
    ),
    "es.four_of_a_kind.seven_to_ten_split": (
        "Four sevens to four tens are split into two pairs: one pair front, the other back."
    ),
    "es.four_of_a_kind.seven_to_ten_ace_front": (
        "Exception: four sevens to four tens with a single ace (or the joker): the four stay "
        "back, the ace and the highest other card go front."
    ),
    "es.four_of_a_kind.jacks_to_aces_split": (
        "Four jacks to four aces are always split: one pair front, the other pair back."
    ),
    "es.straights.no_pair": (
        "Straight, flush or straight flush and no pair: keep back the one that lets the best "
        "two cards go front (a straight flush is given up for a better front)."
    ),
    "es.straights.one_pair_front": (
        "Straight or flush with one pair: the pair goes front when a straight, flush or straight "
        "flush can still stay back."
    ),
    "es.straights.one_pair_keep": (
        "Straight or flush with one pair that cannot go front: keep the straight or flush back "
        "with the best front; but a pair of tens or better with a single ace or face card is "
        "set by the one-pair rule instead (recorded as es.one_pair.default)."
    ),
    "es.straights.trips_pair_front": (
        "Straight or flush with three of a kind: a pair of the three goes front and the "
        "straight or flush stays back; when that is impossible the three-of-a-kind rule sets "
        "the hand (recorded as es.trips.*). With two pairs, three pairs or a full house the "
        "straight is ignored and those rules decide (recorded under their own ids)."
    ),
    "es.full_house.pair_front": (
        "Full house (three of a kind and a pair): always split, the pair front, the three of a "
        "kind back."
    ),
    "es.full_house.trips_two_pairs": (
        "Three of a kind and two pairs: the higher pair goes front, the full house stays back."
    ),
    "es.full_house.two_trips": (
        "Two three-of-a-kinds: a pair of the higher one goes front, the lower one stays back."
    ),
    "es.trips.default": ("Three of a kind stays back, the two highest single cards go front."),
    "es.trips.three_aces": (
        "Exception: three aces (the joker counts) are broken: one ace and the highest single "
        "card go front, two aces stay back."
    ),
    "es.three_pairs.default": "Three pairs: the highest pair goes front, the other two stay back.",
    "es.two_pairs.split": (
        "Two pairs and no single ace: split, the higher pair back, the lower pair front."
    ),
    "es.two_pairs.ace_front": (
        "Exception: two pairs with a single ace (or the joker): both pairs stay back, the ace "
        "and the highest other single card go front."
    ),
    "es.one_pair.default": "One pair stays back, the two highest other cards go front.",
    "es.no_pair.default": (
        "No pair: the highest card stays back, the second and third highest go front."
    ),
}

#: For each family, the other families its clauses may hand the hand to (R-HW-3).
REDIRECTS: dict[str, frozenset[str]] = redirects(
    straights=frozenset({"full_house", "trips", "three_pairs", "two_pairs", "one_pair"})
)


def _ace_with_highest_single(shape: Shape) -> Candidate:
    """R-HW-6: an ace (any of them, the joker counting) goes front with the highest other single."""
    other = next(r for r in shape.singles if r != ACE)
    partner = shape.one_of(other)
    return front_of(shape, *((ace, partner) for ace in shape.groups[ACE]))


# --- families ------------------------------------------------------------------------------------


def _five_aces(shape: Shape) -> Decision:
    if KING in shape.pairs:
        return shape.candidate(shape.groups[KING]), "es.five_aces.kings_front"
    return pair_front(shape, ACE), "es.five_aces.split"


def _four_of_a_kind(shape: Shape) -> Decision:
    quad = shape.quads[0]
    others = shape.pairs or shape.trips  # a pair, or trips, among the other three cards
    if others:
        return pair_front(shape, others[0]), "es.four_of_a_kind.pair_front"
    if quad <= 6:
        return two_highest_front(shape, (quad,)), "es.four_of_a_kind.two_to_six_together"
    if quad <= 10:
        if shape.single_ace:
            return _ace_with_highest_single(shape), "es.four_of_a_kind.seven_to_ten_ace_front"
        return pair_front(shape, quad), "es.four_of_a_kind.seven_to_ten_split"
    return pair_front(shape, quad), "es.four_of_a_kind.jacks_to_aces_split"


def _straight_with_front_of_rank(shape: Shape, rank: int) -> Candidate | None:
    """Best split keeping a straight or flush back with two cards of ``rank`` front."""
    return best(
        c
        for c in shape.straight_or_flush_splits()
        if rank_of(c.front[0]) == rank and rank_of(c.front[1]) == rank
    )


def _straights(shape: Shape) -> Decision:
    if shape.trips:
        if shape.pairs or len(shape.trips) > 1:
            return _full_house(shape)  # silent in docs/rules.md: see the module docstring
        kept = _straight_with_front_of_rank(shape, shape.trips[0])
        if kept is not None:
            return kept, "es.straights.trips_pair_front"
        return _trips(shape)
    if len(shape.pairs) >= 3:
        return _three_pairs(shape)
    if len(shape.pairs) == 2:
        return _two_pairs(shape)
    # Every straight or flush back beats any front (R-SET-1), so these are all legal (R-HW-5).
    if shape.pairs:
        pair = shape.pairs[0]
        kept = _straight_with_front_of_rank(shape, pair)
        if kept is not None:
            return kept, "es.straights.one_pair_front"
        if pair >= 10 and shape.single_at_least(JACK):
            return _one_pair(shape)
        chosen = best(shape.straight_or_flush_splits())
        assert chosen is not None  # the family holds a straight or flush
        return chosen, "es.straights.one_pair_keep"
    chosen = best(shape.straight_or_flush_splits())
    assert chosen is not None
    return chosen, "es.straights.no_pair"


def _full_house(shape: Shape) -> Decision:
    if len(shape.trips) > 1:
        higher = shape.trips[0]
        return pair_front(shape, higher), "es.full_house.two_trips"
    if len(shape.pairs) == 2:
        return shape.candidate(shape.groups[shape.pairs[0]]), "es.full_house.trips_two_pairs"
    return shape.candidate(shape.groups[shape.pairs[0]]), "es.full_house.pair_front"


def _trips(shape: Shape) -> Decision:
    if shape.trips[0] == ACE:
        return _ace_with_highest_single(shape), "es.trips.three_aces"
    return two_highest_front(shape, shape.trips), "es.trips.default"


def _three_pairs(shape: Shape) -> Decision:
    return shape.candidate(shape.groups[shape.pairs[0]]), "es.three_pairs.default"


def _two_pairs(shape: Shape) -> Decision:
    if shape.single_ace:
        return _ace_with_highest_single(shape), "es.two_pairs.ace_front"
    return shape.candidate(shape.groups[shape.pairs[1]]), "es.two_pairs.split"


def _one_pair(shape: Shape) -> Decision:
    return two_highest_front(shape, shape.pairs), "es.one_pair.default"


def _no_pair(shape: Shape) -> Decision:
    cards = shape.cards  # ranks high to low, all distinct
    return shape.candidate((cards[1], cards[2])), "es.no_pair.default"


#: R-HW-3: the family of the shape picks its rule, the ``_<family>`` function above.
decide = by_family(NAME, globals())
