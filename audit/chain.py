"""Integrity: every hash, link, position and signed checkpoint of the log, EVERY finding reported.

The store's verifier (``eventlog/verifier.py``) checks a row at a time and stops at the first
row that fails. The audit keeps its checks and its hashing (``ChainVerifier.check``) and adds what a
full report needs: after a finding it takes the failing row's own links as given, checks the rest
of that row, and carries on from the furthest point of the chain reached, so one deleted or
swapped event gives findings at that place only and the rest of the log is still checked.

Checkpoints are checked here rather than inside ``ChainVerifier`` (which also stops at the first
bad one): the signed head must be the global hash recorded at its position, signed by the key
given; a checkpoint whose position is not in the log means events were removed. The signature is
checked by ``eventlog.keys`` over ``eventlog.canonical.checkpoint_message``, the bytes the store
signs.

Sealing (issue 17): every event must be covered by a checkpoint that holds (a signed head at or
after it). ``unsealed``/``unsealed_from`` count the rows after the last checkpoint that held;
the caller decides what an unsealed tail means (``audit.verify``). Key rotations
(``signing_key_rotated`` of the system stream, signed by the key in force) hand the checking over
to the new key: a checkpoint signed by a key the verifier cannot reach from its own is refused.
A witness (checkpoints an outsider recorded, ``audit.witness``) must agree with the log: each
witnessed head at its position, none past the end.

A bundle of one table (``anchored``) holds that table's events (and a dispute bundle the
dispute's own events of the ``system`` stream), so global positions have gaps: an event that does
not follow the one before it has its global link (``global_prev`` → ``global_hash``) checked on
its own, positions must increase, and the table's own chain is checked whole. A checkpoint then
seals only the events its signed head commits to through links the bundle holds
(``audit.anchored``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from audit.anchored import Reach
from audit.findings import Finding
from audit.row_reading import payload_of, row_finding, value_at
from eventlog.keys import checkpoint_signature_holds, key_id, rotation_signature_holds
from eventlog.system_events import SYSTEM_STREAM
from eventlog.verifier import ChainVerificationError, ChainVerifier
from eventlog.verifier import Finding as ChainFinding

#: What each check of the store's verifier means, for a reader who is not a programmer.
_MEANING = {
    "sequence": "an event is missing, duplicated or out of order",
    "link": "the chain of hashes is broken",
    "payload": "the recorded event is not in its canonical form",
    "hash": "the recorded bytes were changed after they were written",
    "checkpoint": "a signed checkpoint does not hold",
    "malformed": "an unreadable row",
}


class Integrity:
    """Checks rows in global position order and collects every integrity finding.

    ``check(row)`` answers the row's payload object (``None`` when it cannot be read), whatever
    its findings, so the caller can still follow the table.
    """

    def __init__(
        self,
        checkpoints: Iterable[Sequence[Any]] = (),
        public_key: bytes | None = None,
        *,
        anchored: bool = False,
        witness: Iterable[Sequence[Any]] = (),
    ) -> None:
        self.chain = ChainVerifier()
        self.anchored = anchored
        self.findings: list[Finding] = []
        self.rows = 0
        # Streamed, one ahead of the rows (memory flat in the log's length, issue 22): a
        # database gives them in position order (its query sorts); a list given is sorted here.
        if isinstance(checkpoints, list | tuple):
            checkpoints = sorted((tuple(c) for c in checkpoints), key=lambda c: c[0])
        self._pending = iter(checkpoints)
        self._more: deque[tuple[Any, ...]] = deque()  # added later (add_checkpoints)
        self._ahead: tuple[Any, ...] | None = self._take_checkpoint()
        self._next = 0  # checkpoints taken so far: the one being checked is number ``_next``
        self._previous = 0  # the position of the checkpoint before it (0: none)
        self._last = 0  # the position of the last checkpoint taken
        self.checkpoints_checked = 0
        self.public_key = public_key
        self.key_id = key_id(public_key) if public_key is not None else None
        # The key in force (it changes at each rotation the key before it signed).
        self._key, self._key_in_force = public_key, self.key_id
        self.keys_followed: list[str] = []
        # Sealing: the last checkpoint that held, and the rows after it.
        self.sealed = 0
        self.unsealed = 0
        self.unsealed_from: int | None = None
        # A re-hashed stretch: the finding for its first checkpoint, and the ones after it.
        self._rehashed: int | None = None
        self._rehashed_after = 0
        self._reach = Reach() if anchored else None
        self._witness = sorted((tuple(w) for w in witness), key=lambda w: w[0])
        self._wnext = 0
        self.witnessed = len(self._witness)

    # --- rows ----------------------------------------------------------------------------------

    def check(self, row: Sequence[Any]) -> dict[str, Any] | None:
        self.rows += 1
        chain = self.chain
        if self._reach is not None:
            self._reach_row(row)
        try:
            payload: dict[str, Any] | None = chain.check(row)
        except ChainVerificationError as failed:
            payload = self._after_finding(row, failed.finding)
        if self.unsealed == 0:
            self.unsealed_from = row[0]
        self.unsealed += 1
        if self._ahead is not None:
            self._checkpoints_up_to(row)
        if self._wnext < self.witnessed:
            self._witnessed_up_to(row)
        return payload

    def _reach_row(self, row: Sequence[Any]) -> None:
        """A bundle of one table: the global chain between its events is not in it, so an event
        that does not follow the one before it takes its own global link as given; so does a
        dispute's event of the ``system`` stream, whose stream link leads to events the bundle
        leaves out. Each is vouched for by a checkpoint at it (``anchored.Reach``)."""
        chain = self.chain
        if len(row) != 14 or type(row[0]) is not int or type(row[2]) is not int:
            return
        follows = row[0] == chain.position + 1
        if row[0] > chain.position + 1:
            chain.position, chain.global_head = row[0] - 1, row[12]
        head = chain.heads.get(row[1])
        linked = head is not None and head[0] == row[2] - 1
        if row[1] == SYSTEM_STREAM and not linked:
            chain.heads[row[1]] = (row[2] - 1, row[10])
        assert self._reach is not None
        self._reach.row(row[0], row[1], linked, follows)

    def _after_finding(self, row: Sequence[Any], first: ChainFinding) -> dict[str, Any] | None:
        """Record the finding; when it is a gap or a broken link, take the row's own links as
        given (the finding explains them) and check the rest of the row: its bytes, its hashes."""
        finding = first
        saved = (self.chain.position, self.chain.global_head, self.chain.heads.get(row[1]))
        for _ in range(4):  # global gap, stream gap, a link, then the row's own bytes
            self._record(finding, row)
            if finding.problem not in ("sequence", "link") or not self._anchor(row, finding):
                break
            try:
                payload: dict[str, Any] | None = self.chain.check(row)
            except ChainVerificationError as again:
                finding = again.finding
                continue
            except (TypeError, ValueError, IndexError):
                break
            self._restore_furthest(row, *saved)
            return payload
        self._restore_furthest(row, *saved)
        return payload_of(row)

    def _anchor(self, row: Sequence[Any], finding: ChainFinding) -> bool:
        """Set the chain just before ``row`` at the point the finding names; False if it cannot."""
        chain = self.chain
        if len(row) != 14 or type(row[0]) is not int or type(row[2]) is not int:
            return False
        stream, version, prev, global_prev = row[1], row[2], row[10], row[12]
        if finding.stream_id is None:  # the global order: a position missing or out of place
            chain.position, chain.global_head = row[0] - 1, global_prev
            return True
        head = chain.heads.get(stream, (0, ""))
        if finding.problem == "sequence" or head[1] != prev:
            chain.heads[stream] = (version - 1, prev)
        else:  # the global link
            chain.global_head = global_prev
        return True

    def _restore_furthest(
        self,
        row: Sequence[Any],
        position: int,
        global_head: str,
        head: tuple[int, str] | None,
    ) -> None:
        chain = self.chain
        if len(row) != 14:
            return
        if type(row[0]) is int and row[0] >= position:
            chain.position, chain.global_head = row[0], row[13]
        else:
            chain.position, chain.global_head = position, global_head
        if type(row[2]) is int and (head is None or row[2] >= head[0]):
            chain.heads[row[1]] = (row[2], row[11])
        elif head is not None:
            chain.heads[row[1]] = head

    def _record(self, finding: ChainFinding, row: Sequence[Any]) -> None:
        stream, version = value_at(row, 1, str), value_at(row, 2, int)
        found = f"table {stream} v{version} {value_at(row, 3, str)}"
        if finding.problem == "sequence" and finding.stream_id is None:
            message = (
                f"global position {finding.position} is missing or out of place: the next "
                f"event recorded is position {value_at(row, 0, int)} ({found}); an event was "
                "removed or moved"
            )
            stream = version = None
        elif finding.problem == "sequence" and finding.stream_id is not None:
            head = self.chain.heads.get(finding.stream_id, (0, ""))[0]
            message = (
                f"version {head + 1} of stream {finding.stream_id} is missing or out of place: "
                f"the next one recorded is version {finding.version}; an event was removed or "
                "moved"
            )
        else:
            message = f"{_MEANING.get(finding.problem, finding.problem)}: {finding.detail}"
        self.findings.append(
            Finding(
                kind="integrity",
                clause=f"chain.{finding.problem}",
                message=message,
                position=finding.position,
                stream_id=stream,
                version=version,
                event_type=None if stream is None else value_at(row, 3, str),
            )
        )

    def note(self, row: Sequence[Any], clause: str, message: str) -> None:
        """An integrity finding about a row that the caller found (its payload's schema…)."""
        self.findings.append(row_finding(row, clause, message))

    # --- checkpoints ---------------------------------------------------------------------------

    def add_checkpoints(self, checkpoints: Iterable[Sequence[Any]]) -> None:
        """Checkpoints signed after this verifier was made (a follower of a live log learns them
        as the casino signs them); each must lie past the rows already checked, or it is never
        met. Queued behind the ones still to come, sorted among themselves."""
        # A queue, not a chain of iterators: a follower adds some at every pass, for days.
        self._more.extend(sorted((tuple(c) for c in checkpoints), key=lambda c: c[0]))
        if self._ahead is None:
            self._ahead = self._take_checkpoint()

    def _take_checkpoint(self) -> tuple[Any, ...] | None:
        checkpoint = next(self._pending, None)
        if checkpoint is None:
            return self._more.popleft() if self._more else None
        return tuple(checkpoint)

    def _advance(self) -> tuple[Any, ...]:
        """The next checkpoint, counted; the one after it read ahead."""
        checkpoint = self._ahead
        assert checkpoint is not None
        self._previous, self._last = self._last, checkpoint[0]
        self._next += 1
        self._ahead = self._take_checkpoint()
        return checkpoint

    def _checkpoints_up_to(self, row: Sequence[Any]) -> None:
        position = row[0] if type(row[0]) is int else self.chain.position
        while self._ahead is not None and self._ahead[0] <= position:
            checkpoint = self._advance()
            if checkpoint[0] == position:
                self._check_checkpoint(checkpoint, row[13] if len(row) == 14 else None)
            else:
                self._checkpoint_finding(
                    checkpoint,
                    f"it signs position {checkpoint[0]}, which is not in the log: "
                    "an event was removed there",
                )

    def _check_checkpoint(self, checkpoint: Sequence[Any], recorded: str | None) -> None:
        self.checkpoints_checked += 1
        position, head, signed_at, signer, signature = checkpoint
        if head != recorded:
            self._head_differs(checkpoint)
            return
        self._rehashed = None
        if self._key is not None:
            if signer != self._key_in_force:
                self._checkpoint_finding(
                    checkpoint,
                    f"signed by key {signer}, not {self._key_in_force}: a key the verifier "
                    f"cannot reach from key {self.key_id} (no rotation signed by a trusted key "
                    "leads to it)",
                )
                return
            if not checkpoint_signature_holds(self._key, signature, position, head, signed_at):
                self._checkpoint_finding(checkpoint, "the checkpoint signature does not hold")
                return
        self.sealed, self.unsealed, self.unsealed_from = position, 0, None
        if self._reach is not None:  # only the events this checkpoint's head commits to
            self.unsealed, self.unsealed_from = self._reach.sealed_at_last()

    def _head_differs(self, checkpoint: Sequence[Any]) -> None:
        """The chain does not reach a signed head: an event before it was changed and the chain
        hashed again. Named as the stretch between the last checkpoint that held and this one;
        the checkpoints after it that miss too are that change's consequence (one finding)."""
        if self._rehashed is not None:
            self._rehashed_after += 1
            return
        index = self._next  # this checkpoint's number, from 1
        before = self._previous
        since = f"checkpoint {index - 1} (position {before})" if index >= 2 else "the first event"
        self._rehashed = len(self.findings)
        self._rehashed_after = 0
        self.findings.append(
            Finding(
                kind="integrity",
                clause="chain.checkpoint",
                message=(
                    f"the chain from {since} to checkpoint {index} (position {checkpoint[0]}, "
                    f"signed at {checkpoint[2]}) does not reach the signed head: an event at "
                    f"positions {before + 1}..{checkpoint[0]} was changed and the chain hashed "
                    "again"
                ),
                position=before + 1,
                last_position=int(checkpoint[0]),
            )
        )

    def rotate(self, row: Sequence[Any], event: Any) -> None:
        """A ``signing_key_rotated`` event: the key in force signed the new key, or the new key
        is not trusted (and the checkpoints it signs are refused)."""
        new_key: bytes | None = None
        if self._key is not None:
            try:
                new_key = bytes.fromhex(event.new_public_key)
                held = (
                    event.old_key_id == self._key_in_force
                    and key_id(new_key) == event.new_key_id
                    and rotation_signature_holds(
                        self._key,
                        event.signature,
                        event.old_key_id,
                        event.new_public_key,
                        event.signed_at,
                    )
                )
            except ValueError:
                held = False
            if not held:
                self.note(
                    row,
                    "keys.rotation",
                    f"a rotation to key {event.new_key_id} that the key in force "
                    f"({self._key_in_force}) did not sign: the new key is not trusted",
                )
                return
        self._key, self._key_in_force = new_key, event.new_key_id
        self.keys_followed.append(event.new_key_id)

    # --- the witness ---------------------------------------------------------------------------

    def _witnessed_up_to(self, row: Sequence[Any]) -> None:
        position = row[0] if type(row[0]) is int else self.chain.position
        witness = self._witness
        boundary = self.chain.boundary  # a purged log (R18) starts after it
        while self._wnext < len(witness) and witness[self._wnext][0] <= position:
            entry = witness[self._wnext]
            self._wnext += 1
            if boundary is not None and entry[0] <= boundary.last:
                # Purged with its range (into the archive); the one at the boundary must still
                # be the head the log goes on from (the purge's own record is checked by the
                # chain).
                if entry[0] == boundary.last and entry[1] != boundary.global_hash:
                    self._witness_finding(
                        entry, "the purged log does not go on from the witnessed head"
                    )
                continue
            if entry[0] != position:
                self._witness_finding(entry, f"position {entry[0]} is not in the log")
            elif len(row) != 14 or row[13] != entry[1]:
                recorded = row[13] if len(row) == 14 else None
                self._witness_finding(
                    entry,
                    f"the log's chain head there is {str(recorded)[:16]}…, the witnessed one "
                    f"{str(entry[1])[:16]}…: a forked or rewritten history",
                )

    def _witness_finding(self, entry: Sequence[Any], detail: str) -> None:
        self.findings.append(
            Finding(
                kind="integrity",
                clause="chain.witness",
                message=(
                    f"the witnessed checkpoint at position {entry[0]} (signed at {entry[2]}) "
                    f"does not hold: {detail}"
                ),
                position=entry[0],
            )
        )

    def _checkpoint_finding(self, checkpoint: Sequence[Any], detail: str) -> None:
        self.findings.append(
            Finding(
                kind="integrity",
                clause="chain.checkpoint",
                message=f"{_MEANING['checkpoint']} (signed at {checkpoint[2]}): {detail}",
                position=checkpoint[0],
            )
        )

    @property
    def pending_checkpoint(self) -> bool:
        """A checkpoint or witnessed head given and not yet met by the rows."""
        return self._ahead is not None or self._wnext < self.witnessed

    def joined(self, other: Any) -> None:
        """A stretch checked apart (``audit.range_chain``), its links agreed: its checkpoints,
        sealing, keys and witness counted as if its rows had been checked here."""
        self._next += other.checkpoints
        self.checkpoints_checked += other.checkpoints
        if other.sealed:
            self._last = other.sealed
            self.sealed, self.unsealed = other.sealed, other.unsealed
            self.unsealed_from = other.unsealed_from
        elif other.unsealed:
            self.unsealed_from = self.unsealed_from if self.unsealed else other.unsealed_from
            self.unsealed += other.unsealed
        self._key, self._key_in_force = other.key, other.key_in_force
        self.keys_followed += other.keys_followed
        self._wnext += other.witnessed

    def finish(self) -> list[Finding]:
        """After the last row: checkpoints beyond the end mean the tail of the log was removed;
        a log that starts after position 1 needs the ``range_purged`` event of its purge (R18)."""
        missing = self.chain.boundary_finding()
        if missing is not None:
            self.findings.append(
                Finding(
                    kind="integrity",
                    clause="chain.sequence",
                    message=f"global position {missing.position} is missing: {missing.detail}",
                    position=missing.position,
                )
            )
            self.chain.boundary = None
        end = self.chain.position
        while self._ahead is not None:
            checkpoint = self._advance()
            self._checkpoint_finding(
                checkpoint,
                f"it signs position {checkpoint[0]} but the log ends at {end}: events were removed",
            )
        for entry in self._witness[self._wnext :]:
            self._witness_finding(
                entry,
                f"the log ends at position {end}: it is an older copy, or its tail was cut",
            )
        self._wnext = len(self._witness)
        if self._rehashed is not None and self._rehashed_after:
            first = self.findings[self._rehashed]
            self.findings[self._rehashed] = replace(
                first,
                message=f"{first.message}; the {self._rehashed_after} checkpoint(s) after it do "
                "not reach their signed heads either (the chain was hashed again from there on)",
            )
            self._rehashed_after = 0
        return self.findings

    @property
    def rehashed_to(self) -> int | None:
        """When the log's last checkpoints all miss their signed heads (a re-hashed stretch that
        runs to the end), the last checkpoint's position: the events up to it are that finding's,
        not unsealed ones."""
        if self._rehashed is None or not self._next:
            return None
        return int(self._last)

    @property
    def checkpoints_total(self) -> int:
        """How many checkpoints the source gave (all of them once ``finish`` has run)."""
        return self._next

    @property
    def key_in_force(self) -> tuple[bytes | None, str | None]:
        """The key the last checkpoints are checked with (after every rotation followed)."""
        return self._key, self._key_in_force

    @property
    def heads(self) -> dict[str, tuple[int, str]]:
        return self.chain.heads
