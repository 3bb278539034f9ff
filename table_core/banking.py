"""Who banks and what the bank covers (R-BANK-1..5), as pure functions of the table's facts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from table_core.rules import CommissionRules, TableRules
from table_core.settlement import commission_due

K = TypeVar("K")

NOT_WAGERED = "did not wager against the dealer in the last dealer-banked round"
SEAT_EMPTY = "the seat is empty"


def bank_order(seated: Iterable[int], after: int) -> tuple[int, ...]:
    """R-BANK-1: seated seats in turn counterclockwise, starting with the one after ``after``
    (the last seat offered; 0 before any offer)."""
    return tuple(sorted(seated, key=lambda seat: (seat - after - 1) % 6))


@dataclass(frozen=True, slots=True)
class Eligibility:
    eligible: bool
    reason: str | None
    required: int


def bank_eligibility(
    player_id: str,
    balance: int,
    others: Sequence[str],
    last_dealer_wagers: Mapping[str, int],
    rules: TableRules,
) -> Eligibility:
    """R-BANK-1: a player may bank only after wagering against the dealer in the last
    dealer-banked round, and with a balance that covers every other wager at the table.

    Bets are not placed yet when the bank is offered, so "every other wager" is read as each other
    seated player's wager in that last dealer-banked round (the table minimum for a player who did
    not wager then) plus the house hand's wager (R-BANK-2). R-BANK-3 then handles a round whose
    actual wagers exceed the balance.
    """
    required = (
        sum(last_dealer_wagers.get(other, rules.limits.min_bet) for other in others)
        + rules.house_wager_amount
    )
    if player_id not in last_dealer_wagers:
        return Eligibility(False, NOT_WAGERED, required)
    if balance < required:
        return Eligibility(
            False, f"balance {balance} does not cover the other wagers ({required})", required
        )
    return Eligibility(True, None, required)


def exposure(total: int, co_bank: bool) -> int:
    """What a player-banker can lose on ``total`` wagers: all of it, or with the house
    co-banking the larger half (the odd unit falls on the player-banker, :func:`co_bank_shares`)."""
    return (total + 1) // 2 if co_bank else total


def cover(wagers: Sequence[tuple[K, int]], balance: int, co_bank: bool) -> tuple[list[K], list[K]]:
    """R-BANK-3: accept wagers in order counterclockwise from the banker until the balance is used.

    A wager is accepted whole or not at all; the first one that does not fit and every one after it
    are returned ("the rest"), even a smaller later one, which keeps the order of R-BANK-3 strict.
    """
    accepted: list[K] = []
    returned: list[K] = []
    total = 0
    for key, amount in wagers:
        if not returned and exposure(total + amount, co_bank) <= balance:
            accepted.append(key)
            total += amount
        else:
            returned.append(key)
    return accepted, returned


def co_bank_shares(result: int) -> tuple[int, int]:
    """R-BANK-2: split a bank's result 50/50, the odd minor unit to the house's advantage.

    Returns ``(house_share, player_share)``: on a win the house takes the larger half, on a loss
    it bears the smaller one.
    """
    house = -(-result // 2)
    return house, result - house


def banker_commission(player_share: int, rules: CommissionRules) -> int:
    """R-BANK-4: commission on the player-banker's net win of the round, never on a loss.

    In ``flat_always`` mode the fee is charged on the winning round only (R-BANK-4 overrides the
    per-hand fee) and, like any commission, never exceeds the win.
    """
    if player_share <= 0:
        return 0
    return min(commission_due(player_share, "win", rules), player_share)


def chips_held(balance: int, *, banks: bool, wagers: bool, fee_held: int) -> int:
    """Of a player's ``balance``, the chips they may not cash out during a live round: all of it
    when they bank it (R-BANK-3: it covers the round's wagers), else the fee due on their live
    wager whatever its result (``fee_held``, R-PAY-2 ``flat_always``)."""
    if banks:
        return balance
    return fee_held if wagers else 0
