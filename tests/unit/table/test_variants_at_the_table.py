"""Main-wager variants at the table (R-VAR-1): ``ez`` and ``commission_free`` charge no commission,
and one banker hand decides every main wager of the round, which ``round_settled`` names.

ana sets two aces back and J-9 (or J-T) front, which wins both hands against these bankers; bruno
sets a hand that loses both. The dealer banks and sets by ``test_way``.
"""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.events import BankerResult, Event, RoundSettled, SeatResult

from .side_bet_support import D, bet, open_table, to_the_hands
from .support import AT, DEALER, TABLE, rules, set_by

SETTLED = {"table_id": TABLE, "at": AT, "round": 1, "actor": DEALER}
WAGERS = {"ana": 1_000, "bruno": 2_000}

# ez (R-VAR-1): the dealer's seven cards are a queen-high pai gow, set Q-6-4-3-2 / T-8.
QUEEN_HIGH = "Qs Th 8d 6c 4s 3h 2d"
KING_HIGH = "Ks Th 8d 6c 4s 3h 2d"
EZ_PLAYERS = {
    1: ("As Ah Kd Kc 5h Jc 9c", "As Ah Kd Kc 5h / Jc 9c"),  # two pair, J-9: wins both
    2: ("Js 9h 7d 5c 3c 7h 5d", "Js 9h 7d 5c 3c / 7h 5d"),  # J-high, 7-5: loses both
}
# commission_free (R-VAR-1): the dealer's K-K back and 9-7 front (a 9-high front), or T-7.
NINE_HIGH_FRONT = "Ks Kh 9d 7c 5s 3h 2d"
TEN_HIGH_FRONT = "Ks Kh Td 7c 5s 3h 2d"
FREE_PLAYERS = {
    1: ("As Ah Qd Qc 5h Jc Tc", "As Ah Qd Qc 5h / Jc Tc"),  # aces up, J-T: wins both
    2: ("Js 9h 8d 6c 4c 7h 2c", "Js 9h 8d 6c 4c / 7h 2c"),  # J-high, 7-2: loses both
}


def settle_round(
    banker: str, players: dict[int, tuple[str, str]], **profile: object
) -> tuple[list[Event], dict[str, int]]:
    table = open_table(rules(**profile), {"ana": 5_000, "bruno": 5_000})
    hands = {0: banker, **{seat: seven for seat, (seven, _) in players.items()}}
    to_the_hands(table, [bet(name, amount) for name, amount in WAGERS.items()], hands)
    for seat, name in ((1, "ana"), (2, "bruno")):
        table(set_by(name, players[seat][1]))
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])[1:]
    s = table.state
    assert sum(s.balances.values()) + s.house_result + s.commission == s.bought_in
    return events, dict(s.balances)


def results(ana: tuple[str, int], bruno: tuple[str, int]) -> tuple[SeatResult, ...]:
    """ana wins both hands and bruno loses both (R-SET-3), whatever the wager's result."""
    return (
        SeatResult(seat=1, player_id="ana", position=2, wager=1_000, back="win", front="win",
                   result=ana[0], payout=ana[1], commission=0, net=ana[1]),
        SeatResult(seat=2, player_id="bruno", position=3, wager=2_000, back="loss", front="loss",
                   result=bruno[0], payout=bruno[1], commission=0, net=bruno[1]),
    )  # fmt: skip


def dealer(result: int) -> BankerResult:
    return BankerResult(seat=None, player_id=None, result=result, house_share=result,
                        player_share=0, commission=0, net=0)  # fmt: skip


def test_ez_banker_queen_high_pai_gow_pushes_every_main_wager() -> None:
    events, balances = settle_round(QUEEN_HIGH, EZ_PLAYERS, variant="ez")
    assert events == [
        RoundSettled(**SETTLED, results=results(("push", 0), ("push", 0)), banker=dealer(0),
                     variant="ez", override="ez_queen_high_push"),
    ]  # fmt: skip
    assert balances == {"ana": 5_000, "bruno": 5_000}


def test_ez_banker_wins_setting_takes_every_main_wager() -> None:
    events, balances = settle_round(
        QUEEN_HIGH, EZ_PLAYERS, variant="ez", queen_high_pai_gow="banker_wins"
    )
    assert events == [
        RoundSettled(**SETTLED, results=results(("loss", -1_000), ("loss", -2_000)),
                     banker=dealer(3_000), variant="ez", override="ez_queen_high_banker_wins"),
    ]  # fmt: skip
    assert balances == {"ana": 4_000, "bruno": 3_000}


def test_ez_without_the_queen_high_pays_even_money_and_no_commission() -> None:
    events, balances = settle_round(KING_HIGH, EZ_PLAYERS, variant="ez")
    assert events == [  # no commission_taken: ez charges none
        RoundSettled(**SETTLED, results=results(("win", 1_000), ("loss", -2_000)),
                     banker=dealer(1_000), variant="ez"),
    ]  # fmt: skip
    assert balances == {"ana": 6_000, "bruno": 3_000}


def test_commission_free_banker_nine_high_front_pushes_every_main_wager() -> None:
    events, balances = settle_round(NINE_HIGH_FRONT, FREE_PLAYERS, variant="commission_free")
    assert events == [
        RoundSettled(**SETTLED, results=results(("push", 0), ("push", 0)), banker=dealer(0),
                     variant="commission_free", override="commission_free_nine_high_push"),
    ]  # fmt: skip
    assert balances == {"ana": 5_000, "bruno": 5_000}


@pytest.mark.parametrize("mode", ["percent", "flat_always"])
def test_commission_free_pays_a_win_whole_whatever_the_commission_mode(mode: str) -> None:
    commission = {"mode": mode, "fee": 0 if mode == "percent" else 50}
    events, balances = settle_round(
        TEN_HIGH_FRONT,
        FREE_PLAYERS,
        variant="commission_free",
        hand={"commission": commission},
    )
    assert events == [
        RoundSettled(**SETTLED, results=results(("win", 1_000), ("loss", -2_000)),
                     banker=dealer(1_000), variant="commission_free"),
    ]  # fmt: skip
    assert balances == {"ana": 6_000, "bruno": 3_000}


def test_the_same_hands_in_the_commission_game_pay_commission() -> None:
    events, balances = settle_round(NINE_HIGH_FRONT, FREE_PLAYERS)
    assert [e.type for e in events] == ["round_settled", "commission_taken"]
    settled = events[0]
    assert isinstance(settled, RoundSettled)
    assert (settled.variant, settled.override) == ("commission", None)
    assert balances == {"ana": 5_950, "bruno": 3_000}
