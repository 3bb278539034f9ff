"""The core's own events, built fast: ``trusted(cls)``, private to the core.

``decide`` builds ~36 models a six-seat round from values it computed from validated state (cards
from ``Card`` ints, seats and money from the fold) and checked itself; validating them again cost
more than the rest of building them. ``trusted(cls)`` answers a constructor that builds ``cls``
as validation would (the same ``__dict__`` in field order, defaults filled, the same fields set)
without running it. Its keyword-only signature refuses a missing or unknown field, as validation
would. The caller's actor and time are checked: anything but an ``Actor`` and an aware
``datetime`` goes through validation, which raises what it always raised. Data from outside
(``parse_event``, commands' own values) keeps validation. tests/unit/table/test_trusted_events.py
checks every event the table tests emit re-validates equal, so this path cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from types import GetSetDescriptorType, MemberDescriptorType
from typing import Any, TypeVar

from pydantic import BaseModel

from table_core.events import EVENT_TYPES, Actor

M = TypeVar("M", bound=BaseModel)

_UNSET: Any = object()
_BUILDERS: dict[type[BaseModel], Callable[..., Any]] = {}


#: The instance attributes a model holds besides its fields, as ``_set_<name>`` in the builders.
_SLOTS = {
    "dict": "__dict__",
    "fields_set": "__pydantic_fields_set__",
    "extra": "__pydantic_extra__",
    "private": "__pydantic_private__",
}


def _slot_setter(cls: type[BaseModel], attribute: str) -> Callable[[Any, Any], None]:
    """``object.__setattr__(model, attribute, value)`` as the slot descriptor's own ``__set__``
    (what that call ends in, without looking the descriptor up each time)."""
    for klass in cls.__mro__:
        if attribute in klass.__dict__:
            descriptor = klass.__dict__[attribute]
            if isinstance(descriptor, GetSetDescriptorType | MemberDescriptorType):
                setter: Callable[[Any, Any], None] = descriptor.__set__
                return setter
            break
    return lambda model, value: object.__setattr__(model, attribute, value)


def _builder(cls: type[BaseModel]) -> Callable[..., Any]:
    fields = cls.model_fields
    if any(f.alias or f.default_factory for f in fields.values()):
        raise TypeError(f"{cls.__name__}: aliases and default factories need validation")
    required = [name for name, f in fields.items() if f.is_required()]
    optional = [name for name, f in fields.items() if not f.is_required()]
    params = ", ".join([*required, *(f"{name}=_UNSET" for name in optional)])
    lines = [f"def build(*, {params}):"]
    if issubclass(cls, EVENT_TYPES):  # else validation decides, with its own error
        lines += [
            "    if (_type(actor) is not _Actor or _type(at) is not _datetime or (at.tzinfo is not"
            " _UTC and (at.tzinfo is None or at.utcoffset() is None))):",
            f"        kw = {{{', '.join(f'{n!r}: {n}' for n in required)}}}",
            *(f"        if {n} is not _UNSET: kw[{n!r}] = {n}" for n in optional),
            "        return _cls(**kw)",
        ]
    lines.append(f"    fields_set = {{{', '.join(repr(n) for n in required)}}}")
    for name in optional:
        lines += [
            f"    if {name} is _UNSET: {name} = _default_{name}",
            f"    else: fields_set.add({name!r})",
        ]
    lines += [
        "    model = _new(_cls)",
        f"    _set_dict(model, {{{', '.join(f'{n!r}: {n}' for n in fields)}}})",
        "    _set_fields_set(model, fields_set)",
        "    _set_extra(model, None)",
        "    _set_private(model, None)",
        "    return model",
    ]
    namespace: dict[str, Any] = {
        "_UNSET": _UNSET,
        "_cls": cls,
        "_new": object.__new__,
        **{f"_set_{name}": _slot_setter(cls, attribute) for name, attribute in _SLOTS.items()},
        "_type": type,
        "_Actor": Actor,
        "_datetime": datetime,
        "_UTC": UTC,
        **{f"_default_{name}": fields[name].default for name in optional},
    }
    exec("\n".join(lines), namespace)  # source from the model's own field names only
    build: Callable[..., Any] = namespace["build"]
    return build


def trusted(cls: type[M]) -> Callable[..., M]:
    """A constructor of ``cls`` for values the core built and checked: ``trusted(BetPlaced)(...)``
    equals ``BetPlaced(...)`` without re-validating them. Only for the core's own events and
    their records; never for data from outside."""
    build = _BUILDERS.get(cls)
    if build is None:
        build = _BUILDERS[cls] = _builder(cls)
    return build
