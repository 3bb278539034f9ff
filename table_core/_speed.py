"""The core's speed measures, all in this one private module, each with its reason and its guard
test (tests/unit/test_speed_tricks.py shows each gives exactly what the plain code gives).

Nothing here generates code (no ``exec``, ``eval`` or ``compile``: a guard test reads every code
folder for them). The measures:

- ``trusted(cls)``: a constructor of the core's own events that skips re-validating values the
  core computed from validated state. ``decide`` builds ~36 models a six-seat round; validating
  them again cost more than the rest of building them.
- ``slot_setter(cls, name)``: a frozen class's own slot (or ``__dict__``) descriptor setter.
  ``object.__setattr__`` looks the descriptor up on every call; the fold and ``trusted`` write
  fields of frozen objects they have just made, before anyone else sees them.
- ``fill_twin(base)`` and ``become(obj, cls)``: a frozen dataclass on slots filled by plain
  attribute stores (a frozen class's ``__init__`` pays ``object.__setattr__`` per field, about
  0.35 us each, 3.5 us a ``RecordedEvent``, paid per event on every append and replay).
- ``named_tuple_maker(cls)``: a named tuple built without its Python-level ``__new__`` (one frame
  a tuple, in loops that run millions of times: the analysis of many rounds).

Module-level state: ``trusted`` keeps one constructor per class (``functools.cache``: bounded by
the number of model classes, and built the same whichever thread builds it first).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from types import GetSetDescriptorType, MemberDescriptorType
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_args, get_origin

if TYPE_CHECKING:
    from pydantic import BaseModel

# Standard library only at import: ``ports.py`` and the store's envelope use the fill below and
# must not load the event schema; ``trusted`` imports it when it first builds a constructor.

M = TypeVar("M", bound="BaseModel")
T = TypeVar("T")

_new = object.__new__


def slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """``object.__setattr__(obj, name, value)`` as ``cls``'s own descriptor's ``__set__`` (what
    that call ends in, without looking the descriptor up each time): for a slot or ``__dict__``."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            descriptor = klass.__dict__[name]
            if isinstance(descriptor, GetSetDescriptorType | MemberDescriptorType):
                setter: Callable[[Any, Any], None] = descriptor.__set__
                return setter
            break
    return lambda obj, value: object.__setattr__(obj, name, value)


def fill_twin(base: type) -> type:
    """A subclass of ``base`` (a class of slots only) that adds nothing: its instances take plain
    attribute stores, and ``become`` then gives one its frozen class, a subclass of ``base`` with
    no slots of its own either (CPython allows ``__class__`` assignment between classes of one
    layout). What callers get is the frozen class's object: its equality, hash, repr and
    refusal to assign."""
    twin: type = type(f"{base.__name__}Fill", (base,), {"__slots__": (), "__module__": __name__})
    return twin


def become(obj: Any, cls: type[T]) -> T:
    """``obj``, filled as its ``fill_twin``, given its real (frozen) class."""
    obj.__class__ = cls
    made: T = obj
    return made


def named_tuple_maker(cls: type[T]) -> Callable[[Iterable[Any]], T]:
    """``cls(*values)`` for a named tuple, called with the tuple of values: ``tuple.__new__`` in C
    (the named tuple's own ``__new__`` is a Python function)."""
    make: Callable[[Iterable[Any]], T] = functools.partial(tuple.__new__, cls)  # type: ignore[type-var]
    return make


# --- trusted: the core's own events without re-validation ----------------------------------------


def _refusal(cls: type[BaseModel], given: Iterable[str], every: frozenset[str]) -> TypeError:
    """What a keyword-only signature of ``cls``'s fields says of a missing or unknown field."""
    fields = cls.model_fields
    unknown = sorted(set(given) - every)
    if unknown:
        return TypeError(f"{cls.__name__}: unexpected field(s) {', '.join(unknown)}")
    missing = [name for name, f in fields.items() if f.is_required() and name not in given]
    return TypeError(f"{cls.__name__}: missing field(s) {', '.join(missing)}")


def trusted(cls: type[M]) -> Callable[..., M]:
    """A constructor of ``cls`` for values the core built and checked: ``trusted(BetPlaced)(...)``
    equals ``BetPlaced(...)`` (the same ``__dict__`` in field order, defaults filled, the same
    fields set) without re-validating them. A missing or unknown field is a ``TypeError``; for an
    event, an actor or time that is not a plain ``Actor`` and aware ``datetime`` goes through
    validation, which raises what it always raised. Only for the core's own events and their
    records; never for data from outside (``parse_event``, commands' own values)."""
    build: Callable[..., M] = _trusted_builder(cls)
    return build


def _unwrapped(annotation: Any) -> Any:
    """``Actor`` of ``Annotated[Actor, …]`` (a table event's actor), else the annotation."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


@functools.cache
def _trusted_builder(cls: type[BaseModel]) -> Callable[..., Any]:
    fields = cls.model_fields
    if any(f.alias or f.default_factory for f in fields.values()):
        raise TypeError(f"{cls.__name__}: aliases and default factories need validation")
    names = tuple(fields)
    count = len(names)
    every = frozenset(names)
    # Every field in field order, defaults filled: ``template.copy()`` updated with the values
    # keeps this order (updating a key keeps its place), so the caller's keyword order does not
    # matter. A copy of a dict is one table copy: no insert, no resize.
    template = {name: f.default if not f.is_required() else None for name, f in fields.items()}
    required = frozenset(name for name, f in fields.items() if f.is_required())
    set_dict = slot_setter(cls, "__dict__")
    set_fields_set = slot_setter(cls, "__pydantic_fields_set__")
    set_extra = slot_setter(cls, "__pydantic_extra__")
    set_private = slot_setter(cls, "__pydantic_private__")
    # An event's envelope (its actor and time) is checked here, a plain one trusted; an actor or
    # time of another kind goes through validation, which decides with its own error. Read from
    # the fields, not the event classes: this module is below the events it builds.
    envelope = "actor" in fields and "at" in fields
    actor_type = _unwrapped(fields["actor"].annotation) if envelope else None

    def build(**given: Any) -> Any:
        data = template.copy()
        data.update(given)
        fields_set = set(given)
        if len(data) != count or not required <= fields_set:  # an unknown or missing field
            raise _refusal(cls, given, every)
        if envelope:  # inline: this runs ~36 times a round
            at = given["at"]
            if not (
                type(given["actor"]) is actor_type
                and type(at) is datetime
                and (at.tzinfo is UTC or (at.tzinfo is not None and at.utcoffset() is not None))
            ):
                return cls(**given)
        model = _new(cls)
        set_dict(model, data)
        set_fields_set(model, fields_set)
        set_extra(model, None)
        set_private(model, None)
        return model

    return build
