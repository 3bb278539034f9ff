"""The envelope of one event to append, as every store takes it: ``NewEvent``.

Checked when it is built (``check_json`` refuses anything not a plain JSON value, floats above
all), so every store refuses alike; the port's ``EventEnvelope`` is its shape. Standard library
only: a store does not load the event schema to take an envelope. ``wrote``: whether a store's
answer to an append is these envelopes recorded, or an earlier append of the same command id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any

from table_core._speed import become, fill_twin
from table_core.ports import Actor, InvalidEvent, RecordedEvent

# Integers outside a signed 64-bit range are refused: an auditor's tool in any language must read
# every amount exactly, and no chip count comes near it.
_INT_LIMIT = 2**63

_type_of = type
_new = object.__new__


# Built as ``ports.RecordedEvent`` is, and for the same reason (the comment there): the fields are
# slots of a plain base class, filled through its twin, then the object becomes a ``NewEvent``
# (``table_core/_speed.py``: ``fill_twin``, ``become``).
class _NewEventSlots:
    __slots__ = ("actor", "at", "payload", "plain", "schema_version", "serialized", "type")


_NewEventFill = fill_twin(_NewEventSlots)


@dataclass(frozen=True, init=False)
class NewEvent(_NewEventSlots):
    """An event a command produced, not yet recorded. Checked here, so every store refuses alike.

    ``serialized=True`` says the payload is a JSON serializer's output from models with no float
    field (pydantic's ``model_dump(mode="json")`` of the core's events: string keys, lists,
    integers for money): the recursive walk of :func:`check_json` is skipped, since it would
    re-check what the core's models already validated. The 64-bit range of integers is still
    enforced: every store scans the bytes it writes for long digit runs and walks the payload
    when it finds one. A float in such a payload is the maker's broken promise, not caught here.
    """

    __slots__ = ()

    type: str
    schema_version: int
    payload: Mapping[str, Any]
    actor: Actor
    at: datetime
    # No defaults here (a class attribute would hide the slot): ``__new__`` sets both.
    serialized: bool = dataclass_field(kw_only=True, compare=False, repr=False)
    #: Set on construction: the payload is dicts and lists of JSON leaves only, so the store may
    #: hand it back as the recorded payload instead of parsing its own text again.
    plain: bool = dataclass_field(init=False, compare=False, repr=False)

    def __new__(
        cls,
        type: str,
        schema_version: int,
        payload: Mapping[str, Any],
        actor: Actor,
        at: datetime,
        *,
        serialized: bool = False,
    ) -> NewEvent:
        if not isinstance(type, str) or not type:
            raise InvalidEvent("an event needs a non-empty type")
        if _type_of(schema_version) is not int or schema_version < 1:
            raise InvalidEvent(f"{type}: schema_version is an integer from 1")
        if _type_of(actor) is not Actor and not isinstance(actor, Actor):
            raise InvalidEvent(f"{type}: actor must be an Actor")
        if not isinstance(at, datetime) or at.utcoffset() is None:
            raise InvalidEvent(f"{type}: the event time must be a timezone-aware datetime")
        if _type_of(payload) is not dict and not isinstance(payload, Mapping):
            raise InvalidEvent(f"{type}: the payload must be a JSON object")
        plain = serialized or check_json(payload, type)
        self: Any = _new(_NewEventFill)
        self.type = type
        self.schema_version = schema_version
        self.payload = payload
        self.actor = actor
        self.at = at
        self.serialized = serialized
        self.plain = plain and _type_of(payload) is dict
        return become(self, cls)  # a subclass with slots of its own would refuse: none exists

    def __reduce__(self) -> tuple[Any, ...]:
        return (_new_event, (self.type, self.schema_version, self.payload, self.actor, self.at,
                             self.serialized))  # fmt: skip


def _new_event(
    kind: str, schema: int, payload: Mapping[str, Any], actor: Actor, at: datetime, serialized: bool
) -> NewEvent:
    """Unpickling and copying (the constructor takes ``serialized`` by keyword only)."""
    return NewEvent(kind, schema, payload, actor, at, serialized=serialized)


_NEGATIVE_LIMIT = -_INT_LIMIT


def check_json(value: object, where: str) -> bool:
    """Refuse anything that is not a plain JSON value: floats above all (money is integers).

    Returns whether the value is plain as well: dicts and lists only (no tuples, no other
    mappings), so that its JSON text reads back as an equal value."""
    kind = type(value)
    if kind is dict or isinstance(value, Mapping):
        plain, keyed, pairs = kind is dict, True, value.items()  # type: ignore[attr-defined]
    elif kind is list or kind is tuple:
        plain, keyed, pairs = kind is list, False, enumerate(value)  # type: ignore[arg-type]
    elif kind is str or kind is bool or value is None:
        return True
    elif kind is int:
        if not _NEGATIVE_LIMIT < value < _INT_LIMIT:  # type: ignore[operator]
            raise InvalidEvent(f"{where}: integer {value} is outside the signed 64-bit range")
        return True
    elif kind is float:
        raise InvalidEvent(f"{where}: float {value!r} refused, amounts are integer minor units")
    else:
        raise InvalidEvent(f"{where}: {kind.__name__} is not a JSON value")
    for key, item in pairs:
        if keyed and type(key) is not str:
            raise InvalidEvent(f"{where}: object keys must be strings, got {key!r}")
        # The common leaves inline: this runs for every value of every event appended.
        leaf = type(item)
        if leaf is int:
            if _NEGATIVE_LIMIT < item < _INT_LIMIT:
                continue
        elif leaf is str or leaf is bool or item is None:
            continue
        plain = check_json(item, where) and plain
    return plain


def wrote(recorded: Sequence[RecordedEvent], new: Sequence[NewEvent], version: int) -> bool:
    """Whether an append at ``version`` wrote ``new``, or the store answered the events an earlier
    append of the same command id recorded (a retry: nothing written). The version alone cannot
    tell when the retry was decided on a stale state (another worker recorded the first try right
    at that version): the payloads can, each being the whole event with its time (a retry
    identical to the first, time included, folds to the same state either way)."""
    if len(recorded) != len(new) or not recorded or recorded[0].version != version + 1:
        return False
    return all(
        r.payload is n.payload or r.payload == n.payload for r, n in zip(recorded, new, strict=True)
    )
