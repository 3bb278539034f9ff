"""What every store implementation shares, so the in-memory fake and the SQL store refuse, hash and
number events identically: request checks, row building, global sequencing, row → event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from adapters.store.canonical import (
    canonical_json,
    event_hash,
    format_time,
    global_hash,
    parse_time,
)
from table_core.ports import (
    Actor,
    Checkpoint,
    ConcurrencyError,
    InvalidEvent,
    NewEvent,
    RecordedEvent,
    Upcasters,
)

# (stream_id, version, type, schema_version, payload, recorded_at, actor_id, actor_role,
#  command_id, prev_hash, hash): the columns of ``events`` after ``id``.
EventRow = tuple[str, int, str, int, str, str, str, str, str, str, str]
# (position, event_id, prev_hash, hash): a row of ``event_log``.
LogRow = tuple[int, int, str, str]
# EventRow with the position in front: what reads return.
READ_COLUMNS = (
    "g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, e.recorded_at, "
    "e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash"
)


def check_request(
    stream_id: object, expected_version: object, events: Sequence[object], command_id: object
) -> None:
    if not isinstance(stream_id, str) or not stream_id or len(stream_id) > 200:
        raise InvalidEvent("a stream id is a non-empty string of at most 200 characters")
    if type(expected_version) is not int or expected_version < 0:
        raise InvalidEvent("expected_version is an integer from 0 (0: a new stream)")
    if not isinstance(command_id, str) or not command_id or len(command_id) > 200:
        raise InvalidEvent("a command id is a non-empty string of at most 200 characters")
    if not events:
        raise InvalidEvent("a command appends at least one event")
    for event in events:
        if not isinstance(event, NewEvent):
            raise InvalidEvent(f"append takes NewEvent envelopes, got {type(event).__name__}")


def check_version(stream_id: str, expected_version: int, actual_version: int) -> None:
    if actual_version != expected_version:
        raise ConcurrencyError(stream_id, expected_version, actual_version)


def build_rows(
    stream_id: str,
    head_version: int,
    head_hash: str,
    events: Sequence[NewEvent],
    command_id: str,
) -> list[EventRow]:
    """The stored rows of a command: canonical payload bytes, each hashed onto the previous."""
    rows: list[EventRow] = []
    prev = head_hash
    version = head_version
    last_time = None
    at = ""
    for event in events:
        version += 1
        payload = canonical_json(event.payload)
        if event.at is not last_time:  # the events of a command mostly share one time
            last_time = event.at
            at = format_time(last_time)
        actor = event.actor
        digest = event_hash(
            prev,
            stream_id,
            version,
            event.type,
            event.schema_version,
            at,
            actor.id,
            actor.role,
            command_id,
            payload,
        )
        rows.append(
            (
                stream_id,
                version,
                event.type,
                event.schema_version,
                payload,
                at,
                actor.id,
                actor.role,
                command_id,
                prev,
                digest,
            )
        )
        prev = digest
    return rows


def sequence(
    entries: Iterable[tuple[int, str]], head_position: int, head_hash: str
) -> list[LogRow]:
    """Dense global positions after the head, chained: ``entries`` are (event id, event hash)."""
    log: list[LogRow] = []
    position = head_position
    prev = head_hash
    for event_id, digest in entries:
        position += 1
        chained = global_hash(prev, position, digest)
        log.append((position, event_id, prev, chained))
        prev = chained
    return log


class EventReader:
    """Stored rows → RecordedEvent, through the upcasters; actors are shared, not rebuilt."""

    def __init__(self, upcasters: Upcasters | None) -> None:
        self.upcasters = upcasters if upcasters else None
        self._actors: dict[tuple[str, str], Actor] = {}
        self._time_text = ""
        self._time = datetime.min

    def event(self, row: Sequence[Any], payload: dict[str, Any] | None = None) -> RecordedEvent:
        (position, stream, version, kind, schema, text, at, actor_id, role, command, prev,
         digest) = row[:12]  # fmt: skip
        if payload is None:
            payload = json.loads(text)
        if self.upcasters is not None:
            schema, payload = self.upcasters.upcast(kind, schema, payload)
        actor = self._actors.get((actor_id, role))
        if actor is None:
            actor = self._actors[(actor_id, role)] = Actor(actor_id, role)
        if at != self._time_text:  # consecutive events mostly share one time
            self._time_text = at
            self._time = parse_time(at)
        return RecordedEvent(
            position,
            stream,
            version,
            kind,
            schema,
            payload,
            actor,
            self._time,
            command,
            prev,
            digest,
        )

    def events(self, rows: Iterable[Sequence[Any]]) -> list[RecordedEvent]:
        return [self.event(row) for row in rows]


def checkpoint_of(row: Sequence[Any]) -> Checkpoint:
    position, digest, at, signer, signature = row
    return Checkpoint(position, digest, parse_time(at), signer, signature)
