"""A dealer-banked round with six players, every event written out by hand (R-DEAL, R-SET, R-PAY).

The deck is cut so that each stack is a hand whose outcome can be read off the rulebook:

=========  =====  ===============================  ===================================  ========
seat       stack  seven cards                      how it is set                        result
=========  =====  ===============================  ===================================  ========
banker     6      8s 8h Kd 9c 6h 4d 2s             House Way: 8-8 back, K-9 front
1 ana      7      Qs Qh Ac Jd 7c 5s 3h             by ana: Q-Q back, A-J front          win
2 bruno    1      Ts Th Qc 7d 5h 4c 3d             by bruno: T-T back, 4-3 front        push
3 chloe    2      Qd Js 9d 7s 5d 3c 2h             asks the House Way: J-9 front        loss
4 dmitri   3      Jc Jh As Td 8d 6s 4s             fouls (J-J front), reset: A-T front  win
5 elif     4      Kc Ks 7h 6d 5c 4h 2d             does not set: K-K back, 7-6 front    push
6 farid    5      Kh 9s Ah Ad 6c 3s 2c             by farid: A-A back, K-9 front (copy) push
=========  =====  ===============================  ===================================  ========

Dice 2 + 3 + 5 = 10: position ((10 - 1) mod 7) + 1 = 3 (seat 2) receives stack 1 (R-DEAL-3).
"""

from __future__ import annotations

from table_core import commands as c
from table_core.cards import parse_cards
from table_core.events import (
    BankerHandSet,
    BankerResult,
    BetPlaced,
    BetsClosed,
    ChipsBoughtIn,
    CommissionTaken,
    DiceRolled,
    FoulReset,
    HandSet,
    PlayerSeated,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    SeatResult,
    StackAssignment,
    StacksAssigned,
    StacksDealt,
    TableOpened,
)

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, cards, player, rules, set_by

PLAYERS = ("ana", "bruno", "chloe", "dmitri", "elif", "farid")
WAGERS = {"ana": 1_000, "bruno": 2_000, "chloe": 1_500, "dmitri": 1_000, "elif": 1_000}
WAGERS["farid"] = 3_000

STACKS = (
    "Ts Th Qc 7d 5h 4c 3d",  # 1 -> position 3, seat 2 bruno
    "Qd Js 9d 7s 5d 3c 2h",  # 2 -> position 4, seat 3 chloe
    "Jc Jh As Td 8d 6s 4s",  # 3 -> position 5, seat 4 dmitri
    "Kc Ks 7h 6d 5c 4h 2d",  # 4 -> position 6, seat 5 elif
    "Kh 9s Ah Ad 6c 3s 2c",  # 5 -> position 7, seat 6 farid
    "8s 8h Kd 9c 6h 4d 2s",  # 6 -> position 1, the dealer banks
    "Qs Qh Ac Jd 7c 5s 3h",  # 7 -> position 2, seat 1 ana
)
UNUSED = "Tc 9h 8c JK"
DECK = " ".join((*STACKS, UNUSED)).split()

TABLE_ENV = {"table_id": TABLE, "at": AT}
ROUND = {"table_id": TABLE, "at": AT, "round": 1}


def seated_table() -> Script:
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT))
    for seat, name in enumerate(PLAYERS, start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, actor=DEALER, at=AT))
        table(c.BuyIn(player_id=name, amount=20_000, actor=CAGE, at=AT))
    return table


def play_round(table: Script) -> list[object]:
    d = {"actor": DEALER, "at": AT}
    commands: list[c.Command] = [c.StartRound(**d)]
    commands += [
        c.PlaceBet(player_id=name, amount=WAGERS[name], actor=player(name), at=AT)
        for name in PLAYERS
    ]
    commands += [
        c.CloseBets(**d),
        c.DealCards(deck=DECK, source="live", **d),
        c.RollDice(faces=(2, 3, 5), **d),
        set_by("ana", "Qs Qh 7c 5s 3h / Ac Jd"),
        set_by("bruno", "Ts Th Qc 7d 5h / 4c 3d"),
        c.SetHand(player_id="chloe", actor=player("chloe"), at=AT),
        set_by("dmitri", "As Td 8d 6s 4s / Jc Jh"),
        set_by("farid", "Ah Ad 6c 3s 2c / Kh 9s"),
        c.SetBankerHand(**d),
        c.Settle(**d),
        c.CloseRound(**d),
    ]
    return list(table.run(commands))


def test_opening_and_seating_record_the_profile_seats_and_buy_ins() -> None:
    table = seated_table()
    assert table.events[0] == TableOpened(**TABLE_ENV, actor=FLOOR, rules=rules())
    assert table.events[1:3] == [
        PlayerSeated(**TABLE_ENV, actor=DEALER, seat=1, player_id="ana"),
        ChipsBoughtIn(**TABLE_ENV, actor=CAGE, player_id="ana", amount=20_000),
    ]
    assert len(table.events) == 13
    assert dict(table.state.seats) == dict(enumerate(PLAYERS, start=1))


def test_six_player_dealer_banked_round_emits_exactly_these_events() -> None:
    table = seated_table()
    events = play_round(table)
    d = {**ROUND, "actor": DEALER}

    def by(name: str) -> dict[str, object]:
        return {**ROUND, "actor": player(name)}

    stack = [cards(s) for s in STACKS]
    expected = [
        RoundStarted(**d, rules_version=1, bank_order=()),
        *[
            BetPlaced(**by(name), seat=seat, player_id=name, position=seat + 1, amount=WAGERS[name])
            for seat, name in enumerate(PLAYERS, start=1)
        ],
        BetsClosed(**d, banker_seat=None, banker_player_id=None, in_action=9_500),
        StacksDealt(
            **d,
            source="live",
            deck=cards(" ".join(DECK)),
            stacks=tuple(stack),
            unused=cards(UNUSED),
        ),
        DiceRolled(**d, faces=(2, 3, 5), total=10, first_position=3),
        StacksAssigned(
            **d,
            assignments=(
                StackAssignment(
                    position=1, stack=6, seat=None, player_id=None, holder="banker", cards=stack[5]
                ),
                StackAssignment(
                    position=2, stack=7, seat=1, player_id="ana", holder="player", cards=stack[6]
                ),
                StackAssignment(
                    position=3, stack=1, seat=2, player_id="bruno", holder="player", cards=stack[0]
                ),
                StackAssignment(
                    position=4, stack=2, seat=3, player_id="chloe", holder="player", cards=stack[1]
                ),
                StackAssignment(
                    position=5, stack=3, seat=4, player_id="dmitri", holder="player", cards=stack[2]
                ),
                StackAssignment(
                    position=6, stack=4, seat=5, player_id="elif", holder="player", cards=stack[3]
                ),
                StackAssignment(
                    position=7, stack=5, seat=6, player_id="farid", holder="player", cards=stack[4]
                ),
            ),
        ),
        HandSet(
            **by("ana"),
            seat=1,
            position=2,
            back=cards("Qs Qh 7c 5s 3h"),
            front=cards("Ac Jd"),
            by="player",
            reason="player_set",
        ),
        HandSet(
            **by("bruno"),
            seat=2,
            position=3,
            back=cards("Qc Ts Th 7d 5h"),
            front=cards("4c 3d"),
            by="player",
            reason="player_set",
        ),
        HandSet(
            **by("chloe"),
            seat=3,
            position=4,
            back=cards("Qd 7s 5d 3c 2h"),
            front=cards("Js 9d"),
            by="house_way",
            reason="player_asked",
            rule="test_way.no_pair",
        ),
        FoulReset(
            **by("dmitri"),
            seat=4,
            position=5,
            player_back=cards("As Td 8d 6s 4s"),
            player_front=cards("Jh Jc"),
            back=cards("Jh Jc 8d 6s 4s"),
            front=cards("As Td"),
            rule="test_way.one_pair",
        ),
        HandSet(
            **by("farid"),
            seat=6,
            position=7,
            back=cards("Ah Ad 6c 3s 2c"),
            front=cards("Kh 9s"),
            by="player",
            reason="player_set",
        ),
        HandSet(
            **d,
            seat=5,
            position=6,
            back=cards("Ks Kc 5c 4h 2d"),
            front=cards("7h 6d"),
            by="house_way",
            reason="not_set",
            rule="test_way.one_pair",
        ),
        BankerHandSet(
            **d,
            seat=None,
            player_id=None,
            back=cards("8s 8h 6h 4d 2s"),
            front=cards("Kd 9c"),
            house_way="test_way",
            rule="test_way.one_pair",
        ),
        RoundSettled(
            **d,
            results=(
                SeatResult(
                    seat=1,
                    player_id="ana",
                    position=2,
                    wager=1_000,
                    back="win",
                    front="win",
                    result="win",
                    payout=1_000,
                    commission=50,
                    net=950,
                ),
                SeatResult(
                    seat=2,
                    player_id="bruno",
                    position=3,
                    wager=2_000,
                    back="win",
                    front="loss",
                    result="push",
                    payout=0,
                    commission=0,
                    net=0,
                ),
                SeatResult(
                    seat=3,
                    player_id="chloe",
                    position=4,
                    wager=1_500,
                    back="loss",
                    front="loss",
                    result="loss",
                    payout=-1_500,
                    commission=0,
                    net=-1_500,
                ),
                SeatResult(
                    seat=4,
                    player_id="dmitri",
                    position=5,
                    wager=1_000,
                    back="win",
                    front="win",
                    result="win",
                    payout=1_000,
                    commission=50,
                    net=950,
                ),
                SeatResult(
                    seat=5,
                    player_id="elif",
                    position=6,
                    wager=1_000,
                    back="win",
                    front="loss",
                    result="push",
                    payout=0,
                    commission=0,
                    net=0,
                ),
                # R-SET-3: farid's K-9 front copies the banker's K-9, and a copy is the banker's
                SeatResult(
                    seat=6,
                    player_id="farid",
                    position=7,
                    wager=3_000,
                    back="win",
                    front="copy",
                    result="push",
                    payout=0,
                    commission=0,
                    net=0,
                ),
            ),
            banker=BankerResult(
                seat=None,
                player_id=None,
                result=-500,
                house_share=-500,
                player_share=0,
                commission=0,
                net=0,
            ),
        ),
        CommissionTaken(
            **d,
            seat=1,
            player_id="ana",
            payer="player",
            amount=50,
            basis="percent_of_win",
            basis_amount=1_000,
            clause="R-PAY-2",
        ),
        CommissionTaken(
            **d,
            seat=4,
            player_id="dmitri",
            payer="player",
            amount=50,
            basis="percent_of_win",
            basis_amount=1_000,
            clause="R-PAY-2",
        ),
        RoundClosed(**d),
    ]
    assert events == expected


def test_six_player_round_moves_the_chips_and_conserves_money() -> None:
    table = seated_table()
    play_round(table)
    state = table.state
    assert dict(state.balances) == {
        "ana": 20_950,
        "bruno": 20_000,
        "chloe": 18_500,
        "dmitri": 20_950,
        "elif": 20_000,
        "farid": 20_000,
    }
    assert (state.house_result, state.commission, state.bought_in) == (-500, 100, 120_000)
    assert sum(state.balances.values()) + state.house_result + state.commission == 120_000
    assert state.phase == "closed"
    assert dict(state.last_dealer_wagers) == WAGERS


def test_the_same_round_reported_as_seven_hands_gives_the_same_hands() -> None:
    table = seated_table()
    d = {"actor": DEALER, "at": AT}
    table(c.StartRound(**d))
    table(c.PlaceBet(player_id="ana", amount=1_000, **d))
    table(c.CloseBets(**d))
    (dealt,) = table(c.DealCards(hands=[s.split() for s in STACKS], **d))
    assert isinstance(dealt, StacksDealt)
    assert dealt.deck is None
    assert dealt.stacks == tuple(cards(s) for s in STACKS)
    assert dealt.unused == cards("8c 9h Tc JK")  # the rest, in the order of a new deck
    table(c.RollDice(faces=(2, 3, 5), **d))
    assert table.state.round is not None
    assert table.state.round.hands[1] == tuple(parse_cards(STACKS[6]))
