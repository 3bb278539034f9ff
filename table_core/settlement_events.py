"""The settlement's events (R-PAY, R-SET, R-VAR): each seat's result against the banker, the
banker's side, the commission, the side bets and the Envy bonus. Part of the table's events
(``table_core/events.py`` names them in the ``Event`` union and re-exports them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from table_core.event_base import (
    Amount,
    HandResult,
    Int,
    Money,
    Position,
    RoundEventBase,
    Seat,
    WagerResult,
)
from table_core.rules import Variant


class SeatResult(BaseModel):
    """One main wager settled against the banker (R-PAY-1, R-SET-3).

    ``payout`` is the even-money result (+wager, 0 or -wager), ``commission`` the house's take
    and ``net = payout - commission`` the change to the player's chips beyond the wager returned.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat | None
    player_id: str | None
    position: Position
    wager: Amount
    back: HandResult
    front: HandResult
    result: WagerResult
    forfeited: bool = False
    payout: Int
    commission: Money
    net: Int


class BankerResult(BaseModel):
    """The banker's side: ``result`` = -(sum of payouts); with co-banking (R-BANK-2) the house
    takes ``house_share`` and the player-banker ``player_share``, who pays ``commission`` on a
    net win (R-BANK-4); ``net`` is the player-banker's change of chips."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat | None
    player_id: str | None
    result: Int
    co_bank: bool = False
    house_share: Int
    player_share: Int
    commission: Money
    net: Int


#: Why the banker's hand decided every main wager of the round (R-VAR-1), as ``round_settled``
#: records it: the variant, the banker hand and what it did.
VariantOverride = Literal[
    "ez_queen_high_push", "ez_queen_high_banker_wins", "commission_free_nine_high_push"
]


class RoundSettled(RoundEventBase):
    """Every main wager settled; ``variant`` is the round's (R-VAR-1) and ``override`` names the
    banker hand that pushed (or took) every main wager, ``None`` when R-PAY-1 decided."""

    type: Literal["round_settled"] = "round_settled"
    results: tuple[SeatResult, ...]
    banker: BankerResult
    variant: Variant = "commission"
    override: VariantOverride | None = None


class CommissionTaken(RoundEventBase):
    """Commission as its own fact (R-PAY-3); ``seat=None`` never pays (the house is not charged).

    ``basis``: ``percent_of_win``/``flat_per_win``/``flat_per_hand`` for a player's wager
    (R-PAY-2), ``banker_net_win`` for a player-banker (R-BANK-4); ``basis_amount`` is the wager
    or the net win it was computed on.
    """

    type: Literal["commission_taken"] = "commission_taken"
    seat: Seat
    player_id: str
    payer: Literal["player", "banker"]
    amount: Amount
    basis: Literal["percent_of_win", "flat_per_win", "flat_per_hand", "banker_net_win"]
    basis_amount: Money
    clause: str


class SideBetSettled(RoundEventBase):
    """A side bet settled on the seven cards (R-VAR-2): the ``line`` hit (``None``: lost), what it
    pays "to 1" (0 when lost, and for the progressive, which pays amounts) and ``payout``, the
    player's chips change beyond the bet returned (``pays x amount``; ``-amount`` on a loss; for
    the progressive the amount won minus the fixed wager). ``from_meter`` is the part of a
    progressive win the meter paid (R-VAR-6).

    R15: ``aggregate_cap`` is the pay table's cap on what the bet pays in one round across all its
    winners (``None``: the table has none; events written before it existed read as ``None``);
    ``reduction`` is how much less than ``pays x amount`` this winner was paid because the
    round's wins exceeded the cap (``payout`` is what was paid)."""

    type: Literal["side_bet_settled"] = "side_bet_settled"
    seat: Seat
    player_id: str
    bet: str
    amount: Amount
    line: str | None
    pays: Money
    payout: Int
    pay_table: str | None = None
    from_meter: Money = 0
    aggregate_cap: Money | None = None
    reduction: Money = 0


class EnvyPaid(RoundEventBase):
    """Fortune's Envy bonus (R-VAR-3): ``player_id`` at ``seat``, whose Fortune bet qualifies, is
    paid ``amount`` by the house for another player's hand at ``from_seat`` holding ``line``."""

    type: Literal["envy_paid"] = "envy_paid"
    seat: Seat
    player_id: str
    from_seat: Seat
    from_player_id: str | None
    line: str
    amount: Amount
    clause: str = "R-VAR-3"
