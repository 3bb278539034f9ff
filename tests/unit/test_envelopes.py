"""The store's envelopes (``NewEvent``, ``RecordedEvent``) are built by a fast constructor; they
must still behave as the frozen dataclasses they declare: equal by value, immutable, and the same
after a copy or a pickle round trip (the audit's worker processes receive them pickled)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from datetime import UTC, datetime

import pytest

from eventlog.envelope import NewEvent
from table_core.ports import Actor, InvalidEvent, RecordedEvent

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
DEALER = Actor("dealer-ann", "dealer")


def a_bet_recorded() -> RecordedEvent:
    return RecordedEvent(
        7, "PG-1", 3, "wager_placed", 1, {"player_id": "ana", "amount": 2_500}, DEALER, AT,
        "cmd-bet-1", "a" * 64, "b" * 64,
    )  # fmt: skip


def test_a_recorded_bet_survives_copy_and_pickle_field_for_field() -> None:
    bet = a_bet_recorded()
    for again in (copy.copy(bet), copy.deepcopy(bet), pickle.loads(pickle.dumps(bet))):
        assert again == bet
        assert [getattr(again, f.name) for f in dataclasses.fields(RecordedEvent)] == [
            7, "PG-1", 3, "wager_placed", 1, {"player_id": "ana", "amount": 2_500}, DEALER, AT,
            "cmd-bet-1", "a" * 64, "b" * 64,
        ]  # fmt: skip


def test_a_new_bet_survives_copy_and_pickle_with_its_flags() -> None:
    bet = NewEvent("wager_placed", 1, {"amount": 2_500}, DEALER, AT, serialized=True)
    for again in (copy.copy(bet), pickle.loads(pickle.dumps(bet))):
        assert again == bet
        assert again.serialized is True
        assert again.plain is True


def test_envelopes_refuse_assignment_like_frozen_dataclasses() -> None:
    bet = a_bet_recorded()
    with pytest.raises(dataclasses.FrozenInstanceError):
        bet.position = 8  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        NewEvent("wager_placed", 1, {}, DEALER, AT).payload = {}  # type: ignore[misc]


def test_a_float_amount_is_still_refused_at_the_door() -> None:
    with pytest.raises(InvalidEvent, match=r"float 25\.0 refused"):
        NewEvent("wager_placed", 1, {"amount": 25.0}, DEALER, AT)
    with pytest.raises(InvalidEvent, match="float"):
        NewEvent("wager_placed", 1, {"amounts": [1, 2.5]}, DEALER, AT)
