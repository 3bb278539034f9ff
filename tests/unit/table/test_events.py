"""Events: stable type names, JSON without floats, a faithful round trip, strict payloads, docs."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from eventlog.mapper import EventFormatError, event_to_dict, parse_event
from table_core.events import EVENT_TYPES, BetPlaced, HandSet

from .support import DEALER, TABLE, Script
from .test_round_dealer_banked import play_round, seated_table
from .test_round_player_banked import play_round_one, rotating_table

DOCS = Path(__file__).parents[3] / "docs" / "events.md"
ENVELOPE = ("type", "schema_version", "table_id", "round", "actor", "at")


def _all_events() -> list[Any]:
    table: Script = seated_table()
    play_round(table)
    other = rotating_table()
    play_round_one(other)
    return table.events + other.events


def _floats(value: object) -> list[object]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list):
        return [f for v in value for f in _floats(v)]
    return []


def test_type_names_are_stable_snake_case_and_unique() -> None:
    names = [cls.model_fields["type"].default for cls in EVENT_TYPES]
    # + the books (issue 18): six; 8 deck custody (R20); a House Way file installed (issue 32)
    assert len(set(names)) == len(names) == 43
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", name) for name in names)
    schemas = {cls.model_fields["type"].default: cls.model_fields["schema_version"].default
               for cls in EVENT_TYPES}  # fmt: skip
    # R20: the rules profile's deck_custody_required made the profile's two events schema 2
    assert {n: v for n, v in schemas.items() if v != 1} == {"table_opened": 2, "rules_changed": 2}


def test_every_event_goes_to_json_without_floats_and_comes_back_equal() -> None:
    events = _all_events()
    assert {e.type for e in events} >= {"round_settled", "stacks_assigned", "bank_offered"}
    for event in events:
        data = event_to_dict(event)
        assert list(data)[:6] == list(ENVELOPE)
        assert _floats(data) == []
        text = json.dumps(data, sort_keys=True)
        assert parse_event(json.loads(text)) == event


def test_time_is_kept_with_its_offset() -> None:
    paris = timezone(timedelta(hours=1))
    at = datetime(2025, 1, 2, 22, 15, tzinfo=paris)
    bet = BetPlaced(table_id=TABLE, round=3, actor=DEALER, at=at, seat=2, player_id="bruno",
                    position=3, amount=2_500)  # fmt: skip
    data = event_to_dict(bet)
    assert data["at"] == "2025-01-02T22:15:00+01:00"
    assert data["actor"] == {"id": "dealer-lucas", "role": "dealer"}
    assert parse_event(data) == bet


def _bet(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "type": "bet_placed", "schema_version": 1, "table_id": TABLE, "round": 1,
        "actor": {"id": "dealer-lucas", "role": "dealer"}, "at": "2025-01-02T22:15:00Z",
        "seat": 2, "player_id": "bruno", "position": 3, "amount": 2_500,
    }  # fmt: skip
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "changes",
    [
        {"at": "2025-01-02T22:15:00"},  # a time without its zone
        {"amount": 25.0},  # money is never a float
        {"amount": 0},
        {"seat": 7},
        {"actor": {"id": "x", "role": "croupier"}},
        {"type": "bet_taken"},
        {"surprise": True},
        {"round": None},  # a round fact names its round
    ],
)
def test_a_payload_that_is_not_this_schema_is_refused(changes: dict[str, object]) -> None:
    with pytest.raises(EventFormatError):
        parse_event(_bet(**changes))


def test_cards_in_payloads_are_canonical_text() -> None:
    hand = {
        "type": "hand_set", "schema_version": 1, "table_id": TABLE, "round": 1,
        "actor": {"id": "ana", "role": "player"}, "at": "2025-01-02T22:15:00Z", "seat": 1,
        "position": 2, "back": ["Qs", "Qh", "7c", "5s", "3h"], "front": ["Ac", "Jd"],
        "by": "player", "reason": "player_set", "rule": None,
    }  # fmt: skip
    assert isinstance(parse_event(hand), HandSet)
    for bad in (["as", "Jd"], ["10c", "Jd"], ["Ac"], ["Ac", "Jd", "2c"]):
        with pytest.raises(EventFormatError):
            parse_event({**hand, "front": bad})


def test_events_are_frozen() -> None:
    bet = parse_event(_bet())
    with pytest.raises(ValueError, match="frozen"):
        bet.amount = 1  # type: ignore[misc]


def test_the_docs_list_every_event_type_with_its_fields() -> None:
    text = DOCS.read_text()
    sections = re.split(r"^### ", text, flags=re.M)
    by_type = {section.split("`")[1]: section for section in sections[1:] if "`" in section}
    for cls in EVENT_TYPES:
        name = cls.model_fields["type"].default
        assert name in by_type, f"docs/events.md has no section for {name}"
        for field in cls.model_fields:
            if field not in ENVELOPE:
                found = re.search(rf"`{field}(`|: )", by_type[name])
                assert found, f"{name}.{field} is not documented"
