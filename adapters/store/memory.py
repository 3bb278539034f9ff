"""The in-memory event store for unit tests: the same checks, hashes, numbering and errors as the
SQL store (the shared contract suite runs against both), without a database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from adapters.store.across import answer_refused
from adapters.store.append_checks import StreamAppend, check_version, command_ids, recorded_ranges
from adapters.store.core import (
    AppendEntrances,
    CheckpointMarks,
    EventReader,
    build_batch_rows,
    checkpoint_of,
    command_rows,
    marked_parts,
    sequence,
)
from adapters.store.feed_reads import MemoryFeedReads
from adapters.store.replay import ReplayBroken, replay_rows, tamper_detected
from adapters.store.signing import Signer
from adapters.store.tags import anchor_tag
from eventlog.canonical import GENESIS_HASH, format_time
from eventlog.verifier import Report, verify
from table_core.ports import (
    Checkpoint,
    InvalidEvent,
    RecordedEvent,
    SigningKeyMissing,
    Upcasters,
)

State = TypeVar("State")


class InMemoryEventStore(MemoryFeedReads, AppendEntrances):
    """``rows`` holds the log as the verifier reads it (``query.ROW_COLUMNS`` order), which is
    what tamper tests edit; nothing in the store's API changes or removes a row."""

    def __init__(self, signer: Signer | None = None, upcasters: Upcasters | None = None) -> None:
        self.signer = signer
        self.public_key = signer.public_raw if signer is not None else None
        self.rows: list[tuple[Any, ...]] = []
        self.checkpoint_rows: list[tuple[Any, ...]] = []
        self._streams: dict[str, list[int]] = {}  # stream → indexes into rows, by version
        self._commands: dict[str, tuple[str, int, int]] = {}
        self._reader = EventReader(upcasters)
        self._lock = threading.Lock()
        # Test hooks, the same names as the SQL store's: called inside the "transaction".
        self.faults: dict[str, Callable[[], None]] = {}
        #: Append tags (adapters/store/tags.py): one row per append, as ``append_tags`` holds
        #: them; the anchors as ``append_tag_anchors`` (each tagged by a key, tags.py).
        self.tagger = signer.tagger() if signer is not None else None
        self.tags: list[tuple[Any, ...]] = []
        self.anchors: list[tuple[Any, ...]] = []

    def load(
        self, rows: Sequence[Sequence[Any]], checkpoint_rows: Sequence[Sequence[Any]] = ()
    ) -> None:
        """Take a stored log as it is (an exported bundle, a fixture): history, not new events.
        Nothing is checked here; ``verify()`` says whether it holds."""
        with self._lock:
            for row in rows:
                row = tuple(row)
                self._streams.setdefault(row[1], []).append(len(self.rows))
                self.rows.append(row)
                first = self._commands.get(row[9], (row[1], row[2], row[2]))[1]
                self._commands[row[9]] = (row[1], first, row[2])
            self.checkpoint_rows.extend(tuple(row) for row in checkpoint_rows)

    def _append(self, part: StreamAppend, marks: CheckpointMarks) -> list[list[RecordedEvent]]:
        self._need_signer(bool(marks))
        with self._lock:
            return self._append_locked(part, marks)

    def _append_streams(
        self, parts: Sequence[StreamAppend], checkpoint: bool
    ) -> list[list[RecordedEvent]]:
        """Every part checked under the lock before any is written: all or none."""
        self._need_signer(checkpoint)
        with self._lock:
            found = {i: self._commands[i] for i in command_ids(parts) if i in self._commands}
            heads = {p[0]: len(self._streams.get(p[0], [])) for p in parts}
            if found or any(heads[p[0]] != p[1] for p in parts):
                return answer_refused(
                    parts, found, heads, lambda s, a, b: self._stream_events(s, a, b)
                )
            rows, signed, tagged = len(self.rows), len(self.checkpoint_rows), len(self.tags)
            try:
                out = []
                for part, marks in marked_parts(parts, checkpoint):
                    out.extend(self._append_locked(part, marks))
                return out
            except BaseException:  # a test's fault in a later part: undo the earlier ones
                del self.rows[rows:], self.checkpoint_rows[signed:], self.tags[tagged:]
                for stream_id, _, _ in parts:
                    kept = [i for i in self._streams.get(stream_id, []) if i < rows]
                    self._streams[stream_id] = kept
                for command_id in command_ids(parts):
                    self._commands.pop(command_id, None)
                raise

    def _append_locked(
        self, part: StreamAppend, marks: CheckpointMarks
    ) -> list[list[RecordedEvent]]:
        """``_append`` with the lock held."""
        stream_id, expected_version, commands = part
        ids = [command_id for command_id, _ in commands]
        found = {i: self._commands[i] for i in ids if i in self._commands}
        ranges = recorded_ranges(stream_id, ids, found)
        if ranges is not None:  # the whole batch is a retry
            return [self._stream_events(stream_id, first - 1, last) for first, last in ranges]
        indexes = self._streams.get(stream_id, [])
        head_version = len(indexes)
        check_version(stream_id, expected_version, head_version)
        head_hash = self.rows[indexes[-1]][11] if indexes else GENESIS_HASH
        event_rows = build_batch_rows(stream_id, head_version, head_hash, commands)
        position = len(self.rows)
        global_head = self.rows[-1][13] if self.rows else GENESIS_HASH
        # The event id is the position here, as on SQLite.
        ids_ = range(position + 1, position + 1 + len(event_rows))
        log = sequence(
            ((event_id, row[10]) for event_id, row in zip(ids_, event_rows, strict=True)),
            position,
            global_head,
        )
        new_rows = [
            (entry[0], *row, entry[2], entry[3]) for entry, row in zip(log, event_rows, strict=True)
        ]
        tags = []
        if self.tagger is not None:
            tags.append(
                self.tagger.row(stream_id, head_version, len(event_rows), event_rows[-1][10])
            )
        if marks:  # the events before this append must be tagged (tags.py)
            self._check_tags(None, 0, self.tags + tags)
        new_checkpoints = [
            self._sign(new_rows[through - 1][0], new_rows[through - 1][13], at)
            for through, at in marks
        ]
        self._fault("before_commit")
        self.tags.extend(tags)
        self.rows.extend(new_rows)
        self._streams.setdefault(stream_id, []).extend(range(position, len(self.rows)))
        for command_id, stream, first, last_version in command_rows(
            stream_id, head_version, commands
        ):
            self._commands[command_id] = (stream, first, last_version)
        self.checkpoint_rows.extend(new_checkpoints)
        self._fault("after_commit")
        return self._reader.appended([entry[0] for entry in log], event_rows, commands)

    def read_stream(self, stream_id: str, after_version: int = 0) -> list[RecordedEvent]:
        with self._lock:
            return self._stream_events(stream_id, after_version, None)

    def read_all(self, after_position: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        with self._lock:
            end = None if limit is None else after_position + limit
            return self._reader.events(self.rows[after_position:end])

    def stream_version(self, stream_id: str) -> int:
        with self._lock:
            return len(self._streams.get(stream_id, ()))

    def events_of_command(self, command_id: str) -> list[RecordedEvent] | None:
        with self._lock:
            known = self._commands.get(command_id)
            if known is None:
                return None
            stream_id, first, last = known
            return self._stream_events(stream_id, first - 1, last)

    def checkpoint(self, at: datetime) -> Checkpoint:
        self._need_signer()
        with self._lock:
            if not self.rows:
                raise InvalidEvent("an empty log has nothing to sign")
            self._check_tags(None, 0, self.tags)
            row = self._sign(self.rows[-1][0], self.rows[-1][13], at)
            self.checkpoint_rows.append(row)
            return checkpoint_of(row)

    def need_key_to_append(self) -> None:
        """The fake appends without a key (unit tests); the SQL stores refuse to."""

    def may_record_anchors(self) -> bool:
        return True

    def record_tag_anchor(self, signer: Signer, position: int) -> None:
        """As ``SqlEventStore.record_tag_anchor``."""
        with self._lock:
            found = [row for row in self.rows if row[0] == position]
            if not found:
                raise InvalidEvent(f"no event at position {position} to anchor the tags at")
            digest = found[0][13]
            self.anchors.append(
                (position, digest, anchor_tag(signer.tagger().key, position, digest))
            )

    def verify_tags(self, stream_id: str, after_version: int = 0) -> None:
        """The catch-up check (``SqlEventStore.verify_tags``)."""
        with self._lock:
            self._check_tags(stream_id, after_version, self.tags)

    def _check_tags(
        self, stream_id: str | None, after_version: int, tags: list[tuple[Any, ...]]
    ) -> None:
        """As the SQL stores' query: each event after the floor with the tags claiming it."""
        if self.tagger is None:
            return
        tail: list[tuple[Any, ...]] = []  # the rows after the floor: walked back from the end
        first = self.rows[0][0] if self.rows else 1  # positions are dense from the first row
        at = {
            row[0]: row[13]
            for p in {a[0] for a in self.anchors} | {c[0] for c in self.checkpoint_rows[-16:]}
            if 0 <= p - first < len(self.rows) and (row := self.rows[p - first])
        }
        anchors = [(*a, at.get(a[0])) for a in self.anchors[-8:] if a[2]]
        checkpoints = [(*c, at.get(c[0])) for c in reversed(self.checkpoint_rows[-16:])]
        floor = self.tagger.floor(anchors, checkpoints)
        for row in reversed(self.rows):
            if row[0] <= floor:
                break
            tail.append(row)
        claims_of: dict[str, list[tuple[Any, ...]]] = {}
        for t in tags:
            claims_of.setdefault(t[0], []).append(t)
        streams = self._streams

        def hash_at(stream: str, version: Any) -> str | None:
            indexes = streams.get(stream, [])
            ok = isinstance(version, int) and 0 < version <= len(indexes)
            return str(self.rows[indexes[version - 1]][11]) if ok else None

        candidates = []
        for position, stream, version, *_ in reversed(tail):
            if stream_id is not None and (stream != stream_id or version <= after_version):
                continue
            claims = [t for t in claims_of.get(stream, ()) if t[1] <= version <= t[2]]
            for t in claims or [(None,) * 5]:
                candidates.append((position, stream, version, *t[1:], hash_at(stream, t[2])))
        self.tagger.check(candidates)

    def checkpoints(self) -> list[Checkpoint]:
        with self._lock:
            return [checkpoint_of(row) for row in self.checkpoint_rows]

    def last_checkpoint(self) -> Checkpoint | None:
        with self._lock:
            return checkpoint_of(self.checkpoint_rows[-1]) if self.checkpoint_rows else None

    def raw_log(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        with self._lock:
            return list(self.rows), list(self.checkpoint_rows)

    def verify(self, observe: Callable[[Sequence[Any]], None] | None = None) -> Report:
        rows, checkpoint_rows = self.raw_log()
        if observe is not None:
            for row in rows:
                observe(row)
        return verify(rows, checkpoint_rows, self.public_key)

    def replay(self, fold: Callable[[State, RecordedEvent], State], state: State) -> State:
        """Verify every event while folding it; ``TamperDetected`` at the first that fails."""
        rows, checkpoint_rows = self.raw_log()
        try:
            return replay_rows(
                rows, checkpoint_rows, self.public_key, self._reader.upcasters, fold, state
            )
        except ReplayBroken:
            raise tamper_detected(self.verify()) from None

    def close(self) -> None:
        pass

    def _stream_events(
        self, stream_id: str, after_version: int, last_version: int | None
    ) -> list[RecordedEvent]:
        indexes = self._streams.get(stream_id, [])[after_version:last_version]
        return self._reader.events(self.rows[i] for i in indexes)

    def _need_signer(self, needed: bool = True) -> None:
        if needed and self.signer is None:
            raise SigningKeyMissing("no signing key is configured for checkpoints")

    def _sign(self, position: int, chain_hash: str, at: datetime) -> tuple[Any, ...]:
        assert self.signer is not None
        signed_at = format_time(at)
        signature = self.signer.sign(position, chain_hash, signed_at)
        return (position, chain_hash, signed_at, self.signer.key_id, signature)

    def _fault(self, point: str) -> None:
        hook = self.faults.get(point)
        if hook is not None:
            hook()
