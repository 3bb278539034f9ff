"""Every event ``decide`` emits in these tests is checked against the schema's own validation.

``decide`` builds its events with ``table_core.events.trusted`` (no validation, see
docs/events.md, "Decisions"). This fixture wraps ``decide`` wherever the table tests call it
(scripted rounds, random sessions, refusals) so that a trusted event that validation would build
differently, or refuse, fails the test that emitted it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from table_core.events import Event, event_to_dict

# The modules that call ``decide`` by their own name for it; ``execute`` calls table_core.table's.
CALLERS = (
    "table_core.table",
    "tests.unit.table.support",
    "tests.unit.table.test_state_machine",
    "tests.unit.table.test_properties",
)
checked: list[int] = [0]


def check_trusted(event: Event) -> None:
    """The event equals what validating its own dump gives, field for field and type for type."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a value of the wrong type warns when dumped
        again = type(event).model_validate(event.model_dump())
        assert again == event, (event, again)
        assert repr(again) == repr(event)
        assert event_to_dict(again) == event_to_dict(event)
    checked[0] += 1


def _checking(decide: Callable[..., list[Event]]) -> Callable[..., list[Event]]:
    def wrapped(state: Any, command: Any) -> list[Event]:
        events = decide(state, command)
        for event in events:
            check_trusted(event)
        return events

    return wrapped


@pytest.fixture(autouse=True)
def _trusted_events_revalidate(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import table_core.table

    original = table_core.table.decide
    wrapped = _checking(original)
    for name in CALLERS:
        module = importlib.import_module(name)
        if getattr(module, "decide", None) is original:
            monkeypatch.setattr(module, "decide", wrapped)
    yield
