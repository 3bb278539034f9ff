"""Wagers: main bets, side bets (R-VAR-2..6), and closing bets with what the bank covers
(R-BANK-2..3) and the progressive's contributions (R-VAR-6).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from table_core._speed import trusted
from table_core.banking import cover
from table_core.commands import CloseBets, PlaceBet, PlaceSideBet
from table_core.dealing import DEALER_PLACE, position_of
from table_core.errors import DomainError
from table_core.events import (
    BetPlaced,
    BetsClosed,
    Event,
    MeterChanged,
    RoundVoided,
    SideBetPlaced,
    WagerReturned,
)
from table_core.settlement import fee_held
from table_core.side_bets import meter_contribution
from table_core.table.guards import (
    DEALER_ROLES,
    PROGRESSIVE,
    envelope,
    live_round,
    player_seat,
    require,
    require_player,
    trusted_if,
)
from table_core.table.state import RoundState, TableState, Wager
from table_core.table.voiding import returned_side_bets

_new_bet_placed = trusted(BetPlaced)
_new_bets_closed = trusted(BetsClosed)
_new_meter_changed = trusted(MeterChanged)
_new_wager_returned = trusted(WagerReturned)


def place_bet(state: TableState, cmd: PlaceBet) -> list[Event]:
    round_state = live_round(state, "place a bet", "open_for_bets")
    player_id, amount, actor = cmd.player_id, cmd.amount, cmd.actor
    if actor.role != "player" or actor.id != player_id:  # else the player acts: allowed
        require_player(actor, player_id, "place a bet")
    seat = player_seat(state, player_id)
    if seat == round_state.banker_place:
        raise DomainError(f"player {player_id} banks this round and does not wager")
    if seat in round_state.wagers:
        raise DomainError(
            f"seat {seat} already has a main wager of {round_state.wagers[seat].amount}"
        )
    rules = round_state.rules
    limits = rules.limits
    if not limits.min_bet <= amount <= limits.max_bet:
        raise DomainError(
            f"a bet at this table is {limits.min_bet}..{limits.max_bet}, got {amount}"
        )
    fee = fee_held(rules)  # due whatever the result
    balance = state.balances.get(player_id, 0)
    if amount + fee > balance:
        extra = f" plus the {fee} fee" if fee else ""
        raise DomainError(f"player {player_id} has {balance}, short of {amount}{extra}")
    new = _new_bet_placed if type(amount) is int else BetPlaced  # see _trusted_if
    return [
        new(  # the fields written out: a bet is the hottest command, no dict to unpack
            table_id=state.table_id,
            actor=actor,
            at=cmd.at,
            round=round_state.number,
            seat=seat,
            player_id=player_id,
            position=position_of(seat, round_state.banker_place),
            amount=amount,
        )
    ]


def place_side_bet(state: TableState, cmd: PlaceSideBet) -> list[Event]:
    """A side bet with the seat's hand, before bets close (R-VAR-2..6). The seat needs a hand in
    action: its main wager, or the bank (a player-banker plays a hand too, and the house banks
    side bets whoever banks, R-BANK-5). One bet of each kind per seat per round."""
    round_state = live_round(state, "place a side bet", "open_for_bets")
    require_player(cmd.actor, cmd.player_id, "place a side bet")
    seat = player_seat(state, cmd.player_id)
    side_bets = round_state.rules.side_bets
    if cmd.bet not in side_bets.offered:
        offered = ", ".join(sorted(side_bets.offered)) or "none"
        raise DomainError(
            f"this table does not take the {cmd.bet} side bet (offered: {offered})", "R-VAR-2"
        )
    if seat not in round_state.wagers and seat != round_state.banker_place:
        raise DomainError(
            f"seat {seat} has no hand in action: a side bet goes with the main wager", "R-VAR-2"
        )
    if any(bet.bet == cmd.bet for bet in round_state.side_bets.get(seat, ())):
        raise DomainError(f"seat {seat} already has a {cmd.bet} bet this round")
    if cmd.bet == PROGRESSIVE:
        assert side_bets.progressive is not None  # offered only with its table (R-VAR-6)
        fixed = side_bets.progressive.wager
        if cmd.amount != fixed:
            raise DomainError(f"the progressive wager is {fixed}, got {cmd.amount}", "R-VAR-6")
    else:
        limits = round_state.rules.side_bet_limits
        if not limits.min_bet <= cmd.amount <= limits.max_bet:
            raise DomainError(
                f"a {cmd.bet} bet at this table is {limits.min_bet}..{limits.max_bet}, "
                f"got {cmd.amount}"
            )
    balance = state.balances.get(cmd.player_id, 0)
    free = balance - (fee_held(round_state.rules) if seat in round_state.wagers else 0)
    if cmd.amount > free:
        raise DomainError(f"player {cmd.player_id} has {free} free, short of {cmd.amount}")
    return [
        trusted_if(type(cmd.amount) is int, SideBetPlaced)(
            **envelope(state, cmd),
            seat=seat,
            player_id=cmd.player_id,
            bet=cmd.bet,
            amount=cmd.amount,
        )
    ]


def _contributions(state: TableState, round_state: RoundState, env: dict[str, Any]) -> list[Event]:
    """R-VAR-6: each progressive wager still on the layout is locked as bets close and its share
    goes to the meter, one event per wager (none for a share of 0: nothing changes)."""
    table = round_state.rules.side_bets.progressive
    if table is None:
        return []
    share = meter_contribution(table, 1)
    events: list[Event] = []
    meter = state.meter
    for seat, bet in round_state.side_bets_in_order():
        if bet.bet == PROGRESSIVE and share:
            meter += share
            events.append(
                _new_meter_changed(
                    **env,
                    reason="contribution",
                    amount=share,
                    meter=meter,
                    seat=seat,
                    player_id=bet.player_id,
                )
            )
    return events


def close_bets(state: TableState, cmd: CloseBets) -> list[Event]:
    round_state = live_round(state, "close bets", "open_for_bets")
    require(cmd.actor, DEALER_ROLES, "close bets")
    if not round_state.wagers:
        raise DomainError("no wager placed: take bets or void the round")
    env = envelope(state, cmd)
    events: list[Event] = []
    in_play = round_state.wagers_in_order()
    kept = round_state  # the round as bets close: side bets of returned wagers gone
    if round_state.player_banked:
        events, in_play, kept = _player_bank_covers(state, round_state, env)
    events.append(
        _new_bets_closed(
            **env,
            banker_seat=round_state.banker_place if round_state.player_banked else None,
            banker_player_id=round_state.banker_player,
            co_bank=round_state.co_bank,
            in_action=sum(wager.amount for wager in in_play),
        )
    )
    if not in_play:  # only the player-banker's own side bets can be left to return
        reason = "no wager in action: the bank covered none (R-BANK-3)"
        events.append(RoundVoided(**env, reason=reason, returned=tuple(returned_side_bets(kept))))
        return events
    return [*events, *_contributions(state, kept, env)]


def _player_bank_covers(
    state: TableState, round_state: RoundState, env: dict[str, Any]
) -> tuple[list[Event], list[Wager], RoundState]:
    """Against a player-banker: the house hand's wager (R-BANK-2), then what the bank's balance
    covers in position order (R-BANK-3); each wager it cannot cover goes back with its seat's side
    bets. The events, the wagers left in play, and the round without the returned side bets."""
    events: list[Event] = []
    in_play = round_state.wagers_in_order()
    house_amount = round_state.rules.house_wager_amount
    if house_amount > 0:  # R-BANK-2: the dealer's position plays the house's hand
        position = position_of(DEALER_PLACE, round_state.banker_place)
        house = Wager(DEALER_PLACE, None, house_amount, position)
        events.append(
            _new_bet_placed(
                **env, seat=None, player_id=None, position=position, amount=house_amount
            )
        )
        in_play = sorted([*in_play, house], key=lambda wager: wager.position)
    banker = round_state.banker_player or ""
    accepted, returned = cover(
        [(wager, wager.amount) for wager in in_play],
        state.balances.get(banker, 0),
        round_state.co_bank,
    )
    for wager in returned:
        events.extend(_returned_with_side_bets(round_state, wager, env))
    gone = {wager.place for wager in returned}
    side_bets = {seat: bets for seat, bets in round_state.side_bets.items() if seat not in gone}
    return events, accepted, replace(round_state, side_bets=side_bets)


def _returned_with_side_bets(
    round_state: RoundState, wager: Wager, env: dict[str, Any]
) -> list[Event]:
    """A wager the bank does not cover goes back; the seat's hand is dead now, so its side bets
    have nothing to resolve on and go back with it."""
    seat = None if wager.place == DEALER_PLACE else wager.place
    events: list[Event] = [
        _new_wager_returned(
            **env,
            seat=seat,
            player_id=wager.player_id,
            position=wager.position,
            amount=wager.amount,
        )
    ]
    for bet in round_state.side_bets.get(wager.place, ()):
        events.append(
            _new_wager_returned(
                **env,
                seat=seat,
                player_id=bet.player_id,
                position=wager.position,
                amount=bet.amount,
                kind="side",
                bet=bet.bet,
            )
        )
    return events
