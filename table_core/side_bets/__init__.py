"""Side bets (R-VAR-2..7): the seven-card classifier, pay tables as data, settlement, Envy, the
progressive jackpot, and the exact exhaustive count.

What the table calls, per round:

- ``settle_side_bet(pay_table, seven, wager) -> SideBetSettlement`` (line, pays "to 1", net) for
  Fortune, Emperor's Treasure and Insurance; ``resolve_side_bet(pay_table, seven) -> (line, pays)``
  when only the line is wanted;
- ``envy_payments(envy_table, [EnvyHand(seat, seven, fortune_wager), ...]) -> [EnvyPayment]``;
- ``meter_contribution(progressive, wagers)`` before the deal and
  ``progressive_payout(progressive, seven, meter) -> ProgressiveResult`` after it;
- ``SideBetRules`` in the rules profile; it refuses Insurance offered without a table (R-VAR-5).
"""

from table_core.side_bets.classifier import best_five_category, classify, classify_hand, kind_name
from table_core.side_bets.lines import LINES, NOTHING, POKER_LINES, Line
from table_core.side_bets.pay_tables import (
    EMPERORS_TREASURE,
    FORTUNE_5000,
    FORTUNE_8000,
    PAY_TABLES,
    PROGRESSIVE_EXAMPLE,
    EnvyTable,
    PayTable,
    ProgressiveLine,
    ProgressiveTable,
    SideBet,
    SideBetRules,
    get_pay_table,
    require_side_bets_playable,
)
from table_core.side_bets.settlement import (
    EnvyHand,
    EnvyPayment,
    ProgressiveResult,
    SideBetSettlement,
    capped_payouts,
    envy_payments,
    meter_contribution,
    progressive_payout,
    resolve_side_bet,
    settle_side_bet,
)

__all__ = [
    "EMPERORS_TREASURE",
    "FORTUNE_5000",
    "FORTUNE_8000",
    "LINES",
    "NOTHING",
    "PAY_TABLES",
    "POKER_LINES",
    "PROGRESSIVE_EXAMPLE",
    "EnvyHand",
    "EnvyPayment",
    "EnvyTable",
    "Line",
    "PayTable",
    "ProgressiveLine",
    "ProgressiveResult",
    "ProgressiveTable",
    "SideBet",
    "SideBetRules",
    "SideBetSettlement",
    "best_five_category",
    "capped_payouts",
    "classify",
    "classify_hand",
    "envy_payments",
    "get_pay_table",
    "kind_name",
    "meter_contribution",
    "progressive_payout",
    "require_side_bets_playable",
    "resolve_side_bet",
    "settle_side_bet",
]
