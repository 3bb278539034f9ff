"""The Trump Plaza (Atlantic City) House Way: docs/rules.md "House Way", list ``trump_plaza``.

R-HW-1 names it; R-HW-2 (the joker is an ace for every shape and "single ace" test), R-HW-3 (clause
order and redirects), R-HW-4 (best front, then best back), R-HW-5 (never foul) and R-HW-6 ("X can go
front", how quads and two pairs split) apply throughout. docs/rules.md is the whole spec: there is
no seed document for this way.

Every clause answers one stable id from :data:`CLAUSES`. Most hands are decided from the shape alone
with one evaluated candidate; only straight and flush hands enumerate splits (cached in the shape).
Every split below is legal by construction (a pair or better back against an unpaired front, a
higher or equal pair back against a front pair, a straight or flush back), so no clause needs a
foul fallback; ``set_by_house_way`` still checks R-HW-5 on every hand.
"""

from __future__ import annotations

from table_core.cards import ACE, JOKER, rank_of
from table_core.hands import front_is_pair
from table_core.house_ways.shape import (
    KING,
    Candidate,
    Decision,
    Shape,
    best,
    by_family,
    pair_front,
    redirects,
    singles_front,
)

NAME = "trump_plaza"

#: Every clause and exception, in R-HW-3 order (the order :func:`decide` tries them).
CLAUSES: dict[str, str] = {
    "trump_plaza.five_aces.split": "Five aces: three aces back, two aces front.",
    "trump_plaza.five_aces.kings_front": (
        "Five aces with a pair of kings: all five aces back, the kings front."
    ),
    "trump_plaza.four_of_a_kind.pair_front": (
        "Four of a kind with a pair or three of a kind among the other cards: that pair (two of "
        "the three) front, the four of a kind back, whatever its rank."
    ),
    "trump_plaza.four_of_a_kind.low_together": (
        "Four twos to sixes: never split; the two highest other cards front."
    ),
    "trump_plaza.four_of_a_kind.medium_split": (
        "Four sevens to tens without a single king or ace: split, one pair front, one pair back "
        "with the other three cards."
    ),
    "trump_plaza.four_of_a_kind.medium_king_or_ace_front": (
        "Four sevens to tens with a single king or ace (or the joker): four back, that card and "
        "the next highest single front."
    ),
    "trump_plaza.four_of_a_kind.high_split": (
        "Four jacks, queens or kings without a single ace: split, one pair front."
    ),
    "trump_plaza.four_of_a_kind.high_ace_front": (
        "Four jacks, queens or kings with a single ace (or the joker): four back, the ace and the "
        "next highest single front."
    ),
    "trump_plaza.four_of_a_kind.aces_split": (
        "Four aces (the joker may be one) without a pair among the others: always split, a pair "
        "of aces front."
    ),
    "trump_plaza.straights.no_pair": (
        "Straight, flush or straight flush and no pair: keep one back so that the two highest "
        "possible cards go front (six- and seven-card ones included; a straight flush is given up "
        "for a better front)."
    ),
    "trump_plaza.straights.one_pair_front": (
        "Straight or flush with one pair: the pair front when a straight or flush still stays back."
    ),
    "trump_plaza.straights.one_pair_best_front": (
        "Straight or flush with one pair that cannot go front: the straight or flush back with "
        "the best front it leaves."
    ),
    "trump_plaza.straights.trips_pair_front": (
        "Straight or flush with three of a kind: a pair of the three front and the straight or "
        "flush back where possible (with ace-ace-joker the joker goes front, never needed back); "
        "otherwise the three-of-a-kind rule. With two pairs, three pairs or a full house those "
        "rules decide."
    ),
    "trump_plaza.full_house.split": (
        "Full house: always split, the pair front and the three of a kind back."
    ),
    "trump_plaza.full_house.deuces_ace_king_front": (
        "Full house with a pair of twos and both an ace (or the joker) and a king as singles: the "
        "full house back, ace-king front."
    ),
    "trump_plaza.full_house.trips_two_pairs": (
        "Three of a kind and two pairs: the higher pair front, the full house back."
    ),
    "trump_plaza.full_house.two_trips": (
        "Two threes of a kind: a pair from the higher one front, the lower three of a kind back."
    ),
    "trump_plaza.trips.default": (
        "Three of a kind (not aces): back, the two highest singles front."
    ),
    "trump_plaza.trips.split_aces": (
        "Three aces (the joker may be one): a pair of aces back, an ace and the highest single "
        "front."
    ),
    "trump_plaza.three_pairs.highest_pair_front": (
        "Three pairs: the highest pair front, the other two pairs and the single back."
    ),
    "trump_plaza.two_pairs.low_split": (
        "Two pairs, both twos to sixes, or one twos to sixes and one sevens to tens, without a "
        "single king or ace: split, the lower pair front."
    ),
    "trump_plaza.two_pairs.low_king_or_ace_front": (
        "The same two pairs with a single king or ace (or the joker): both pairs back, that card "
        "and the next highest single front."
    ),
    "trump_plaza.two_pairs.middle_split": (
        "Two pairs, twos to sixes with jacks to kings, or both sevens to tens, without a single "
        "ace: split, the lower pair front."
    ),
    "trump_plaza.two_pairs.middle_ace_front": (
        "The same two pairs with a single ace (or the joker): both pairs back, the ace and the "
        "next highest single front."
    ),
    "trump_plaza.two_pairs.high_split": (
        "Two pairs, sevens to tens with jacks to kings, both jacks to kings, or aces with any "
        "pair: always split, the lower pair front."
    ),
    "trump_plaza.one_pair.default": "One pair: the pair back, the next two highest cards front.",
    "trump_plaza.no_pair.default": "No pair: the highest card back, the next two highest front.",
}

#: R-HW-3 redirects: only the straight and flush clause hands a hand to other families.
REDIRECTS: dict[str, frozenset[str]] = redirects(
    straights=frozenset({"two_pairs", "three_pairs", "full_house", "trips"})
)


# Rank groups of the published way: low 2-6, medium 7-10, high J-K, aces apart.
_LOW, _MEDIUM, _HIGH, _ACES = 0, 1, 2, 3


def _group(rank: int) -> int:
    if rank <= 6:
        return _LOW
    if rank <= 10:
        return _MEDIUM
    return _HIGH if rank < ACE else _ACES


# --- clause families, R-HW-3 order ------------------------------------------------------------


def _five_aces(shape: Shape) -> Decision:
    if KING in shape.pairs:
        return pair_front(shape, KING), "trump_plaza.five_aces.kings_front"
    return pair_front(shape, ACE), "trump_plaza.five_aces.split"


def _four_of_a_kind(shape: Shape) -> Decision:
    quad = shape.quads[0]
    others = shape.pairs or shape.trips
    if others:  # with trips among the others, two of them go front, the third stays back
        return pair_front(shape, others[0]), "trump_plaza.four_of_a_kind.pair_front"
    group = _group(quad)
    if group == _LOW:
        return singles_front(shape), "trump_plaza.four_of_a_kind.low_together"
    if group == _MEDIUM:
        if shape.single_at_least(KING):
            return singles_front(shape), "trump_plaza.four_of_a_kind.medium_king_or_ace_front"
        return pair_front(shape, quad), "trump_plaza.four_of_a_kind.medium_split"
    if group == _HIGH:
        if shape.single_ace:
            return singles_front(shape), "trump_plaza.four_of_a_kind.high_ace_front"
        return pair_front(shape, quad), "trump_plaza.four_of_a_kind.high_split"
    # Four aces: the two real aces go front so that a joker among them stays back, where it can
    # still fill a straight (A A A JK K Q J: the back A-JK-K-Q-J is a straight).
    return pair_front(shape, ACE), "trump_plaza.four_of_a_kind.aces_split"


def _straights(shape: Shape) -> Decision:
    # R-HW-3 redirects: two pairs, three pairs and full house shapes use their own rules.
    if shape.trips and (shape.pairs or len(shape.trips) > 1):
        return _full_house(shape)
    if len(shape.pairs) >= 3:
        return _three_pairs(shape)
    if len(shape.pairs) == 2:
        return _two_pairs(shape)
    if shape.trips:
        found = _trips_pair_front(shape, shape.trips[0])
        if found is None:
            return _trips(shape)
        return found, "trump_plaza.straights.trips_pair_front"
    # No pair or one pair: R-HW-4 best front among the straight/flush backs. With one pair a pair
    # front outranks every unpaired front, so "the pair front if a straight or flush stays back"
    # is exactly the best front; the id says which case decided.
    chosen = best(shape.straight_or_flush_splits())
    assert chosen is not None, "the straights family always holds a straight or flush back"
    if not shape.pairs:
        return chosen, "trump_plaza.straights.no_pair"
    if front_is_pair(chosen.front_strength):
        return chosen, "trump_plaza.straights.one_pair_front"
    return chosen, "trump_plaza.straights.one_pair_best_front"


def _trips_pair_front(shape: Shape, rank: int) -> Candidate | None:
    """A straight or flush back with two of the trips front, best back first (R-HW-4).

    With A-A-joker trips the clause forbids the two real aces front with the joker needed back as
    a filler; since any back holding the joker and four singles uses the joker as a filler, only
    fronts holding the joker are allowed.
    """
    joker_must_go_front = rank == ACE and shape.has_joker

    def allowed(candidate: Candidate) -> bool:
        first, second = candidate.front
        if rank_of(first) != rank or rank_of(second) != rank:
            return False
        return not joker_must_go_front or JOKER in candidate.front

    return best(split for split in shape.straight_or_flush_splits() if allowed(split))


def _full_house(shape: Shape) -> Decision:
    if len(shape.trips) > 1:
        return pair_front(shape, shape.trips[0]), "trump_plaza.full_house.two_trips"
    if len(shape.pairs) > 1:
        higher = shape.pairs[0]
        return pair_front(shape, higher), "trump_plaza.full_house.trips_two_pairs"
    pair = shape.pairs[0]
    if pair == 2 and ACE in shape.singles and KING in shape.singles:
        return singles_front(shape), "trump_plaza.full_house.deuces_ace_king_front"
    return pair_front(shape, pair), "trump_plaza.full_house.split"


def _trips(shape: Shape) -> Decision:
    if shape.trips[0] == ACE:
        # A real ace goes front (one_of): a joker left back with the other ace is never worse
        # and may make a straight (A A JK 9 4 3 2: the back A-JK-4-3-2 is the wheel).
        top = shape.groups[shape.singles[0]][0]
        return shape.candidate((shape.one_of(ACE), top)), "trump_plaza.trips.split_aces"
    return singles_front(shape), "trump_plaza.trips.default"


def _three_pairs(shape: Shape) -> Decision:
    top = shape.pairs[0]
    return pair_front(shape, top), "trump_plaza.three_pairs.highest_pair_front"


def _two_pairs(shape: Shape) -> Decision:
    high, low = shape.pairs[0], shape.pairs[1]
    groups = (_group(low), _group(high))
    split = pair_front(shape, low)  # R-HW-6: the lower pair goes front
    if groups in ((_LOW, _LOW), (_LOW, _MEDIUM)):
        if shape.single_at_least(KING):
            return singles_front(shape), "trump_plaza.two_pairs.low_king_or_ace_front"
        return split, "trump_plaza.two_pairs.low_split"
    if groups in ((_LOW, _HIGH), (_MEDIUM, _MEDIUM)):
        if shape.single_ace:
            return singles_front(shape), "trump_plaza.two_pairs.middle_ace_front"
        return split, "trump_plaza.two_pairs.middle_split"
    return split, "trump_plaza.two_pairs.high_split"  # medium+high, high+high, aces+any


def _one_pair(shape: Shape) -> Decision:
    return singles_front(shape), "trump_plaza.one_pair.default"


def _no_pair(shape: Shape) -> Decision:
    s = shape.singles  # the highest stays back, the next two go front
    return shape.candidate((shape.groups[s[1]][0], shape.groups[s[2]][0])), (
        "trump_plaza.no_pair.default"
    )


#: R-HW-3: the family of the shape picks its rule, the ``_<family>`` function above.
decide = by_family(NAME, globals())
