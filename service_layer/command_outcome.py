"""What a command did, and how its events reach the store: shared by the single command path
(``service_layer/service.py``) and batches (``service_layer/batch_execution.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eventlog.envelope import NewEvent
from eventlog.mapper import event_to_dict
from table_core.events import Event
from table_core.ports import RecordedEvent
from table_core.table import TableState

#: Events after which the store signs a checkpoint over the chain head (the end of a round).
ROUND_ENDS = frozenset({"round_closed", "round_voided"})


@dataclass(frozen=True)
class CommandResult:
    """What a command did: its recorded events (the first ones, on a retry) and the new state."""

    events: list[RecordedEvent]
    state: TableState
    replayed: bool = False


def to_new_event(event: Event) -> NewEvent:
    """A domain event as the store records it: the whole event is the payload, readable alone.

    The payload is pydantic's JSON-mode dump of a model the core validated (string keys, lists,
    integers for money), so the envelope does not walk it again (``serialized``); the store still
    scans the bytes it writes for floats and out-of-range integers. The event's actor is the
    store's (one ``Actor`` type)."""
    return NewEvent(
        type=event.type,
        schema_version=event.schema_version,
        payload=event_to_dict(event),
        actor=event.actor,
        at=event.at,
        serialized=True,
    )


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


def with_skipped(
    count: int, skipped: set[int], done: list[CommandResult], before: TableState
) -> list[CommandResult]:
    """One result per batch item: a skipped deferred item wrote nothing and left the state as
    the item before it did."""
    if not skipped:
        return done
    results: list[CommandResult] = []
    answers = iter(done)
    for index in range(count):
        if index in skipped:
            results.append(CommandResult([], results[-1].state if results else before))
        else:
            results.append(next(answers))
    return results
