"""The aggregate's cheaper paths (benchmarks/README.md, decisions) give exactly
what their definitions give: the deal's geometry, the commission game's settlement table, the
wagers and played hands the fold builds, and the House Way ``set_by_house_way`` keeps between
calls."""

from __future__ import annotations

import random
from dataclasses import FrozenInstanceError

import pytest

from table_core.cards import FULL_DECK
from table_core.dealing import (
    ASSIGNMENT_ORDER,
    POSITIONS,
    STACK_SIZE,
    STACK_SLICES,
    deal_deck,
    place_at,
    stack_for,
)
from table_core.hands import tables_for
from table_core.house_ways import REGISTRY, fr, register, set_by_house_way
from table_core.house_ways.shape import Shape, analyse
from table_core.rules import CommissionRules
from table_core.settlement import settlement_index
from table_core.table import folding, settling
from table_core.table.state import PlayedHand, Wager
from table_core.variants import settle_main_wager_variant

RULES = [
    CommissionRules(),
    CommissionRules(rate_bp=450, rounding_unit=25, rounding="down"),
    CommissionRules(mode="flat", fee=300),
    CommissionRules(mode="flat_always", fee=100),
    CommissionRules(rate_bp=0),  # the house hand's, against a player-banker (R-BANK-2)
]


def test_every_positions_place_and_stack_is_place_at_and_stack_for() -> None:
    for banker in range(POSITIONS):
        for first in range(1, POSITIONS + 1):
            expected = tuple(
                (position, place_at(position, banker), stack_for(position, first))
                for position in range(1, POSITIONS + 1)
            )
            assert ASSIGNMENT_ORDER[banker][first] == expected


def test_a_deck_is_cut_by_the_stack_slices_into_seven_stacks_of_seven() -> None:
    deck = tuple(random.Random(3).sample(FULL_DECK, 53))
    cut = tuple(deck[i : i + STACK_SIZE] for i in range(0, POSITIONS * STACK_SIZE, STACK_SIZE))
    assert tuple(deck[s] for s in STACK_SLICES) == cut == deal_deck(deck).stacks


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("amount", [1, 1_000, 1_234])
def test_the_table_settles_a_commission_wager_as_the_variant_function_does(
    rules: CommissionRules, amount: int
) -> None:
    settlements = settling._settlements(amount, rules)
    assert settling._settlements(amount, rules) is settlements  # kept for the next round
    strengths = [0, 1, 300, (1 << 20) + 1]
    for pb in strengths:
        for pf in strengths:
            for bb in strengths:
                for bf in strengths:
                    expected = settle_main_wager_variant(pb, pf, bb, bf, amount, rules)
                    assert settlements[settlement_index(pb, pf, bb, bf)] == expected


def test_a_wager_the_fold_builds_is_the_dataclass_and_the_kept_ones_are_bounded() -> None:
    wager = folding._wager(3, "ana", 2_500, 4)
    assert wager == Wager(3, "ana", 2_500, 4) and repr(wager) == repr(Wager(3, "ana", 2_500, 4))
    assert folding._wager(3, "ana", 2_500, 4) is wager  # immutable, so shared
    for amount in range(1, 5_000):
        folding._wager(3, "ana", amount, 4)
    assert folding._wager.cache_info().currsize <= 4_096


def test_a_played_hand_the_fold_builds_is_the_frozen_dataclass() -> None:
    hand = folding._played_hand((1, 2, 3, 4, 5), (6, 7), True)
    assert hand == PlayedHand((1, 2, 3, 4, 5), (6, 7), True)
    assert repr(hand) == repr(PlayedHand((1, 2, 3, 4, 5), (6, 7), True))
    assert hash(hand) == hash(PlayedHand((1, 2, 3, 4, 5), (6, 7), True))
    with pytest.raises(FrozenInstanceError):
        hand.forfeited = False  # type: ignore[misc]


def _renamed(clause: str):  # type: ignore[no-untyped-def]
    def decide(shape: Shape) -> tuple[object, str]:
        return fr.decide(shape)[0], clause

    return decide


def test_set_hand_follows_a_house_way_registered_again_and_the_tables_given() -> None:
    clauses = {"cache_test.first": "the first rule", "cache_test.second": "the second rule"}
    seven = (0, 5, 18, 27, 33, 44, 52)
    try:
        register("cache_test", clauses, _renamed("cache_test.first"))
        assert set_by_house_way(seven, "cache_test").rule == "cache_test.first"
        register("cache_test", clauses, _renamed("cache_test.second"))
        assert set_by_house_way(seven, "cache_test").rule == "cache_test.second"
    finally:
        REGISTRY.pop("cache_test", None)
    rng = random.Random(8)
    for _ in range(200):  # the wheel ranks alternate: each call uses the tables it is given
        cards = tuple(rng.sample(FULL_DECK, 7))
        for wheel in ("lowest", "second"):
            tables = tables_for(wheel)
            chosen, clause = fr.decide(analyse(cards, tables))
            split = set_by_house_way(cards, "fr", tables)
            assert (sorted(split.back), sorted(split.front), split.rule) == (
                sorted(chosen.back),
                sorted(chosen.front),
                clause,
            )
