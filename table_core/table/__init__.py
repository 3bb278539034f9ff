"""The table aggregate: ``decide(state, command) -> [events]`` and the round state machine.

``decide`` checks a command against the rules and the state and answers the facts it causes, or
raises :class:`~table_core.errors.DomainError` and emits nothing. The state is a fold of the facts
(``folding.fold``). A round moves::

    offering_bank (rotating bank only) -> open_for_bets -> bets_closed -> dealt -> dice_rolled
    -> hands_set -> banker_hand_set -> settled -> closed;  voided from any phase before settled.

A command in the wrong phase raises :class:`WrongState`, which names the phase.

The deciders live one module per phase (seating, bank_rotation, wagering, deal_and_dice,
setting_hands, settling, voiding; inventory for the books; custody for the decks, R20)
over the checks they share (guards); this module dispatches a command to its decider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table_core.commands import (
    AcceptBank,
    BuyIn,
    CashOut,
    ChangeRules,
    CloseBets,
    CloseRound,
    Command,
    DealCards,
    DeclineBank,
    HoldDeck,
    InspectDeck,
    InstallHouseWay,
    LeaveSeat,
    LoadShuffler,
    OpenTable,
    PlaceBet,
    PlaceSideBet,
    PutDeckInUse,
    ReceiveDeck,
    ReleaseDeck,
    RetireDeck,
    RollDice,
    SeatPlayer,
    SetBankerHand,
    SetHand,
    Settle,
    StartRound,
    VoidRound,
)
from table_core.errors import DomainError
from table_core.event_base import TABLE_ROLES
from table_core.events import Event
from table_core.table.bank_rotation import accept_bank, decline_bank, start_round
from table_core.table.custody import (
    hold_deck,
    inspect_deck,
    load_shuffler,
    put_deck_in_use,
    receive_deck,
    release_deck,
    retire_deck,
)
from table_core.table.deal_and_dice import deal_cards, roll_dice
from table_core.table.folding import evolve, fold
from table_core.table.guards import NotAllowed, TrayShort, WrongState
from table_core.table.house_way_install import install_house_way
from table_core.table.inventory import DECIDERS as BOOKS_DECIDERS
from table_core.table.seating import (
    buy_in,
    cash_out,
    change_rules,
    leave_seat,
    open_table,
    seat_player,
)
from table_core.table.setting_hands import set_banker_hand, set_hand
from table_core.table.settling import close_round, settle
from table_core.table.state import TableState
from table_core.table.voiding import void_round
from table_core.table.wagering import close_bets, place_bet, place_side_bet

__all__ = [
    "DomainError",
    "NotAllowed",
    "TableState",
    "TrayShort",
    "WrongState",
    "decide",
    "evolve",
    "execute",
    "fold",
]

_DECIDERS: dict[type[Command], Callable[[TableState, Any], list[Event]]] = {
    OpenTable: open_table,
    ChangeRules: change_rules,
    InstallHouseWay: install_house_way,
    SeatPlayer: seat_player,
    LeaveSeat: leave_seat,
    BuyIn: buy_in,
    CashOut: cash_out,
    StartRound: start_round,
    AcceptBank: accept_bank,
    DeclineBank: decline_bank,
    PlaceBet: place_bet,
    PlaceSideBet: place_side_bet,
    CloseBets: close_bets,
    DealCards: deal_cards,
    RollDice: roll_dice,
    SetHand: set_hand,
    SetBankerHand: set_banker_hand,
    Settle: settle,
    CloseRound: close_round,
    VoidRound: void_round,
    ReceiveDeck: receive_deck,
    InspectDeck: inspect_deck,
    LoadShuffler: load_shuffler,
    PutDeckInUse: put_deck_in_use,
    RetireDeck: retire_deck,
    HoldDeck: hold_deck,
    ReleaseDeck: release_deck,
    **BOOKS_DECIDERS,  # the gaming day, the tray, the count, ratings (inventory.py)
}


def decide(state: TableState, command: Command) -> list[Event]:
    """The events ``command`` causes in ``state``, or :class:`DomainError` and nothing."""
    decider = _DECIDERS.get(type(command))
    if decider is None:
        raise DomainError(f"unknown command: {type(command).__name__}")
    actor = command.actor
    if actor.role not in TABLE_ROLES:  # events may be built unvalidated (_speed.py: trusted)
        raise NotAllowed(f"a {actor.role} may not act at a table")
    return decider(state, command)


def execute(state: TableState, command: Command) -> tuple[TableState, list[Event]]:
    """Decide and apply: the new state and the events that made it."""
    events = decide(state, command)
    return fold(events, state), events
