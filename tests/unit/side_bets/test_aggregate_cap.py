"""R15, the aggregate payout cap: a pay table's cap on what one bet pays in a round across all its
winners, shared pro rata, rounded to the minor unit by the largest remainder (ties: the earlier
in settlement order), so the sum paid is exactly the cap (docs/side-bets.md)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from table_core.rules import TableRules
from table_core.side_bets import FORTUNE_8000, PayTable, capped_payouts


def test_three_winners_share_the_cap_pro_rata_the_last_unit_to_the_largest_remainder() -> None:
    # 12,500 + 7,500 + 5,000 = 25,000 due against a cap of 10,001: shares 5,000.5 / 3,000.3 /
    # 2,000.2, floored 5,000 / 3,000 / 2,000 (remainders 12,500 / 7,500 / 5,000 of 25,000); the
    # one unit left goes to the largest remainder, the first winner.
    assert capped_payouts([12_500, 7_500, 5_000], 10_001) == [5_001, 3_000, 2_000]


def test_three_winners_over_the_cap_with_exact_shares() -> None:
    assert capped_payouts([12_500, 5_000, 2_500], 10_000) == [6_250, 2_500, 1_250]


def test_equal_remainders_go_to_the_earlier_winners_in_settlement_order() -> None:
    # 100 / 3 = 33 r 1 each: the one unit left goes to the first; two units to the first two.
    assert capped_payouts([100, 100, 100], 100) == [34, 33, 33]
    assert capped_payouts([100, 100, 100], 200) == [67, 67, 66]
    # The order given is the order of the ties, not the amounts'.
    assert capped_payouts([3, 6, 3], 4) == [1, 2, 1]  # 1.0, 2.0, 1.0: exact
    assert capped_payouts([5, 10, 5], 3) == [1, 1, 1]  # 0.75 / 1.5 / 0.75: floors 0, 1, 0


@pytest.mark.parametrize(
    ("wins", "cap"),
    [([12_500, 7_500, 5_000], 10_001), ([1, 1, 1, 1, 1, 1], 5), ([999_999, 1, 2], 77)],
)
def test_the_sum_paid_is_the_cap_and_no_winner_is_paid_more_than_the_table_says(
    wins: list[int], cap: int
) -> None:
    paid = capped_payouts(wins, cap)
    assert sum(paid) == cap
    assert all(0 <= p <= w for p, w in zip(paid, wins, strict=True))


def test_under_the_cap_at_the_cap_and_with_no_cap_every_winner_is_paid_in_full() -> None:
    assert capped_payouts([12_500, 7_500], 20_000) == [12_500, 7_500]
    assert capped_payouts([12_500, 7_500], 30_000) == [12_500, 7_500]
    assert capped_payouts([12_500, 7_500], None) == [12_500, 7_500]
    assert capped_payouts([], 100) == []


def test_a_pay_table_has_no_cap_by_default_and_reads_one_from_its_file() -> None:
    assert FORTUNE_8000.aggregate_cap is None
    text = json.dumps(
        {"name": "nj_fortune", "bet": "fortune", "pays": {"flush": 4}, "aggregate_cap": 4_000_000}
    )
    assert PayTable.model_validate_json(text).aggregate_cap == 4_000_000  # 40,000.00


@pytest.mark.parametrize("cap", [-1, 0, 4_000_000.0, 4_000_000.5, "4000000", True])
def test_a_negative_zero_or_non_integer_cap_is_refused_when_the_table_is_loaded(
    cap: object,
) -> None:
    with pytest.raises(ValidationError, match="aggregate cap is a whole number of minor units"):
        PayTable(name="nj_fortune", bet="fortune", pays={"flush": 4}, aggregate_cap=cap)
    profile = {"side_bets": {"fortune": {"name": "x", "bet": "fortune", "pays": {"flush": 4},
                                         "aggregate_cap": cap}}}  # fmt: skip
    with pytest.raises(ValidationError, match="aggregate cap"):
        TableRules.model_validate(profile)
