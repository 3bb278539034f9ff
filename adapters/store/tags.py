"""Append tags (issue 17): what the store appended itself, told apart from rows an insider INSERTed.

A checkpoint signs the chain head the store finds. Without more, an insider with write access to
the database and no key could INSERT a well-formed event by the published recipes while the
service runs; the service would fold it (a version conflict, then a catch-up) and seal it with its
next checkpoint. So every append transaction also records a tag: HMAC-SHA256, under a key derived
from the signing key, over the stream, the version range it appended and its last event's hash
(the stream chain makes that hash commit to every event of the range). Before the store signs a
checkpoint, and when the service catches a table up over events it did not write, every event
after the floor must be covered by a valid tag; otherwise ``UntaggedEvents`` names the first one
and nothing is signed.

The tag key is derived from the private key and lives in memory as the key does; a tag is never
logged or shown. Every process that holds the key (``serve --workers N``, the HA pair, the CLI's
writing commands) tags its appends, so they vouch for each other.

Where the requirement starts (the "floor") is only ever vouched for by the key: the newest
checkpoint signed by this store's key that still holds (its signature and its head), or an anchor
row (``append_tag_anchors``) carrying a valid anchor tag of this key: ``paigow keys signing
rotate`` writes one for the new key, ``paigow db adopt`` one at the end of the events an operator
adopted (a log written before tags, or without the key). An untagged anchor row (migration 0009's,
or one an insider INSERTs) vouches for nothing. A checkpoint naming this key that does not hold is
``LogRewritten``: no writer of the key leaves one, so it is the trace of a forgery or a cut.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from eventlog.canonical import checkpoint_message
from eventlog.keys import key_id as key_id_of
from eventlog.keys import signature_holds
from eventlog.verifier import Finding
from table_core.ports import LogRewritten, UntaggedEvents

TAG_CONTEXT = b"paigow append tag v1"

#: (stream_id, first_version, last_version, last_hash, tag): one ``append_tags`` row.
TagRow = tuple[str, int, int, str, str]


def tag_key(private_raw: bytes) -> bytes:
    """The HMAC key, derived from the signing key's raw private bytes (never stored)."""
    return hmac.new(private_raw, TAG_CONTEXT, hashlib.sha256).digest()


def _mac(key: bytes, parts: Sequence[Any]) -> str:
    message = json.dumps(list(parts), separators=(",", ":"), ensure_ascii=True).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def append_tag(key: bytes, stream_id: str, first: int, last: int, last_hash: str) -> str:
    return _mac(key, ("paigow-append-tag-v1", stream_id, first, last, last_hash))


def anchor_tag(key: bytes, position: int, chain_hash: str) -> str:
    return _mac(key, ("paigow-tag-anchor-v1", position, chain_hash))


def tag_row(key: bytes, stream_id: str, head_version: int, count: int, last_hash: str) -> TagRow:
    """The tag of one append transaction: versions ``head_version + 1 .. + count``."""
    first, last = head_version + 1, head_version + count
    return (stream_id, first, last, last_hash, append_tag(key, stream_id, first, last, last_hash))


def floor_position(
    key: bytes,
    public_key: bytes,
    anchors: Sequence[Sequence[Any]],
    checkpoints: Iterable[Sequence[Any]],
    trusted: set[tuple[Any, ...]] | None = None,
    own_key_id: str | None = None,
) -> int:
    """From where tags are required: the highest position this key vouches for. ``anchors``:
    (position, hash, tag, the log's hash at that position); only a tag of this key over that
    position and the log's hash there counts. ``checkpoints``: (position, hash, signed_at, key_id,
    signature, the log's hash there), newest first: the first one of this key (``own_key_id``)
    must hold, else ``LogRewritten`` (a forged or cut checkpoint); another key's is passed by.
    Nothing vouched for means position 0: every event must be tagged (fail closed). ``trusted``:
    checkpoints already checked (or signed) by this store, not checked again (an Ed25519 check is
    most of this function's cost): the whole signed row, position, hash, time and signature, so
    that a signature copied onto another row is checked (and fails); the ones checked here are
    added."""
    floor = 0
    for position, digest, tag, actual in anchors:
        if tag and actual == digest and hmac.compare_digest(tag, anchor_tag(key, position, digest)):
            floor = max(floor, int(position))
    for position, digest, signed_at, key_id, signature, actual in checkpoints:
        if own_key_id is not None and key_id != own_key_id:
            continue  # another key's (before a rotation): it vouches for nothing of this key's
        if int(position) <= floor:
            return floor
        signed = (int(position), digest, signed_at, signature)
        holds = actual == digest and (
            (trusted is not None and signed in trusted)
            or signature_holds(public_key, signature, checkpoint_message(int(position), digest,
                                                                         signed_at))
        )  # fmt: skip
        if not holds:
            raise forged_checkpoint(int(position), actual)
        if trusted is not None:
            _remember(trusted, signed)
        return int(position)
    return floor


def forged_checkpoint(position: int, actual: str | None) -> LogRewritten:
    where = "past the log's end" if actual is None else "over another head than the log's"
    finding = Finding(
        position,
        None,
        None,
        "checkpoint",
        f"a checkpoint naming this store's key does not hold ({where}, or its signature is "
        "false): forged, or its events were cut or rewritten",
    )
    return LogRewritten(
        f"the checkpoint at position {position} names this store's key and does not hold; "
        "nothing was signed",
        finding,
    )


def _remember(trusted: set[tuple[Any, ...]], signed: tuple[Any, ...]) -> None:
    if len(trusted) >= 256:  # bounded: only the newest checkpoints are ever looked at
        trusted.clear()
    trusted.add(signed)


class Tagger:
    """A store's tag key and the checkpoint signatures it already trusts (its own, or checked)."""

    def __init__(self, private_raw: bytes, public_key: bytes) -> None:
        self.key = tag_key(private_raw)
        self.public_key = public_key
        self.key_id = key_id_of(public_key)
        self.trusted: set[tuple[Any, ...]] = set()

    def row(self, stream_id: str, head_version: int, count: int, last_hash: str) -> TagRow:
        return tag_row(self.key, stream_id, head_version, count, last_hash)

    def signed(self, row: Sequence[Any]) -> None:
        """A checkpoint row this store signed (position, hash, time, key id, signature): trusted
        without a check."""
        _remember(self.trusted, (int(row[0]), row[1], row[2], row[4]))

    def floor(self, anchors: Sequence[Sequence[Any]], checkpoints: Iterable[Sequence[Any]]) -> int:
        return floor_position(
            self.key, self.public_key, anchors, checkpoints, self.trusted, self.key_id
        )

    def check(self, candidates: Iterable[Sequence[Any]]) -> None:
        """``UntaggedEvents`` at the first candidate event no valid tag covers."""
        finding = first_untagged(self.key, candidates)
        if finding is not None:
            raise untagged_error(finding)


def first_untagged(key: bytes, candidates: Iterable[Sequence[Any]]) -> Finding | None:
    """The first event no valid tag covers, or ``None``. ``candidates``, in position order: one
    row per (event, tag that claims to cover it): position, stream, version, then the tag's first
    and last version, last hash and tag (``None`` when no tag claims it) and the hash the event at
    the tag's last version has now. Each tag is checked once."""
    return next(untagged(key, candidates), None)


def untagged(key: bytes, candidates: Iterable[Sequence[Any]]) -> Iterator[Finding]:
    """Every event no valid tag covers, in position order (``first_untagged``'s candidates)."""
    checked: dict[tuple[Any, ...], bool] = {}
    pending: tuple[int, str, int] | None = None
    covered = False
    for position, stream, version, first, last, last_hash, tag, actual in candidates:
        if pending is not None and pending[0] != position:
            if not covered:
                yield _finding(*pending)
            covered = False
        pending = (int(position), stream, int(version))
        if covered or tag is None:
            continue
        claim = (stream, first, last, last_hash, tag)
        valid = checked.get(claim)
        if valid is None:
            valid = checked[claim] = hmac.compare_digest(
                tag, append_tag(key, stream, int(first), int(last), last_hash)
            )
        covered = valid and actual == last_hash
    if pending is not None and not covered:
        yield _finding(*pending)


def _finding(position: int, stream: str, version: int) -> Finding:
    return Finding(
        position,
        stream,
        version,
        "untagged",
        "no append tag of this store's key covers it: inserted behind the store's back, or "
        "written before the tags or without the key (paigow db adopt, given the store, lists "
        "such events; an operator vouches for them only once checked)",
    )


def untagged_error(finding: Finding) -> UntaggedEvents:
    return UntaggedEvents(
        f"an event the store did not append: position {finding.position} "
        f"(stream {finding.stream_id!r} version {finding.version}) has no valid append tag; "
        "nothing was signed",
        finding,
    )
