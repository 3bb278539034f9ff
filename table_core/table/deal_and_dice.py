"""Dealing the seven stacks (R-DEAL-2, a misdeal voids the round) and the dice that assign them
(R-DEAL-3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_core._speed import trusted
from table_core.cards import Card, card_text
from table_core.commands import CardInput, DealCards, RollDice
from table_core.dealing import (
    ASSIGNMENT_ORDER,
    DEALER_PLACE,
    POSITIONS,
    STACK_SIZE,
    STACK_SLICES,
    Deal,
    check_dice,
    deal_deck,
    deal_hands,
    first_position,
    to_card,
)
from table_core.errors import CardError, DomainError
from table_core.events import DiceRolled, Event, StackAssignment, StacksAssigned, StacksDealt
from table_core.table.custody import deck_dealt, deck_of_deal
from table_core.table.guards import DEALER_ROLES, envelope, live_round, require, texts, trusted_if
from table_core.table.state import TableState
from table_core.table.voiding import void

_SOURCES = ("electronic", "live")


_new_dice_rolled = trusted(DiceRolled)
_new_stack_assignment = trusted(StackAssignment)
_new_stacks_assigned = trusted(StacksAssigned)


def deal_cards(state: TableState, cmd: DealCards) -> list[Event]:
    round_state = live_round(state, "deal", "bets_closed")
    require(cmd.actor, DEALER_ROLES, "deal")
    if (cmd.deck is None) == (cmd.hands is None):
        raise DomainError("report either the deck order or the seven hands", rule="R-DEAL-2")
    try:
        deal: Deal = deal_deck(cmd.deck) if cmd.deck is not None else deal_hands(cmd.hands or ())
    except CardError as error:  # a misdeal voids the round: every wager is returned
        return void(
            state, round_state, envelope(state, cmd), f"misdeal: {error.message}", _misdeal(cmd)
        )
    # R20: a deck in use and inspected, once the table keeps custody (a misdeal voids whatever
    # the deck: the cards seen are the fact)
    deck_id = deck_of_deal(state, cmd)
    if deal.deck is None:
        deck = None
        stacks = tuple(texts(stack) for stack in deal.stacks)
        unused = texts(deal.unused)
    else:  # the stacks and the unused cards are cut from the deck (deal_deck): cut its text
        deck = texts(deal.deck)
        stacks = tuple(map(deck.__getitem__, STACK_SLICES))
        unused = deck[POSITIONS * STACK_SIZE :]
    dealt = trusted_if(type(cmd.source) is str and cmd.source in _SOURCES, StacksDealt)
    events: list[Event] = [
        dealt(**envelope(state, cmd), source=cmd.source, deck=deck, stacks=stacks, unused=unused)
    ]
    if deck_id is not None:
        events.append(deck_dealt(state, cmd, deck_id, round_state.number))
    return events


def _misdeal(cmd: DealCards) -> dict[str, Any]:
    """What a refused deal reported, for the void: without it a regulator could not tell a real
    misdeal from a round voided on a good deck. The audit deals it again (``audit/rederive.py``)."""
    if cmd.deck is not None:
        return {"reported_deck": _reported(cmd.deck), "rule": _misdeal_rule(cmd)}
    hands = tuple(_reported(hand) for hand in cmd.hands or ())
    return {"reported_hands": hands, "rule": _misdeal_rule(cmd)}


def _reported(values: Sequence[CardInput]) -> tuple[str, ...]:
    """Each card as reported: its canonical text when it is a card (R-CARD-2), else the token as
    given (``str`` of a value that is not even text), so the record shows the fault itself."""
    out = []
    for value in values:
        try:
            out.append(card_text(to_card(value)))
        except CardError:
            out.append(value if isinstance(value, str) else str(value))
    return tuple(out)


def _misdeal_rule(cmd: DealCards) -> str:
    """The clause the refused deal breaks, found in ``deal_deck``/``deal_hands``' own order so it
    names the fault the reason names: an unknown or duplicate card is R-CARD-2; a deck of distinct
    cards that are not 53 is R-CARD-1; not seven hands, or a hand not of seven, is R-DEAL-2."""
    if cmd.deck is not None:
        cards = _cards_or_none(cmd.deck)
        return "R-CARD-1" if cards is not None and len(set(cards)) == len(cards) else "R-CARD-2"
    hands = cmd.hands or ()
    if len(hands) != POSITIONS:
        return "R-DEAL-2"
    if any(_cards_or_none(hand) is None for hand in hands):
        return "R-CARD-2"
    if any(len(hand) != STACK_SIZE for hand in hands):
        return "R-DEAL-2"
    return "R-CARD-2"  # seven hands of seven with a card seen twice


def _cards_or_none(values: Sequence[CardInput]) -> list[Card] | None:
    try:
        return [to_card(value) for value in values]
    except CardError:
        return None


def roll_dice(state: TableState, cmd: RollDice) -> list[Event]:
    round_state = live_round(state, "roll the dice", "dealt")
    require(cmd.actor, DEALER_ROLES, "roll the dice")
    faces = check_dice(cmd.faces)
    total = sum(faces)
    first = first_position(total)
    assert round_state.deal is not None  # the dealt phase holds the deal
    env = envelope(state, cmd)  # the round's: both events carry it
    stacks, banker, wagers = round_state.deal.stacks, round_state.banker_place, round_state.wagers
    assignments = []
    for position, place, stack in ASSIGNMENT_ORDER[banker][first]:
        if place == banker:
            holder, player = "banker", round_state.banker_player
        elif place in wagers:
            holder = "house" if place == DEALER_PLACE else "player"
            player = wagers[place].player_id
        else:  # an empty seat, a player without a wager, or a wager returned: a dead stack
            holder, player = "dead", None
        assignments.append(
            _new_stack_assignment(
                position=position,
                stack=stack,
                seat=None if place == DEALER_PLACE else place,
                player_id=player,
                holder=holder,
                cards=texts(stacks[stack - 1]),
            )
        )
    return [
        _new_dice_rolled(**env, faces=faces, total=total, first_position=first),
        _new_stacks_assigned(**env, assignments=tuple(assignments)),
    ]
