"""Fouls under each ``foul_policy`` (R-SET-1, R-SET-2) and the commission modes (R-PAY-2, R-PAY-3).

Ana (seat 1, position 2) gets stack 7 of the six-player deck, ``Qs Qh Ac Jd 7c 5s 3h``, against the
dealer's ``8s 8h Kd 9c 6h 4d 2s`` (8-8 back, K-9 front). Set properly (Q-Q back, A-J front) her
hand wins both; with the queens in front it is fouled: a front pair over a pai gow back.
"""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.errors import CardError, DomainError
from table_core.events import (
    CommissionTaken,
    Event,
    FoulReset,
    HandForfeited,
    HandSet,
    RoundSettled,
    SeatResult,
)
from table_core.rules import TableRules

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, cards, player, rules, set_by
from .test_round_dealer_banked import DECK

D = {"actor": DEALER, "at": AT}
R1 = {"table_id": TABLE, "at": AT, "round": 1}
FOULED = "Ac Jd 7c 5s 3h / Qs Qh"


def ana_at_the_table(profile: TableRules, wager: int = 1_000, buy_in: int = 5_000) -> Script:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    table(c.SeatPlayer(seat=1, player_id="ana", **D))
    table(c.BuyIn(player_id="ana", amount=buy_in, actor=CAGE, at=AT))
    table(c.StartRound(**D))
    table(c.PlaceBet(player_id="ana", amount=wager, actor=player("ana"), at=AT))
    table.run([c.CloseBets(**D), c.DealCards(deck=DECK, **D), c.RollDice(faces=(2, 3, 5), **D)])
    return table


def settle(table: Script) -> RoundSettled:
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    settled = events[1]
    assert isinstance(settled, RoundSettled)
    return settled


def test_a_foul_under_reset_is_reset_by_the_house_way_and_play_goes_on() -> None:
    table = ana_at_the_table(rules())
    events = table(set_by("ana", FOULED))
    assert events == [
        FoulReset(**R1, actor=player("ana"), seat=1, position=2,
                  player_back=cards("Ac Jd 7c 5s 3h"), player_front=cards("Qs Qh"),
                  back=cards("Qs Qh 7c 5s 3h"), front=cards("Ac Jd"), rule="test_way.one_pair"),
    ]  # fmt: skip
    assert settle(table).results == (
        SeatResult(seat=1, player_id="ana", position=2, wager=1_000, back="win", front="win",
                   result="win", payout=1_000, commission=50, net=950),
    )  # fmt: skip
    assert table.state.balances["ana"] == 5_950


def test_a_foul_under_forfeit_loses_the_wager_whatever_the_cards() -> None:
    table = ana_at_the_table(rules(hand={"foul_policy": "forfeit"}))
    events = table(set_by("ana", FOULED))
    assert events == [
        HandForfeited(**R1, actor=player("ana"), seat=1, position=2,
                      back=cards("Ac Jd 7c 5s 3h"), front=cards("Qs Qh")),
    ]  # fmt: skip
    assert settle(table).results == (
        SeatResult(seat=1, player_id="ana", position=2, wager=1_000, back="loss", front="loss",
                   result="loss", forfeited=True, payout=-1_000, commission=0, net=-1_000),
    )  # fmt: skip
    assert table.state.balances["ana"] == 4_000
    assert table.state.house_result == 1_000


def test_a_legal_split_is_kept_as_the_player_set_it() -> None:
    table = ana_at_the_table(rules(hand={"foul_policy": "forfeit"}))
    (hand,) = table(set_by("ana", "Qs Qh 7c 5s 3h / Ac Jd"))
    assert isinstance(hand, HandSet) and (hand.by, hand.reason, hand.rule) == (
        "player",
        "player_set",
        None,
    )


@pytest.mark.parametrize(
    ("split", "message"),
    [
        ("Qs Qh 7c 5s 2h / Ac Jd", "the split does not use the cards dealt"),
        ("Qs Qh 7c 5s / Ac Jd 3h", "the back hand has 5 cards, got 4"),
        ("Qs Qh 7c 5s 5s / Ac Jd", "duplicate card: 5s"),
    ],
)
def test_a_split_of_other_cards_is_refused_and_nothing_is_recorded(
    split: str, message: str
) -> None:
    table = ana_at_the_table(rules())
    before = table.state
    with pytest.raises(CardError, match=message):
        table(set_by("ana", split))
    assert table.state == before


def test_a_hand_is_set_once() -> None:
    table = ana_at_the_table(rules())
    table(c.SetHand(player_id="ana", actor=player("ana"), at=AT))
    assert table.state.phase == "hands_set"  # every hand in action is set
    with pytest.raises(DomainError, match="in state hands_set"):
        table(set_by("ana", "Qs Qh 7c 5s 3h / Ac Jd"))


def _commissions(events: list[Event]) -> list[CommissionTaken]:
    return [e for e in events if isinstance(e, CommissionTaken)]


def test_flat_commission_charges_the_fee_on_a_winning_wager() -> None:
    table = ana_at_the_table(rules(hand={"commission": {"mode": "flat", "fee": 75}}))
    table(c.SetHand(player_id="ana", actor=player("ana"), at=AT))
    settled = settle(table)
    assert settled.results[0].net == 925
    assert _commissions(table.events) == [
        CommissionTaken(**R1, actor=DEALER, seat=1, player_id="ana", payer="player", amount=75,
                        basis="flat_per_win", basis_amount=1_000, clause="R-PAY-2"),
    ]  # fmt: skip


def test_flat_always_charges_the_fee_on_a_losing_wager_too() -> None:
    table = ana_at_the_table(
        rules(hand={"commission": {"mode": "flat_always", "fee": 100}, "foul_policy": "forfeit"})
    )
    table(set_by("ana", FOULED))
    settled = settle(table)
    assert (settled.results[0].payout, settled.results[0].net) == (-1_000, -1_100)
    assert [e.basis for e in _commissions(table.events)] == ["flat_per_hand"]
    assert table.state.balances["ana"] == 3_900
    assert table.state.commission == 100


def test_under_flat_always_the_balance_must_also_cover_the_fee() -> None:
    profile = rules(hand={"commission": {"mode": "flat_always", "fee": 100}})
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    table(c.SeatPlayer(seat=1, player_id="ana", **D))
    table(c.BuyIn(player_id="ana", amount=1_050, actor=CAGE, at=AT))
    table(c.StartRound(**D))
    with pytest.raises(DomainError) as refused:
        table(c.PlaceBet(player_id="ana", amount=1_000, **D))
    assert str(refused.value) == "player ana has 1050, short of 1000 plus the 100 fee"


def test_percent_commission_rounds_to_the_table_chip_half_up() -> None:
    # 5% of 1,010 is 50.5: half up to 51 cents; with a 25-cent chip rounded down, 50
    table = ana_at_the_table(rules(), wager=1_010)
    table(c.SetHand(player_id="ana", actor=player("ana"), at=AT))
    assert settle(table).results[0].commission == 51
    profile = rules(hand={"commission": {"rounding_unit": 25, "rounding": "down"}})
    table = ana_at_the_table(profile, wager=1_010)
    table(c.SetHand(player_id="ana", actor=player("ana"), at=AT))
    assert settle(table).results[0].commission == 50
