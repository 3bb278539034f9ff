"""What an append request must be, checked before anything is written, identically by every
store (the in-memory fake and the SQL stores): the request well formed, the stream at the
expected version, each command id new or a whole retry, and the parts of an append across streams
distinct."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from eventlog.envelope import NewEvent
from table_core.ports import (
    BatchCommand,
    CommandIdConflict,
    CommandsPartlyRecorded,
    ConcurrencyError,
    InvalidEvent,
)


def check_request(
    stream_id: object, expected_version: object, events: Sequence[object], command_id: object
) -> None:
    check_batch(stream_id, expected_version, [(command_id, events)])


def check_batch(stream_id: object, expected_version: object, commands: Sequence[Any]) -> None:
    """A well-formed append: a stream id, a version from 0, and commands of 1+ events each under
    distinct ids."""
    if not isinstance(stream_id, str) or not stream_id or len(stream_id) > 200:
        raise InvalidEvent("a stream id is a non-empty string of at most 200 characters")
    if type(expected_version) is not int or expected_version < 0:
        raise InvalidEvent("expected_version is an integer from 0 (0: a new stream)")
    if not commands:
        raise InvalidEvent("a batch appends at least one command")
    seen: set[str] = set()
    for command in commands:
        if not isinstance(command, tuple) or len(command) != 2:
            raise InvalidEvent("a batch is a list of (command_id, events) pairs")
        command_id, events = command
        if not isinstance(command_id, str) or not command_id or len(command_id) > 200:
            raise InvalidEvent("a command id is a non-empty string of at most 200 characters")
        if command_id in seen:
            raise InvalidEvent(f"command {command_id!r} appears twice in one batch")
        seen.add(command_id)
        if not events:
            raise InvalidEvent("a command appends at least one event")
        for event in events:
            if type(event) is not NewEvent and not isinstance(event, NewEvent):
                raise InvalidEvent(f"append takes NewEvent envelopes, got {type(event).__name__}")


def check_version(stream_id: str, expected_version: int, actual_version: int) -> None:
    if actual_version != expected_version:
        raise ConcurrencyError(stream_id, expected_version, actual_version)


def recorded_ranges(
    stream_id: str, command_ids: Sequence[str], found: dict[str, tuple[str, int, int]]
) -> list[tuple[int, int]] | None:
    """Idempotency for a batch, from ``found`` (command id -> stream, first and last version of
    the ids already recorded): ``None`` when every command is new; each command's version range
    when every one is recorded on this stream (a retry: nothing is written); otherwise
    ``CommandIdConflict`` (an id of another stream) or ``CommandsPartlyRecorded``."""
    if not found:
        return None
    for command_id in command_ids:
        known = found.get(command_id)
        if known is not None and known[0] != stream_id:
            raise CommandIdConflict(command_id, known[0], stream_id)
    if len(found) < len(command_ids):
        recorded = [i for i in command_ids if i in found]
        raise CommandsPartlyRecorded(
            stream_id, recorded, [i for i in command_ids if i not in found]
        )
    return [(found[i][1], found[i][2]) for i in command_ids]


#: One part: (stream id, expected version, commands), as ``append_batch`` takes them.
StreamAppend: TypeAlias = tuple[str, int, Sequence[BatchCommand]]


def check_parts(parts: Sequence[StreamAppend]) -> None:
    """Each part a well-formed batch; at least one; no stream and no command id twice."""
    if not parts:
        raise InvalidEvent("append_streams appends at least one part")
    streams = [part[0] for part in parts]
    ids = command_ids(parts)
    if len(set(streams)) != len(streams) or len(set(ids)) != len(ids):
        raise InvalidEvent("append_streams takes each stream and each command id once")
    for stream_id, expected_version, commands in parts:
        check_batch(stream_id, expected_version, commands)


def command_ids(parts: Sequence[StreamAppend]) -> list[str]:
    return [command_id for part in parts for command_id, _ in part[2]]
