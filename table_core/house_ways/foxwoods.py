"""The Foxwoods House Way (docs/rules.md, House Way, ``foxwoods``; R-HW-1..6).

The published Foxwoods way, the one the exact combinatorial analysis used. ``decide`` reads the
shape first (R-HW-2) and only searches splits where a clause needs it: the straight and flush
clauses, and the few places where equal cards may change the back (the joker among the aces).

Where equal choices give exactly the same front and back (a real ace or the joker, both playing
as an ace), a real ace goes front and the joker stays back: one fixed answer, so events and
golden vectors do not depend on the order in which candidates were built.
"""

from __future__ import annotations

from table_core.cards import ACE, rank_of
from table_core.house_ways.shape import (
    JACK,
    KING,
    Decision,
    Shape,
    best,
    by_family,
    front_of,
    pair_front,
    redirects,
    singles_front,
)

NAME = "foxwoods"

_P = "foxwoods."

# Every clause and every exception, in rule order (R-HW-3); rendered into the docs table.
CLAUSES: dict[str, str] = {
    _P + "five_aces.kings_front": (
        "Five aces with a pair of kings: the kings go front, all five aces stay back."
    ),
    _P + "five_aces.aces_front": (
        "Five aces otherwise: a pair of aces goes front, three aces and the other two cards back."
    ),
    _P + "four_of_a_kind.pair_front": (
        "Four of a kind with a pair or trips among the other three cards: that pair goes front, "
        "the four of a kind stays back, whatever its rank."
    ),
    _P + "four_of_a_kind.jacks_to_aces_split": (
        "Four jacks, queens, kings or aces (no other pair): always split, one pair front, "
        "the other pair and the three singles back."
    ),
    _P + "four_of_a_kind.sevens_to_tens_split": (
        "Four sevens to tens with no single king or ace: split, one pair front."
    ),
    _P + "four_of_a_kind.sevens_to_tens_king_or_ace_front": (
        "Four sevens to tens with a single king or ace (the joker counts as an ace): the four stay "
        "together, the king or ace and the next highest single go front."
    ),
    _P + "four_of_a_kind.six_or_lower_together": (
        "Four sixes or lower: never split, the two highest singles go front."
    ),
    _P + "straights.no_pair": (
        "Straight, flush or straight flush with no pair: the two highest cards go front that "
        "still leave a straight, flush or straight flush back (a straight flush is given up "
        "when a plain straight or flush back leaves a better front)."
    ),
    _P + "straights.one_pair": (
        "Straight or flush with one pair: the best two cards (a pair or not) that still leave "
        "one back go front; but with a single ace and a pair of tens to kings, when the one-pair "
        "rule gives a better front, the one-pair rule decides (recorded as foxwoods.one_pair)."
    ),
    _P + "straights.trips_pair_front": (
        "Straight or flush with trips: the straight or flush stays back and a pair of the trips "
        "goes front; where that is impossible the trips rule decides (recorded as "
        "foxwoods.trips). A straight or flush with two pairs, three pairs or a full house "
        "shape is set by the two-pair, three-pair or full house rule."
    ),
    _P + "full_house.pair_front": (
        "Trips and a pair: always split, the pair goes front (a pair of the trips would foul "
        "when the trips are higher), the trips stay back."
    ),
    _P + "full_house.trips_two_pairs_higher_pair_front": (
        "Trips and two pairs, a pair higher than the trips: the higher pair goes front, "
        "the trips and the lower pair (a full house) back."
    ),
    _P + "full_house.trips_two_pairs_trips_front": (
        "Trips and two pairs, the trips higher than both pairs: a pair of the trips goes front, "
        "two pair back (KKK 99 55: K-K front)."
    ),
    _P + "full_house.two_trips": (
        "Two trips: a pair of the higher trips goes front, the lower trips back."
    ),
    _P + "trips.default": "Trips: the trips stay back, the two highest singles go front.",
    _P + "trips.three_aces": (
        "Three aces (the joker counts as an ace): a pair of aces back, an ace and the highest "
        "single front."
    ),
    _P + "three_pairs.highest_pair_front": (
        "Three pairs: the highest pair goes front, the other two pairs and the single back."
    ),
    _P + "two_pairs.jacks_or_better_split": (
        "Two pairs, the higher jacks to aces: always split, the lower pair front."
    ),
    _P + "two_pairs.sevens_to_tens_split": (
        "Two pairs, the higher sevens to tens, no single ace: split, the lower pair front."
    ),
    _P + "two_pairs.sevens_to_tens_ace_front": (
        "Two pairs, the higher sevens to tens, with a single ace (or the joker): both pairs "
        "back, the ace and the next highest single front."
    ),
    _P + "two_pairs.low_split": (
        "Two pairs, the higher threes to sixes, no single king or ace: split, the lower pair front."
    ),
    _P + "two_pairs.low_king_or_ace_front": (
        "Two pairs, the higher threes to sixes, with a single king or ace (or the joker): both "
        "pairs back, the king or ace and the next highest single front."
    ),
    _P + "one_pair.default": "One pair: the pair back, the two highest other cards front.",
    _P + "no_pair.default": "No pair: the highest card back, the second and third highest front.",
}

#: The other families each family's clauses may hand a hand to (R-HW-3).
REDIRECTS: dict[str, frozenset[str]] = redirects(
    straights=frozenset({"full_house", "trips", "three_pairs", "two_pairs", "one_pair"})
)

SEVEN, TEN = 7, 10


# --- choosing among allowed splits (R-HW-4) ------------------------------------------------------


# --- the clauses, in R-HW-3 order -------------------------------------------------------------


def _five_aces(shape: Shape) -> Decision:
    others = [c for c in shape.cards if rank_of(c) != ACE]  # the two cards beside five aces
    if shape.pairs == (KING,):
        return shape.candidate(others), _P + "five_aces.kings_front"
    return pair_front(shape, ACE), _P + "five_aces.aces_front"


def _four_of_a_kind(shape: Shape) -> Decision:
    quad = shape.quads[0]
    grouped = shape.trips or shape.pairs  # the other three cards: trips, pair + single, or singles
    if grouped:
        return pair_front(shape, grouped[0]), _P + "four_of_a_kind.pair_front"
    if quad >= JACK:
        return pair_front(shape, quad), _P + "four_of_a_kind.jacks_to_aces_split"
    if quad >= SEVEN:
        if shape.single_at_least(KING):
            return singles_front(shape), _P + "four_of_a_kind.sevens_to_tens_king_or_ace_front"
        return pair_front(shape, quad), _P + "four_of_a_kind.sevens_to_tens_split"
    return singles_front(shape), _P + "four_of_a_kind.six_or_lower_together"


def _straights(shape: Shape) -> Decision:
    if shape.trips:
        if shape.pairs or len(shape.trips) > 1:
            # The Foxwoods straight clause is silent on full house shapes (only possible with the
            # joker among the aces): a full house beats the straight, so its own rule decides.
            return _full_house(shape)
        return _straights_trips(shape)
    if len(shape.pairs) >= 3:
        # Silent in the rule; only ace + joker as a pair with the joker filling the back reaches
        # here. Like "two pairs: the two-pair rule", the three-pair rule decides.
        return _three_pairs(shape)
    if len(shape.pairs) == 2:
        return _two_pairs(shape)  # "Two pairs: the two-pair rule."
    kept = best(shape.straight_or_flush_splits())
    assert kept is not None, "the straights family holds a straight or flush"
    if not shape.pairs:
        return kept, _P + "straights.no_pair"
    if shape.single_ace and TEN <= shape.pairs[0] <= KING:
        by_pair, clause = _one_pair(shape)
        if by_pair.front_strength > kept.front_strength:  # only when that front is better
            return by_pair, clause
    return kept, _P + "straights.one_pair"


def _straights_trips(shape: Shape) -> Decision:
    rank = shape.trips[0]
    pair_front = best(
        c
        for c in shape.straight_or_flush_splits()
        if rank_of(c.front[0]) == rank_of(c.front[1]) == rank
    )
    if pair_front is not None:
        return pair_front, _P + "straights.trips_pair_front"
    return _trips(shape)  # "else the trips rule" (only A-A-joker, the joker needed back)


def _full_house(shape: Shape) -> Decision:
    # "The highest pair that can go front without fouling goes front": try each rank that holds
    # a pair (trips included), highest first.
    ranks = sorted(shape.trips + shape.pairs, reverse=True)
    chosen = next(c for c in (pair_front(shape, r) for r in ranks) if c.legal)
    if len(shape.trips) > 1:
        return chosen, _P + "full_house.two_trips"
    if len(shape.pairs) > 1:
        if rank_of(chosen.front[0]) == shape.trips[0]:
            return chosen, _P + "full_house.trips_two_pairs_trips_front"
        return chosen, _P + "full_house.trips_two_pairs_higher_pair_front"
    return chosen, _P + "full_house.pair_front"


def _trips(shape: Shape) -> Decision:
    if shape.trips[0] == ACE:
        # An ace and the highest single front; which ace matters when the joker left back
        # fills a straight or flush (R-HW-4: best back).
        single = shape.one_of(shape.singles[0])
        fronts = [(ace, single) for ace in shape.groups[ACE]]
        return front_of(shape, *fronts), _P + "trips.three_aces"
    return singles_front(shape), _P + "trips.default"


def _three_pairs(shape: Shape) -> Decision:
    return pair_front(shape, shape.pairs[0]), _P + "three_pairs.highest_pair_front"


def _two_pairs(shape: Shape) -> Decision:
    high = shape.pairs[0]
    if high >= JACK:
        clause = "two_pairs.jacks_or_better_split"
    elif high >= SEVEN:
        if shape.single_ace:
            return singles_front(shape), _P + "two_pairs.sevens_to_tens_ace_front"
        clause = "two_pairs.sevens_to_tens_split"
    elif shape.single_at_least(KING):
        return singles_front(shape), _P + "two_pairs.low_king_or_ace_front"
    else:
        clause = "two_pairs.low_split"
    # Split (R-HW-6): the higher pair stays back, the lower pair goes front.
    return shape.candidate(shape.groups[shape.pairs[1]]), _P + clause


def _one_pair(shape: Shape) -> Decision:
    return singles_front(shape), _P + "one_pair.default"


def _no_pair(shape: Shape) -> Decision:
    return shape.candidate(shape.cards[1:3]), _P + "no_pair.default"


#: R-HW-3: the family of the shape picks its rule, the ``_<family>`` function above.
decide = by_family(NAME, globals())
