"""The round state machine: a command in the wrong state is refused, naming the state, and emits
nothing. The table of what each state accepts is written here from the issue, independently of
``table.py``."""

from __future__ import annotations

import pytest

from table_core import commands as c
from table_core.cards import FULL_DECK
from table_core.commands import Command
from table_core.table import TableState, WrongState, decide

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules
from .test_round_player_banked import play_round_one, rotating_table

#: Commands that only depend on the table being open (seating, chips, the rules profile).
ANY_TIME = frozenset({"ChangeRules", "SeatPlayer", "LeaveSeat", "BuyIn", "CashOut"})
ROUND_OVER = frozenset({"StartRound"})

#: What each state accepts among the commands tied to the round.
ACCEPTS: dict[str, frozenset[str]] = {
    "not_opened": frozenset({"OpenTable"}),
    "no_round": ROUND_OVER,
    "offering_bank": frozenset({"AcceptBank", "DeclineBank", "VoidRound"}),
    "open_for_bets": frozenset({"PlaceBet", "PlaceSideBet", "CloseBets", "VoidRound"}),
    "bets_closed": frozenset({"DealCards", "VoidRound"}),
    "dealt": frozenset({"RollDice", "VoidRound"}),
    "dice_rolled": frozenset({"SetHand", "SetBankerHand", "VoidRound"}),
    "hands_set": frozenset({"SetBankerHand", "VoidRound"}),
    "banker_hand_set": frozenset({"Settle", "VoidRound"}),
    "settled": frozenset({"CloseRound"}),
    "closed": ROUND_OVER,
    "voided": ROUND_OVER,
}


def every_command(player_id: str = "ana") -> dict[str, Command]:
    """One command of each kind, with arguments that would pass in the right state."""
    d = {"actor": DEALER, "at": AT}
    return {
        "OpenTable": c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT),
        "StartRound": c.StartRound(**d),
        "AcceptBank": c.AcceptBank(player_id=player_id, **d),
        "DeclineBank": c.DeclineBank(player_id=player_id, **d),
        "PlaceBet": c.PlaceBet(player_id=player_id, amount=1_000, **d),
        "PlaceSideBet": c.PlaceSideBet(player_id=player_id, bet="fortune", amount=500, **d),
        "CloseBets": c.CloseBets(**d),
        "DealCards": c.DealCards(deck=FULL_DECK, **d),
        "RollDice": c.RollDice(faces=(1, 2, 3), **d),
        "SetHand": c.SetHand(player_id=player_id, actor=player(player_id), at=AT),
        "SetBankerHand": c.SetBankerHand(**d),
        "Settle": c.Settle(**d),
        "CloseRound": c.CloseRound(**d),
        "VoidRound": c.VoidRound(reason="floor call", actor=FLOOR, at=AT),
    }


def check_refusals(state: TableState, player_id: str = "ana") -> int:
    """Every round command the state does not accept raises WrongState naming the state."""
    refused = 0
    accepted = ACCEPTS[state.phase]
    for kind, command in every_command(player_id).items():
        if kind in accepted:
            continue
        with pytest.raises(WrongState) as error:
            decide(state, command)
        assert error.value.state == state.phase, kind
        assert str(error.value).endswith(f"in state {error.value.state}")
        refused += 1
    return refused


def test_a_table_that_is_not_open_accepts_only_opening() -> None:
    state = TableState()
    assert check_refusals(state) == 13
    for kind in ANY_TIME:
        command = {
            "ChangeRules": c.ChangeRules(rules=rules(version=2), reason="x", actor=FLOOR, at=AT),
            "SeatPlayer": c.SeatPlayer(seat=1, player_id="ana", actor=DEALER, at=AT),
            "LeaveSeat": c.LeaveSeat(player_id="ana", actor=DEALER, at=AT),
            "BuyIn": c.BuyIn(player_id="ana", amount=100, actor=CAGE, at=AT),
            "CashOut": c.CashOut(player_id="ana", amount=100, actor=CAGE, at=AT),
        }[kind]
        with pytest.raises(WrongState, match="in state not_opened"):
            decide(state, command)


def test_every_state_of_a_dealer_banked_round_refuses_the_other_commands() -> None:
    table = Script()
    d = {"actor": DEALER, "at": AT}
    seen = []
    steps: list[Command] = [
        c.OpenTable(table_id=TABLE, rules=rules(), actor=FLOOR, at=AT),
        c.SeatPlayer(seat=1, player_id="ana", **d),
        c.BuyIn(player_id="ana", amount=5_000, actor=CAGE, at=AT),
        c.StartRound(**d),
        c.PlaceBet(player_id="ana", amount=1_000, **d),
        c.CloseBets(**d),
        c.DealCards(deck=FULL_DECK, **d),
        c.RollDice(faces=(6, 5, 4), **d),
        c.SetHand(player_id="ana", **d),
        c.SetBankerHand(**d),
        c.Settle(**d),
        c.CloseRound(**d),
        c.StartRound(**d),
        c.VoidRound(reason="the shuffler jammed", actor=FLOOR, at=AT),
    ]
    for step in steps:
        table(step)
        seen.append(table.state.phase)
        check_refusals(table.state)
    assert seen == [
        "no_round", "no_round", "no_round", "open_for_bets", "open_for_bets", "bets_closed",
        "dealt", "dice_rolled", "hands_set", "banker_hand_set", "settled", "closed",
        "open_for_bets", "voided",
    ]  # fmt: skip


def test_the_bank_offer_state_refuses_bets_and_deals() -> None:
    table = rotating_table()
    play_round_one(table)
    table(c.StartRound(actor=DEALER, at=AT))
    assert table.state.phase == "offering_bank"
    assert check_refusals(table.state) == 11


def test_a_refused_command_leaves_the_state_as_it_was() -> None:
    table = rotating_table()
    before = table.state
    with pytest.raises(WrongState):
        table(c.Settle(actor=DEALER, at=AT))
    assert table.state is before
    assert table.events[-1].type == "chips_bought_in"
