"""Settling one main wager of the commission game (R-PAY-1..3, R-SET-3).

Money is integer minor units. ``net`` is the change to the player's balance and ``commission`` the
house's take, kept apart so that reports can sum commission (R-PAY-3); the banker's result is
``-(net + commission)``, so a settlement always conserves money.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from table_core.errors import DomainError
from table_core.rules import CommissionRules, TableRules

HandResult = Literal["win", "loss", "copy"]
WagerResult = Literal["win", "push", "loss"]


def round_to_unit(numerator: int, denominator: int, unit: int, direction: str) -> int:
    """``numerator / denominator`` rounded to a multiple of ``unit`` (R-PAY-2), exactly."""
    quotient, remainder = divmod(numerator, denominator * unit)
    if direction == "half_up":
        if 2 * remainder >= denominator * unit:
            quotient += 1
    elif direction == "up":
        if remainder:
            quotient += 1
    elif direction != "down":
        raise DomainError(f"unknown rounding: {direction}", rule="R-PAY-2")
    return quotient * unit


def commission_due(wager: int, result: WagerResult, rules: CommissionRules) -> int:
    """Commission on one settled main wager (R-PAY-2).

    ``percent`` and ``flat`` charge a winning wager only and never more than it won (a commission
    is a share of a win); ``flat_always`` charges its fee on every hand played, whatever the result,
    as California card rooms collect it.
    """
    if rules.mode == "flat_always":
        return rules.fee
    if result != "win":
        return 0
    if rules.mode == "flat":
        return min(rules.fee, wager)
    return min(
        round_to_unit(wager * rules.rate_bp, 10_000, rules.rounding_unit, rules.rounding), wager
    )


def fee_held(rules: TableRules) -> int:
    """R-PAY-2 ``flat_always``: the fee due on a live wager whatever the result, which a player
    must keep at hand. The variants without commission charge none (R-VAR-1)."""
    commission = rules.hand.commission
    if commission.mode == "flat_always" and rules.variant == "commission":
        return commission.fee
    return 0


def compare(player: int, banker: int) -> HandResult:
    """One hand against the banker's hand of the same size; a copy goes to the banker (R-SET-3)."""
    if player > banker:
        return "win"
    if player < banker:
        return "loss"
    return "copy"


def wager_result(back: HandResult, front: HandResult) -> WagerResult:
    """R-PAY-1: both win, the player wins; one wins, push; otherwise the player loses."""
    if back == "win" and front == "win":
        return "win"
    if back == "win" or front == "win":
        return "push"
    return "loss"


class MainWagerSettlement(NamedTuple):
    """One settled main wager (a named tuple: a simulation builds one per hand)."""

    result: WagerResult
    back: HandResult
    front: HandResult
    wager: int
    net: int
    commission: int

    @property
    def banker_net(self) -> int:
        return -(self.net + self.commission)


def settle_main_wager(
    player_back: int,
    player_front: int,
    banker_back: int,
    banker_front: int,
    wager: int,
    rules: CommissionRules,
    *,
    forfeited: bool = False,
) -> MainWagerSettlement:
    """Settle one main wager from the four hand strengths (R-PAY-1, R-PAY-2, R-SET-3).

    ``forfeited`` is a fouled hand under ``foul_policy=forfeit`` (R-SET-2): the wager loses.
    """
    if wager <= 0:
        raise DomainError(
            f"a wager is a positive amount of minor units, got {wager}", rule="R-PAY-2"
        )
    if forfeited:
        back: HandResult = "loss"
        front: HandResult = "loss"
    else:
        back = compare(player_back, banker_back)
        front = compare(player_front, banker_front)
    result = wager_result(back, front)
    commission = commission_due(wager, result, rules)
    gross = wager if result == "win" else -wager if result == "loss" else 0
    return MainWagerSettlement(result, back, front, wager, gross - commission, commission)


#: Player and banker strengths whose comparison wins, loses and copies (settlement_index order).
_SIDES = ((1, 0), (0, 1), (0, 0))


def settlement_table(wager: int, rules: CommissionRules) -> tuple[MainWagerSettlement, ...]:
    """The nine settlements ``settle_main_wager`` can give ``wager`` under ``rules`` (not
    forfeited), in :func:`settlement_index` order: a simulation then settles a hand by one lookup
    (the settlements are immutable, so hands may share them)."""
    return tuple(
        settle_main_wager(pb, pf, bb, bf, wager, rules) for pb, bb in _SIDES for pf, bf in _SIDES
    )


def settlement_index(
    player_back: int, player_front: int, banker_back: int, banker_front: int
) -> int:
    """3 * back + front, each 0 for a player win, 1 for a loss, 2 for a copy (R-SET-3)."""
    back = (player_back <= banker_back) + (player_back == banker_back)
    return 3 * back + (player_front <= banker_front) + (player_front == banker_front)
