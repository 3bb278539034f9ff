"""What every store implementation shares, so the in-memory fake and the SQL store refuse, hash and
number events identically: row building, global sequencing, row → event (the request checks:
append_checks.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from adapters.store.append_checks import StreamAppend, check_batch, check_parts, check_request
from eventlog.canonical import (
    FAST_DUMPS,
    SORT_KEYS,
    canonical_bytes,
    event_link,
    format_time,
    global_link,
    loads_json,
    parse_time,
    quote,
)
from eventlog.envelope import check_json
from table_core.ports import (
    Actor,
    BatchCommand,
    Checkpoint,
    EventEnvelope,
    InvalidEvent,
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


def command_rows(
    stream_id: str, head_version: int, commands: Sequence[BatchCommand]
) -> list[tuple[str, str, int, int]]:
    """The ``commands`` rows of a batch: each id with its first and last stream version."""
    out = []
    version = head_version
    for command_id, events in commands:
        out.append((command_id, stream_id, version + 1, version + len(events)))
        version += len(events)
    return out


# An integer beyond 64 bits has 19 digits at least: with every digit turned into "0", a run of 19
# zeros finds it (bytes.translate and a substring search: about 1 us a payload, where a regular
# expression took 5 to 10). A run inside a string is possible and harmless: the payload is walked.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_LONG_NUMBER = b"0" * 19


def payload_bytes(event: EventEnvelope) -> bytes:
    """The canonical bytes of a payload, which are stored (as text) and hashed. A set, NaN or mixed
    key types are ``InvalidEvent``; an envelope that did not walk its payload (``serialized``:
    float-free by its maker's promise) is still held to the 64-bit range here."""
    try:
        data = canonical_bytes(event.payload)
    except (TypeError, ValueError) as error:
        raise InvalidEvent(f"{event.type}: {error}") from None
    if event.serialized and _LONG_NUMBER in data.translate(_DIGITS):
        check_json(event.payload, event.type)
    return data


def build_rows(
    stream_id: str,
    head_version: int,
    head_hash: str,
    events: Sequence[EventEnvelope],
    command_id: str,
) -> list[EventRow]:
    """The stored rows of a command: canonical payload bytes, each hashed onto the previous."""
    return build_batch_rows(stream_id, head_version, head_hash, [(command_id, events)])


def build_batch_rows(
    stream_id: str, head_version: int, head_hash: str, commands: Sequence[BatchCommand]
) -> list[EventRow]:
    """The stored rows of a batch of commands (``stream_rows``), as a list."""
    return list(stream_rows(stream_id, head_version, head_hash, commands))


def stream_rows(
    stream_id: str, head_version: int, head_hash: str, commands: Sequence[BatchCommand]
) -> Iterator[EventRow]:
    """Each event's stored row, built ONCE for every store: its canonical payload bytes and its
    hash onto the previous one (``canonical.event_link``), each event under its own command's id.
    The texts that repeat (stream, command, time, actor) are quoted once, and a hash of our own is
    hex, which quotes to itself. The time text of a row is the previous row's object when the
    events share their time (``chain_batch`` parses it once).

    Over 50 lines: every append's hottest loop, in one frame (``canonical_bytes``' fast path and
    the time and actor caches inline; a call per event for them cost about 10% of it)."""
    dumps = FAST_DUMPS
    quoted_stream = quote(stream_id)
    prev = head_hash
    link = quote(head_hash)[1:-1]  # prev as the hash's text holds it; ours is hex
    version = head_version
    last_time: datetime | None = None
    at = quoted_at = ""
    last_actor: Actor | None = None
    actor_id = role = quoted_actor = ""
    for command_id, events in commands:
        quoted_command = quote(command_id)
        for event in events:
            version += 1
            data = None
            if dumps is not None:  # canonical_bytes' fast path, inline
                try:
                    data = dumps(event.payload, option=SORT_KEYS)
                except TypeError:
                    pass
                else:
                    if not data.isascii() or b"\\" in data or b"\x7f" in data:
                        data = None
            if data is None:
                data = payload_bytes(event)
            elif event.serialized and _LONG_NUMBER in data.translate(_DIGITS):
                check_json(event.payload, event.type)
            if event.at is not last_time:  # the events of a command mostly share one time
                last_time = event.at
                at = format_time(last_time)
                quoted_at = quote(at)
            if event.actor is not last_actor:
                last_actor = event.actor
                actor_id, role, quoted_actor = _actor_texts(last_actor)
            kind = event.type
            schema = event.schema_version
            text = data.decode()
            digest = event_link(link, quoted_stream, version, quote(kind), schema, quoted_at,
                                quoted_actor, quoted_command, text)  # fmt: skip
            yield (stream_id, version, kind, schema, text, at, actor_id, role, command_id, prev,
                   digest)  # fmt: skip
            prev = link = digest


def _actor_texts(actor: Actor) -> tuple[str, str, str]:
    """An actor's id, role, and both quoted as the event hash joins them."""
    return actor.id, actor.role, f"{quote(actor.id)},{quote(actor.role)}"


def sequence(
    entries: Iterable[tuple[int, str]], head_position: int, head_hash: str
) -> list[LogRow]:
    """Dense global positions after the head, chained (``canonical.global_link``): ``entries``
    are (event id, event hash), both hashes our own (hex)."""
    log: list[LogRow] = []
    append = log.append
    position = head_position
    prev = head_hash
    link = quote(head_hash)[1:-1]  # as the hash's text holds it; ours is hex
    for event_id, digest in entries:
        position += 1
        chained = global_link(link, position, digest)
        append((position, event_id, prev, chained))
        prev = link = chained
    return log


def chain_batch(
    stream_id: str,
    head_version: int,
    head_hash: str,
    commands: Sequence[BatchCommand],
    head_position: int,
    global_head: str,
    reader: EventReader,
) -> tuple[list[Any], list[Any], list[list[RecordedEvent]], str]:
    """A whole append where the writer numbers events itself (SQLite: an event's id is its
    position): each row as ``stream_rows`` builds it (once), numbered and chained globally
    (``sequence``) and answered (``EventReader.appended``) as it comes.

    Returns the ``events`` parameters (id then ``EventRow``, flat, as a multi-row INSERT takes
    them), the ``event_log`` parameters (``LogRow``, flat), the recorded events per command and
    the new global head hash: those of the three functions (the contract suite pins them).
    """
    rows: list[Any] = []
    log: list[Any] = []
    out: list[list[RecordedEvent]] = []
    add_position = rows.append
    add_row = rows.extend
    add_log = log.extend
    new = RecordedEvent.__new__  # called directly: skips type.__call__, about 0.5 us
    exact = reader.upcasters is not None  # upcasters may reshape or mutate: the reader's path
    built = stream_rows(stream_id, head_version, head_hash, commands)
    chained = global_head
    chain_link = quote(global_head)[1:-1]  # as the hash's text holds it; ours is hex
    position = head_position
    last_at = ""
    moment = datetime.min
    for _, events in commands:
        recorded: list[RecordedEvent] = []
        keep = recorded.append
        # ``events`` first: zip stops there, before taking the next command's row.
        for event, row in zip(events, built, strict=False):
            position += 1
            (_, version, kind, schema, text, at, _, _, command_id, prev, digest) = row
            global_prev = chained
            chained = chain_link = global_link(chain_link, position, digest)
            add_position(position)
            add_row(row)
            add_log((position, position, global_prev, chained))
            if at is not last_at:  # the same text object while the events share their time
                last_at = at
                moment = parse_time(at)
            payload: Any = event.payload if event.plain else loads_json(text)
            keep(reader.event((position, *row)) if exact else
                 new(RecordedEvent, position, stream_id, version, kind, schema,
                     payload, event.actor, moment, command_id, prev, digest))  # fmt: skip
        out.append(recorded)
    return rows, log, out, chained


#: Where a batch's checkpoints go: (the batch's events up to and including the command, that
#: command's last event's time), in order. A store signs its chain head at each.
CheckpointMarks = Sequence[tuple[int, datetime]]


def checkpoint_marks(
    commands: Sequence[BatchCommand], checkpoint: bool, checkpoint_after: Sequence[int]
) -> list[tuple[int, datetime]]:
    """The checkpoints a batch asks for: after each command index of ``checkpoint_after`` and,
    with ``checkpoint``, after the last command. An index outside the batch is ``InvalidEvent``."""
    count = len(commands)
    wanted = set()
    for index in checkpoint_after:
        if type(index) is not int or not 0 <= index < count:
            raise InvalidEvent(f"checkpoint_after: {index!r} is not a command index of the batch")
        wanted.add(index)
    if checkpoint:
        wanted.add(count - 1)
    if not wanted:
        return []
    marks = []
    through = 0
    for index, (_, events) in enumerate(commands):
        through += len(events)
        if index in wanted:
            marks.append((through, events[-1].at))
    return marks


def marked_parts(
    parts: Sequence[StreamAppend], checkpoint: bool
) -> list[tuple[StreamAppend, list[tuple[int, datetime]]]]:
    """The parts of an append across streams, each with its checkpoints: with ``checkpoint``,
    one after the last part's last command (so after every part's events)."""
    last = len(parts) - 1
    return [
        (part, checkpoint_marks(part[2], checkpoint and index == last, ()))
        for index, part in enumerate(parts)
    ]


class AppendEntrances:
    """``append`` and ``append_batch`` for every store: the request is checked the same way, then
    one ``_append`` (each store's own transaction) records all the commands of its part (stream,
    expected version, commands) or none, with a signed checkpoint at each of ``marks``."""

    def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[EventEnvelope],
        command_id: str,
        *,
        checkpoint: bool = False,
    ) -> list[RecordedEvent]:
        check_request(stream_id, expected_version, events, command_id)
        commands = [(command_id, events)]
        marks = checkpoint_marks(commands, checkpoint, ())
        return self._append((stream_id, expected_version, commands), marks)[0]

    def append_batch(
        self,
        stream_id: str,
        expected_version: int,
        commands: Sequence[BatchCommand],
        *,
        checkpoint: bool = False,
        checkpoint_after: Sequence[int] = (),
    ) -> list[list[RecordedEvent]]:
        """Several commands of one stream in one transaction: see ``ports.EventStore``."""
        check_batch(stream_id, expected_version, commands)
        marks = checkpoint_marks(commands, checkpoint, checkpoint_after)
        return self._append((stream_id, expected_version, commands), marks)

    def append_streams(
        self, parts: Sequence[Any], *, checkpoint: bool = False
    ) -> list[list[RecordedEvent]]:
        """Several streams' commands in ONE transaction, all or none (``store/across.py``)."""
        check_parts(parts)
        return self._append_streams(parts, checkpoint)

    def _append(self, part: StreamAppend, marks: CheckpointMarks) -> list[list[RecordedEvent]]:
        raise NotImplementedError

    def _append_streams(self, parts: Sequence[Any], checkpoint: bool) -> list[list[RecordedEvent]]:
        raise NotImplementedError


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
            payload = loads_json(text)
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
        if self.upcasters is not None:
            return [self.event(row) for row in rows]
        # ``event`` inlined, its caches in locals: a read builds one per stored event.
        out: list[RecordedEvent] = []
        keep = out.append
        new = RecordedEvent.__new__  # called directly: skips type.__call__, about 0.5 us
        parse = loads_json
        actors = self._actors
        last_at = last_actor_id = last_role = ""
        moment = datetime.min
        actor: Any = None
        for row in rows:
            (position, stream, version, kind, schema, text, at, actor_id, role, command, prev,
             digest) = row[:12]  # fmt: skip
            if actor_id != last_actor_id or role != last_role:
                last_actor_id, last_role = actor_id, role
                actor = actors.get((actor_id, role))
                if actor is None:
                    actor = actors[(actor_id, role)] = Actor(actor_id, role)
            if at != last_at:
                last_at = at
                moment = parse_time(at)
            keep(new(RecordedEvent, position, stream, version, kind, schema, parse(text), actor,
                     moment, command, prev, digest))  # fmt: skip
        return out

    def appended(
        self,
        positions: Sequence[int],
        rows: Sequence[EventRow],
        commands: Sequence[BatchCommand],
    ) -> list[list[RecordedEvent]]:
        """What an append returns, one list per command, built from what the append already holds:
        a plain payload is handed back as it was given (no parse of the text just written), the
        actor is the envelope's, the time is parsed once per distinct stored time."""
        if self.upcasters is not None:  # upcasters may reshape or mutate: the exact path
            flat = [(p, *row) for p, row in zip(positions, rows, strict=True)]
            out, start = [], 0
            for _, events in commands:
                out.append(self.events(flat[start : start + len(events)]))
                start += len(events)
            return out
        new = RecordedEvent.__new__
        result: list[list[RecordedEvent]] = []
        index = 0
        last_at = ""
        moment = datetime.min
        for _, events in commands:
            recorded = []
            for event in events:
                (stream, version, kind, schema, text, at, _, _, command, prev, digest) = rows[index]
                if at != last_at:
                    last_at = at
                    moment = parse_time(at)
                payload: Any = event.payload if event.plain else loads_json(text)
                recorded.append(
                    new(RecordedEvent, positions[index], stream, version, kind, schema, payload,
                        event.actor, moment, command, prev, digest)
                )  # fmt: skip
                index += 1
            result.append(recorded)
        return result


def checkpoint_of(row: Sequence[Any]) -> Checkpoint:
    position, digest, at, signer, signature = row
    return Checkpoint(position, digest, parse_time(at), signer, signature)
