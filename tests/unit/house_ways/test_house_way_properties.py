"""Properties every House Way must hold over random hands (R-HW-1..5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_core.cards import FULL_DECK
from table_core.hands import tables_for
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way
from table_core.house_ways.shape import FAMILIES, analyse, clause_family, family
from table_core.split import value_split

seven_cards = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True)


@pytest.mark.parametrize("house_way", BUILT_IN)
@settings(max_examples=400, deadline=None)
@given(cards=seven_cards, order=st.randoms(use_true_random=False))
def test_house_way_split_is_a_legal_partition_independent_of_card_order(
    house_way: str, cards: list[int], order: object
) -> None:
    split = set_by_house_way(cards, house_way)
    assert sorted(split.cards) == sorted(cards)  # a partition of the seven
    assert len(split.back) == 5 and len(split.front) == 2
    assert value_split(split).legal  # R-HW-5: never fouled
    shuffled = list(cards)
    order.shuffle(shuffled)  # type: ignore[attr-defined]
    again = set_by_house_way(shuffled, house_way)
    assert (again.back, again.front, again.rule) == (split.back, split.front, split.rule)


@pytest.mark.parametrize("house_way", BUILT_IN)
@settings(max_examples=400, deadline=None)
@given(cards=seven_cards)
def test_reported_clause_is_the_one_r_hw_3_selects(house_way: str, cards: list[int]) -> None:
    """The clause's family is the R-HW-3 family of the hand, or one that family hands over to."""
    module = __import__(f"table_core.house_ways.{house_way}", fromlist=["REDIRECTS"])
    split = set_by_house_way(cards, house_way)
    assert split.rule is not None and split.rule.startswith(f"{house_way}.")
    selected = family(analyse(cards, tables_for("second")))
    decided = clause_family(split.rule)
    assert decided in FAMILIES
    assert decided == selected or decided in module.REDIRECTS.get(selected, frozenset())


@pytest.mark.parametrize("house_way", BUILT_IN)
def test_every_clause_id_is_documented_and_namespaced(house_way: str) -> None:
    clauses = get_house_way(house_way).clauses
    assert clauses, "a House Way documents its clauses"
    for clause, text in clauses.items():
        assert clause.startswith(f"{house_way}.") and clause_family(clause) in FAMILIES
        assert text.strip()
