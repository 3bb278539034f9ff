"""Banking rules as pure functions (R-BANK-1..4)."""

from __future__ import annotations

import pytest

from table_core.banking import (
    NOT_WAGERED,
    Eligibility,
    bank_eligibility,
    bank_order,
    banker_commission,
    co_bank_shares,
    cover,
)
from table_core.rules import CommissionRules

from .support import rules


def test_the_bank_goes_round_counterclockwise_after_the_last_seat_offered() -> None:
    assert bank_order({1, 3, 4, 6}, after=0) == (1, 3, 4, 6)
    assert bank_order({1, 3, 4, 6}, after=3) == (4, 6, 1, 3)
    assert bank_order({1, 3, 4, 6}, after=6) == (1, 3, 4, 6)
    assert bank_order({2}, after=2) == (2,)
    assert bank_order(set(), after=4) == ()


def test_eligibility_needs_a_wager_against_the_dealer_last_dealer_round() -> None:
    last = {"ana": 5_000}
    verdict = bank_eligibility("bruno", 1_000_000, ["ana"], last, rules())
    assert verdict == Eligibility(False, NOT_WAGERED, 6_000)


def test_eligibility_needs_the_balance_to_cover_the_other_wagers_and_the_house_hand() -> None:
    last = {"ana": 5_000, "bruno": 2_000}
    # others: ana's last 5,000 + chloe (no last wager) at the 1,000 minimum + house 1,000
    assert bank_eligibility("bruno", 7_000, ["ana", "chloe"], last, rules()) == Eligibility(
        True, None, 7_000
    )
    refused = bank_eligibility("bruno", 6_999, ["ana", "chloe"], last, rules())
    assert refused == Eligibility(
        False, "balance 6999 does not cover the other wagers (7000)", 7_000
    )
    no_house_hand = bank_eligibility("bruno", 6_000, ["ana", "chloe"], last, rules(house_wager=0))
    assert no_house_hand.eligible


def test_coverage_accepts_in_order_and_returns_the_rest() -> None:
    wagers = [("dmitri", 3_000), ("house", 1_000), ("ana", 15_000), ("bruno", 2_000)]
    assert cover(wagers, 19_000, co_bank=False) == (["dmitri", "house", "ana"], ["bruno"])
    # strict order: once one wager does not fit, the smaller ones after it are returned too
    assert cover(wagers, 18_000, co_bank=False) == (["dmitri", "house"], ["ana", "bruno"])
    assert cover(wagers, 2_999, co_bank=False) == ([], ["dmitri", "house", "ana", "bruno"])


def test_with_the_house_co_banking_the_player_banker_covers_the_larger_half() -> None:
    wagers = [("dmitri", 3_001), ("ana", 6_000)]
    assert cover(wagers, 4_501, co_bank=True) == (["dmitri", "ana"], [])
    assert cover(wagers, 4_500, co_bank=True) == (["dmitri"], ["ana"])


@pytest.mark.parametrize(
    ("result", "house", "player"),
    [(4_000, 2_000, 2_000), (4_001, 2_001, 2_000), (-4_001, -2_000, -2_001), (1, 1, 0), (0, 0, 0)],
)
def test_co_bank_shares_give_the_odd_unit_to_the_house(
    result: int, house: int, player: int
) -> None:
    assert co_bank_shares(result) == (house, player)


def test_the_player_banker_pays_commission_on_a_net_win_only() -> None:
    percent = CommissionRules()
    assert banker_commission(4_000, percent) == 200
    assert banker_commission(-4_000, percent) == 0
    assert banker_commission(0, percent) == 0
    flat_always = CommissionRules(mode="flat_always", fee=300)
    assert banker_commission(200, flat_always) == 200  # never more than the win
    assert banker_commission(-50, flat_always) == 0
