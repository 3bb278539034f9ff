"""The event log verifier: finds the FIRST event or checkpoint that does not hold.

Standard library only (``cryptography`` is imported for the Ed25519 signature check alone), so an
auditor can read it in one sitting and run it on a copy of the log. ``audit/`` uses it; the
store's ``verify()`` feeds it rows in global position order.

A row is a tuple in ``query.ROW_COLUMNS`` order. For each row, in order, it checks:
  sequence  the global position is the next one and the stream version is the stream's next one
  link      ``prev_hash`` is the stream's previous hash and ``global_prev`` the previous global hash
  payload   the stored payload is canonical JSON without floats
  hash      the event hash and the global hash recompute from the stored bytes
and, at each checkpoint's position, that the signed head is this row's global hash and that the
Ed25519 signature holds; a checkpoint past the end of the log means events were removed.

A purged log (R18) starts after position 1: the first row's links are taken as the boundary, and
the log holds only if a ``range_purged`` event of the ``system`` stream, later in the same chain,
records a purge through exactly the position before it, with that global hash and the heads of
the streams that go on (``PurgeBoundary``). Nothing else may start a log anywhere but position 1:
without such an event the report names the first missing position.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from eventlog.canonical import (
    GENESIS_HASH,
    NotCanonical,
    event_hash,
    global_hash,
    load_payload,
    parse_payload,
)
from eventlog.keys import checkpoint_signature_holds, key_id, load_public_key
from eventlog.query import CHECKPOINT_QUERY, LOG_QUERY


@dataclass(frozen=True)
class Finding:
    """The first thing that does not hold: where, which check, and what was expected."""

    position: int
    stream_id: str | None
    version: int | None
    problem: str  # sequence | link | payload | hash | checkpoint | malformed
    detail: str

    def __str__(self) -> str:
        where = f"position {self.position}"
        if self.stream_id is not None:
            where += f" (stream {self.stream_id!r} version {self.version})"
        return f"{where}: {self.problem}: {self.detail}"


@dataclass(frozen=True)
class Report:
    events: int
    checkpoints: int
    signatures_checked: bool
    first_bad: Finding | None

    @property
    def ok(self) -> bool:
        return self.first_bad is None


class ChainVerificationError(Exception):
    """The first row or checkpoint that does not hold (``finding``). Not the system event
    ``system_events.VerificationFailed``, which records such a finding in the log."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(str(finding))
        self.finding = finding


#: The system event that records a purge of the log's head (eventlog/system_events.py).
RANGE_PURGED = "range_purged"


class PurgeBoundary:
    """Where a purged log starts (R18): taken from the first row, then confirmed (or not) by the
    ``range_purged`` events met later in the chain."""

    def __init__(self, last: int, global_hash: str) -> None:
        self.last = last  # the last purged position
        self.global_hash = global_hash  # the global hash at it: the first row's global_prev
        self.first_seen: dict[str, tuple[int, str]] = {}  # streams that start mid-way here
        self.heads: dict[str, tuple[Any, Any]] | None = None  # once confirmed: the recorded heads
        self.earlier: list[int] = []  # the last positions of other purges recorded

    def stream_starts(self, stream: str, version: int, prev: str) -> bool:
        """A stream first met at ``version`` > 1 after the boundary: it must be recorded."""
        self.first_seen[stream] = (version - 1, prev)
        return self.heads is None or self.heads.get(stream) == (version - 1, prev)

    def recorded(self, value: dict[str, Any]) -> str | None:
        """A ``range_purged`` payload met in the chain; the problem if it claims this boundary
        and does not match it."""
        last = value.get("last_position")
        if last != self.last:
            if isinstance(last, int):
                self.earlier.append(last)
            return None
        heads = {
            stream: (head.get("version"), head.get("hash"))
            for stream, head in (value.get("stream_heads") or {}).items()
            if isinstance(head, dict)
        }
        if value.get("last_global_hash") != self.global_hash:
            return "the range_purged event's last global hash is not where the log starts"
        for stream, head in self.first_seen.items():
            if heads.get(stream) != head:
                return f"the range_purged event's head of stream {stream!r} is not where it starts"
        self.heads = heads
        return None

    def missing(self, position: int) -> Finding | None:
        """After the last row: the finding when no ``range_purged`` event confirmed the start."""
        if self.heads is not None:
            return None
        first = max([p for p in self.earlier if p < self.last], default=0) + 1
        return Finding(
            first,
            None,
            None,
            "sequence",
            f"the log starts at position {self.last + 1}: position {first} onwards is missing "
            f"and no range_purged event records a purge through position {self.last}",
        )


class ChainVerifier:
    """Row-at-a-time verification, so a replay can verify and fold in one pass."""

    def __init__(
        self,
        checkpoints: Iterable[Sequence[Any]] = (),
        public_key: bytes | None = None,
        *,
        canonical: bool = True,
    ) -> None:
        # canonical=False skips re-serialising each payload to compare forms: the hash already
        # covers the stored bytes, so a replay can trust them; a full audit keeps the check.
        self._payload = parse_payload if canonical else load_payload
        self.public_key = public_key
        self.key_id = key_id(public_key) if public_key is not None else None
        self._checkpoints = sorted((tuple(c) for c in checkpoints), key=lambda c: c[0])
        self._next_checkpoint = 0
        self._checkpoint_at = self._checkpoints[0][0] if self._checkpoints else -1
        self.heads: dict[str, tuple[int, str]] = {}
        self.position = 0
        self.global_head = GENESIS_HASH
        self.boundary: PurgeBoundary | None = None

    @property
    def checkpoints_checked(self) -> int:
        return self._next_checkpoint

    def check(self, row: Sequence[Any]) -> dict[str, Any]:
        """The row's payload object if the row holds; raises ``ChainVerificationError`` if not."""
        try:
            return self._check(row)
        except (TypeError, ValueError, AttributeError, IndexError, UnicodeError) as error:
            # A row that is not even the right shape (a wrong type, a missing column).
            raise ChainVerificationError(
                Finding(self.position + 1, None, None, "malformed", f"unreadable row: {error}")
            ) from None

    def _check(self, row: Sequence[Any]) -> dict[str, Any]:
        (position, stream, version, kind, schema, payload, at, actor_id, role, command, prev,
         hash_, global_prev, global_hash_) = row  # fmt: skip
        if type(position) is not int or type(version) is not int or type(schema) is not int:
            raise TypeError("position, version and schema_version are integers")
        expected = self.position + 1
        if (
            position != expected
            and expected == 1
            and type(position) is int
            and position > 1
            and global_prev != GENESIS_HASH  # the first event ever links to genesis: position 1
        ):
            self._start_after(position - 1, global_prev)  # a purged log (R18), to be confirmed
            expected = position
        if position != expected:
            if (
                self.boundary is not None
                and type(position) is int
                and position <= self.boundary.last
            ):
                # an event before the supposed boundary: the log was reordered, not purged
                missing = self.boundary.missing(self.position)
                if missing is not None:
                    raise ChainVerificationError(missing)
            raise ChainVerificationError(
                Finding(
                    expected,
                    None,
                    None,
                    "sequence",
                    f"expected global position {expected}, found {position}: "
                    "an event is missing or out of order",
                )
            )
        head_version, head_hash = self.heads.get(stream, (0, GENESIS_HASH))
        if head_version == 0 and version != 1 and self.boundary is not None:
            if not self.boundary.stream_starts(stream, version, prev):
                self._fail(row, "link", "the stream starts where no range_purged event says")
            head_version, head_hash = version - 1, prev
        if version != head_version + 1:
            self._fail(row, "sequence", f"expected stream version {head_version + 1}")
        if prev != head_hash:
            self._fail(row, "link", "prev_hash is not the hash of the stream's previous event")
        if global_prev != self.global_head:
            self._fail(row, "link", "global_prev is not the previous global hash")
        try:
            value = self._payload(payload)
        except NotCanonical as error:
            self._fail(row, "payload", str(error))
        if (
            event_hash(prev, stream, version, kind, schema, at, actor_id, role, command, payload)
            != hash_
        ):
            self._fail(row, "hash", "the event hash does not match its stored bytes")
        if global_hash(global_prev, position, hash_) != global_hash_:
            self._fail(row, "hash", "the global hash does not match")
        self.heads[stream] = (version, hash_)
        self.position = position
        self.global_head = global_hash_
        if kind == RANGE_PURGED and self.boundary is not None and isinstance(value, dict):
            problem = self.boundary.recorded(value)
            if problem is not None:
                self._fail(row, "link", problem)
        if position == self._checkpoint_at:
            self._check_checkpoints(row)
        return value

    def _start_after(self, last: int, global_prev: str) -> None:
        """The log starts after position ``last`` (a purge): checkpoints at or before it went
        with the purged range, into its archive."""
        self.boundary = PurgeBoundary(last, global_prev)
        self.position = last
        self.global_head = global_prev
        while self._checkpoint_at != -1 and self._checkpoint_at <= last:
            self._next_checkpoint += 1
            more = self._next_checkpoint < len(self._checkpoints)
            self._checkpoint_at = self._checkpoints[self._next_checkpoint][0] if more else -1

    def boundary_finding(self) -> Finding | None:
        """After the last row: a log that starts after position 1 with no ``range_purged``
        event recording exactly that purge."""
        return None if self.boundary is None else self.boundary.missing(self.position)

    def finish(self) -> None:
        """After the last row: a checkpoint beyond the end means the tail was removed, and a log
        that starts after position 1 needs its ``range_purged`` event."""
        missing = self.boundary_finding()
        if missing is not None:
            raise ChainVerificationError(missing)
        if self._next_checkpoint < len(self._checkpoints):
            signed = self._checkpoints[self._next_checkpoint][0]
            raise ChainVerificationError(
                Finding(
                    self.position + 1,
                    None,
                    None,
                    "checkpoint",
                    f"a checkpoint signed position {signed} but the log ends at {self.position}: "
                    "events were removed",
                )
            )

    def _check_checkpoints(self, row: Sequence[Any]) -> None:
        while self._checkpoint_at == self.position:
            _, head, signed_at, signer, signature = self._checkpoints[self._next_checkpoint]
            if head != self.global_head:
                self._fail(row, "checkpoint", "the signed chain head differs from the log")
            if self.public_key is not None:
                if signer != self.key_id:
                    self._fail(row, "checkpoint", f"signed by key {signer}, not {self.key_id}")
                if not checkpoint_signature_holds(
                    self.public_key, signature, self.position, head, signed_at
                ):
                    self._fail(row, "checkpoint", "the checkpoint signature does not hold")
            self._next_checkpoint += 1
            more = self._next_checkpoint < len(self._checkpoints)
            self._checkpoint_at = self._checkpoints[self._next_checkpoint][0] if more else -1

    @staticmethod
    def _fail(row: Sequence[Any], problem: str, detail: str) -> NoReturn:
        raise ChainVerificationError(Finding(row[0], row[1], row[2], problem, detail))


def verify(
    rows: Iterable[Sequence[Any]],
    checkpoints: Iterable[Sequence[Any]] = (),
    public_key: bytes | None = None,
) -> Report:
    """Check every row in order and every checkpoint; report the first that does not hold."""
    verifier = ChainVerifier(checkpoints, public_key)
    count = 0
    try:
        for row in rows:
            verifier.check(row)
            count += 1
        verifier.finish()
    except ChainVerificationError as failed:
        return Report(count, verifier.checkpoints_checked, public_key is not None, failed.finding)
    return Report(count, verifier.checkpoints_checked, public_key is not None, None)


def verify_sqlite_file(path: str | Path, public_key_path: str | Path | None = None) -> Report:
    """Verify an embedded database file read-only, with nothing but the standard library."""
    public_key = None
    if public_key_path is not None:
        public_key = load_public_key(Path(public_key_path).read_bytes())
    connection = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    try:
        checkpoints = connection.execute(CHECKPOINT_QUERY).fetchall()
        return verify(connection.execute(LOG_QUERY), checkpoints, public_key)
    finally:
        connection.close()
