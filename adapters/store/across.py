"""Appends to several streams in ONE transaction (``append_streams``): all or nothing.

What needs it: a fact of the system stream and the table facts it entails, which must never be
recorded one without the other (R17/R20: opening a dispute holds the decks that dealt its rounds,
``deck_held`` in the table's stream, in the transaction of ``dispute_opened`` in the system
stream). Each part is a batch of commands of one stream at its expected version, as
``append_batch`` takes it (each command keeps its own id, so the audit decides each again); the
parts are positioned in the global log in the order given, and ``checkpoint=True`` signs the
chain head after the last part's last event, in the same transaction.

A request whose every command is already recorded (a retry of the same command ids, each on its
own stream) answers their events, one list per command, and writes nothing; one mixing recorded
and new commands writes nothing and raises ``CommandsPartlyRecorded``; a stream not at its
expected version: ``ConcurrencyError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from adapters.store.append_checks import StreamAppend, check_version, command_ids, recorded_ranges
from table_core.ports import (
    CommandsPartlyRecorded,
    RecordedEvent,
    StoreError,
)


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
    recorded: list[tuple[int, int] | None] = []
    for stream_id, _, commands in parts:
        for command_id, _ in commands:
            mine = {command_id: found[command_id]} if command_id in found else {}
            ranges = recorded_ranges(stream_id, [command_id], mine)
            recorded.append(None if ranges is None else ranges[0])
    streams = [part[0] for part in parts for _ in part[2]]
    ids = command_ids(parts)
    if all(r is not None for r in recorded):
        return [read(s, r[0] - 1, r[1]) for s, r in zip(streams, recorded, strict=True) if r]
    if any(r is not None for r in recorded):
        done = [i for i, r in zip(ids, recorded, strict=True) if r is not None]
        new = [i for i, r in zip(ids, recorded, strict=True) if r is None]
        raise CommandsPartlyRecorded(parts[0][0], done, new)
    for stream_id, expected_version, _ in parts:
        check_version(stream_id, expected_version, heads.get(stream_id, 0))
    raise StoreError("the streams kept changing under this append; try again")
