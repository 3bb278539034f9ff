"""Starting a round and the bank's rotation (R-BANK-1): the offers down the seats, accepted or
declined.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_core._speed import trusted
from table_core.banking import SEAT_EMPTY, bank_eligibility, bank_order
from table_core.commands import AcceptBank, DeclineBank, StartRound
from table_core.errors import DomainError
from table_core.events import BankAccepted, BankDeclined, BankOffered, Event, RoundStarted
from table_core.rules import TableRules
from table_core.table.guards import (
    DEALER_ROLES,
    WrongState,
    envelope,
    live_round,
    opened,
    player_seat,
    require,
    require_player,
    trusted_if,
)
from table_core.table.state import RoundState, TableState

_new_bank_declined = trusted(BankDeclined)
_new_bank_offered = trusted(BankOffered)
_new_round_started = trusted(RoundStarted)


def _offers(
    state: TableState, env: dict[str, Any], rules: TableRules, order: Sequence[int]
) -> list[Event]:
    """Offer the bank down ``order`` (R-BANK-1): ineligible seats pass on with their reason; the
    first eligible seat is asked and the offers stop there."""
    events: list[Event] = []
    for seat in order:
        player = state.seats.get(seat)
        if player is None:
            events.append(
                _new_bank_offered(
                    **env, seat=seat, player_id=None, eligible=False, reason=SEAT_EMPTY
                )
            )
            continue
        others = [other for other_seat, other in state.seats.items() if other_seat != seat]
        balance = state.balances.get(player, 0)
        verdict = bank_eligibility(player, balance, others, state.last_dealer_wagers, rules)
        events.append(
            _new_bank_offered(
                **env,
                seat=seat,
                player_id=player,
                eligible=verdict.eligible,
                reason=verdict.reason,
                balance=balance,
                required=verdict.required,
            )
        )
        if verdict.eligible:
            break
    return events


def start_round(state: TableState, cmd: StartRound) -> list[Event]:
    rules = opened(state, "start a round")
    if state.round is not None and state.round.phase not in ("closed", "voided"):
        raise WrongState("start a round", state.phase)
    if state.books == "closed":  # issue 18: a closed table takes no round until it reopens
        raise WrongState("start a round", "closed")
    require(cmd.actor, DEALER_ROLES, "start a round")
    number = state.last_round + 1
    order: tuple[int, ...] = ()
    dealer_turn = rules.dealer_between and state.last_bank_was_player  # R-BANK-1 dealer_between
    if rules.banking == "rotating" and not dealer_turn:
        order = bank_order(state.seats, state.bank_pointer)
    started = _new_round_started(
        table_id=state.table_id,
        actor=cmd.actor,
        at=cmd.at,
        round=number,
        rules_version=rules.version,
        bank_order=order,
    )
    if not order:
        return [started]
    env = {"table_id": state.table_id, "actor": cmd.actor, "at": cmd.at, "round": number}
    return [started, *_offers(state, env, rules, order)]


def _offered(state: TableState, cmd: AcceptBank | DeclineBank, action: str) -> RoundState:
    round_state = live_round(state, action, "offering_bank")
    require_player(cmd.actor, cmd.player_id, action)
    if (
        round_state.offered_seat is None
        or state.seats.get(round_state.offered_seat) != cmd.player_id
    ):
        raise DomainError(
            f"the bank is offered to seat {round_state.offered_seat}, not {cmd.player_id}"
        )
    return round_state


def accept_bank(state: TableState, cmd: AcceptBank) -> list[Event]:
    round_state = _offered(state, cmd, "accept the bank")
    if cmd.co_bank and not round_state.rules.co_bank:
        raise DomainError("this table does not co-bank", rule="R-BANK-2")
    seat = player_seat(state, cmd.player_id)
    others = [other for other_seat, other in state.seats.items() if other_seat != seat]
    balance = state.balances.get(cmd.player_id, 0)
    verdict = bank_eligibility(
        cmd.player_id, balance, others, state.last_dealer_wagers, round_state.rules
    )
    if not verdict.eligible:  # the balance changed since the offer
        raise DomainError(f"player {cmd.player_id} may not bank: {verdict.reason}", "R-BANK-1")
    return [
        trusted_if(type(cmd.co_bank) is bool, BankAccepted)(
            **envelope(state, cmd), seat=seat, player_id=cmd.player_id, co_bank=cmd.co_bank
        )
    ]


def decline_bank(state: TableState, cmd: DeclineBank) -> list[Event]:
    round_state = _offered(state, cmd, "decline the bank")
    env = envelope(state, cmd)
    declined = _new_bank_declined(
        **env, seat=player_seat(state, cmd.player_id), player_id=cmd.player_id
    )
    return [
        declined,
        *_offers(state, env, round_state.rules, round_state.bank_order[round_state.offers_made :]),
    ]
