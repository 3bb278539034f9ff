"""The one mapper between the core and the store: a table event to its JSON form and back.

``event_to_dict`` / ``parse_event``: a table event (``table_core.events``) to the JSON-ready dict
that is its stored payload (no floats, ISO times), and back; ``time_text`` writes times as
pydantic's JSON mode does. The store persists exactly this pair, in ``envelope.NewEvent``s; the
canonical bytes and hashes of what it stores are ``eventlog.canonical``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AwareDatetime, BaseModel, TypeAdapter, ValidationError

from table_core.errors import DomainError
from table_core.events import Event
from table_core.ports import Actor

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


class EventFormatError(DomainError):
    """A stored payload that is not a valid event of this schema."""


def parse_event(data: Mapping[str, Any]) -> Event:
    """Read an event back from ``event_to_dict``'s form (or any JSON-decoded equivalent)."""
    try:
        return _ADAPTER.validate_python(dict(data))
    except ValidationError as error:
        kind = data.get("type", "?")
        raise EventFormatError(f"not a valid {kind} event: {error}") from error


# --- JSON form ------------------------------------------------------------------------------------
#
# ``event_to_dict`` runs for every event the service stores (~22 a round). pydantic's
# ``model_dump(mode="json")`` walks the schema for each; the events are records of str, int, bool
# and None, tuples of those, a few nested records, the actor and the time, so a dumper generated
# per class from its own fields builds the same dict (same keys in field order, tuples as lists,
# nested records as dicts, the time as pydantic writes it) in about half the instructions. A class
# with a serializer of its own or a field of another type (the rules profile of ``table_opened``
# and ``rules_changed``) is dumped by ``model_dump``. The values must be of their fields' types, as
# validated and trusted events are. tests/unit/table/conftest.py compares both on every event the
# table tests emit; tests/unit/table/test_event_json.py on events read back and on times with any
# offset.

_ZERO = timedelta(0)
_TIME_ADAPTER: TypeAdapter[datetime] = TypeAdapter(AwareDatetime)
_SCALARS = (str, int, bool, type(None))
_DUMPERS: dict[type[BaseModel], Callable[[Any], dict[str, Any]]] = {}
# The caches below each hold ONE tuple, replaced whole (one store, so a thread never reads a key
# with another key's text).
#: ``(at, its text)`` for the last time written: a command's events share one ``at`` (held here,
#: so its identity cannot pass to another object while it is compared).
_LAST_TIME: list[tuple[Any, str]] = [(None, "")]
_DIGITS2 = tuple(f"{n:02}" for n in range(60))
_DIGITS3 = tuple(f"{n:03}" for n in range(1000))
#: ``(start, end, text up to the seconds)`` of the minute of the last UTC time written:
#: ``isoformat`` costs more than the rest of a dump, and a round's times share their minute (two
#: UTC times compare field by field in C).
_LAST_MINUTE: list[tuple[datetime, datetime, str]] = [
    (datetime.max.replace(tzinfo=UTC), datetime.min.replace(tzinfo=UTC), "")
]
_MINUTE = timedelta(minutes=1)


def time_text(at: datetime) -> str:
    """``at`` as pydantic's JSON mode writes it: ISO 8601, ``Z`` for a zero offset."""
    if at.tzinfo is UTC and type(at) is datetime:  # what the service's clock gives
        start, end, prefix = _LAST_MINUTE[0]
        if not start <= at < end:
            start = at.replace(second=0, microsecond=0)
            prefix = start.isoformat()[:17]  # YYYY-MM-DDTHH:MM:
            with suppress(OverflowError):  # the last minute of year 9999 is not kept
                _LAST_MINUTE[0] = (start, start + _MINUTE, prefix)
        micro = at.microsecond
        if micro:
            text = (
                f"{prefix}{_DIGITS2[at.second]}.{_DIGITS3[micro // 1000]}{_DIGITS3[micro % 1000]}Z"
            )
        else:
            text = f"{prefix}{_DIGITS2[at.second]}Z"
    else:
        offset = at.utcoffset() if type(at) is datetime else None
        if offset is None or offset.microseconds or offset.seconds % 60:
            # naive, a subclass, or an offset in seconds: pydantic's own rules
            text = _TIME_ADAPTER.dump_python(at, mode="json")
        elif offset == _ZERO:
            text = at.isoformat()[:-6] + "Z"
        else:
            text = at.isoformat()
    _LAST_TIME[0] = (at, text)
    return text


class _Source:
    """The generated dumper's namespace and fresh variable names."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {"_time": time_text, "_last": _LAST_TIME}
        self.names = 0

    def name(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"


def _dump_expr(annotation: Any, value: str, src: _Source) -> str | None:
    """Source building ``annotation``'s JSON form from the expression ``value``; ``None`` when
    the type is not one this dumper handles."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _dump_expr(get_args(annotation)[0], value, src)
    if annotation in _SCALARS or origin is Literal:
        return value
    if annotation is AwareDatetime or annotation is datetime:
        last = src.name("t")
        return f"({last}[1] if {value} is ({last} := _last[0])[0] else _time({value}))"
    if origin is Union or origin is UnionType:
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            return None
        inner = _dump_expr(args[0], value, src)
        if inner is None or inner == value:
            return inner
        return f"(None if {value} is None else {inner})"
    if origin is tuple:
        items = {a for a in get_args(annotation) if a is not Ellipsis}
        if len(items) != 1:
            return None
        item = src.name("x")
        inner = _dump_expr(items.pop(), item, src)
        if inner is None:
            return None
        return f"list({value})" if inner == item else f"[{inner} for {item} in {value}]"
    if annotation is Actor:  # the one actor type, a slotted dataclass (table_core/ports.py)
        actor = src.name("a")
        return f"{{'id': ({actor} := {value}).id, 'role': {actor}.role}}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _fields_expr(annotation, value, src)
    return None


def _fields_expr(cls: type[BaseModel], value: str, src: _Source) -> str | None:
    """A dict display of ``cls``'s fields read from ``value``'s ``__dict__``, in field order."""
    decorators = cls.__pydantic_decorators__
    special = decorators.field_serializers or decorators.model_serializers
    if special or decorators.computed_fields or cls.model_config.get("extra") != "forbid":
        return None
    fields = src.name("d")
    items: list[str] = []
    for name, field in cls.model_fields.items():
        if field.alias not in (None, name):
            return None
        read = f"{fields}[{name!r}]" if items else f"({fields} := {value}.__dict__)[{name!r}]"
        expr = _dump_expr(field.annotation, read, src)
        if expr is None:
            return None
        items.append(f"{name!r}: {expr}")
    return f"{{{', '.join(items)}}}"


def _dumper(cls: type[BaseModel]) -> Callable[[Any], dict[str, Any]]:
    """``model_dump(mode="json")`` of a ``cls`` instance, by generated code where it can be."""
    dump = _DUMPERS.get(cls)
    if dump is not None:
        return dump
    src = _Source()
    body = _fields_expr(cls, "model", src)
    if body is None:

        def dump(model: Any) -> dict[str, Any]:
            data: dict[str, Any] = model.model_dump(mode="json")
            return data

    else:
        exec(f"def dump(model):\n    return {body}", src.namespace)  # from field names only
        dump = src.namespace["dump"]
    _DUMPERS[cls] = dump
    return dump


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready dict: ints for money, card text, ISO-8601 times with their offset; exactly
    ``event.model_dump(mode="json")``."""
    dump = _DUMPERS.get(type(event)) or _dumper(type(event))
    return dump(event)
