"""Settling the main wager (R-PAY-1..3), copies to the banker (R-SET-3) and forfeits (R-SET-2).

Money is integer minor units (cents). A banker's back of a pair of kings and a front of Q-J is
played against player hands that win, copy or lose each side.
"""

from __future__ import annotations

import pydantic
import pytest

from table_core.cards import parse_cards
from table_core.errors import DomainError
from table_core.hands import five_card_strength, two_card_strength
from table_core.rules import CommissionRules, HouseRules
from table_core.settlement import (
    commission_due,
    round_to_unit,
    settle_main_wager,
    wager_result,
)


def back(text: str) -> int:
    return five_card_strength(parse_cards(text, 5))


def front(text: str) -> int:
    return two_card_strength(parse_cards(text, 2))


BANKER_BACK = back("Ks Kh 9c 5d 2s")  # pair of kings
BANKER_FRONT = front("Qs Jd")  # queen-jack
PLAYER_BACK = {
    "win": back("As Ah 7c 4d 3h"),  # pair of aces
    "copy": back("Kd Kc 9h 5s 2d"),  # the same pair of kings and kickers
    "loss": back("Qd Qc 8h 6s 3c"),  # pair of queens
}
PLAYER_FRONT = {
    "win": front("Ac 2c"),  # ace-deuce
    "copy": front("Qh Jc"),  # queen-jack again
    "loss": front("Qc Td"),  # queen-ten
}
DEFAULT = CommissionRules()
WAGER = 1_000  # $10.00

# R-PAY-1: both win -> win; one wins and the other loses or copies -> push; otherwise loss.
PAY_1 = [
    ("win", "win", "win"),
    ("win", "copy", "push"),
    ("win", "loss", "push"),
    ("copy", "win", "push"),
    ("loss", "win", "push"),
    ("copy", "copy", "loss"),
    ("copy", "loss", "loss"),
    ("loss", "copy", "loss"),
    ("loss", "loss", "loss"),
]
# Player net, commission and banker net on a $10 wager at the default 5% (R-PAY-2).
MONEY = {"win": (950, 50, -1_000), "push": (0, 0, 0), "loss": (-1_000, 0, 1_000)}


@pytest.mark.parametrize(("back_result", "front_result", "result"), PAY_1)
def test_every_win_loss_copy_combination(back_result: str, front_result: str, result: str) -> None:
    settled = settle_main_wager(
        PLAYER_BACK[back_result],
        PLAYER_FRONT[front_result],
        BANKER_BACK,
        BANKER_FRONT,
        WAGER,
        DEFAULT,
    )
    assert (settled.back, settled.front) == (back_result, front_result)
    assert settled.result == result
    assert settled.wager == WAGER
    assert (settled.net, settled.commission, settled.banker_net) == MONEY[result]


@pytest.mark.parametrize(("back_result", "front_result", "result"), PAY_1)
def test_wager_result_table(back_result: str, front_result: str, result: str) -> None:
    assert wager_result(back_result, front_result) == result  # type: ignore[arg-type]


def test_copies_go_to_the_banker_on_both_sides() -> None:
    # R-SET-3: a player whose two hands exactly copy the banker's loses the wager.
    settled = settle_main_wager(
        back("Ad Kc 9h 6s 4d"), front("Qh Jh"), back("Ah Kd 9s 6c 4h"), front("Qd Jc"), 500, DEFAULT
    )
    assert (settled.back, settled.front, settled.result) == ("copy", "copy", "loss")
    assert settled.net == -500


# --- R-PAY-2: percent commission and its rounding -----------------------------------------------


def test_default_commission_is_five_percent_to_the_cent_half_up() -> None:
    assert DEFAULT.mode == "percent"
    assert DEFAULT.rate_bp == 500
    assert DEFAULT.rounding_unit == 1
    assert DEFAULT.rounding == "half_up"


@pytest.mark.parametrize(
    ("wager", "unit", "rounding", "commission"),
    [
        # to the cent
        (1_000, 1, "half_up", 50),
        (1_010, 1, "half_up", 51),  # 50.5 -> 51
        (1_009, 1, "half_up", 50),  # 50.45 -> 50
        (10, 1, "half_up", 1),  # 0.5 -> 1
        (9, 1, "half_up", 0),  # 0.45 -> 0
        (30, 1, "half_up", 2),  # 1.5 -> 2
        (1_009, 1, "up", 51),  # 50.45 -> 51
        (1_000, 1, "up", 50),  # exact: never rounded further
        (1, 1, "up", 1),  # 0.05 -> 1
        (1_019, 1, "down", 50),  # 50.95 -> 50
        (1, 1, "down", 0),
        # to a 25-cent chip
        (1_000, 25, "half_up", 50),
        (1_100, 25, "half_up", 50),  # 55 -> 50
        (1_240, 25, "half_up", 50),  # 62 -> 50
        (1_250, 25, "half_up", 75),  # 62.5 is 2.5 chips: the half rounds up -> 75
        (1_300, 25, "half_up", 75),  # 65 -> 75
        (250, 25, "half_up", 25),  # 12.5 is exactly half a chip -> 25
        (240, 25, "half_up", 0),  # 12 -> 0
        (1_100, 25, "up", 75),  # 55 -> 75
        (1_000, 25, "up", 50),
        (200, 25, "up", 25),  # 10 -> 25
        (1_300, 25, "down", 50),  # 65 -> 50
        (1_490, 25, "down", 50),  # 74.5 -> 50
        (1_500, 25, "down", 75),
        (100_000, 25, "half_up", 5_000),  # $1,000 wins $50 commission
    ],
)
def test_percent_commission_rounding(wager: int, unit: int, rounding: str, commission: int) -> None:
    rules = CommissionRules(rounding_unit=unit, rounding=rounding)
    assert commission_due(wager, "win", rules) == commission
    settled = settle_main_wager(
        PLAYER_BACK["win"], PLAYER_FRONT["win"], BANKER_BACK, BANKER_FRONT, wager, rules
    )
    assert settled.commission == commission
    assert settled.net == wager - commission
    assert settled.banker_net == -wager


def test_percent_commission_never_exceeds_the_win() -> None:
    # A 10-cent win rounded up to a 25-cent chip would cost more than it won: capped at the win.
    rules = CommissionRules(rounding_unit=25, rounding="up")
    assert commission_due(10, "win", rules) == 10


@pytest.mark.parametrize(("rate_bp", "commission"), [(400, 40), (0, 0), (10_000, 1_000)])
def test_other_percent_rates(rate_bp: int, commission: int) -> None:
    assert commission_due(1_000, "win", CommissionRules(rate_bp=rate_bp)) == commission


@pytest.mark.parametrize("result", ["push", "loss"])
def test_percent_commission_only_on_a_win(result: str) -> None:
    assert commission_due(1_000, result, DEFAULT) == 0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("numerator", "denominator", "unit", "direction", "rounded"),
    [
        (7, 2, 1, "half_up", 4),
        (7, 2, 1, "down", 3),
        (7, 2, 1, "up", 4),
        (6, 2, 1, "up", 3),
        (37, 1, 25, "half_up", 25),
        (38, 1, 25, "half_up", 50),
    ],
)
def test_round_to_unit(
    numerator: int, denominator: int, unit: int, direction: str, rounded: int
) -> None:
    assert round_to_unit(numerator, denominator, unit, direction) == rounded


def test_round_to_unit_refuses_an_unknown_direction() -> None:
    with pytest.raises(DomainError, match="unknown rounding: sideways"):
        round_to_unit(7, 2, 1, "sideways")


# --- R-PAY-2: flat and flat_always --------------------------------------------------------------

FLAT = CommissionRules(mode="flat", fee=100)
FLAT_ALWAYS = CommissionRules(mode="flat_always", fee=100)


@pytest.mark.parametrize(
    ("back_result", "front_result", "net", "commission", "banker_net"),
    [
        ("win", "win", 900, 100, -1_000),
        ("win", "loss", 0, 0, 0),
        ("loss", "loss", -1_000, 0, 1_000),
    ],
)
def test_flat_fee_per_winning_hand(
    back_result: str, front_result: str, net: int, commission: int, banker_net: int
) -> None:
    settled = settle_main_wager(
        PLAYER_BACK[back_result], PLAYER_FRONT[front_result], BANKER_BACK, BANKER_FRONT, WAGER, FLAT
    )
    assert (settled.net, settled.commission, settled.banker_net) == (net, commission, banker_net)


def test_flat_fee_never_exceeds_the_win() -> None:
    assert commission_due(50, "win", FLAT) == 50


@pytest.mark.parametrize(
    ("back_result", "front_result", "net", "commission", "banker_net"),
    [
        ("win", "win", 900, 100, -1_000),
        ("win", "copy", -100, 100, 0),  # a push still pays the fee
        ("copy", "loss", -1_100, 100, 1_000),  # so does a loss
    ],
)
def test_flat_always_fee_on_every_hand(
    back_result: str, front_result: str, net: int, commission: int, banker_net: int
) -> None:
    settled = settle_main_wager(
        PLAYER_BACK[back_result],
        PLAYER_FRONT[front_result],
        BANKER_BACK,
        BANKER_FRONT,
        WAGER,
        FLAT_ALWAYS,
    )
    assert (settled.net, settled.commission, settled.banker_net) == (net, commission, banker_net)


@pytest.mark.parametrize("mode", ["flat", "flat_always"])
def test_flat_modes_need_a_fee(mode: str) -> None:
    with pytest.raises(pydantic.ValidationError, match="needs a fee above 0"):
        CommissionRules(mode=mode)


@pytest.mark.parametrize(
    "settings",
    [{"rate_bp": -1}, {"rate_bp": 10_001}, {"rounding_unit": 0}, {"rounding": "sideways"}],
)
def test_impossible_commission_settings_are_refused(settings: dict[str, object]) -> None:
    with pytest.raises(pydantic.ValidationError):
        CommissionRules(**settings)


# --- R-SET-2 forfeit, R-PAY-3 commission kept apart, bad wagers ---------------------------------


def test_forfeited_hand_loses_the_wager_whatever_it_holds() -> None:
    settled = settle_main_wager(
        PLAYER_BACK["win"],
        PLAYER_FRONT["win"],
        BANKER_BACK,
        BANKER_FRONT,
        WAGER,
        DEFAULT,
        forfeited=True,
    )
    assert (settled.back, settled.front, settled.result) == ("loss", "loss", "loss")
    assert (settled.net, settled.commission, settled.banker_net) == (-1_000, 0, 1_000)


def test_forfeit_under_flat_always_still_pays_the_fee() -> None:
    settled = settle_main_wager(
        PLAYER_BACK["win"],
        PLAYER_FRONT["win"],
        BANKER_BACK,
        BANKER_FRONT,
        WAGER,
        FLAT_ALWAYS,
        forfeited=True,
    )
    assert (settled.result, settled.net, settled.commission) == ("loss", -1_100, 100)


def test_commission_is_reported_apart_from_the_payout() -> None:
    # R-PAY-3: the gross result is net + commission, so reports can sum commission alone.
    settled = settle_main_wager(
        PLAYER_BACK["win"], PLAYER_FRONT["win"], BANKER_BACK, BANKER_FRONT, 2_000, DEFAULT
    )
    assert settled.net + settled.commission == 2_000
    assert settled.commission == 100


@pytest.mark.parametrize("wager", [0, -500])
def test_wager_must_be_positive(wager: int) -> None:
    with pytest.raises(DomainError, match=f"got {wager}$"):
        settle_main_wager(
            PLAYER_BACK["win"], PLAYER_FRONT["win"], BANKER_BACK, BANKER_FRONT, wager, DEFAULT
        )


def test_house_rules_defaults() -> None:
    rules = HouseRules()
    assert (rules.house_way, rules.wheel_rank, rules.foul_policy) == ("fr", "second", "reset")
    assert rules.commission == DEFAULT
    with pytest.raises(pydantic.ValidationError):
        rules.model_copy().__setattr__("foul_policy", "forfeit")
    with pytest.raises(pydantic.ValidationError):
        HouseRules(wheel_rank="third")
