"""The command behind each recorded command's events, so the audit can decide it again.

The service appends every command's events together under one command id, in the order
``table_core.table.decide`` returned them. The command is read back from the first event (and, for
a leave, the second): its inputs are all recorded (the deck, the dice, the player's split, the
amounts), its actor and time are the events'. Deciding it again on the state folded from the
events before it gives what the rules say those events must be.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.books_commands import command_of_books
from table_core import commands as c
from table_core.events import (
    BankAccepted,
    BankDeclined,
    BankerHandSet,
    BetPlaced,
    BetsClosed,
    ChipsBoughtIn,
    ChipsCashedOut,
    DeckDealt,
    DeckHeld,
    DeckInspected,
    DeckInUse,
    DeckLoaded,
    DeckReceived,
    DeckReleased,
    DeckRetired,
    DiceRolled,
    Event,
    FoulReset,
    GamingDayOpened,
    HandForfeited,
    HandSet,
    HouseWayInstalled,
    PlayerLeft,
    PlayerSeated,
    RoundClosed,
    RoundSettled,
    RoundStarted,
    RoundVoided,
    RulesChanged,
    SideBetPlaced,
    StacksDealt,
    TableOpened,
    WagerReturned,
)
from table_core.table import TableState


class NotRederivable(Exception):
    """No table command records these events first: they cannot be decided again."""


def command_of(state: TableState, events: Sequence[Event]) -> c.Command:
    """The command that recorded ``events`` (one command's events, in order)."""
    if type(events[0]) in _ROUND_FIRST and type(events[-1]) is not GamingDayOpened:
        # Most commands are a round's: no books, table or custody test below can match them
        # (exact classes, none a subclass of another), so straight to their own tests.
        return _round_command(state, events)
    books = command_of_books(events)  # the gaming day, the tray, the count, ratings (issue 18)
    if books is not None:
        return books
    first = events[0]
    actor, at = first.actor, first.at
    if isinstance(first, TableOpened):
        return c.OpenTable(table_id=first.table_id, rules=first.rules, actor=actor, at=at)
    if isinstance(first, RulesChanged):
        return c.ChangeRules(rules=first.rules, reason=first.reason, actor=actor, at=at)
    if isinstance(first, HouseWayInstalled):  # then the rules_changed that makes it the table's
        changed = events[1] if len(events) > 1 else None
        return c.InstallHouseWay(
            text=first.text,
            digest=first.digest,
            certificate_digest=first.certificate_digest,
            reason=changed.reason if isinstance(changed, RulesChanged) else "",
            actor=actor,
            at=at,
        )
    if isinstance(first, PlayerSeated):
        return c.SeatPlayer(
            seat=first.seat, player_id=first.player_id, card=first.card, actor=actor, at=at
        )
    if isinstance(first, ChipsBoughtIn):
        return c.BuyIn(
            player_id=first.player_id,
            amount=first.amount,
            medium=first.medium,
            marker=first.marker,
            actor=actor,
            at=at,
        )
    if isinstance(first, ChipsCashedOut):
        if len(events) > 1 and isinstance(events[1], PlayerLeft):  # leaving cashes out first
            return c.LeaveSeat(player_id=events[1].player_id, actor=actor, at=at)
        return c.CashOut(player_id=first.player_id, amount=first.amount, actor=actor, at=at)
    if isinstance(first, PlayerLeft):
        return c.LeaveSeat(player_id=first.player_id, actor=actor, at=at)
    custody = _custody_command(first)
    if custody is not None:
        return custody
    return _round_command(state, events)


def _custody_command(first: Event) -> c.Command | None:
    """The floor's custody command behind a custody event (R20), or ``None``."""
    actor, at = first.actor, first.at
    if isinstance(first, DeckReceived):
        return c.ReceiveDeck(
            deck_id=first.deck_id,
            seal=first.seal,
            package_id=first.package_id,
            actor=actor,
            at=at,
        )
    if isinstance(first, DeckInspected):
        return c.InspectDeck(
            deck_id=first.deck_id,
            card_count=first.card_count,
            inspector=first.inspector,
            actor=actor,
            at=at,
        )
    if isinstance(first, DeckLoaded):
        return c.LoadShuffler(
            deck_id=first.deck_id,
            shuffler_serial=first.shuffler_serial,
            received_at=first.received_at,
            actor=actor,
            at=at,
        )
    if isinstance(first, DeckInUse):
        return c.PutDeckInUse(deck_id=first.deck_id, actor=actor, at=at)
    if isinstance(first, DeckRetired):
        return c.RetireDeck(
            deck_id=first.deck_id,
            reason=first.reason,
            destroyed=first.destroyed,
            actor=actor,
            at=at,
        )
    if isinstance(first, DeckHeld):
        return c.HoldDeck(
            deck_id=first.deck_id,
            reason=first.reason,
            dispute_id=first.dispute_id,
            actor=actor,
            at=at,
        )
    if isinstance(first, DeckReleased):
        return c.ReleaseDeck(deck_id=first.deck_id, reason=first.reason, actor=actor, at=at)
    return None


def _round_command(state: TableState, events: Sequence[Event]) -> c.Command:
    """``command_of`` for the events a round's commands open with."""
    first = events[0]
    actor, at = first.actor, first.at
    if isinstance(first, RoundStarted):
        return c.StartRound(actor=actor, at=at)
    if isinstance(first, BankAccepted):
        return c.AcceptBank(player_id=first.player_id, co_bank=first.co_bank, actor=actor, at=at)
    if isinstance(first, BankDeclined):
        return c.DeclineBank(player_id=first.player_id, actor=actor, at=at)
    if isinstance(first, BetPlaced) and first.seat is not None and first.player_id is not None:
        return c.PlaceBet(player_id=first.player_id, amount=first.amount, actor=actor, at=at)
    if isinstance(first, BetPlaced | WagerReturned | BetsClosed):  # the house wager comes first
        return c.CloseBets(actor=actor, at=at)
    if isinstance(first, SideBetPlaced):
        return c.PlaceSideBet(
            player_id=first.player_id, bet=first.bet, amount=first.amount, actor=actor, at=at
        )
    if isinstance(first, StacksDealt):
        # R20: the deck dealt from, when the deal recorded one (the event after the stacks)
        named = events[1] if len(events) > 1 else None
        deck_id = named.deck_id if isinstance(named, DeckDealt) else None
        if first.deck is not None:
            return c.DealCards(
                deck=first.deck, source=first.source, deck_id=deck_id, actor=actor, at=at
            )
        return c.DealCards(
            hands=first.stacks, source=first.source, deck_id=deck_id, actor=actor, at=at
        )
    if isinstance(first, DiceRolled):
        return c.RollDice(faces=first.faces, actor=actor, at=at)
    if isinstance(first, HandSet) and first.reason in ("player_set", "player_asked"):
        player = _player_at(state, first.seat, first)
        if first.reason == "player_asked":
            return c.SetHand(player_id=player, actor=actor, at=at)
        return c.SetHand(player_id=player, back=first.back, front=first.front, actor=actor, at=at)
    if isinstance(first, FoulReset):
        player = _player_at(state, first.seat, first)
        return c.SetHand(
            player_id=player, back=first.player_back, front=first.player_front, actor=actor, at=at
        )
    if isinstance(first, HandForfeited):
        player = _player_at(state, first.seat, first)
        return c.SetHand(player_id=player, back=first.back, front=first.front, actor=actor, at=at)
    if isinstance(first, HandSet | BankerHandSet):  # unset hands, the house hand, the banker
        return c.SetBankerHand(actor=actor, at=at)
    if isinstance(first, RoundSettled):
        return c.Settle(actor=actor, at=at)
    if isinstance(first, RoundClosed):
        return c.CloseRound(actor=actor, at=at)
    if isinstance(first, RoundVoided):
        # A floor call, or an older misdeal that recorded no report: decided again as the floor's.
        # A misdeal that recorded the reported deck or hands is re-dealt in audit/rederive.py.
        return c.VoidRound(reason=first.reason, actor=actor, at=at)
    raise NotRederivable(f"no table command records {first.type} first")


#: The events a round's commands open with (``_round_command``), by exact class.
_ROUND_FIRST = frozenset(
    {
        RoundStarted, BankAccepted, BankDeclined, BetPlaced, WagerReturned, BetsClosed,
        SideBetPlaced, StacksDealt, DiceRolled, HandSet, FoulReset, HandForfeited, BankerHandSet,
        RoundSettled, RoundClosed, RoundVoided,
    }
)  # fmt: skip


def _player_at(state: TableState, seat: int | None, event: Event) -> str:
    player = state.seats.get(seat) if seat is not None else None
    if player is not None:
        return player
    if event.actor.role == "player":
        return event.actor.id
    raise NotRederivable(f"seat {seat} holds no player, so no one set this hand")
