"""A table's state as JSON values and back: what a snapshot stores (issue 22).

``state_to_dict(state)`` gives plain JSON values (dicts, lists, strings, integers, booleans,
``None``); ``state_from_dict(data)`` rebuilds a state equal to the one written. The walk follows
the dataclasses' type hints, so a field added to the state is written and read with no change
here; a value that does not fit its hint (a missing or extra field, a wrong type, a phase not in
its ``Literal``) raises :class:`SnapshotFormatError`, never builds a half-state.

Mappings are written as ``[key, value]`` pairs in their own order, not as JSON objects: keys keep
their type (seats are integers) and the order a fold built them in is kept, since a decider may
iterate a mapping and its events' order must not change after a restart. Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from datetime import date, datetime
from functools import cache
from typing import Any, Literal, Union

from pydantic import BaseModel, ValidationError

from table_core.table.state import TableState

#: The layout's version: a snapshot of another layout is refused (the table is replayed). 2: the
#: rules profile holds ``deck_custody_required`` (R20); a layout-1 snapshot's profile lacks it,
#: and reading it as the new default would change a table's custody rule. 3: the state keeps the
#: House Way files installed on the table (issue 32); a layout-2 snapshot has no such field.
FORMAT = 3


class SnapshotFormatError(ValueError):
    """Data that is not a table state of this layout."""


def state_to_dict(state: TableState) -> dict[str, Any]:
    """The state as JSON values (deterministic: the same state always gives the same values)."""
    encoded = _encode(state, TableState)
    assert isinstance(encoded, dict)
    return {"format": FORMAT, "state": encoded}


def state_from_dict(data: object) -> TableState:
    """The state ``state_to_dict`` wrote; :class:`SnapshotFormatError` for anything else."""
    if not isinstance(data, dict) or set(data) != {"format", "state"}:
        raise SnapshotFormatError("a snapshot is an object with 'format' and 'state'")
    if data["format"] != FORMAT:
        raise SnapshotFormatError(f"snapshot format {data['format']!r}, this code reads {FORMAT}")
    state = _decode(data["state"], TableState, "state")
    assert isinstance(state, TableState)
    return state


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _encode(value: Any, hint: Any) -> Any:
    """``value`` (of type ``hint``) as JSON values."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if value is None:
        return None
    if origin in (Union, types.UnionType):
        return _encode(value, next(a for a in args if a is not type(None)))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return {f.name: _encode(getattr(value, f.name), _hints(hint)[f.name])
                for f in dataclasses.fields(hint)}  # fmt: skip
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return value.model_dump(mode="json")
    if hint is datetime or hint is date:
        return value.isoformat()
    if origin is tuple:
        items = args[:1] * len(value) if args[-1] is Ellipsis else args
        return [_encode(v, h) for v, h in zip(value, items, strict=True)]
    if origin is frozenset:
        return sorted(_encode(v, args[0]) for v in value)
    if origin is Mapping or origin is dict:
        return [[_encode(k, args[0]), _encode(v, args[1])] for k, v in value.items()]
    return value  # int, str, bool, a Literal's value


def _decode(data: Any, hint: Any, where: str) -> Any:
    """The value of type ``hint`` that ``_encode`` wrote as ``data``; ``where`` names it."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        return _decode(data, next(a for a in args if a is not type(None)), where)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _decode_dataclass(data, hint, where)
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        try:
            return hint.model_validate(data)
        except ValidationError as error:
            raise SnapshotFormatError(f"{where}: {error.errors()[0]['msg']}") from None
    if hint is datetime or hint is date:
        return _decode_time(data, hint, where)
    if origin is Literal:
        if data not in args:
            raise SnapshotFormatError(f"{where}: {data!r} is not one of {args}")
        return data
    if origin in (tuple, frozenset, Mapping, dict):
        return _decode_collection(data, origin, args, where)
    if hint in (int, str, bool) and type(data) is hint:
        return data
    raise SnapshotFormatError(f"{where}: {data!r} is not a {hint}")


def _decode_dataclass(data: Any, hint: Any, where: str) -> Any:
    fields = {f.name for f in dataclasses.fields(hint)}
    if not isinstance(data, dict) or set(data) != fields:
        raise SnapshotFormatError(f"{where}: the fields of {hint.__name__} are {sorted(fields)}")
    hints = _hints(hint)
    return hint(**{name: _decode(data[name], hints[name], f"{where}.{name}") for name in fields})


def _decode_time(data: Any, hint: Any, where: str) -> Any:
    try:
        value = hint.fromisoformat(data)
    except (TypeError, ValueError):
        raise SnapshotFormatError(f"{where}: {data!r} is not an ISO {hint.__name__}") from None
    if type(value) is not hint or (hint is datetime and value.tzinfo is None):
        raise SnapshotFormatError(f"{where}: {data!r} is not an aware {hint.__name__}")
    return value


def _decode_collection(data: Any, origin: Any, args: tuple[Any, ...], where: str) -> Any:
    if not isinstance(data, list):
        raise SnapshotFormatError(f"{where}: expected a list, got {type(data).__name__}")
    if origin is tuple:
        items = args[:1] * len(data) if args[-1] is Ellipsis else args
        if len(items) != len(data):
            raise SnapshotFormatError(f"{where}: expected {len(items)} items, got {len(data)}")
        pairs = enumerate(zip(data, items, strict=True))
        return tuple(_decode(v, h, f"{where}[{i}]") for i, (v, h) in pairs)
    if origin is frozenset:
        return frozenset(_decode(v, args[0], f"{where}[]") for v in data)
    out = {}
    for pair in data:
        if not isinstance(pair, list) or len(pair) != 2:
            raise SnapshotFormatError(f"{where}: a mapping is a list of [key, value] pairs")
        key = _decode(pair[0], args[0], f"{where} key")
        if key in out:
            raise SnapshotFormatError(f"{where}: the key {key!r} appears twice")
        out[key] = _decode(pair[1], args[1], f"{where}[{key!r}]")
    return out
