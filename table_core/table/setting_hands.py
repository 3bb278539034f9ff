"""Setting hands: each player's own split or the House Way (R-SET-1..2, a foul reset or
forfeited), then the hands not set and the banker's, by the House Way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_core._speed import trusted
from table_core.cards import Card
from table_core.commands import CardInput, SetBankerHand, SetHand
from table_core.dealing import DEALER_PLACE, to_card
from table_core.errors import DomainError
from table_core.events import BankerHandSet, Event, FoulReset, HandForfeited, HandSet
from table_core.hands import FiveCardTables, tables_for
from table_core.house_ways import HouseWay, set_by_house_way
from table_core.rules import HouseRules
from table_core.split import Split, check_same_cards, make_split, value_split
from table_core.table.guards import (
    DEALER_ROLES,
    envelope,
    live_round,
    player_seat,
    require,
    require_player,
    texts,
)
from table_core.table.house_way_install import house_way_of
from table_core.table.state import RoundState, TableState, Wager

_new_banker_hand_set = trusted(BankerHandSet)
_new_foul_reset = trusted(FoulReset)
_new_hand_forfeited = trusted(HandForfeited)
_new_hand_set = trusted(HandSet)


def _cards(values: Sequence[CardInput]) -> list[Card]:
    return [to_card(value) for value in values]


def set_hand(state: TableState, cmd: SetHand) -> list[Event]:
    """A player's hand: their own split (R-SET-1), or the House Way when they give none."""
    round_state, seat, wager = _hand_in_action(state, cmd)
    seven = round_state.hands[seat]
    rules = round_state.rules.hand
    tables = tables_for(rules.wheel_rank)
    env = {
        "table_id": state.table_id,
        "actor": cmd.actor,
        "at": cmd.at,
        "round": round_state.number,
        "seat": seat,
        "position": wager.position,
    }
    if cmd.back is None and cmd.front is None:
        way = set_by_house_way(seven, house_way_of(state, rules), tables)
        return [_house_way_hand(env, way, "player_asked")]
    if cmd.back is None or cmd.front is None:
        raise DomainError("give both the back and the front, or neither for the House Way")
    split = make_split(_cards(cmd.back), _cards(cmd.front))
    check_same_cards(split, seven)
    return _player_split(split, seven, rules, house_way_of(state, rules), tables, env)


def _house_way_hand(env: dict[str, Any], way: Split, reason: str) -> HandSet:
    """The House Way's split of a hand (R-HW-1), ``env`` its event's table, round and seat."""
    return _new_hand_set(
        **env,
        back=texts(way.back),
        front=texts(way.front),
        by="house_way",
        reason=reason,
        rule=way.rule,
    )


def _hand_in_action(state: TableState, cmd: SetHand) -> tuple[RoundState, int, Wager]:
    """The round, the seat and its wager of a player whose hand is in action and not set yet."""
    round_state = live_round(state, "set a hand", "dice_rolled")
    actor = cmd.actor
    if actor.role != "player" or actor.id != cmd.player_id:  # else the player acts: allowed
        require_player(actor, cmd.player_id, "set a hand")
    seat = player_seat(state, cmd.player_id)
    wager = round_state.wagers.get(seat)
    if wager is None or seat == DEALER_PLACE:  # round_state.player_places(), without sorting
        raise DomainError(f"player {cmd.player_id} has no hand in action this round")
    if seat in round_state.played:
        raise DomainError(f"seat {seat}'s hand is already set")
    return round_state, seat, wager


def _player_split(
    split: Split,
    seven: Sequence[Card],
    rules: HouseRules,
    house_way: HouseWay | str,
    tables: FiveCardTables,
    env: dict[str, Any],
) -> list[Event]:
    """The player's own split: set as given when legal; a foul (R-SET-2) forfeits the main wager
    or is reset by the House Way, as the table's ``foul_policy`` says."""
    if value_split(split, tables).legal:
        return [
            _new_hand_set(
                **env,
                back=texts(split.back),
                front=texts(split.front),
                by="player",
                reason="player_set",
            )
        ]
    if rules.foul_policy == "forfeit":  # R-SET-2: the main wager loses
        return [_new_hand_forfeited(**env, back=texts(split.back), front=texts(split.front))]
    way = set_by_house_way(seven, house_way, tables)  # R-SET-2 reset
    assert way.rule is not None
    return [
        _new_foul_reset(
            **env,
            player_back=texts(split.back),
            player_front=texts(split.front),
            back=texts(way.back),
            front=texts(way.front),
            rule=way.rule,
        )
    ]


def set_banker_hand(state: TableState, cmd: SetBankerHand) -> list[Event]:
    round_state = live_round(state, "set the banker's hand", "dice_rolled", "hands_set")
    require(cmd.actor, DEALER_ROLES, "set the banker's hand")
    house_way = house_way_of(state, round_state.rules.hand)
    tables = tables_for(round_state.rules.hand.wheel_rank)
    env = envelope(state, cmd)
    events: list[Event] = []
    for wager in round_state.wagers_in_order():
        place = wager.place
        if place in round_state.played:
            continue
        way = set_by_house_way(round_state.hands[place], house_way, tables)
        seat = None if place == DEALER_PLACE else place
        reason = "house_hand" if place == DEALER_PLACE else "not_set"
        events.append(
            _house_way_hand({**env, "seat": seat, "position": wager.position}, way, reason)
        )
    way = set_by_house_way(round_state.hands[round_state.banker_place], house_way, tables)
    assert way.rule is not None
    events.append(
        _new_banker_hand_set(
            **env,
            seat=round_state.banker_place if round_state.player_banked else None,
            player_id=round_state.banker_player,
            back=texts(way.back),
            front=texts(way.front),
            house_way=round_state.rules.hand.house_way,
            rule=way.rule,
        )
    )
    return events
