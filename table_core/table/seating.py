"""The table itself: opening it, changing its rules, seats, buy-ins and cash-outs.

Table-level facts (``round=None``): they may come between rounds and, for seats and chips,
during one, as long as they leave the live round's wagers and the bank covered.
"""

from __future__ import annotations

from typing import Any, get_args

from table_core.banking import chips_held
from table_core.commands import BuyIn, CashOut, ChangeRules, LeaveSeat, OpenTable, SeatPlayer
from table_core.dealing import SEATS
from table_core.errors import ConfigurationError, DomainError
from table_core.events import (
    DROP_MEDIA,
    BuyInMedium,
    ChipsBoughtIn,
    ChipsCashedOut,
    Event,
    MeterChanged,
    PlayerLeft,
    PlayerSeated,
    RulesChanged,
    TableOpened,
)
from table_core.rules import SUPPORTED_VARIANTS, TableRules
from table_core.settlement import fee_held
from table_core.side_bets import require_side_bets_playable
from table_core.table.guards import (
    CAGE_ROLES,
    PROGRESSIVE,
    WrongState,
    envelope,
    opened,
    player_seat,
    require,
    require_player,
    require_tray_covers,
)
from table_core.table.house_way_install import check_house_way
from table_core.table.state import TableState

_MEDIA = get_args(BuyInMedium)


def _check_playable(rules: TableRules, state: TableState) -> None:
    """A profile the table can deal now: a known House Way, a known variant, side bets it can pay.

    The profile's own validation already refuses most of this; checking again here also refuses a
    profile built without validation (``model_construct``), as a domain error naming the clause.
    """
    check_house_way(state, rules)  # raises ConfigurationError (R-HW-1)
    if rules.variant not in SUPPORTED_VARIANTS:
        known = ", ".join(SUPPORTED_VARIANTS)
        raise ConfigurationError(f"unknown variant {rules.variant} ({known})", rule="R-VAR-1")
    if rules.queen_high_pai_gow not in ("push", "banker_wins"):
        raise ConfigurationError(
            f"queen_high_pai_gow is push or banker_wins, got {rules.queen_high_pai_gow}",
            rule="R-VAR-1",
        )
    require_side_bets_playable(rules.side_bets)  # R-VAR-5: no insurance without its pay table


def _seed_meter(state: TableState, env: dict[str, Any], rules: TableRules) -> list[Event]:
    """R-VAR-6: a table that offers the progressive opens its meter at the reset value at least;
    the house funds the difference (a table fact, ``round=None``)."""
    table = rules.side_bets.progressive
    if PROGRESSIVE not in rules.side_bets.offered or table is None or state.meter >= table.reset:
        return []
    seed = table.reset - state.meter
    return [MeterChanged(**env, reason="seed", amount=seed, meter=table.reset)]


def _held(state: TableState, player_id: str) -> int:
    """Chips a player may not cash out during a live round (``banking.chips_held``)."""
    round_state = state.round
    if round_state is None or not round_state.live:
        return 0
    return chips_held(
        state.balances.get(player_id, 0),
        banks=round_state.banker_player == player_id,
        wagers=any(wager.player_id == player_id for wager in round_state.wagers.values()),
        fee_held=fee_held(round_state.rules),
    )


def _in_action(state: TableState, player_id: str) -> bool:
    round_state = state.round
    if round_state is None or not round_state.live:
        return False
    offered = (
        None if round_state.offered_seat is None else state.seats.get(round_state.offered_seat)
    )
    wagered = any(wager.player_id == player_id for wager in round_state.wagers.values())
    return wagered or player_id in (round_state.banker_player, offered)


def open_table(state: TableState, cmd: OpenTable) -> list[Event]:
    if state.table_id is not None:
        raise WrongState("open the table", state.phase)  # already open
    require(cmd.actor, frozenset({"floor", "system"}), "open a table")
    _check_playable(cmd.rules, state)
    env = {"table_id": cmd.table_id, "actor": cmd.actor, "at": cmd.at}
    return [TableOpened(**env, rules=cmd.rules), *_seed_meter(state, env, cmd.rules)]


def change_rules(state: TableState, cmd: ChangeRules) -> list[Event]:
    rules = opened(state, "change the rules")
    require(cmd.actor, frozenset({"floor"}), "change the rules")
    if cmd.rules.version <= rules.version:
        raise DomainError(
            f"a new rules profile needs a version above {rules.version}, got {cmd.rules.version}"
        )
    if not cmd.reason.strip():
        raise DomainError("a rules change states its reason")
    _check_playable(cmd.rules, state)
    env = envelope(state, cmd) | {"round": None}
    changed = RulesChanged(
        **env, rules=cmd.rules, reason=cmd.reason, applies_from_round=state.last_round + 1
    )
    return [changed, *_seed_meter(state, env, cmd.rules)]


def seat_player(state: TableState, cmd: SeatPlayer) -> list[Event]:
    opened(state, "seat a player")
    require_player(cmd.actor, cmd.player_id, "take a seat")
    if cmd.seat not in SEATS:
        raise DomainError(f"seats are numbered 1..6, got {cmd.seat}", rule="R-DEAL-1")
    if cmd.seat in state.seats:
        raise DomainError(f"seat {cmd.seat} is taken by {state.seats[cmd.seat]}")
    if not cmd.player_id or state.seat_of(cmd.player_id) is not None:
        raise DomainError(f"player {cmd.player_id!r} is already seated or has no id")
    if state.books == "closed":
        raise WrongState("seat a player", "closed")
    env = envelope(state, cmd) | {"round": None}
    if cmd.card is None:
        return [PlayerSeated(**env, seat=cmd.seat, player_id=cmd.player_id)]
    return [PlayerSeated(**env, seat=cmd.seat, player_id=cmd.player_id, card=cmd.card)]


def leave_seat(state: TableState, cmd: LeaveSeat) -> list[Event]:
    opened(state, "leave a seat")
    require_player(cmd.actor, cmd.player_id, "leave")
    seat = player_seat(state, cmd.player_id)
    if _in_action(state, cmd.player_id):
        raise DomainError(f"player {cmd.player_id} has action in round {state.last_round}")
    env = envelope(state, cmd) | {"round": None}
    events: list[Event] = []
    balance = state.balances.get(cmd.player_id, 0)
    if balance > 0:
        events.append(ChipsCashedOut(**env, player_id=cmd.player_id, amount=balance))
    events.append(PlayerLeft(**env, seat=seat, player_id=cmd.player_id))
    return events


def buy_in(state: TableState, cmd: BuyIn) -> list[Event]:
    opened(state, "buy in")
    require(cmd.actor, CAGE_ROLES, "sell chips")
    player_seat(state, cmd.player_id)
    if cmd.amount <= 0:
        raise DomainError(f"a buy-in is a positive amount of minor units, got {cmd.amount}")
    env = envelope(state, cmd) | {"round": None}
    if cmd.medium is None and cmd.marker is None:  # recorded as before issue 18: read as cash
        require_tray_covers(state, cmd.amount, "the buy-in")
        return [ChipsBoughtIn(**env, player_id=cmd.player_id, amount=cmd.amount)]
    if cmd.medium not in _MEDIA:
        raise DomainError(f"a buy-in's medium is one of {', '.join(_MEDIA)}, not {cmd.medium!r}")
    if (cmd.medium == "marker") != (cmd.marker is not None and bool(cmd.marker.strip())):
        raise DomainError("a marker buy-in gives the marker's number, and only a marker does")
    if state.books == "closed":
        raise WrongState("buy in", "closed")
    if cmd.medium in DROP_MEDIA:
        require_tray_covers(state, cmd.amount, "the buy-in")
    return [
        ChipsBoughtIn(
            **env, player_id=cmd.player_id, amount=cmd.amount, medium=cmd.medium, marker=cmd.marker
        )
    ]


def cash_out(state: TableState, cmd: CashOut) -> list[Event]:
    opened(state, "cash out")
    require(cmd.actor, CAGE_ROLES, "cash chips out")
    player_seat(state, cmd.player_id)
    free = state.balances.get(cmd.player_id, 0) - _held(state, cmd.player_id)
    if not 0 < cmd.amount <= free:
        raise DomainError(f"player {cmd.player_id} can cash out 1..{free}, not {cmd.amount}")
    env = envelope(state, cmd) | {"round": None}
    return [ChipsCashedOut(**env, player_id=cmd.player_id, amount=cmd.amount)]
