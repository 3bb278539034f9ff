"""Fortune's Envy bonus (R-VAR-3) and the progressive jackpot's meter (R-VAR-6)."""

from __future__ import annotations

import pytest

from table_core.cards import parse_cards
from table_core.errors import CardError, DomainError
from table_core.side_bets import (
    PROGRESSIVE_EXAMPLE,
    EnvyHand,
    EnvyPayment,
    EnvyTable,
    ProgressiveLine,
    ProgressiveTable,
    envy_payments,
    meter_contribution,
    progressive_payout,
)

ENVY = EnvyTable()  # qualifying Fortune bet 500 minor units; quads 500, straight flush 2,000


def _hand(seat: int, cards: str, fortune: int = 0, dealer: bool = False) -> EnvyHand:
    return EnvyHand(seat, tuple(parse_cards(cards, 7)), fortune, dealer)


def test_two_qualifying_hands_pay_each_other_qualifier_twice_never_own_nor_dealer() -> None:
    hands = [
        _hand(1, "Ah Kh Qh Jh Th 3c 2d", dealer=True),  # the dealer's royal earns nobody Envy
        _hand(2, "9s 9h 9d 9c 2s 5h Kd", fortune=500),  # four of a kind, a qualifying bet
        _hand(3, "4c 5c 6c 7c 8c Qc 2h", fortune=1_000),  # a straight flush, qualifying
        _hand(4, "Ks Kc 8s 8h 4d 3s 6d", fortune=500),  # nothing, qualifying: paid for both
        _hand(5, "Qs Qd 7s 7h 6h 4s 3d", fortune=499),  # below the qualifying bet: no Envy
        _hand(6, "As Ad Ac Jd Td 7d 5s"),  # no Fortune bet: no Envy
    ]
    assert envy_payments(ENVY, hands) == [
        EnvyPayment(seat=2, from_seat=3, line="straight_flush", amount=2_000),
        EnvyPayment(seat=3, from_seat=2, line="four_of_a_kind", amount=500),
        EnvyPayment(seat=4, from_seat=2, line="four_of_a_kind", amount=500),
        EnvyPayment(seat=4, from_seat=3, line="straight_flush", amount=2_000),
    ]


def test_a_hand_without_a_fortune_bet_still_earns_the_others_envy() -> None:
    hands = [_hand(2, "As Ah Ad Ac JK 7s 2d"), _hand(3, "Ks Kh 8s 8h 4d 3c 2s", fortune=500)]
    assert envy_payments(ENVY, hands) == [EnvyPayment(3, 2, "five_aces", 25_000)]


def test_envy_pays_the_best_line_held_and_nothing_below_four_of_a_kind() -> None:
    hands = [
        _hand(2, "As Ks Js Ts JK Kd Qd"),  # royal completed by the joker + natural K-Q match
        _hand(3, "Kh Kc 9h 9d 9c 3c 2s"),  # a full house earns no Envy
        _hand(4, "4h 5h 6h 8h Th 2c 3d", fortune=500),
    ]
    assert envy_payments(ENVY, hands) == [EnvyPayment(4, 2, "royal_flush_royal_match", 100_000)]


def test_envy_refuses_two_hands_in_one_seat_and_cards_dealt_twice() -> None:
    with pytest.raises(DomainError, match="only one hand"):
        envy_payments(ENVY, [_hand(2, "9s 9h 9d 9c 2s 5h Kd"), _hand(2, "Ks Kh 8s 8h 4d 3c 2h")])
    with pytest.raises(CardError, match="duplicate card: 2s"):
        envy_payments(ENVY, [_hand(2, "9s 9h 9d 9c 2s 5h Kd"), _hand(3, "Ks Kh 8s 8h 4d 3c 2s")])


PROGRESSIVE = ProgressiveTable(
    name="test_meter",
    wager=100,
    contribution_bp=7_000,
    reset=1_000_000,
    lines={
        "natural_seven_card_straight_flush": ProgressiveLine(meter_share_bp=10_000),
        "five_aces": ProgressiveLine(meter_share_bp=1_000),
        "royal_flush": ProgressiveLine(amount=50_000),
        "four_of_a_kind": ProgressiveLine(amount=7_500),
    },
)


def test_each_locked_wager_adds_its_share_to_the_meter() -> None:
    assert meter_contribution(PROGRESSIVE, 6) == 420
    assert meter_contribution(PROGRESSIVE_EXAMPLE, 1) == 70
    with pytest.raises(DomainError):
        meter_contribution(PROGRESSIVE, -1)


def test_a_full_meter_hit_pays_the_meter_and_the_house_reseeds_it() -> None:
    hit = progressive_payout(PROGRESSIVE, parse_cards("7h 8h 9h Th Jh Qh Kh"), 2_345_678)
    assert (hit.line, hit.amount, hit.net, hit.from_meter) == (
        "natural_seven_card_straight_flush",
        2_345_678,
        2_345_578,
        2_345_678,
    )
    assert (hit.meter_before, hit.meter_after, hit.meter_reset) == (2_345_678, 1_000_000, True)


def test_a_meter_share_is_floored_and_the_rest_stays_in_the_meter() -> None:
    hit = progressive_payout(PROGRESSIVE, parse_cards("As Ah Ad Ac JK 7s 2d"), 12_345_679)
    assert (hit.line, hit.amount, hit.meter_after, hit.meter_reset) == (
        "five_aces",
        1_234_567,
        11_111_112,
        False,
    )


def test_fixed_lines_leave_the_meter_and_a_losing_hand_loses_the_wager() -> None:
    royal = progressive_payout(PROGRESSIVE, parse_cards("As Ks Qs Js Ts Kh Qh"), 5_000_000)
    assert (royal.line, royal.amount, royal.meter_after) == ("royal_flush", 50_000, 5_000_000)
    # a straight flush holds no posted line above its own: nothing (quads pay, SF is not listed)
    miss = progressive_payout(PROGRESSIVE, parse_cards("5c 6c 7c 8c 9c Kd 2h"), 5_000_000)
    assert (miss.line, miss.amount, miss.net, miss.meter_after) == ("nothing", 0, -100, 5_000_000)
