"""Voiding a round before it settles: every bet back and the progressive's locked contributions
out of the meter (R-VAR-6), so a void changes no one's money.
"""

from __future__ import annotations

from typing import Any

from table_core.commands import VoidRound
from table_core.dealing import DEALER_PLACE, position_of
from table_core.errors import DomainError
from table_core.events import Event, MeterChanged, ReturnedWager, RoundVoided
from table_core.table.guards import DEALER_ROLES, PROGRESSIVE, WrongState, envelope, opened, require
from table_core.table.state import FINISHED, RoundState, SideBet, TableState


def returned_side_bets(round_state: RoundState) -> list[ReturnedWager]:
    return [
        ReturnedWager(
            seat=seat, player_id=bet.player_id, amount=bet.amount, kind="side", bet=bet.bet
        )
        for seat, bet in round_state.side_bets_in_order()
    ]


def returned_wagers(round_state: RoundState) -> tuple[ReturnedWager, ...]:
    """Every wager still on the layout, as a void returns it: main wagers, then side bets."""
    main = [
        ReturnedWager(
            seat=None if wager.place == DEALER_PLACE else wager.place,
            player_id=wager.player_id,
            amount=wager.amount,
        )
        for wager in round_state.wagers_in_order()
    ]
    return (*main, *returned_side_bets(round_state))


def _progressive_of(round_state: RoundState, seat: int) -> SideBet:
    return next(bet for bet in round_state.side_bets[seat] if bet.bet == PROGRESSIVE)


def void(
    state: TableState,
    round_state: RoundState,
    env: dict[str, Any],
    reason: str,
    misdeal: dict[str, Any] | None = None,
) -> list[Event]:
    """A void after bets were taken: every bet back, and each locked progressive wager's
    contribution back out of the meter (R-VAR-6), so the void changes no one's money.
    ``misdeal`` holds what a refused deal reported, recorded on the void (see ``_misdeal``)."""
    events: list[Event] = [
        RoundVoided(**env, reason=reason, returned=returned_wagers(round_state), **(misdeal or {}))
    ]
    meter = state.meter
    seats = sorted(
        round_state.contributions, key=lambda seat: position_of(seat, round_state.banker_place)
    )
    for seat in seats:
        amount = round_state.contributions[seat]
        meter -= amount
        events.append(
            MeterChanged(
                **env,
                reason="return",
                amount=-amount,
                meter=meter,
                seat=seat,
                player_id=_progressive_of(round_state, seat).player_id,
            )
        )
    return events


def void_round(state: TableState, cmd: VoidRound) -> list[Event]:
    opened(state, "void the round")
    if state.round is None or state.round.phase in FINISHED:
        raise WrongState("void the round", state.phase)
    require(cmd.actor, DEALER_ROLES, "void a round")
    if not cmd.reason.strip():
        raise DomainError("a void states its reason")
    return void(state, state.round, envelope(state, cmd), cmd.reason)
