"""The ``fr`` House Way: seed 000's "Façon Maison", the Golden Nugget House Way (R-HW-1).

Read docs/rules.md "House Way" / "fr" beside this file: each function below is one family of
clauses in the R-HW-3 order, and every split it returns carries the id of the clause that decided
it. The shape (pairs, trips, quads, the joker as an ace, R-HW-2) picks the family cheaply; only the
straight and flush clauses and the four-aces split enumerate splits (R-HW-4 needs them there).

Readings where docs/rules.md leaves a doubt (the golden vectors say the same in their "why"):

- Two pairs: exception (c) "H is aces" is checked first; it is a special case of (a) (with a pair
  of aces no other ace can be single), so it would otherwise never decide.
- Full house shapes with a straight (only A-A-joker trips can hold one) follow the straight
  clause, as R-HW-3 orders it; the fr straight rule names no full-house exception.
- A straight flush is given up only for a better front that is jack-high (a royal: king-high) or
  better, and any pair counts as better than jack-high (the clarified docs/rules.md (b)/(c), issue
  20): a plain straight that frees a pair of sevens qualifies.
- Straights exception (a) counts pairs as R-HW-2 does (the joker as an ace). Three pairs arise
  with a straight or flush only when the joker pairs a single ace; they meet (a) (aces with any
  other pair) and take the three-pair rule (clarified docs/rules.md, issue 20).
- Four of a kind 7-10: a pair taken from trips among the other cards "can go front" (R-HW-6), as
  the 2-6 and J-K rules say in so many words; with both a pair and a single ace, the pair goes
  front (R-HW-4: the better front).
- Two trips: "the lower full house back" can only be the lower trips: 3 + 3 + 1 cards leave no
  full house once a pair of the higher trips is front.
- Equal choices (same front and back either way) follow the shared R-HW-4 tie-break of
  ``shape.best``, as every House Way does: a real ace goes front, the joker stays back.
"""

from __future__ import annotations

from table_core.cards import ACE, Card
from table_core.hands import ROYAL_ORDER, STRAIGHT_FLUSH, front_is_pair
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
    singles_front,
)

NAME = "fr"

DEUCE, SIX, SEVEN, TEN = 2, 6, 7, 10

CLAUSES: dict[str, str] = {
    "fr.no_pair.default": "No pair: the highest card stays back, the next two highest go front.",
    "fr.one_pair.default": "One pair: the pair stays back, the two highest other cards go front.",
    "fr.two_pairs.keep_both": (
        "Two pairs, none of the exceptions below: both pairs back, the two highest singles front."
    ),
    "fr.two_pairs.split_sevens_no_ace": (
        "Two pairs, the higher sevens or better and no single ace: higher pair back, lower front."
    ),
    "fr.two_pairs.split_jacks_sixes_ace": (
        "Two pairs, jacks or better with sixes or better and a single ace: higher pair back,"
        " lower pair front, the ace back."
    ),
    "fr.two_pairs.split_aces": (
        "Two pairs, one of them aces (ace + joker counts): aces back, the other pair front."
    ),
    "fr.three_pairs.highest_pair_front": (
        "Three pairs: the highest pair front, the other two pairs and the single back."
    ),
    "fr.trips.default": "Three of a kind (not aces): trips back, the two highest singles front.",
    "fr.trips.break_aces": (
        "Three aces (the joker counts): a pair of aces back, an ace and the highest single front."
    ),
    "fr.full_house.split_pair_front": "Trips and a pair: trips back, the pair front.",
    "fr.full_house.keep_deuces_ace_or_king": (
        "Trips and a pair of deuces with an ace (or joker) or king single: the full house stays"
        " back, the two singles front."
    ),
    "fr.full_house.trips_two_pairs": (
        "Trips and two pairs: the higher pair front, trips and the lower pair back."
    ),
    "fr.full_house.two_trips": (
        "Two three of a kinds: a pair of the higher trips front, the lower trips back."
    ),
    "fr.straights.best_front": (
        "Straight or flush among the seven (six- and seven-card ones included): keep one back,"
        " choosing the one that leaves the best front. With two pairs and a single ace, jacks or"
        " better with sixes or better, or aces with any pair (the joker pairs an ace), the"
        " two-pair rule decides instead; with three pairs (only the joker pairing an ace makes"
        " them here) the three-pair rule."
    ),
    "fr.straights.keep_straight_flush": (
        "Straight flush: kept back with the best front it allows, unless the exception below."
    ),
    "fr.straights.give_up_straight_flush": (
        "Straight flush given up for a plain straight or flush when that leaves a better front"
        " that is jack-high or better (any pair counts as better than jack-high)."
    ),
    "fr.straights.keep_royal_flush": (
        "Royal flush: kept back with the best front it allows, unless the exception below."
    ),
    "fr.straights.give_up_royal_flush": (
        "Royal flush given up for a plain straight or flush when that leaves a better front"
        " that is king-high or better (any pair counts)."
    ),
    "fr.four_of_a_kind.two_to_six_together": (
        "Four deuces to sixes: always kept back; a pair (or trips) among the other three cards"
        " goes front, else the two highest others."
    ),
    "fr.four_of_a_kind.seven_to_ten_split": (
        "Four sevens to tens with no single ace and no other pair: split, one pair front."
    ),
    "fr.four_of_a_kind.seven_to_ten_ace_front": (
        "Four sevens to tens with a single ace (or joker): four back, the ace and the next"
        " highest card front."
    ),
    "fr.four_of_a_kind.seven_to_ten_pair_front": (
        "Four sevens to tens with another pair (or trips): four back, that pair front."
    ),
    "fr.four_of_a_kind.jacks_to_kings_split": (
        "Four jacks to kings without a pair of tens or better: split, one pair front."
    ),
    "fr.four_of_a_kind.jacks_to_kings_pair_front": (
        "Four jacks to kings with a pair (or trips) of tens or better: four back, that pair front."
    ),
    "fr.four_of_a_kind.aces_split": (
        "Four aces (the joker counts) without a pair of sevens or better: split, two aces front."
    ),
    "fr.four_of_a_kind.aces_pair_front": (
        "Four aces with a pair (or trips) of sevens or better: four aces back, that pair front."
    ),
    "fr.five_aces.split": "Five aces: three aces back, two aces front.",
    "fr.five_aces.kings_front": (
        "Five aces and a pair of kings: all five aces back, the kings front."
    ),
}

# R-HW-3: the straight clause hands some two-pair hands to the two-pair rule and three-pair hands
# (the joker pairing an ace) to the three-pair rule; nothing else moves.
REDIRECTS: dict[str, frozenset[str]] = redirects(straights=frozenset({"two_pairs", "three_pairs"}))


# --- small functions --------------------------------------------------------------------------


def _front(shape: Shape, first: Card, second: Card) -> Candidate:
    return shape.candidate((first, second))


def _front_reaches(candidate: Candidate, need: int) -> bool:
    """Straights (b)/(c): the front is ``need``-high or better; any pair counts as better."""
    return front_is_pair(candidate.front_strength) or (candidate.front_strength >> 4) & 15 >= need


def _other_pair(shape: Shape) -> int:
    """Rank of a pair or trips among the cards beside four of a kind (0 when none)."""
    groups = shape.trips or shape.pairs
    return groups[0] if groups else 0


# --- the clauses, one family each -------------------------------------------------------------


def _no_pair(shape: Shape) -> Decision:
    return singles_front(shape, skip=1), "fr.no_pair.default"


def _one_pair(shape: Shape) -> Decision:
    return singles_front(shape), "fr.one_pair.default"


def _two_pairs(shape: Shape) -> Decision:
    high, low = shape.pairs[0], shape.pairs[1]
    if high == ACE:  # (c) first: with a pair of aces no ace is single, so (a) would shadow it
        clause = "split_aces"
    elif high >= SEVEN and not shape.single_ace:
        clause = "split_sevens_no_ace"
    elif high >= JACK and low >= SIX and shape.single_ace:
        clause = "split_jacks_sixes_ace"
    else:
        return singles_front(shape), "fr.two_pairs.keep_both"
    # R-HW-6: the lower pair front; the higher pair and the three singles back.
    return pair_front(shape, low), f"fr.two_pairs.{clause}"


def _three_pairs(shape: Shape) -> Decision:
    return pair_front(shape, shape.pairs[0]), "fr.three_pairs.highest_pair_front"


def _trips(shape: Shape) -> Decision:
    rank = shape.trips[0]
    if rank == ACE:
        # Any of the three aces may go front with the highest single: R-HW-4 picks (with no
        # straight or flush among the seven, every choice gives the same two hands).
        top = shape.one_of(shape.singles[0])
        return front_of(shape, *((ace, top) for ace in shape.groups[ACE])), "fr.trips.break_aces"
    return singles_front(shape), "fr.trips.default"


def _full_house(shape: Shape) -> Decision:
    if len(shape.trips) == 2:
        return pair_front(shape, shape.trips[0]), "fr.full_house.two_trips"
    if len(shape.pairs) == 2:
        return pair_front(shape, shape.pairs[0]), "fr.full_house.trips_two_pairs"
    if shape.pairs[0] == DEUCE and shape.single_at_least(KING):
        return singles_front(shape), "fr.full_house.keep_deuces_ace_or_king"
    return pair_front(shape, shape.pairs[0]), "fr.full_house.split_pair_front"


def _two_pair_exception(shape: Shape) -> bool:
    """Straights exception (a): the seven also hold one of the listed two-pair hands, pairs
    counted as R-HW-2 counts them (A + JK is a pair of aces)."""
    if len(shape.pairs) != 2 or shape.trips:
        return False
    high, low = shape.pairs
    return shape.single_ace or (high >= JACK and low >= SIX) or high == ACE


def _straights(shape: Shape) -> Decision:
    if len(shape.pairs) == 3:
        # (a), clarified (issue 20): only the joker pairing a single ace gives three pairs beside a
        # straight or flush; aces with any other pair meet (a), and three pairs take their rule.
        return _three_pairs(shape)  # R-HW-3: the three-pair clause records its own id
    if _two_pair_exception(shape):
        return _two_pairs(shape)  # R-HW-3: the two-pair clause decides and records its own id
    options = shape.straight_or_flush_splits()  # every one is legal: a straight beats any front
    kept = best(c for c in options if c.back_category == STRAIGHT_FLUSH)
    plain = best(c for c in options if c.back_category < STRAIGHT_FLUSH)
    if kept is None:
        assert plain is not None, "the straights family holds a straight or flush"
        return plain, "fr.straights.best_front"
    if (kept.back_strength >> 16) & 15 == ROYAL_ORDER:
        need, give_up, keep = KING, "give_up_royal_flush", "keep_royal_flush"
    else:
        need, give_up, keep = JACK, "give_up_straight_flush", "keep_straight_flush"
    if (
        plain is not None
        and plain.front_strength > kept.front_strength
        and _front_reaches(plain, need)
    ):
        return plain, f"fr.straights.{give_up}"
    return kept, f"fr.straights.{keep}"


def _four_of_a_kind(shape: Shape) -> Decision:
    quad = shape.quads[0]
    other = _other_pair(shape)
    if quad <= SIX:
        together = pair_front(shape, other) if other else singles_front(shape)
        return together, "fr.four_of_a_kind.two_to_six_together"
    if quad <= TEN:
        if other:  # before the ace: a pair front beats ace-high (R-HW-4)
            return pair_front(shape, other), "fr.four_of_a_kind.seven_to_ten_pair_front"
        if shape.single_ace:
            return singles_front(shape), "fr.four_of_a_kind.seven_to_ten_ace_front"
        return pair_front(shape, quad), "fr.four_of_a_kind.seven_to_ten_split"
    if quad < ACE:
        if other >= TEN:
            return pair_front(shape, other), "fr.four_of_a_kind.jacks_to_kings_pair_front"
        return pair_front(shape, quad), "fr.four_of_a_kind.jacks_to_kings_split"
    if other >= SEVEN:
        return pair_front(shape, other), "fr.four_of_a_kind.aces_pair_front"
    # Four aces may be A-A-A-joker: which two go front matters when the joker, kept back with an
    # ace, fills a straight or flush there; _pair_front takes the best back (R-HW-4).
    return pair_front(shape, ACE), "fr.four_of_a_kind.aces_split"


def _five_aces(shape: Shape) -> Decision:
    if shape.pairs == (KING,):
        return pair_front(shape, KING), "fr.five_aces.kings_front"
    return pair_front(shape, ACE), "fr.five_aces.split"


#: R-HW-3: the family of the shape picks its rule, the ``_<family>`` function above.
decide = by_family(NAME, globals())
