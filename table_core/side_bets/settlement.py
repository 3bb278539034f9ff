"""Resolving side bets on a player's seven cards (R-VAR-2..6).

Side bets are banked by the house and resolve on the seven cards whatever the split (a fouled or
forfeited hand included, R-SET-2); nothing here looks at the main wager (R-VAR-2). Money is integer
minor units. ``net`` is the change to the player's balance; the house's is ``-net``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from table_core.cards import Card, check_distinct
from table_core.errors import DomainError
from table_core.side_bets.classifier import classify, classify_hand
from table_core.side_bets.lines import NOTHING
from table_core.side_bets.pay_tables import EnvyTable, PayTable, ProgressiveTable

_BP = 10_000  # basis points in one whole


def resolve_side_bet(table: PayTable, seven: Sequence[Card]) -> tuple[str, int]:
    """``(line, pays)`` of seven cards on ``table``: pays "to 1", -1 when the bet loses."""
    return table.resolve(classify_hand(seven))


@dataclass(frozen=True)
class SideBetSettlement:
    bet: str
    pay_table: str
    line: str
    pays: int  # "to 1"; -1 for a losing line
    wager: int
    net: int  # the player's balance change: wager x pays, or -wager


def settle_side_bet(table: PayTable, seven: Sequence[Card], wager: int) -> SideBetSettlement:
    """Settle one "to 1" side bet (Fortune, Emperor's Treasure, Insurance) on seven cards."""
    if wager <= 0:
        raise DomainError(f"a side bet is a positive amount of minor units, got {wager}", "R-VAR-2")
    line, pays = resolve_side_bet(table, seven)
    net = wager * pays if pays > 0 else -wager
    return SideBetSettlement(table.bet, table.name, line, pays, wager, net)


def capped_payouts(wins: Sequence[int], cap: int | None) -> list[int]:
    """R15, the aggregate payout cap: what each winner of one bet is paid in a round.

    ``wins`` are the winners' wins as the pay table gives them (minor units, beyond the wager
    returned), in settlement order (position from the banker, counterclockwise; at one seat, in
    the order placed). Under the cap, or with no cap, each is paid in full. Over it, each is paid
    its pro-rata share ``cap x win / total``, floored to the minor unit; the minor units the floors
    leave (fewer than the winners) go one each to the largest remainders, ties to the earlier in
    settlement order. The sum paid is then exactly the cap, and no one is paid more than
    their win."""
    total = sum(wins)
    if cap is None or total <= cap:
        return list(wins)
    shares = [divmod(cap * win, total) for win in wins]
    paid = [share for share, _ in shares]
    left = cap - sum(paid)
    by_remainder = sorted(range(len(wins)), key=lambda i: (-shares[i][1], i))
    for index in by_remainder[:left]:
        paid[index] += 1
    return paid


# --- Envy (R-VAR-3) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvyHand:
    """A hand of the round as Envy sees it: the seat, the seven cards, the Fortune bet (0: none).

    ``dealer`` marks the dealer's hand (or the house hand the dealer's position plays against a
    player-banker, R-BANK-2): it never earns anyone Envy and is never paid any. A player-banker's
    hand is a player's hand.
    """

    seat: int
    cards: tuple[Card, ...]
    fortune_wager: int = 0
    dealer: bool = False


@dataclass(frozen=True)
class EnvyPayment:
    seat: int  # who is paid
    from_seat: int  # whose hand earned it
    line: str
    amount: int  # minor units, paid by the house


def envy_payments(envy: EnvyTable, hands: Sequence[EnvyHand]) -> list[EnvyPayment]:
    """Every Envy payment of a round, payee by payee in the order of ``hands``.

    A player whose Fortune bet is at least the qualifying amount is paid once for every OTHER
    player's hand of four of a kind or better, never for their own, never for the dealer's
    (R-VAR-3). The other player need not have a Fortune bet: the rulebook says every hand.
    """
    seats = [hand.seat for hand in hands]
    if len(set(seats)) != len(seats):
        raise DomainError("a seat can hold only one hand in a round", rule="R-DEAL-1")
    for hand in hands:
        if len(hand.cards) != 7:
            raise DomainError(f"seat {hand.seat}: Envy reads 7 cards, got {len(hand.cards)}")
    check_distinct([card for hand in hands for card in hand.cards])  # one deck
    awards = [(hand.seat, envy.award_of(classify(hand.cards))) for hand in hands if not hand.dealer]
    payments: list[EnvyPayment] = []
    for hand in hands:
        if hand.dealer or hand.fortune_wager < envy.qualifying_bet:
            continue
        for from_seat, award in awards:
            if award is not None and from_seat != hand.seat:
                payments.append(EnvyPayment(hand.seat, from_seat, award[0], award[1]))
    return payments


# --- progressive jackpot (R-VAR-6) ---------------------------------------------------------------


def meter_contribution(table: ProgressiveTable, wagers: int) -> int:
    """What ``wagers`` locked progressive wagers add to the meter: each adds its share, floored."""
    if wagers < 0:
        raise DomainError(f"a count of wagers cannot be negative, got {wagers}", rule="R-VAR-6")
    return wagers * (table.wager * table.contribution_bp // _BP)


@dataclass(frozen=True)
class ProgressiveResult:
    line: str
    amount: int  # paid to the player, minor units (0 when the hand pays nothing)
    net: int  # the player's balance change: amount - the fixed wager
    from_meter: int  # the part of ``amount`` the meter paid
    meter_before: int
    meter_after: int

    @property
    def meter_reset(self) -> bool:
        """The hit took the meter below its reset value, so the house re-seeded it."""
        return self.meter_after > self.meter_before - self.from_meter


def progressive_payout(
    table: ProgressiveTable, seven: Sequence[Card], meter: int
) -> ProgressiveResult:
    """One locked progressive wager on seven cards against the meter as it stands.

    A meter share is floored to the minor unit (the rest stays in the meter); a meter taken below
    its reset value is re-seeded to it. Several hits in one round are paid one after the other,
    each on the meter the previous one left (the table's order, counterclockwise from the banker).
    """
    if meter < 0:
        raise DomainError(f"the meter cannot be negative, got {meter}", rule="R-VAR-6")
    hit = table.line_of(classify_hand(seven))
    if hit is None:
        return ProgressiveResult(NOTHING, 0, -table.wager, 0, meter, meter)
    line, paid = hit
    if paid.meter_share_bp is None:
        amount = paid.amount or 0
        return ProgressiveResult(line, amount, amount - table.wager, 0, meter, meter)
    amount = meter * paid.meter_share_bp // _BP
    after = max(meter - amount, table.reset)
    return ProgressiveResult(line, amount, amount - table.wager, amount, meter, after)
