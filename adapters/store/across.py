"""Appends to several streams in ONE transaction (``append_streams``): all or nothing.

What needs it: a fact of the system stream and the table facts it entails, which must never be
recorded one without the other (R17/R20: opening a dispute holds the decks that dealt its rounds,
``deck_held`` in the table's stream, in the transaction of ``dispute_opened`` in the system
stream). Each part is one command on one stream at its expected version, as ``append`` takes it;
the parts are positioned in the global log in the order given, and ``checkpoint=True`` signs the
chain head after the last part's last event, in the same transaction.

A request whose every part is already recorded (a retry of the same command ids, each on its own
stream) answers their events and writes nothing; one mixing recorded and new parts writes nothing
and raises ``CommandsPartlyRecorded``; a stream not at its expected version: ``ConcurrencyError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from adapters.store.core import check_batch, check_version, recorded_ranges
from table_core.ports import (
    CommandsPartlyRecorded,
    EventEnvelope,
    InvalidEvent,
    RecordedEvent,
    StoreError,
)

#: One part: (stream id, expected version, events, command id), as ``append`` takes them.
StreamAppend: TypeAlias = tuple[str, int, Sequence[EventEnvelope], str]


def check_parts(parts: Sequence[StreamAppend]) -> None:
    """Each part a well-formed append; at least one; no stream and no command id twice."""
    if not parts:
        raise InvalidEvent("append_streams appends at least one part")
    streams = [part[0] for part in parts]
    ids = [part[3] for part in parts]
    if len(set(streams)) != len(streams) or len(set(ids)) != len(ids):
        raise InvalidEvent("append_streams takes each stream and each command id once")
    for stream_id, expected_version, events, command_id in parts:
        check_batch(stream_id, expected_version, [(command_id, events)])


def answer_refused(
    parts: Sequence[StreamAppend],
    found: dict[str, tuple[str, int, int]],
    heads: dict[str, int],
    read: Callable[[str, int, int], list[RecordedEvent]],
) -> list[list[RecordedEvent]]:
    """After a transaction that wrote nothing (a unique key or a version refused it): the
    recorded events of a retry, else the refusal. ``found``: the recorded ones among the parts'
    command ids (stream, first and last version); ``heads``: each stream's version now;
    ``read(stream, after, through)``: a stream's events."""
    recorded = []
    for stream_id, _, _, command_id in parts:
        mine = {command_id: found[command_id]} if command_id in found else {}
        ranges = recorded_ranges(stream_id, [command_id], mine)
        recorded.append(None if ranges is None else ranges[0])
    if all(r is not None for r in recorded):
        return [
            read(part[0], r[0] - 1, r[1])
            for part, r in zip(parts, recorded, strict=True)
            if r is not None
        ]
    if any(r is not None for r in recorded):
        done = [p[3] for p, r in zip(parts, recorded, strict=True) if r is not None]
        new = [p[3] for p, r in zip(parts, recorded, strict=True) if r is None]
        raise CommandsPartlyRecorded(parts[0][0], done, new)
    for stream_id, expected_version, _, _ in parts:
        check_version(stream_id, expected_version, heads.get(stream_id, 0))
    raise StoreError("the streams kept changing under this append; try again")
