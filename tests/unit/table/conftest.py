"""Every event ``decide`` emits in these tests is checked against the schema's own validation.

``decide`` builds its events with ``table_core._speed.trusted`` (no validation, see
docs/events.md, "Decisions"). This fixture wraps ``decide`` wherever the table tests call it
(scripted rounds, random sessions, refusals) so that a trusted event that validation would build
differently, or refuse, or whose ``event_to_dict`` differs from pydantic's own JSON-mode dump,
fails the test that emitted it.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from eventlog.mapper import event_to_dict
from table_core.events import Event

# The modules that call ``decide`` by their own name for it; ``execute`` calls table_core.table's.
CALLERS = (
    "table_core.table",
    "tests.unit.table.support",
    "tests.unit.table.test_state_machine",
    "tests.unit.table.test_properties",
)
checked: list[int] = [0]


def same_json(ours: Any, pydantic: Any) -> bool:
    """Equal, and of the same types and key order all the way down (``1 == True``, and a dict's
    order shows in its JSON text)."""
    if type(ours) is not type(pydantic):
        return False
    if isinstance(ours, dict):
        return list(ours) == list(pydantic) and all(
            same_json(ours[key], pydantic[key]) for key in ours
        )
    if isinstance(ours, list):
        return len(ours) == len(pydantic) and all(map(same_json, ours, pydantic))
    return bool(ours == pydantic)


def same_values(ours: Any, theirs: Any) -> bool:
    """Equal type for type all the way down (``1 == True`` and ``(1,) != [1]`` count): what a
    ``repr`` comparison showed, but a set's order (which two equal sets need not share) does not
    count."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, BaseModel):
        return same_values(dict(ours), dict(theirs))
    if isinstance(ours, dict):
        return list(ours) == list(theirs) and all(same_values(ours[k], theirs[k]) for k in ours)
    if isinstance(ours, list | tuple):
        return len(ours) == len(theirs) and all(map(same_values, ours, theirs))
    if isinstance(ours, set | frozenset):
        return sorted(map(repr, ours)) == sorted(map(repr, theirs))
    return bool(ours == theirs)


def check_trusted(event: Event) -> None:
    """The event equals what validating its own dump gives, field for field and type for type,
    and ``event_to_dict`` (built per class) writes exactly pydantic's JSON-mode dump."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a value of the wrong type warns when dumped
        again = type(event).model_validate(event.model_dump())
        assert again == event, (event, again)
        assert same_values(again, event), (event, again)
        assert same_json(event_to_dict(event), event.model_dump(mode="json")), event
        assert same_json(event_to_dict(again), again.model_dump(mode="json")), again
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
