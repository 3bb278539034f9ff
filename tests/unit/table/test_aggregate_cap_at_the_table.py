"""R15 at the table: three Fortune winners against the pay table's aggregate cap. Each is paid its
pro-rata share, the last minor unit to the largest remainder; ``side_bet_settled`` records the
cap and each reduction; Envy stays outside the cap (docs/side-bets.md)."""

from __future__ import annotations

from table_core import commands as c
from table_core.events import EnvyPaid, Event, SideBetSettled
from table_core.side_bets import FORTUNE_8000, PayTable, SideBetRules
from table_core.table import TableState

from .side_bet_support import D, bet, open_table, side_bet, side_bet_rules, to_the_hands
from .support import AT, TABLE, player

CAPPED = FORTUNE_8000.model_copy(update={"name": "fortune_capped", "aggregate_cap": 10_000})
HANDS = {
    0: "8s 8h Kc Qd 6h 4d 3s",  # the dealer: a pair of eights, nothing on Fortune
    1: "9s 9h 9d 9c Kd 7s 2h",  # ana: four of a kind, 25 to 1
    2: "Ts Th Td 5c 5d Jc 2c",  # bruno: a full house, 5 to 1
    3: "Js Jh Jd 7c 4s 3d 2d",  # chloe: three of a kind, 3 to 1
}
R1 = {"table_id": TABLE, "at": AT, "round": 1}


def _settled_round(fortune: PayTable) -> tuple[list[Event], TableState]:
    profile = side_bet_rules(
        side_bets=SideBetRules(offered=frozenset({"fortune"}), fortune=fortune)
    )
    table = open_table(profile, {"ana": 20_000, "bruno": 20_000, "chloe": 20_000})
    to_the_hands(
        table,
        [
            bet("ana", 1_000), bet("bruno", 1_000), bet("chloe", 1_000),
            side_bet("ana", "fortune", 500),      # due 12,500
            side_bet("bruno", "fortune", 1_000),  # due  5,000
            side_bet("chloe", "fortune", 1_000),  # due  3,000: 20,500 in all
        ],
        HANDS,
    )  # fmt: skip
    for name in ("ana", "bruno", "chloe"):
        table(c.SetHand(player_id=name, actor=player(name), at=AT))  # the House Way
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    return events, table.state


def test_three_winners_over_the_cap_are_paid_pro_rata_and_the_sum_is_the_cap() -> None:
    events, state = _settled_round(CAPPED)
    settled = [e for e in events if isinstance(e, SideBetSettled)]
    fortune = {"bet": "fortune", "pay_table": "fortune_capped", "aggregate_cap": 10_000}
    # 10,000 x 12,500 / 20,500 = 6,097 r 11,500; x 5,000: 2,439 r 500; x 3,000: 1,463 r 8,500.
    # The floors leave one unit: it goes to the largest remainder, ana's.
    assert settled == [
        SideBetSettled(**R1, actor=D["actor"], seat=1, player_id="ana", amount=500,
                       line="four_of_a_kind", pays=25, payout=6_098, reduction=6_402, **fortune),
        SideBetSettled(**R1, actor=D["actor"], seat=2, player_id="bruno", amount=1_000,
                       line="full_house", pays=5, payout=2_439, reduction=2_561, **fortune),
        SideBetSettled(**R1, actor=D["actor"], seat=3, player_id="chloe", amount=1_000,
                       line="three_of_a_kind", pays=3, payout=1_463, reduction=1_537, **fortune),
    ]  # fmt: skip
    assert sum(e.payout for e in settled) == 10_000
    # Envy is a fixed bonus outside the cap: ana's quads pay bruno and chloe 5.00 each (R-VAR-3).
    envy = [(e.player_id, e.amount) for e in events if isinstance(e, EnvyPaid)]
    assert envy == [("bruno", 500), ("chloe", 500)]
    held = sum(state.balances.values()) + state.cashed_out + state.chips_in_play()
    assert held + state.house_result + state.commission == state.bought_in


def test_under_the_cap_or_with_no_cap_every_winner_is_paid_in_full() -> None:
    roomy = CAPPED.model_copy(update={"aggregate_cap": 20_500})
    for fortune, cap in ((roomy, 20_500), (FORTUNE_8000, None)):
        events, _ = _settled_round(fortune)
        paid = [(e.payout, e.aggregate_cap, e.reduction) for e in events
                if isinstance(e, SideBetSettled)]  # fmt: skip
        assert paid == [(12_500, cap, 0), (5_000, cap, 0), (3_000, cap, 0)]
