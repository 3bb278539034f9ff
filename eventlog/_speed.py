"""The log format's speed measures, all in this one private module, each with its reason and its
guard test (tests/unit/table/test_event_json.py, tests/unit/table/conftest.py and
tests/unit/test_speed_tricks.py show each gives exactly what the plain code gives).

- ``dumper(cls)``: an event's JSON form, ``model_dump(mode="json")`` without walking the schema.
  It runs for every event the service stores (~22 a round). The events are records of str, int,
  bool and None, tuples of those, a few nested records, the actor and the time: a copy of the
  model's ``__dict__`` (its fields in field order, as pydantic writes them) with the few fields
  that are not JSON already converted builds the same dict in about half the instructions. A
  class with a serializer of its own or a field of another type (the rules profile of
  ``table_opened`` and ``rules_changed``) is dumped by ``model_dump``. The values must be of
  their fields' types, as validated and trusted events are.
- ``time_text(at)``: a time as pydantic's JSON mode writes it; ``isoformat`` costs more than the
  rest of a dump, and a round's times share their minute, so the last minute's text is kept.
  A command's events share one time: the last text written is kept too.

Module-level state, bounded and safe under threads: ``dumper`` keeps one function per class
(``functools.cache``: bounded by the number of event classes); the two time caches each hold ONE
tuple, replaced whole (one store, so a thread never reads a time with another time's text).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AwareDatetime, BaseModel, TypeAdapter

from table_core.ports import Actor

Dump = Callable[[Any], Any]

_ZERO = timedelta(0)
_TIME_ADAPTER: TypeAdapter[datetime] = TypeAdapter(AwareDatetime)
_SCALARS = (str, int, bool, type(None))
#: ``(at, its text)`` for the last time written (held here, so its identity cannot pass to
#: another object while it is compared).
_LAST_TIME: list[tuple[Any, str]] = [(None, "")]
_DIGITS2 = tuple(f"{n:02}" for n in range(60))
_DIGITS3 = tuple(f"{n:03}" for n in range(1000))
#: ``(start, end, text up to the seconds)`` of the minute of the last UTC time written (two UTC
#: times compare field by field in C).
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


def _time(at: Any) -> str:
    """``time_text`` of a command's shared time, answered from the last one written."""
    last = _LAST_TIME[0]
    return last[1] if at is last[0] else time_text(at)


def _optional(inner: Dump) -> Dump:
    return lambda value: None if value is None else inner(value)


def _items(inner: Dump) -> Dump:
    return lambda values: [inner(value) for value in values]


def _actor(actor: Actor) -> dict[str, Any]:
    return {"id": actor.id, "role": actor.role}


class _Unhandled(Exception):
    """A field type this dumper does not write: the class is dumped by ``model_dump``."""


def _converter(annotation: Any) -> Dump | None:
    """What turns a value of ``annotation`` into its JSON form: ``None`` when it already is one
    (``_Unhandled`` when the type is not one this dumper handles)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _converter(get_args(annotation)[0])
    if annotation in _SCALARS or origin is Literal:
        return None
    if annotation is AwareDatetime or annotation is datetime:
        return _time
    if origin is Union or origin is UnionType:
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise _Unhandled
        inner = _converter(args[0])
        return None if inner is None else _optional(inner)
    if origin is tuple:
        items = {a for a in get_args(annotation) if a is not Ellipsis}
        if len(items) != 1:
            raise _Unhandled
        inner = _converter(items.pop())
        return list if inner is None else _items(inner)
    if annotation is Actor:  # the one actor type, a slotted dataclass (table_core/ports.py)
        return _actor
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        nested = _fields_dumper(annotation)
        if nested is None:
            raise _Unhandled
        return nested
    raise _Unhandled


def _copy_fields(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.__dict__.copy()
    return data


@functools.cache
def _fields_dumper(cls: type[BaseModel]) -> Dump | None:
    """``cls``'s JSON form from its ``__dict__`` (its fields, in field order), or ``None``."""
    decorators = cls.__pydantic_decorators__
    special = decorators.field_serializers or decorators.model_serializers
    if special or decorators.computed_fields or cls.model_config.get("extra") != "forbid":
        return None
    converters: list[tuple[str, Dump]] = []
    for name, field in cls.model_fields.items():
        if field.alias not in (None, name):
            return None
        try:
            convert = _converter(field.annotation)
        except _Unhandled:
            return None
        if convert is not None:
            converters.append((name, convert))
    if not converters:
        return _copy_fields
    plan = tuple(converters)

    def dump(model: Any) -> dict[str, Any]:
        data: dict[str, Any] = model.__dict__.copy()
        for name, convert in plan:
            data[name] = convert(data[name])
        return data

    return dump


def _model_dump(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json")
    return data


@functools.cache  # called per event: one C lookup
def dumper(cls: type[BaseModel]) -> Callable[[Any], dict[str, Any]]:
    """``model_dump(mode="json")`` of a ``cls`` instance, from its fields where it can be."""
    return _fields_dumper(cls) or _model_dump
