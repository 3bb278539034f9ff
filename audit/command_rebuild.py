"""The command behind each recorded command's events, so the audit can decide it again.

The service appends every command's events together under one command id, in the order
``table_core.table.decide`` returned them. The command is read back from the first event (and, for
a leave, the second): its inputs are all recorded (the deck, the dice, the player's split, the
amounts), its actor and time are the events'. Deciding it again on the state folded from the
events before it gives what the rules say those events must be.

Most commands are a copy of their first event's fields of the same names (``_COPIED``, by the
event's exact class: none is a subclass of another); ``_built`` reads the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.books_commands import BOOKS_COPIED, command_of_books
from audit.field_copy import copied
from table_core import commands as c
from table_core import events as e
from table_core.table import TableState


class NotRederivable(Exception):
    """No table command records these events first: they cannot be decided again."""


#: The command each of these events records first, all of whose fields it records under the
#: command's names (``audit.field_copy``).
_COPIED: dict[type[e.Event], type[c.Command]] = {
    e.TableOpened: c.OpenTable,
    e.RulesChanged: c.ChangeRules,
    e.PlayerSeated: c.SeatPlayer,
    e.ChipsBoughtIn: c.BuyIn,
    e.PlayerLeft: c.LeaveSeat,
    # the floor's custody of decks (R20)
    e.DeckReceived: c.ReceiveDeck,
    e.DeckInspected: c.InspectDeck,
    e.DeckLoaded: c.LoadShuffler,
    e.DeckInUse: c.PutDeckInUse,
    e.DeckRetired: c.RetireDeck,
    e.DeckHeld: c.HoldDeck,
    e.DeckReleased: c.ReleaseDeck,
    # a round's
    e.RoundStarted: c.StartRound,
    e.BankAccepted: c.AcceptBank,
    e.BankDeclined: c.DeclineBank,
    e.WagerReturned: c.CloseBets,
    e.BetsClosed: c.CloseBets,
    e.SideBetPlaced: c.PlaceSideBet,
    e.DiceRolled: c.RollDice,
    e.BankerHandSet: c.SetBankerHand,
    e.RoundSettled: c.Settle,
    e.RoundClosed: c.CloseRound,
    # A floor call, or an older misdeal that recorded no report: decided again as the floor's.
    # A misdeal that recorded the reported deck or hands is re-dealt in audit/rederive.py.
    e.RoundVoided: c.VoidRound,
    **BOOKS_COPIED,
}


def command_of(state: TableState, events: Sequence[e.Event]) -> c.Command:
    """The command that recorded ``events`` (one command's events, in order)."""
    first = events[0]
    command = _COPIED.get(type(first))
    if command is not None and type(events[-1]) is not e.GamingDayOpened:
        return copied(command, first)
    books = command_of_books(events)  # the gaming day, the tray (issue 18)
    if books is not None:
        return books
    return _built(state, events)


def _built(state: TableState, events: Sequence[e.Event]) -> c.Command:
    """``command_of`` for the commands read from more than their first event's fields."""
    first = events[0]
    if isinstance(first, e.HouseWayInstalled):  # then the rules_changed that makes it the table's
        changed = events[1] if len(events) > 1 else None
        reason = changed.reason if isinstance(changed, e.RulesChanged) else ""
        return copied(c.InstallHouseWay, first, reason=reason)
    if isinstance(first, e.ChipsCashedOut):
        if len(events) > 1 and isinstance(events[1], e.PlayerLeft):  # leaving cashes out first
            return c.LeaveSeat(player_id=events[1].player_id, actor=first.actor, at=first.at)
        return copied(c.CashOut, first)
    if isinstance(first, e.BetPlaced):
        if first.seat is not None and first.player_id is not None:
            return copied(c.PlaceBet, first)
        return c.CloseBets(actor=first.actor, at=first.at)  # the house wager comes first
    if isinstance(first, e.StacksDealt):
        # R20: the deck dealt from, when the deal recorded one (the event after the stacks)
        named = events[1] if len(events) > 1 else None
        deck_id = named.deck_id if isinstance(named, e.DeckDealt) else None
        hands = first.stacks if first.deck is None else None  # the hands reported, no deck
        return copied(c.DealCards, first, hands=hands, deck_id=deck_id)
    if isinstance(first, e.HandSet | e.FoulReset | e.HandForfeited):
        return _set_hand(state, first)
    raise NotRederivable(f"no table command records {first.type} first")


def _set_hand(state: TableState, first: e.HandSet | e.FoulReset | e.HandForfeited) -> c.Command:
    if isinstance(first, e.HandSet) and first.reason not in ("player_set", "player_asked"):
        return c.SetBankerHand(actor=first.actor, at=first.at)  # unset hands, the house hand
    player = _player_at(state, first.seat, first)
    if isinstance(first, e.FoulReset):  # the split the player made, which the House Way reset
        return copied(
            c.SetHand, first, player_id=player, back=first.player_back, front=first.player_front
        )
    if isinstance(first, e.HandSet) and first.reason == "player_asked":
        return c.SetHand(player_id=player, actor=first.actor, at=first.at)
    return copied(c.SetHand, first, player_id=player)


def _player_at(state: TableState, seat: int | None, event: e.Event) -> str:
    player = state.seats.get(seat) if seat is not None else None
    if player is not None:
        return player
    if event.actor.role == "player":
        return event.actor.id
    raise NotRederivable(f"seat {seat} holds no player, so no one set this hand")
