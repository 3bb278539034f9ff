"""Side bets at the table (R-VAR-2..6, R-BANK-5): placed with the main wager before bets close,
banked by the house, settled on the seven cards whatever the split, Envy paid for other players'
hands, the progressive meter moved by events, and every bet returned by a void.

The dealer banks every round here; the dealer's ``8s 8h Kc Qd 6h 4d 3s`` is set by ``test_way``
with the eights back and K-Q front.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from table_core import commands as c
from table_core.errors import ConfigurationError, DomainError
from table_core.events import (
    BankerResult,
    BetsClosed,
    EnvyPaid,
    HandForfeited,
    MeterChanged,
    ReturnedWager,
    RoundSettled,
    RoundVoided,
    SeatResult,
    SideBetPlaced,
    SideBetSettled,
    TableOpened,
    WagerReturned,
)
from table_core.rules import TableRules
from table_core.side_bets import SideBetRules
from table_core.table import NotAllowed, WrongState, fold

from .side_bet_support import (
    CASINO_INSURANCE,
    DICE,
    EVERY_SIDE_BET,
    D,
    bet,
    deck,
    open_table,
    side_bet,
    side_bet_rules,
    to_the_hands,
)
from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules, set_by
from .test_round_player_banked import BUY_INS, ROUND_TWO_DECK, play_round_one

R1 = {"table_id": TABLE, "at": AT, "round": 1}
SETTLED_BY_DEALER = {**R1, "actor": DEALER}
DEALER_EIGHTS = "8s 8h Kc Qd 6h 4d 3s"
NINES = "9s 9h 9d 9c Kd 7s 2h"  # four nines


def money_is_conserved(table: Script) -> bool:
    s = table.state
    held = sum(s.balances.values()) + s.cashed_out + s.chips_in_play()
    return held + s.house_result + s.commission == s.bought_in


def test_a_fortune_bet_pays_four_of_a_kind_25_to_1_and_emperors_treasure_too() -> None:
    table = open_table(side_bet_rules(), {"ana": 10_000})
    to_the_hands(
        table,
        [
            bet("ana", 1_000),
            side_bet("ana", "fortune", 500),
            side_bet("ana", "emperors_treasure", 200),
        ],
        {0: DEALER_EIGHTS, 1: NINES},
    )
    table(set_by("ana", "9s 9h 9d 9c 2h / Kd 7s"))  # quads beat the eights, K-7 loses to K-Q
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])[1:]
    assert events == [
        RoundSettled(
            **SETTLED_BY_DEALER,
            results=(
                SeatResult(seat=1, player_id="ana", position=2, wager=1_000, back="win",
                           front="loss", result="push", payout=0, commission=0, net=0),
            ),
            banker=BankerResult(seat=None, player_id=None, result=0, house_share=0,
                                player_share=0, commission=0, net=0),
        ),
        # R-VAR-3: four of a kind 25 to 1; R-VAR-4: 25 to 1 as well
        SideBetSettled(**SETTLED_BY_DEALER, seat=1, player_id="ana", bet="fortune", amount=500,
                       line="four_of_a_kind", pays=25, payout=12_500, pay_table="fortune_8000"),
        SideBetSettled(**SETTLED_BY_DEALER, seat=1, player_id="ana", bet="emperors_treasure",
                       amount=200, line="four_of_a_kind", pays=25, payout=5_000,
                       pay_table="emperors_treasure"),
        # no Envy: ana's Fortune qualifies, but her own quads never pay her (R-VAR-3)
    ]  # fmt: skip
    state = table.state
    assert state.balances["ana"] == 10_000 + 12_500 + 5_000
    assert state.house_result == -17_500  # the house banks the side bets (R-BANK-5)
    assert money_is_conserved(table)


# Envy: two hands earn it (ana's four nines, bruno's 6-high straight flush); the dealer's four
# kings earn nobody anything. chloe and dmitri hold ace-high pai gows.
ENVY_HANDS = {
    0: "Ks Kh Kd Kc 8s 5s 3c",
    1: "9s 9h 9d 9c 7c 4h 2s",
    2: "2d 3d 4d 5d 6d Jc Ts",
    3: "As Qd Jh 8c 6s 4c 3h",
    4: "Ac Qh Td 8d 7s 5c 2h",
}
FORTUNE_BETS = {"ana": 500, "bruno": 1_000, "chloe": 500, "dmitri": 400}  # dmitri's is too small


def test_envy_pays_every_other_qualifying_player_for_each_hand_never_their_own_or_the_dealers() -> (
    None
):
    table = open_table(side_bet_rules(), dict.fromkeys(FORTUNE_BETS, 10_000))
    bets: list[c.Command] = []
    for name, amount in FORTUNE_BETS.items():
        bets += [bet(name, 1_000), side_bet(name, "fortune", amount)]
    to_the_hands(table, bets, ENVY_HANDS)
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    fortunes = [e for e in events if isinstance(e, SideBetSettled)]
    assert [(e.player_id, e.line, e.pays, e.payout) for e in fortunes] == [
        ("ana", "four_of_a_kind", 25, 12_500),
        ("bruno", "straight_flush", 50, 50_000),
        ("chloe", None, 0, -500),
        ("dmitri", None, 0, -400),
    ]
    envy = [e for e in events if isinstance(e, EnvyPaid)]
    assert envy == [
        EnvyPaid(**SETTLED_BY_DEALER, seat=1, player_id="ana", from_seat=2,
                 from_player_id="bruno", line="straight_flush", amount=2_000),
        EnvyPaid(**SETTLED_BY_DEALER, seat=2, player_id="bruno", from_seat=1,
                 from_player_id="ana", line="four_of_a_kind", amount=500),
        EnvyPaid(**SETTLED_BY_DEALER, seat=3, player_id="chloe", from_seat=1,
                 from_player_id="ana", line="four_of_a_kind", amount=500),
        EnvyPaid(**SETTLED_BY_DEALER, seat=3, player_id="chloe", from_seat=2,
                 from_player_id="bruno", line="straight_flush", amount=2_000),
    ]  # fmt: skip
    assert events[-4:] == envy  # Envy comes after every side bet is settled
    settled = next(e for e in events if isinstance(e, RoundSettled))
    main = {r.player_id: r.net for r in settled.results}
    side = {name: 0 for name in FORTUNE_BETS}
    for e in fortunes:
        side[e.player_id] += e.payout
    for e in envy:
        side[e.player_id] += e.amount
    assert side == {"ana": 14_500, "bruno": 50_500, "chloe": 2_000, "dmitri": -400}
    assert {name: table.state.balances[name] for name in FORTUNE_BETS} == {
        name: 10_000 + main[name] + side[name] for name in FORTUNE_BETS
    }
    assert money_is_conserved(table)


def test_a_table_offering_insurance_without_a_pay_table_is_refused() -> None:
    offered = {"offered": ["fortune", "insurance"]}
    with pytest.raises(ValidationError, match=r"no pay table \(R-VAR-5\)"):
        TableRules.model_validate({"side_bets": offered})
    # a profile that skipped validation is still refused when the table opens or changes rules
    unchecked = SideBetRules.model_construct(
        **{**dict(EVERY_SIDE_BET), "offered": frozenset({"insurance"}), "insurance": None}
    )
    profile = rules().model_copy(update={"side_bets": unchecked})
    with pytest.raises(ConfigurationError) as refused:
        Script()(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    assert refused.value.rule == "R-VAR-5"
    assert str(refused.value) == (
        "Pai Gow Insurance is offered but the casino has posted no pay table (R-VAR-5)"
    )
    table = open_table(rules(), {})
    with pytest.raises(ConfigurationError):
        table(c.ChangeRules(rules=profile.model_copy(update={"version": 2}), reason="new bet",
                            actor=FLOOR, at=AT))  # fmt: skip


def test_insurance_with_the_casinos_table_pays_a_queen_high_pai_gow() -> None:
    table = open_table(side_bet_rules(), {"ana": 5_000})
    queen_high = "Qs Jd 9h 7c 5s 3h 2d"
    to_the_hands(
        table,
        [bet("ana", 1_000), side_bet("ana", "insurance", 300)],
        {0: DEALER_EIGHTS, 1: queen_high},
    )
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    assert events[-1] == SideBetSettled(
        **SETTLED_BY_DEALER, seat=1, player_id="ana", bet="insurance", amount=300,
        line="pai_gow_queen_high", pays=4, payout=1_200, pay_table=CASINO_INSURANCE.name,
    )  # fmt: skip


FIVE_ACES = "As Ah Ad Ac JK 7d 2c"


def test_progressive_wagers_lock_when_bets_close_and_a_hit_is_paid_from_the_meter() -> None:
    table = open_table(side_bet_rules(), {"ana": 5_000, "bruno": 5_000})
    assert table.events[1] == MeterChanged(table_id=TABLE, at=AT, actor=FLOOR, reason="seed",
                                           amount=10_000, meter=10_000)  # fmt: skip
    table(c.StartRound(**D))
    table.run([bet("ana", 1_000), side_bet("ana", "progressive", 100)])
    table.run([bet("bruno", 1_000), side_bet("bruno", "progressive", 100)])
    closed = table(c.CloseBets(**D))
    assert closed == [
        BetsClosed(**SETTLED_BY_DEALER, banker_seat=None, banker_player_id=None, in_action=2_000),
        MeterChanged(**SETTLED_BY_DEALER, reason="contribution", amount=50, meter=10_050, seat=1,
                     player_id="ana"),
        MeterChanged(**SETTLED_BY_DEALER, reason="contribution", amount=50, meter=10_100, seat=2,
                     player_id="bruno"),
    ]  # fmt: skip
    table(c.DealCards(deck=deck({0: DEALER_EIGHTS, 1: FIVE_ACES, 2: NINES}), **D))
    table(c.RollDice(faces=DICE, **D))
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    side = [e for e in events if isinstance(e, SideBetSettled | MeterChanged)]
    assert side == [
        # five aces: 10% of the meter (1,010), which falls below the reset value: re-seeded
        SideBetSettled(**SETTLED_BY_DEALER, seat=1, player_id="ana", bet="progressive",
                       amount=100, line="five_aces", pays=0, payout=910,
                       pay_table="casino_progressive", from_meter=1_010),
        MeterChanged(**SETTLED_BY_DEALER, reason="hit", amount=-1_010, meter=9_090, seat=1,
                     player_id="ana", line="five_aces"),
        MeterChanged(**SETTLED_BY_DEALER, reason="reset", amount=910, meter=10_000),
        # four of a kind: a fixed 75.00 from the house, the meter untouched
        SideBetSettled(**SETTLED_BY_DEALER, seat=2, player_id="bruno", bet="progressive",
                       amount=100, line="four_of_a_kind", pays=0, payout=7_400,
                       pay_table="casino_progressive"),
    ]  # fmt: skip
    state = table.state
    assert (state.meter, state.meter_seeded) == (10_000, 10_910)
    assert state.meter - state.meter_seeded == 100 - 1_010  # contributions less hits
    assert money_is_conserved(table)
    assert fold(table.events) == state


def test_side_bets_resolve_on_the_seven_cards_of_a_forfeited_hand() -> None:
    table = open_table(side_bet_rules(hand={"foul_policy": "forfeit"}), {"ana": 5_000})
    flush = "Ks Ts 8s 6s 2s Qh Qd"  # five spades: a flush for the side bets
    to_the_hands(
        table,
        [bet("ana", 1_000), side_bet("ana", "fortune", 500), side_bet("ana", "insurance", 100)],
        {0: "8h 8c Kc Jd 6h 4d 3s", 1: flush},
    )
    (fouled,) = table(set_by("ana", "Ts 8s 6s 2s Qd / Ks Qh"))  # K-high front over a Q-high back
    assert isinstance(fouled, HandForfeited)
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])[1:]
    assert events == [
        RoundSettled(
            **SETTLED_BY_DEALER,
            results=(
                SeatResult(seat=1, player_id="ana", position=2, wager=1_000, back="loss",
                           front="loss", result="loss", forfeited=True, payout=-1_000,
                           commission=0, net=-1_000),
            ),
            banker=BankerResult(seat=None, player_id=None, result=1_000, house_share=1_000,
                                player_share=0, commission=0, net=0),
        ),
        SideBetSettled(**SETTLED_BY_DEALER, seat=1, player_id="ana", bet="fortune", amount=500,
                       line="flush", pays=4, payout=2_000, pay_table="fortune_8000"),
        SideBetSettled(**SETTLED_BY_DEALER, seat=1, player_id="ana", bet="insurance", amount=100,
                       line=None, pays=0, payout=-100, pay_table="casino_insurance"),
    ]  # fmt: skip
    assert table.state.balances["ana"] == 5_000 - 1_000 + 2_000 - 100


@pytest.mark.parametrize("when", ["after the dice", "misdeal"])
def test_a_voided_round_returns_side_bets_and_takes_the_contribution_back_out(when: str) -> None:
    table = open_table(side_bet_rules(), {"ana": 5_000, "bruno": 5_000})
    table(c.StartRound(**D))
    table.run([bet("ana", 1_000), side_bet("ana", "fortune", 500)])
    table(side_bet("ana", "progressive", 100))
    table.run([bet("bruno", 2_000), side_bet("bruno", "emperors_treasure", 300)])
    table(c.CloseBets(**D))
    assert (table.state.meter, table.state.chips_in_play()) == (10_050, 3_900)
    if when == "misdeal":
        events = table(c.DealCards(deck=["As"] * 53, **D))
        reason = "misdeal: duplicate card: As"
        actor = DEALER
        reported = {"reported_deck": ("As",) * 53, "rule": "R-CARD-2"}  # what the reader said
    else:
        table.run([c.DealCards(deck=[*range(53)], **D), c.RollDice(faces=DICE, **D)])
        events = table(c.VoidRound(reason="card exposed", actor=FLOOR, at=AT))
        reason, actor = "card exposed", FLOOR
        reported = {}
    assert events == [
        RoundVoided(**R1, actor=actor, reason=reason, **reported, returned=(
            ReturnedWager(seat=1, player_id="ana", amount=1_000),
            ReturnedWager(seat=2, player_id="bruno", amount=2_000),
            ReturnedWager(seat=1, player_id="ana", amount=500, kind="side", bet="fortune"),
            ReturnedWager(seat=1, player_id="ana", amount=100, kind="side", bet="progressive"),
            ReturnedWager(seat=2, player_id="bruno", amount=300, kind="side",
                          bet="emperors_treasure"),
        )),
        MeterChanged(**R1, actor=actor, reason="return", amount=-50, meter=10_000, seat=1,
                     player_id="ana"),
    ]  # fmt: skip
    state = table.state
    assert dict(state.balances) == {"ana": 5_000, "bruno": 5_000}
    assert (state.meter, state.meter_seeded, state.house_result) == (10_000, 10_000, 0)
    assert state.chips_in_play() == 0
    assert fold(table.events) == state


def test_side_bets_follow_their_main_wager_when_the_bank_cannot_cover_it() -> None:
    table = Script()
    profile = rules(banking="rotating", side_bets=EVERY_SIDE_BET)
    table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    for seat, (name, amount) in enumerate(BUY_INS.items(), start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=amount, actor=CAGE, at=AT))
    play_round_one(table)
    table(c.StartRound(**D))
    table(c.DeclineBank(player_id="ana", actor=player("ana"), at=AT))
    table(c.AcceptBank(player_id="chloe", actor=player("chloe"), at=AT))
    table.run([bet("dmitri", 2_000), side_bet("dmitri", "fortune", 500)])
    table.run([bet("ana", 15_000), bet("bruno", 2_000)])
    table.run([side_bet("bruno", "fortune", 500), side_bet("bruno", "progressive", 100)])
    # chloe, the player-banker, plays the Fortune too: the house banks it (R-BANK-5)
    table(side_bet("chloe", "fortune", 1_000))
    # chloe's 18,000 covers dmitri 2,000 + the house hand 1,000 + ana 15,000; bruno goes back
    events = table(c.CloseBets(**D))
    r2 = {"table_id": TABLE, "at": AT, "round": 2, "actor": DEALER}
    assert events[1:] == [
        WagerReturned(**r2, seat=2, player_id="bruno", position=7, amount=2_000),
        WagerReturned(**r2, seat=2, player_id="bruno", position=7, amount=500, kind="side",
                      bet="fortune"),
        WagerReturned(**r2, seat=2, player_id="bruno", position=7, amount=100, kind="side",
                      bet="progressive"),
        BetsClosed(**r2, banker_seat=3, banker_player_id="chloe", in_action=18_000),
    ]  # fmt: skip
    assert table.state.balances["bruno"] == BUY_INS["bruno"]
    table.run([c.DealCards(deck=ROUND_TWO_DECK, **D), c.RollDice(faces=(2, 3, 3), **D)])
    events = table.run([c.SetBankerHand(**D), c.Settle(**D)])
    fortunes = [(e.seat, e.line) for e in events if isinstance(e, SideBetSettled)]
    # chloe (position 1) first: J-J; dmitri (position 2): Q-high; neither pays
    assert fortunes == [(3, None), (4, None)]
    assert money_is_conserved(table)


def test_when_the_bank_covers_no_wager_the_void_returns_the_banker_s_own_side_bets() -> None:
    table = Script()
    profile = rules(banking="rotating", house_wager=0, side_bets=EVERY_SIDE_BET)
    table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    for seat, (name, amount) in enumerate(BUY_INS.items(), start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=amount, actor=CAGE, at=AT))
    play_round_one(table)
    table(c.StartRound(**D))
    for name in ("ana", "bruno"):  # with no house hand to cover, bruno could bank too
        table(c.DeclineBank(player_id=name, actor=player(name), at=AT))
    table(c.AcceptBank(player_id="chloe", actor=player("chloe"), at=AT))
    table.run([side_bet("chloe", "fortune", 10_000), side_bet("chloe", "progressive", 100)])
    # chloe keeps 8,900: ana's 15,000 does not fit, so neither does bruno's after it (R-BANK-3)
    table.run([bet("ana", 15_000), side_bet("ana", "fortune", 500), bet("bruno", 2_000)])
    events = table(c.CloseBets(**D))
    r2 = {"table_id": TABLE, "at": AT, "round": 2, "actor": DEALER}
    assert events == [
        WagerReturned(**r2, seat=1, player_id="ana", position=6, amount=15_000),
        WagerReturned(**r2, seat=1, player_id="ana", position=6, amount=500, kind="side",
                      bet="fortune"),
        WagerReturned(**r2, seat=2, player_id="bruno", position=7, amount=2_000),
        BetsClosed(**r2, banker_seat=3, banker_player_id="chloe", in_action=0),
        RoundVoided(**r2, reason="no wager in action: the bank covered none (R-BANK-3)",
                    returned=(
                        ReturnedWager(seat=3, player_id="chloe", amount=10_000, kind="side",
                                      bet="fortune"),
                        ReturnedWager(seat=3, player_id="chloe", amount=100, kind="side",
                                      bet="progressive"),
                    )),
    ]  # fmt: skip
    state = table.state
    assert (state.balances["chloe"], state.chips_in_play(), state.meter) == (19_000, 0, 10_000)
    assert money_is_conserved(table)


def test_placing_a_side_bet_is_checked_against_the_table_and_the_seat() -> None:
    profile = side_bet_rules(side_bets=SideBetRules(offered=frozenset({"fortune"})))
    table = open_table(profile, {"ana": 2_000, "bruno": 5_000})
    with pytest.raises(WrongState, match="cannot place a side bet in state no_round"):
        table(side_bet("ana", "fortune", 500))
    table(c.StartRound(**D))
    with pytest.raises(DomainError, match="no hand in action: a side bet goes with the main"):
        table(side_bet("ana", "fortune", 500))
    table(bet("ana", 1_000))
    for kind, amount, message in (
        ("emperors_treasure", 500,
         "this table does not take the emperors_treasure side bet (offered: fortune)"),
        ("fortune", 99, "a fortune bet at this table is 100..10000, got 99"),
        ("fortune", 10_001, "a fortune bet at this table is 100..10000, got 10001"),
        ("fortune", 1_001, "player ana has 1000 free, short of 1001"),
    ):  # fmt: skip
        with pytest.raises(DomainError) as refused:
            table(side_bet("ana", kind, amount))
        assert str(refused.value) == message
    with pytest.raises(NotAllowed):
        table(c.PlaceSideBet(player_id="ana", bet="fortune", amount=500, actor=player("bruno"),
                             at=AT))  # fmt: skip
    (placed,) = table(side_bet("ana", "fortune", 1_000))
    assert placed == SideBetPlaced(**R1, actor=player("ana"), seat=1, player_id="ana",
                                   bet="fortune", amount=1_000)  # fmt: skip
    with pytest.raises(DomainError, match="seat 1 already has a fortune bet this round"):
        table(side_bet("ana", "fortune", 100))
    table(c.CloseBets(**D))
    with pytest.raises(WrongState, match="in state bets_closed"):
        table(side_bet("ana", "fortune", 100))


def test_the_progressive_wager_is_its_fixed_amount() -> None:
    table = open_table(side_bet_rules(), {"ana": 5_000})
    table.run([c.StartRound(**D), bet("ana", 1_000)])
    with pytest.raises(DomainError) as refused:
        table(side_bet("ana", "progressive", 500))
    assert (str(refused.value), refused.value.rule) == (
        "the progressive wager is 100, got 500",
        "R-VAR-6",
    )


def test_a_rules_change_seeds_the_meter_only_up_to_the_reset_value() -> None:
    table = open_table(rules(), {})
    assert [e.type for e in table.events] == ["table_opened"]
    (changed, seeded) = table(c.ChangeRules(rules=side_bet_rules(version=2), reason="jackpot",
                                            actor=FLOOR, at=AT))  # fmt: skip
    assert (changed.type, changed.round) == ("rules_changed", None)
    assert seeded == MeterChanged(table_id=TABLE, at=AT, actor=FLOOR, reason="seed",
                                  amount=10_000, meter=10_000)  # fmt: skip
    # a table already seeded is not seeded again
    assert len(table(c.ChangeRules(rules=side_bet_rules(version=3), reason="again", actor=FLOOR,
                                   at=AT))) == 1  # fmt: skip
    assert isinstance(table.events[0], TableOpened)
