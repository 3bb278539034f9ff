"""Read models for responses: a recorded event and the folded table state, as JSON-ready models.

Built from the state's fields by name, so fields the core adds later are simply not shown until
this view names them (nothing breaks); places are turned back into seats (0, the dealer's place,
is ``seat: null``). The live state never shows the deck order: the round recall does, once the
round is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from entrypoints.http.models import (
    ActorOut,
    CommandResponse,
    EventOut,
    HandOut,
    PlayedOut,
    RoundOut,
    SeatOut,
    SideBetOut,
    TableOut,
    WagerOut,
)
from table_core.cards import card_text
from table_core.dealing import DEALER_PLACE
from table_core.ports import RecordedEvent
from table_core.table.state import RoundState, TableState

Shown = TypeVar("Shown", bound=EventOut)


def _seat(place: int) -> int | None:
    return None if place == DEALER_PLACE else place


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_text(c) for c in cards]


def _sorted(value: Any) -> Any:
    """JSON with object keys in order, as the store keeps payloads (canonical form), so a payload
    reads the same whether it comes from the append or from a later read."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list | tuple):
        return [_sorted(v) for v in value]
    return value


#: ``EventOut``'s fields shown as the record holds them, copied by name; the others are written.
_AS_RECORDED = tuple(
    name for name in EventOut.model_fields if name not in ("payload", "actor", "at")
)


def event_out(record: RecordedEvent, model: type[Shown]) -> Shown:
    """The event as ``model`` shows it (``EventOut``, or one that adds fields with defaults);
    its payload a copy of the record's (``_sorted`` builds every object and list anew)."""
    return model(
        **{name: getattr(record, name) for name in _AS_RECORDED},
        payload=_sorted(record.payload),
        actor=ActorOut(id=record.actor.id, role=record.actor.role),
        at=record.at.isoformat(),
    )


def command_response(table_id: str, command_id: str, records: Sequence[RecordedEvent]) -> Any:
    """The body of a command's answer, built from the recorded events only, so that a retry that
    reads them back answers exactly what the first call did."""
    version = records[-1].version if records else 0
    return CommandResponse(
        table_id=table_id,
        command_id=command_id,
        version=version,
        events=[event_out(r, EventOut) for r in records],
    )


def _played(place: int, hand: Any) -> PlayedOut:
    return PlayedOut(
        seat=_seat(place),
        back=_cards(hand.back),
        front=_cards(hand.front),
        forfeited=bool(getattr(hand, "forfeited", False)),
    )


def _wager(w: Any) -> WagerOut:
    return WagerOut(
        seat=_seat(w.place), player_id=w.player_id, position=w.position, amount=w.amount
    )


def round_out(r: RoundState) -> RoundOut:
    side_bets = [
        SideBetOut(seat=seat, player_id=bet.player_id, bet=bet.bet, amount=bet.amount)
        for seat, bet in r.side_bets_in_order()
    ]
    return RoundOut(
        number=r.number,
        phase=r.phase,
        rules_version=r.rules.version,
        banker_seat=_seat(r.banker_place),
        banker_player_id=r.banker_player,
        co_bank=r.co_bank,
        bank_order=list(r.bank_order),
        offered_seat=r.offered_seat,
        wagers=[_wager(w) for w in r.wagers_in_order()],
        returned=[_wager(w) for w in sorted(r.returned.values(), key=lambda w: w.position)],
        side_bets=side_bets,
        dice=None if r.dice is None else list(r.dice),
        first_position=r.first_position,
        hands=[HandOut(seat=_seat(p), cards=_cards(cards)) for p, cards in sorted(r.hands.items())],
        played=[_played(p, hand) for p, hand in sorted(r.played.items())],
        banker_hand=None if r.banker_hand is None else _played(r.banker_place, r.banker_hand),
    )


def table_out(state: TableState) -> TableOut:
    assert state.table_id is not None and state.rules is not None
    return TableOut(
        table_id=state.table_id,
        version=state.version,
        phase=state.phase,
        rules=state.rules.model_dump(mode="json"),
        seats=[
            SeatOut(seat=seat, player_id=player, balance=state.balances.get(player, 0))
            for seat, player in sorted(state.seats.items())
        ],
        balances=dict(sorted(state.balances.items())),
        last_round=state.last_round,
        bought_in=state.bought_in,
        cashed_out=state.cashed_out,
        house_result=state.house_result,
        commission=state.commission,
        meter=state.meter,
        meter_seeded=state.meter_seeded,
        books=state.books,
        gaming_day=None if state.gaming_day is None else state.gaming_day.isoformat(),
        tray=state.tray,
        round=None if state.round is None else round_out(state.round),
    )
