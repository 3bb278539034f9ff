"""The core builds its events without re-validating them (``_speed.trusted``): the same
events as validation builds, and a command's own value of the wrong type still fails validation as
before.

conftest.py checks every event the table tests emit; these tests pin the constructor itself and
its fallbacks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from pydantic import ValidationError

from table_core import commands as c
from table_core._speed import trusted
from table_core.events import (
    EVENT_TYPES,
    BankerResult,
    BetPlaced,
    HandSet,
    ReturnedWager,
    SeatResult,
    StackAssignment,
)
from table_core.table import TableState, decide, fold

from . import conftest
from .support import AT, DEALER, TABLE, Script, player
from .test_round_dealer_banked import play_round, seated_table

BET: dict[str, Any] = {"table_id": TABLE, "round": 1, "actor": DEALER, "at": AT, "seat": 2,
                       "player_id": "bruno", "position": 3, "amount": 2_500}  # fmt: skip


def test_a_trusted_event_is_the_validated_event() -> None:
    built, validated = trusted(BetPlaced)(**BET), BetPlaced(**BET)
    assert built == validated
    assert repr(built) == repr(validated)
    assert built.model_fields_set == validated.model_fields_set
    assert built.model_dump() == validated.model_dump()
    hand = {**BET, "back": ("As", "Ks", "Qs", "Js", "Ts"), "front": ("2c", "2d"), "by": "player"}
    del hand["player_id"], hand["amount"]
    built_hand = trusted(HandSet)(**hand, reason="player_set")
    assert built_hand == HandSet(**hand, reason="player_set")
    assert built_hand.rule is None  # a default, filled as validation fills it
    assert built_hand.model_fields_set == HandSet(**hand, reason="player_set").model_fields_set


def test_every_event_type_and_record_can_be_built_trusted() -> None:
    for cls in (*EVENT_TYPES, StackAssignment, SeatResult, BankerResult, ReturnedWager):
        assert callable(trusted(cls))


def test_a_missing_or_unknown_field_is_refused() -> None:
    missing = {k: v for k, v in BET.items() if k != "amount"}
    with pytest.raises(TypeError):
        trusted(BetPlaced)(**missing)
    with pytest.raises(TypeError):
        trusted(BetPlaced)(**BET, surprise=True)


@pytest.mark.parametrize(
    "envelope",
    [
        {"at": datetime(2025, 3, 14, 21, 30)},  # a time without its zone
        {"at": "2025-03-14T21:30:00Z"},  # text: validation parses it, trusted does not
        {"actor": {"id": "dealer-lucas", "role": "dealer"}},
    ],
)
def test_an_envelope_that_is_not_plain_validated_values_goes_through_validation(
    envelope: dict[str, Any],
) -> None:
    values = {**BET, **envelope}
    try:
        expected: BetPlaced | type[ValidationError] = BetPlaced(**values)
    except ValidationError:
        expected = ValidationError
    if expected is ValidationError:
        with pytest.raises(ValidationError):
            trusted(BetPlaced)(**values)
    else:
        built = trusted(BetPlaced)(**values)
        assert built == expected and repr(built) == repr(expected)


def _open_for_bets() -> Script:
    table = seated_table()
    table(c.StartRound(actor=DEALER, at=AT))
    return table


def test_a_command_amount_of_another_type_still_fails_validation() -> None:
    table = _open_for_bets()
    bet = c.PlaceBet(player_id="bruno", amount=2_500.0, actor=player("bruno"), at=AT)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):  # within the limits, but money is never a float
        decide(table.state, bet)


def test_a_naive_command_time_still_fails_validation() -> None:
    table = _open_for_bets()
    naive = datetime(2025, 3, 14, 21, 30)
    with pytest.raises(ValidationError):
        decide(table.state, c.PlaceBet(player_id="bruno", amount=2_500, actor=DEALER, at=naive))


def test_an_unknown_deal_source_still_fails_validation() -> None:
    table = _open_for_bets()
    table(c.PlaceBet(player_id="bruno", amount=2_500, actor=player("bruno"), at=AT))
    table(c.CloseBets(actor=DEALER, at=AT))
    deck = list(range(53))
    with pytest.raises(ValidationError):
        decide(table.state, c.DealCards(deck=deck, source="robot", actor=DEALER, at=AT))  # type: ignore[arg-type]


def test_the_conftest_check_sees_the_events_of_a_round() -> None:
    before = conftest.checked[0]
    table = seated_table()
    play_round(table)
    assert conftest.checked[0] - before == len(table.events)


def test_a_fold_shares_what_an_event_does_not_change() -> None:
    table = _open_for_bets()
    before = table.state
    after = fold([], before)
    assert after == before and after is not before
    assert after.round is before.round and after.balances is before.balances
    table(c.PlaceBet(player_id="bruno", amount=2_500, actor=player("bruno"), at=AT))
    assert table.state.seats is before.seats  # a bet changes balances and the round only
    assert table.state.balances is not before.balances
    assert before.balances["bruno"] == 20_000 and table.state.balances["bruno"] == 17_500
    assert before.round is not None and dict(before.round.wagers) == {}
    with pytest.raises(AttributeError):
        table.state.version = 0  # type: ignore[misc]
    assert isinstance(TableState(), TableState) and fold([]) == TableState()
