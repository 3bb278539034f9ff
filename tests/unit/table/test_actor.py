"""One ``Actor`` type (issue 35): the command carries it, the event holds it and the store's
envelope records it, the same object all the way; a table event names one of a table's roles,
while the store records any (the system stream's ``security`` and ``bootstrap``)."""

from __future__ import annotations

import pytest

from eventlog.envelope import NewEvent
from eventlog.mapper import EventFormatError, event_to_dict, parse_event, to_new_event
from table_core.commands import OpenTable
from table_core.events import Actor as EventActor
from table_core.ports import Actor
from table_core.table import TableState, decide
from table_core.table.guards import NotAllowed
from tests.unit.table.support import AT, FLOOR, TABLE

OPENED = {"type": "round_started", "table_id": TABLE, "round": 1, "rules_version": 1}


def test_commands_events_and_the_store_share_one_actor_type() -> None:
    assert EventActor is Actor
    (opened,) = decide(TableState(), OpenTable(table_id=TABLE, actor=FLOOR, at=AT))
    assert opened.actor is FLOOR
    assert to_new_event(opened).actor is FLOOR  # no second actor made for the store


def test_the_stored_form_of_an_actor_is_its_id_and_role() -> None:
    (opened,) = decide(TableState(), OpenTable(table_id=TABLE, actor=FLOOR, at=AT))
    assert event_to_dict(opened)["actor"] == {"id": "floor-marie", "role": "floor"}
    assert event_to_dict(opened) == opened.model_dump(mode="json")


def test_an_event_read_back_names_an_actor_in_a_tables_role() -> None:
    event = parse_event({**OPENED, "actor": {"id": "dealer-lucas", "role": "dealer"}, "at": AT})
    assert event.actor == Actor("dealer-lucas", "dealer")
    with pytest.raises(EventFormatError, match="not a role at a table: 'security'"):
        parse_event({**OPENED, "actor": {"id": "k-1", "role": "security"}, "at": AT})
    with pytest.raises(EventFormatError, match="an actor needs a non-empty id"):
        parse_event({**OPENED, "actor": {"id": "", "role": "dealer"}, "at": AT})
    with pytest.raises(EventFormatError, match=r"actor\.badge"):
        parse_event({**OPENED, "actor": {"id": "d-1", "role": "dealer", "badge": 7}, "at": AT})


def test_a_command_from_an_actor_without_a_table_role_is_refused() -> None:
    officer = Actor("key-officer", "security")
    with pytest.raises(NotAllowed, match="a security may not act at a table"):
        decide(TableState(), OpenTable(table_id=TABLE, actor=officer, at=AT))


def test_the_store_records_an_actor_of_any_role() -> None:
    officer = Actor("cli:ops", "bootstrap")
    new = NewEvent("api_key_created", 1, {"key_id": "k-1"}, officer, AT)
    assert new.actor is officer
