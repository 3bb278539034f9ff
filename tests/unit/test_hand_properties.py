"""Properties of hand values, checked against an independent brute force of R-HI-1..5.

The brute force below knows ordinary poker only. It models the semi-wild joker (R-HI-3, R-HI-4) by
trying it as every card absent from the hand and keeping the result only when that makes a
straight, a flush or a straight flush; otherwise the joker is an ace by rank (it has no suit), so
it can pair nothing but aces. The best of those is the joker's value. This shares no code with
``table_core.hands`` beyond the card encoding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_core.cards import ACE, FULL_DECK, JOKER, Card, make_card, rank_of, suit_of
from table_core.hands import (
    WheelRank,
    five_card_strength,
    is_suited,
    pack,
    reference_flush,
    reference_plain,
    strength_list,
    tables_for,
    two_card_strength,
)
from table_core.rules import CommissionRules
from table_core.settlement import settle_main_wager

STRAIGHT_OR_FLUSH = {4, 5, 8}  # straight, flush, straight flush (R-HI-1 category numbers)


# --- the independent brute force ----------------------------------------------------------------


def poker_value(cards: Sequence[tuple[int, int]], wheel_rank: WheelRank) -> list[int]:
    """Ordinary poker value of five (rank, suit) cards, in the public strength-list form."""
    ranks = [r for r, _ in cards]
    flush = len({s for _, s in cards}) == 1
    high_to_low = sorted(set(ranks), reverse=True)
    order = 0
    if len(high_to_low) == 5:
        if high_to_low[0] - high_to_low[4] == 4:
            order = 15 if high_to_low[0] == ACE else high_to_low[0]
        elif high_to_low == [14, 5, 4, 3, 2]:
            order = 14 if wheel_rank == "second" else 5
    if order:
        return [8 if flush else 4, order]
    if flush:
        return [5, *sorted(ranks, reverse=True)]
    counts = Counter(ranks)
    # Tie-breakers: ranks of bigger groups first, higher ranks first within a group size.
    by_group = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    category = {
        (5,): 9,
        (4, 1): 7,
        (3, 2): 6,
        (3, 1, 1): 3,
        (2, 2, 1): 2,
        (2, 1, 1, 1): 1,
        (1, 1, 1, 1, 1): 0,
    }[tuple(shape)]
    return [category] if category == 9 else [category, *by_group]


def brute_force(cards: Sequence[Card], wheel_rank: WheelRank) -> list[int]:
    """The value R-HI-3/R-HI-4 give five distinct cards, by trying the joker as every card."""
    real = [(rank_of(c), suit_of(c)) for c in cards if c != JOKER]
    if len(real) == 5:
        return poker_value(real, wheel_rank)
    # Otherwise an ace: a suit no real card has, so it completes no flush by itself.
    best = poker_value([*real, (ACE, 4)], wheel_rank)
    for stand_in in FULL_DECK[:-1]:
        if stand_in in cards:
            continue
        value = poker_value([*real, (rank_of(stand_in), suit_of(stand_in))], wheel_rank)
        if value[0] in STRAIGHT_OR_FLUSH:
            best = max(best, value)
    return best


def test_brute_force_knows_the_rule_book_examples() -> None:
    # A check of the checker, from R-HI-3/R-HI-4's own examples.
    def cards(*texts: str) -> list[Card]:
        out = []
        for t in texts:
            out.append(
                JOKER
                if t == "JK"
                else make_card("23456789TJQKA".index(t[0]) + 2, "shdc".index(t[1]))
            )
        return out

    assert brute_force(cards("As", "Ks", "7s", "4s", "JK"), "second") == [5, 14, 13, 12, 7, 4]
    assert brute_force(cards("9h", "Td", "Jc", "Qs", "JK"), "second") == [4, 13]
    assert brute_force(cards("Ks", "Kd", "JK", "7c", "2h"), "second") == [1, 13, 14, 7, 2]
    assert brute_force(cards("Ah", "Ad", "Ac", "As", "JK"), "second") == [9]


# --- strategies ---------------------------------------------------------------------------------

WHEELS: tuple[WheelRank, ...] = ("second", "lowest")

any_five = st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=5, unique=True)
with_joker = st.lists(st.sampled_from(FULL_DECK[:-1]), min_size=4, max_size=4, unique=True).map(
    lambda four: [*four, JOKER]
)
# Suited hands with the joker are where R-HI-4 matters most; draw them on purpose.
suited_with_joker = st.tuples(
    st.integers(0, 3), st.lists(st.integers(2, 14), min_size=4, max_size=4, unique=True)
).map(lambda t: [*(make_card(r, t[0]) for r in t[1]), JOKER])
five_cards = st.one_of(any_five, with_joker, suited_with_joker)
wheel = st.sampled_from(WHEELS)


def value(cards: Sequence[Card], wheel_rank: WheelRank = "second") -> int:
    return five_card_strength(cards, tables_for(wheel_rank))


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(five_cards, wheel)
def test_strength_equals_the_brute_force_and_the_reference_rules(
    cards: list[Card], wheel_rank: WheelRank
) -> None:
    strength = value(cards, wheel_rank)
    assert strength_list(strength) == brute_force(cards, wheel_rank)
    ranks = [15 if c == JOKER else rank_of(c) for c in cards]  # the reference's joker is 15
    reference = reference_flush if is_suited(cards) else reference_plain
    assert strength == pack(*reference(ranks, wheel_rank))


@settings(max_examples=300, deadline=None)
@given(five_cards, st.permutations(range(4)), wheel)
def test_strength_is_invariant_under_suit_permutation(
    cards: list[Card], suits: list[int], wheel_rank: WheelRank
) -> None:
    # R-CARD-3: suits never break ties, and renaming them changes no hand.
    renamed = [c if c == JOKER else make_card(rank_of(c), suits[suit_of(c)]) for c in cards]
    assert value(renamed, wheel_rank) == value(cards, wheel_rank)


@settings(max_examples=300, deadline=None)
@given(with_joker | suited_with_joker, wheel)
def test_joker_never_scores_below_an_absent_ace(cards: list[Card], wheel_rank: WheelRank) -> None:
    # R-HI-3: the joker is at least an ace, whichever absent ace it is compared with.
    with_joker_value = value(cards, wheel_rank)
    absent_aces = [make_card(ACE, s) for s in range(4) if make_card(ACE, s) not in cards]
    for ace in absent_aces:
        replaced = [ace if c == JOKER else c for c in cards]
        assert with_joker_value >= value(replaced, wheel_rank)
    # R-LO-1: in front the joker is exactly an ace.
    other = cards[0]
    for ace in absent_aces:
        if ace != other:
            assert two_card_strength([other, JOKER]) == two_card_strength([other, ace])


@settings(max_examples=300, deadline=None)
@given(five_cards, five_cards, five_cards, wheel)
def test_comparison_is_a_total_preorder(
    a: list[Card], b: list[Card], c: list[Card], wheel_rank: WheelRank
) -> None:
    va, vb, vc = (value(h, wheel_rank) for h in (a, b, c))
    # Total: exactly one of win, copy, loss; and the public list form orders the same way.
    assert [va > vb, va == vb, va < vb].count(True) == 1
    la, lb = strength_list(va), strength_list(vb)
    assert (va > vb, va == vb) == (la > lb, la == lb)
    # Transitive.
    if va >= vb and vb >= vc:
        assert va >= vc
    # The packed value is a faithful image of the brute force's order.
    ba, bb = brute_force(a, wheel_rank), brute_force(b, wheel_rank)
    assert (va > vb, va == vb) == (ba > bb, ba == bb)


two_cards = st.lists(st.sampled_from(FULL_DECK), min_size=2, max_size=2, unique=True)
commission_rules = st.one_of(
    st.builds(
        CommissionRules,
        mode=st.just("percent"),
        rate_bp=st.integers(0, 10_000),
        rounding_unit=st.sampled_from([1, 5, 25, 100]),
        rounding=st.sampled_from(["half_up", "up", "down"]),
    ),
    st.builds(
        CommissionRules,
        mode=st.sampled_from(["flat", "flat_always"]),
        fee=st.integers(1, 10_000),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    five_cards,
    two_cards,
    five_cards,
    two_cards,
    st.integers(1, 10_000_000),
    commission_rules,
    st.booleans(),
)
def test_settlement_conserves_money(
    player_back: list[Card],
    player_front: list[Card],
    banker_back: list[Card],
    banker_front: list[Card],
    wager: int,
    rules: CommissionRules,
    forfeited: bool,
) -> None:
    settled = settle_main_wager(
        value(player_back),
        two_card_strength(player_front),
        value(banker_back),
        two_card_strength(banker_front),
        wager,
        rules,
        forfeited=forfeited,
    )
    # Player, house (commission) and banker together neither make nor lose a cent.
    assert settled.net + settled.commission + settled.banker_net == 0
    # The banker pays or takes exactly the wager (R-PAY-1); commission is the house's (R-PAY-3).
    gross = {"win": wager, "push": 0, "loss": -wager}[settled.result]
    assert settled.banker_net == -gross
    assert settled.commission >= 0
    if rules.mode != "flat_always":
        assert settled.commission <= max(gross, 0)  # never more than the win
    if rules.mode == "percent" and 0 < settled.commission < wager:
        assert settled.commission % rules.rounding_unit == 0  # whole chips (R-PAY-2)
    if forfeited:
        assert settled.result == "loss"


# --- every table entry against the brute force --------------------------------------------------


def _plain_representatives() -> list[list[Card]]:
    """One hand for every rank multiset that is not suited (the plain table's keys)."""
    hands = []
    for n_jokers in (0, 1):
        for ranks in combinations_with_replacement(range(2, 15), 5 - n_jokers):
            if max(Counter(ranks).values()) > 4:
                continue
            if len(set(ranks)) == len(ranks):
                suits = [i % 4 for i in range(len(ranks))]  # distinct ranks: mixed suits
            else:
                seen: Counter[int] = Counter()
                suits = []
                for r in ranks:  # the n-th card of a rank takes the n-th suit
                    suits.append(seen[r])
                    seen[r] += 1
            hands.append(
                [*(make_card(r, s) for r, s in zip(ranks, suits, strict=True))] + [JOKER] * n_jokers
            )
    return hands


def _flush_representatives() -> list[list[Card]]:
    """One suited hand for every set of distinct ranks (the flush table's keys)."""
    return [
        [*(make_card(r, 2) for r in ranks)] + [JOKER] * n_jokers
        for n_jokers in (0, 1)
        for ranks in combinations(range(2, 15), 5 - n_jokers)
    ]


@pytest.mark.parametrize("wheel_rank", WHEELS)
def test_every_rank_pattern_matches_the_brute_force(wheel_rank: WheelRank) -> None:
    tables = tables_for(wheel_rank)
    plain, flush = _plain_representatives(), _flush_representatives()
    assert (len(plain), len(flush)) == (len(tables.plain), len(tables.flush))
    wrong = [
        hand
        for hand in plain + flush
        if strength_list(five_card_strength(hand, tables)) != brute_force(hand, wheel_rank)
    ]
    assert wrong == []
