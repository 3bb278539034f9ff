"""What the core needs from outside: the event store port, its envelopes and its errors.

The store is generic over event envelopes: it knows an event's type, schema version, payload (JSON
values), actor and time, never what a wager or a deal means. A table's stream id is the table id;
a ``system`` stream is just another stream id. Times are given by the caller (the application
service reads the clock), so nothing here looks outside its arguments.

Pure: standard library only (``_speed.py``'s slot fill is too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, ClassVar, Protocol, TypeAlias, runtime_checkable

from table_core._speed import become, fill_twin

JSONValue: TypeAlias = "bool | int | str | list[JSONValue] | dict[str, JSONValue] | None"
Payload: TypeAlias = dict[str, JSONValue]

GENESIS_VERSION = 0


class StoreError(Exception):
    """Anything the event store refuses or cannot do; nothing was written when it is raised."""


class InvalidEvent(StoreError, ValueError):
    """An envelope or append request the store cannot record as given (a float, a naive time, …)."""


class ConcurrencyError(StoreError):
    """The stream moved on since the writer read it: reload the table and decide again."""

    def __init__(self, stream_id: str, expected_version: int, actual_version: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual_version}, not {expected_version}: "
            "another command changed it first; reload and retry"
        )
        self.stream_id = stream_id
        self.expected_version = expected_version
        self.actual_version = actual_version


class CommandIdConflict(StoreError):
    """A command id already recorded for another stream: ids must be unique per command."""

    def __init__(self, command_id: str, recorded_stream: str, requested_stream: str) -> None:
        super().__init__(
            f"command {command_id!r} was already recorded on stream {recorded_stream!r}, "
            f"it cannot also append to {requested_stream!r}"
        )
        self.command_id = command_id
        self.recorded_stream = recorded_stream
        self.requested_stream = requested_stream


class CommandsPartlyRecorded(StoreError):
    """A batch holds commands already recorded and commands that are not: nothing was written.

    A whole batch retried is answered with its first events, like one command retried; a batch
    that mixes old and new commands was decided against a state that did not hold the old ones,
    so the caller reloads the stream and sends only ``new`` (``recorded`` names the others)."""

    def __init__(self, stream_id: str, recorded: Sequence[str], new: Sequence[str]) -> None:
        super().__init__(
            f"stream {stream_id!r}: commands {list(recorded)!r} are already recorded, "
            f"{list(new)!r} are not; reload and send only the new ones"
        )
        self.stream_id = stream_id
        self.recorded = list(recorded)
        self.new = list(new)


class SigningKeyMissing(StoreError):
    """A signed checkpoint was asked for but the store has no signing key configured."""


class StoreUnavailable(StoreError):
    """The store cannot be reached now: no database primary (a failover under way, an outage).

    A write that raised this may or may not have been committed (its connection was lost before
    the answer): retrying it with the same command id is safe, since the store answers a recorded
    command id with the events it recorded. A transaction is whole or absent, never half-written.
    ``retry_after`` is the seconds a caller should wait before trying again."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TamperDetected(StoreError):
    """Verification found an event or checkpoint that does not hold (``finding`` says which)."""

    def __init__(self, message: str, finding: object) -> None:
        super().__init__(message)
        self.finding = finding


class UntaggedEvents(TamperDetected):
    """Issue 17: an event after the last checkpoint that no append tag of the store's key covers
    (written behind the store's back, e.g. INSERTed by an insider without the key). Raised instead
    of signing a checkpoint over it (nothing is written) and by ``verify_tags`` when a table is
    caught up; ``finding`` has ``position``, ``stream_id``, ``version``, ``problem`` and
    ``detail``."""


class LogRewritten(TamperDetected):
    """The log is no longer the one this store wrote or read: a stream's head or the global log's
    went backwards (events cut: ``problem`` ``rewound``), an event it held was rewritten
    (``rewritten``), or a checkpoint naming the store's key does not hold (``checkpoint``).
    Raised instead of writing after the gap or signing over it (nothing is written); a store that
    met it signs nothing more. ``finding`` as ``UntaggedEvents``'s."""


@dataclass(frozen=True, slots=True)
class Actor:
    """Who caused an event: a dealer, a pit boss, a player terminal, the system, …

    The one actor type: commands carry it, events hold it (``table_core/event_base.py`` keeps a
    table event's role to a table's roles) and the store records it. A slotted dataclass, not a
    pydantic model: the store builds one per actor it reads and compares them by identity on
    every append. pydantic validates it as a field of an event (``__pydantic_config__``: an
    unknown key is refused, as for every event record)."""

    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}

    id: str
    role: str

    def __post_init__(self) -> None:
        # InvalidEvent is a ValueError: inside an event's validation it is a ValidationError.
        if not isinstance(self.id, str) or not self.id:
            raise InvalidEvent("an actor needs a non-empty id")
        if not isinstance(self.role, str) or not self.role:
            raise InvalidEvent("an actor needs a non-empty role")


class EventEnvelope(Protocol):
    """An event a command produced, not yet recorded, as a store takes it.

    The envelope a store is given is ``eventlog.envelope.NewEvent``, which checks its fields and
    payload when it is built, so every store refuses alike; ``plain`` says the payload is dicts
    and lists of JSON leaves only (the store may hand it back as the recorded payload), and
    ``serialized`` that its maker promised a float-free payload (``NewEvent`` says more)."""

    @property
    def type(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...
    @property
    def actor(self) -> Actor: ...
    @property
    def at(self) -> datetime: ...
    @property
    def serialized(self) -> bool: ...
    @property
    def plain(self) -> bool: ...


_new = object.__new__


# A frozen dataclass's ``__init__`` pays ``object.__setattr__`` per field, per event on every
# append and replay: the fields are slots of a plain base class, filled through its twin, then
# the object becomes a ``RecordedEvent`` (``table_core/_speed.py``: ``fill_twin``, ``become``).
class _RecordedSlots:
    __slots__ = (
        "actor",
        "at",
        "command_id",
        "hash",
        "payload",
        "position",
        "prev_hash",
        "schema_version",
        "stream_id",
        "type",
        "version",
    )  # fmt: skip


_RecordedFill = fill_twin(_RecordedSlots)


@dataclass(frozen=True, init=False)
class RecordedEvent(_RecordedSlots):
    """An event as the store holds it: its global position, its place in its stream, its hashes.

    ``payload`` and ``schema_version`` are the upcast ones (the newest schema); ``hash`` covers the
    bytes as they were stored, which the verifier checks, not these. Built through a twin class
    (see ``_RecordedSlots``): a replay builds one per event.
    """

    __slots__ = ()

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: Payload
    actor: Actor
    at: datetime
    command_id: str
    prev_hash: str
    hash: str

    def __new__(
        cls,
        position: int,
        stream_id: str,
        version: int,
        type: str,
        schema_version: int,
        payload: Payload,
        actor: Actor,
        at: datetime,
        command_id: str,
        prev_hash: str,
        hash: str,
    ) -> RecordedEvent:
        self: Any = _new(_RecordedFill)
        self.position = position
        self.stream_id = stream_id
        self.version = version
        self.type = type
        self.schema_version = schema_version
        self.payload = payload
        self.actor = actor
        self.at = at
        self.command_id = command_id
        self.prev_hash = prev_hash
        self.hash = hash
        return become(self, cls)

    def __reduce__(self) -> tuple[Any, ...]:
        # The constructor's order (the slots are listed alphabetically).
        return (RecordedEvent, tuple(getattr(self, name) for name in _RECORDED_FIELDS))


_RECORDED_FIELDS = tuple(f.name for f in fields(RecordedEvent))


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A signature over the global chain head: everything up to ``position`` is as signed."""

    position: int
    hash: str
    at: datetime
    key_id: str
    signature: str


#: One command of a batch: its id and the events it produced, in order.
BatchCommand: TypeAlias = tuple[str, Sequence[EventEnvelope]]


@runtime_checkable
class EventStore(Protocol):
    """The append-only event store the application service writes through.

    ``append`` is all-or-nothing: every event of the command is recorded, with versions
    ``expected_version + 1 …``, or nothing is (``ConcurrencyError`` when the stream is not at
    ``expected_version``). A ``command_id`` seen before on the same stream returns the events it
    produced then and writes nothing. ``checkpoint=True`` also signs the chain head after the
    append (the end of a round).

    ``append_batch`` records several commands of one stream in ONE transaction, all or none, each
    event keeping its own command's id, so each command stays idempotent on its own: it returns
    one list of recorded events per command, in order. A batch whose every command is already
    recorded on this stream returns their first events and writes nothing; a batch mixing recorded
    and new commands writes nothing and raises ``CommandsPartlyRecorded``; a command id given
    twice in one batch is ``InvalidEvent``.

    ``checkpoint_after`` names command indices of the batch after whose events a signed checkpoint
    is written, each over the global chain head at that command's last event and signed at that
    event's time, in the same transaction (a batch of several whole rounds: one checkpoint per
    round's end); ``checkpoint=True`` means after the last command. An index outside the batch is
    ``InvalidEvent``. A batch that is refused, or answered as a retry, writes no checkpoint.

    The payload of a recorded event that an append returns may be the appended mapping itself
    (when it is a plain dict of JSON values: no copy is made), so callers do not change a payload
    once appended; events read back are always parsed from the stored bytes.
    """

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[EventEnvelope],
        command_id: str,
        *,
        checkpoint: bool = False,
    ) -> list[RecordedEvent]: ...

    def append_batch(
        self,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        *,
        checkpoint: bool = False,
        checkpoint_after: Sequence[int] = (),
    ) -> list[list[RecordedEvent]]: ...

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]: ...

    def read_all(
        self, after_position: int = 0, limit: int | None = None
    ) -> list[RecordedEvent]: ...

    def stream_version(self, stream_id: str) -> int: ...

    def events_of_command(self, command_id: str) -> list[RecordedEvent] | None: ...

    def checkpoint(self, at: datetime) -> Checkpoint: ...

    def checkpoints(self) -> list[Checkpoint]: ...

    def verify_tags(self, stream_id: str, after_version: int = 0) -> None:
        """``UntaggedEvents`` when an event of the stream after ``after_version`` (and after the
        last checkpoint that holds) was not appended by a holder of the signing key: the check a
        service makes before it folds events it did not write. A store without a key checks
        nothing."""
        ...

    def close(self) -> None: ...


Upcaster: TypeAlias = Callable[[Payload], Payload]


class Upcasters:
    """Schema evolution: step functions from (type, version n) to version n + 1, applied on read.

    A stored event is never rewritten (the store is append-only and its bytes are hashed); old
    payloads are lifted to the newest shape every time they are read.
    """

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def add(self, event_type: str, from_version: int, step: Upcaster) -> None:
        key = (event_type, from_version)
        if key in self._steps:
            raise ValueError(f"an upcaster for {event_type} v{from_version} is already registered")
        self._steps[key] = step

    def register(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        def decorate(step: Upcaster) -> Upcaster:
            self.add(event_type, from_version, step)
            return step

        return decorate

    def __bool__(self) -> bool:
        return bool(self._steps)

    def lifts(self, event_type: str, version: int) -> bool:
        """Whether an event of this type and schema version is older than the newest shape."""
        return (event_type, version) in self._steps

    def upcast(self, event_type: str, version: int, payload: Payload) -> tuple[int, Payload]:
        """The payload lifted through every registered step, and the version it ends at."""
        steps = self._steps
        step = steps.get((event_type, version))
        while step is not None:
            payload = step(payload)
            version += 1
            step = steps.get((event_type, version))
        return version, payload
