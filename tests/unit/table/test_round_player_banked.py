"""A rotating bank (R-BANK-1..5): offers, eligibility, coverage with a "no action" return, the
house hand at the dealer's position, the player-banker's commission on the net win.

Round 1 is dealer-banked (nobody has wagered against the dealer yet, so every offer passes on).
Round 2: ana declines, bruno cannot cover the table, chloe (seat 3) banks; positions count from
her (R-BANK-2): dmitri (seat 4) 2, the dealer's house hand 5, ana (seat 1) 6, bruno (seat 2) 7.
Her 19,000 covers dmitri 3,000 + house 1,000 + ana 15,000 exactly; bruno's 2,000 is returned.
Round 3: the dealer banks between two player banks (``dealer_between``).
"""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.banking import NOT_WAGERED
from table_core.errors import DomainError
from table_core.events import (
    BankAccepted,
    BankDeclined,
    BankerHandSet,
    BankerResult,
    BankOffered,
    BetPlaced,
    BetsClosed,
    CommissionTaken,
    DiceRolled,
    HandSet,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    SeatResult,
    StackAssignment,
    StacksAssigned,
    StacksDealt,
    WagerReturned,
)

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, cards, player, rules, set_by
from .support import SYSTEM as SHUFFLER
from .test_round_dealer_banked import DECK as ROUND_ONE_DECK

BUY_INS = {"ana": 20_000, "bruno": 4_000, "chloe": 20_000, "dmitri": 3_000}
ROUND_ONE_WAGERS = {"ana": 2_000, "bruno": 1_000, "chloe": 1_000, "dmitri": 1_000}

ROUND_TWO_STACKS = (
    "Jc Jh As Td 8d 6s 4s",  # 1 -> position 1: chloe, the player-banker
    "Qd Js 9d 7s 5d 3c 2h",  # 2 -> position 2: dmitri
    "Ts Th Qc 7d 5h 4c 3d",  # 3 -> position 3: seat 5, empty (dead)
    "Qs Qh Ac Jd 7c 5s 3h",  # 4 -> position 4: seat 6, empty (dead)
    "8s 8h Kd 9c 6h 4d 2s",  # 5 -> position 5: the house hand
    "Kc Ks 7h 6d 5c 4h 2d",  # 6 -> position 6: ana
    "Kh 9s Ah Ad 6c 3s 2c",  # 7 -> position 7: bruno, whose wager was returned (dead)
)
ROUND_TWO_DECK = " ".join((*ROUND_TWO_STACKS, "Tc 9h 8c JK")).split()

D = {"actor": DEALER, "at": AT}


def rotating_table() -> Script:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(banking="rotating"), actor=FLOOR, at=AT))
    for seat, (name, amount) in enumerate(BUY_INS.items(), start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=amount, actor=CAGE, at=AT))
    return table


def play_round_one(table: Script) -> list[object]:
    """Dealer-banked; everyone gets the House Way: ana wins, bruno pushes, chloe loses, dmitri
    wins (the hands of the six-player round, seats 5 and 6 empty)."""
    events: list[object] = list(table(c.StartRound(**D)))
    for name, amount in ROUND_ONE_WAGERS.items():
        events += table(c.PlaceBet(player_id=name, amount=amount, actor=player(name), at=AT))
    for command in (
        c.CloseBets(**D),
        c.DealCards(deck=ROUND_ONE_DECK, **D),
        c.RollDice(faces=(2, 3, 5), **D),
        c.SetBankerHand(**D),
        c.Settle(**D),
        c.CloseRound(**D),
    ):
        events += table(command)
    return events


def test_first_round_every_offer_passes_on_and_the_dealer_banks() -> None:
    table = rotating_table()
    events = play_round_one(table)
    r1 = {"table_id": TABLE, "at": AT, "round": 1, "actor": DEALER}
    required = {"ana": 4_000, "bruno": 4_000, "chloe": 4_000, "dmitri": 4_000}  # 3 x min + house
    assert events[:5] == [
        RoundStarted(**r1, rules_version=1, bank_order=(1, 2, 3, 4)),
        *[
            BankOffered(**r1, seat=seat, player_id=name, eligible=False, reason=NOT_WAGERED,
                        balance=BUY_INS[name], required=required[name])
            for seat, name in enumerate(BUY_INS, start=1)
        ],
    ]  # fmt: skip
    assert table.state.round is not None and table.state.round.banker_player is None
    assert dict(table.state.balances) == {
        "ana": 21_900,  # won 2,000 less 100 commission
        "bruno": 4_000,
        "chloe": 19_000,
        "dmitri": 3_950,
    }
    assert dict(table.state.last_dealer_wagers) == ROUND_ONE_WAGERS
    assert table.state.bank_pointer == 4


def test_player_banker_round_emits_exactly_these_events() -> None:
    table = rotating_table()
    play_round_one(table)
    start = len(table.events)
    table(c.StartRound(**D))
    table(c.DeclineBank(player_id="ana", actor=player("ana"), at=AT))
    table(c.AcceptBank(player_id="chloe", actor=player("chloe"), at=AT))
    for name, amount in (("dmitri", 3_000), ("ana", 15_000), ("bruno", 2_000)):
        table(c.PlaceBet(player_id=name, amount=amount, actor=player(name), at=AT))
    table(c.CloseBets(**D))
    table(c.DealCards(deck=ROUND_TWO_DECK, source="electronic", actor=SHUFFLER, at=AT))
    table(c.RollDice(faces=(2, 3, 3), actor=SHUFFLER, at=AT))
    table(set_by("ana", "Ks Kc 5c 4h 2d / 7h 6d"))
    table.run([c.SetBankerHand(**D), c.Settle(**D), c.CloseRound(**D)])
    events = table.events[start:]

    r2 = {"table_id": TABLE, "at": AT, "round": 2}
    d, shuffler = {**r2, "actor": DEALER}, {**r2, "actor": SHUFFLER}

    def by(name: str) -> dict[str, object]:
        return {**r2, "actor": player(name)}

    stack = [cards(s) for s in ROUND_TWO_STACKS]
    assert events == [
        RoundStarted(**d, rules_version=1, bank_order=(1, 2, 3, 4)),
        # ana: others' last wagers 1,000 + 1,000 + 1,000 and the house's 1,000
        BankOffered(**d, seat=1, player_id="ana", eligible=True, balance=21_900, required=4_000),
        BankDeclined(**by("ana"), seat=1, player_id="ana"),
        BankOffered(**by("ana"), seat=2, player_id="bruno", eligible=False,
                    reason="balance 4000 does not cover the other wagers (5000)",
                    balance=4_000, required=5_000),
        BankOffered(**by("ana"), seat=3, player_id="chloe", eligible=True, balance=19_000,
                    required=5_000),
        BankAccepted(**by("chloe"), seat=3, player_id="chloe", co_bank=False),
        BetPlaced(**by("dmitri"), seat=4, player_id="dmitri", position=2, amount=3_000),
        BetPlaced(**by("ana"), seat=1, player_id="ana", position=6, amount=15_000),
        BetPlaced(**by("bruno"), seat=2, player_id="bruno", position=7, amount=2_000),
        BetPlaced(**d, seat=None, player_id=None, position=5, amount=1_000),
        WagerReturned(**d, seat=2, player_id="bruno", position=7, amount=2_000),
        BetsClosed(**d, banker_seat=3, banker_player_id="chloe", in_action=19_000),
        StacksDealt(**shuffler, source="electronic", deck=cards(" ".join(ROUND_TWO_DECK)),
                    stacks=tuple(stack), unused=cards("Tc 9h 8c JK")),
        DiceRolled(**shuffler, faces=(2, 3, 3), total=8, first_position=1),
        StacksAssigned(
            **shuffler,
            assignments=(
                StackAssignment(position=1, stack=1, seat=3, player_id="chloe",
                                holder="banker", cards=stack[0]),
                StackAssignment(position=2, stack=2, seat=4, player_id="dmitri",
                                holder="player", cards=stack[1]),
                StackAssignment(position=3, stack=3, seat=5, player_id=None, holder="dead",
                                cards=stack[2]),
                StackAssignment(position=4, stack=4, seat=6, player_id=None, holder="dead",
                                cards=stack[3]),
                StackAssignment(position=5, stack=5, seat=None, player_id=None, holder="house",
                                cards=stack[4]),
                StackAssignment(position=6, stack=6, seat=1, player_id="ana", holder="player",
                                cards=stack[5]),
                StackAssignment(position=7, stack=7, seat=2, player_id=None, holder="dead",
                                cards=stack[6]),
            ),
        ),
        HandSet(**by("ana"), seat=1, position=6, back=cards("Ks Kc 5c 4h 2d"),
                front=cards("7h 6d"), by="player", reason="player_set"),
        HandSet(**d, seat=4, position=2, back=cards("Qd 7s 5d 3c 2h"), front=cards("Js 9d"),
                by="house_way", reason="not_set", rule="test_way.no_pair"),
        HandSet(**d, seat=None, position=5, back=cards("8s 8h 6h 4d 2s"), front=cards("Kd 9c"),
                by="house_way", reason="house_hand", rule="test_way.one_pair"),
        BankerHandSet(**d, seat=3, player_id="chloe", back=cards("Jh Jc 8d 6s 4s"),
                      front=cards("As Td"), house_way="test_way", rule="test_way.one_pair"),
        RoundSettled(
            **d,
            results=(
                SeatResult(seat=4, player_id="dmitri", position=2, wager=3_000, back="loss",
                           front="loss", result="loss", payout=-3_000, commission=0,
                           net=-3_000),
                SeatResult(seat=None, player_id=None, position=5, wager=1_000, back="loss",
                           front="loss", result="loss", payout=-1_000, commission=0,
                           net=-1_000),
                SeatResult(seat=1, player_id="ana", position=6, wager=15_000, back="win",
                           front="loss", result="push", payout=0, commission=0, net=0),
            ),
            banker=BankerResult(seat=3, player_id="chloe", result=4_000, house_share=0,
                                player_share=4_000, commission=200, net=3_800),
        ),
        CommissionTaken(**d, seat=3, player_id="chloe", payer="banker", amount=200,
                        basis="banker_net_win", basis_amount=4_000, clause="R-BANK-4"),
        RoundClosed(**d),
    ]  # fmt: skip
    state = table.state
    assert dict(state.balances) == {"ana": 21_900, "bruno": 4_000, "chloe": 22_800, "dmitri": 950}
    # round 1: house -2,000, commission 150; round 2: house hand -1,000, commission 200
    assert (state.house_result, state.commission) == (-3_000, 350)
    assert sum(state.balances.values()) + state.house_result + state.commission == 47_000


def test_the_dealer_banks_between_two_player_banks() -> None:
    table = rotating_table()
    play_round_one(table)
    table(c.StartRound(**D))
    table(c.AcceptBank(player_id="ana", actor=player("ana"), at=AT))
    table(c.PlaceBet(player_id="dmitri", amount=1_000, **D))
    table(c.VoidRound(reason="floor call: dice left the table", actor=FLOOR, at=AT))
    # a voided bank does not count: the next round offers again, after ana
    (started, bruno, chloe) = table(c.StartRound(**D))
    assert isinstance(started, RoundStarted) and started.bank_order == (2, 3, 4, 1)
    assert isinstance(bruno, BankOffered) and (bruno.seat, bruno.eligible) == (2, False)
    assert isinstance(chloe, BankOffered) and (chloe.seat, chloe.eligible) == (3, True)
    table(c.AcceptBank(player_id="chloe", actor=player("chloe"), at=AT))
    table(c.PlaceBet(player_id="ana", amount=1_000, **D))
    table.run([c.CloseBets(**D), c.DealCards(deck=ROUND_TWO_DECK, **D)])
    table.run([c.RollDice(faces=(1, 1, 1), **D), c.SetBankerHand(**D), c.Settle(**D)])
    table(c.CloseRound(**D))
    (started,) = table(c.StartRound(**D))
    assert isinstance(started, RoundStarted) and started.bank_order == ()
    assert table.state.phase == "open_for_bets"


def test_only_the_offered_player_may_answer_and_a_table_without_co_banking_refuses_it() -> None:
    table = rotating_table()
    play_round_one(table)
    table(c.StartRound(**D))
    with pytest.raises(DomainError, match="offered to seat 1, not chloe"):
        table(c.AcceptBank(player_id="chloe", actor=player("chloe"), at=AT))
    with pytest.raises(DomainError) as refused:
        table(c.AcceptBank(player_id="ana", co_bank=True, actor=player("ana"), at=AT))
    assert refused.value.rule == "R-BANK-2"
    table(c.AcceptBank(player_id="ana", actor=player("ana"), at=AT))
    with pytest.raises(DomainError, match="banks this round"):
        table(c.PlaceBet(player_id="ana", amount=1_000, **D))
    # the player-banker's balance backs the bank (R-BANK-3): none of it leaves the table
    with pytest.raises(DomainError) as refused:
        table(c.CashOut(player_id="ana", amount=100, actor=CAGE, at=AT))
    assert str(refused.value) == "player ana can cash out 1..0, not 100"


def test_co_banking_splits_the_result_and_the_odd_unit_goes_to_the_house() -> None:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(banking="rotating", co_bank=True),
                      actor=FLOOR, at=AT))  # fmt: skip
    for seat, (name, amount) in enumerate(BUY_INS.items(), start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=amount, actor=CAGE, at=AT))
    play_round_one(table)
    table(c.StartRound(**D))
    table(c.DeclineBank(player_id="ana", actor=player("ana"), at=AT))
    table(c.AcceptBank(player_id="chloe", co_bank=True, actor=player("chloe"), at=AT))
    table(c.PlaceBet(player_id="dmitri", amount=3_001, **D))
    table(c.PlaceBet(player_id="ana", amount=15_000, **D))
    table.run([c.CloseBets(**D), c.DealCards(deck=ROUND_TWO_DECK, **D)])
    table.run([c.RollDice(faces=(2, 3, 3), **D), set_by("ana", "Ks Kc 5c 4h 2d / 7h 6d")])
    table.run([c.SetBankerHand(**D), c.Settle(**D)])
    settled = next(e for e in table.events if isinstance(e, RoundSettled) and e.round == 2)
    # the bank won 3,001 + 1,000: the house takes 2,001, chloe 2,000 less 5% (100)
    assert settled.banker == BankerResult(seat=3, player_id="chloe", result=4_001, co_bank=True,
                                          house_share=2_001, player_share=2_000, commission=100,
                                          net=1_900)  # fmt: skip
    state = table.state
    assert state.balances["chloe"] == 19_000 + 1_900
    assert sum(state.balances.values()) + state.house_result + state.commission == 47_000
