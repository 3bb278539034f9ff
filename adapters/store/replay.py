"""The replay path: read every event, verify its hashes and links, and fold it, in one tight loop.

A restart rebuilds every table from the log, so this loop is the store's hottest read. It checks
what ``eventlog.verifier.ChainVerifier`` checks, written for speed:

- sequence and links: global position n + 1, stream version v + 1, ``prev_hash`` and
  ``global_prev`` equal to the heads already verified;
- both hashes recomputed from the stored bytes (``canonical.event_link`` / ``global_link``: the
  texts that repeat are quoted once, and a head already verified is hex);
- every checkpoint's signed head equals the chain at its position, and the NEWEST checkpoint's
  Ed25519 signature holds. Through the chain, that one signature covers every event before it, so
  the older signatures add nothing to the replay's proof; ``verify()`` (the audit) checks them all.

What the hashes already prove is not checked again: a payload's bytes are those the writer hashed,
and the writer only writes canonical, float-free JSON, so it is parsed with plain ``json.loads``.
An event of an older schema version still goes through the exact parse and its upcasters.

On the first row that does not hold, the loop stops and the full verifier runs on the same log to
name the finding exactly, so a replay and an audit report the same first bad event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from eventlog.canonical import (
    GENESIS_HASH,
    event_link,
    global_link,
    load_payload,
    loads_json,
    parse_time,
    quote,
)
from eventlog.keys import checkpoint_signature_holds, key_id
from eventlog.verifier import Finding, Report
from table_core.ports import Actor, RecordedEvent, TamperDetected, Upcasters

State = TypeVar("State")


class ReplayBroken(Exception):
    """Internal: a row or checkpoint that does not hold; the full verifier names it."""


def tamper_detected(report: Report) -> TamperDetected:
    """The error a broken replay raises, naming what the full verifier found first."""
    finding = report.first_bad or Finding(
        report.events, None, None, "checkpoint", "the replay's chain or checkpoint check failed"
    )
    return TamperDetected(str(finding), finding)


def signed_heads(
    checkpoints: Sequence[Sequence[Any]], public_key: bytes | None
) -> dict[int, list[tuple[Any, ...]]]:
    """The checkpoints by position, once the NEWEST one's signature holds (``ReplayBroken`` if
    not): through the chain it covers every event before it."""
    marks = sorted((tuple(c) for c in checkpoints), key=lambda c: c[0])
    signed: dict[int, list[tuple[Any, ...]]] = {}
    for mark in marks:
        signed.setdefault(mark[0], []).append(mark)
    if marks and public_key is not None:
        position, head, signed_at, signer, signature = marks[-1]
        if signer != key_id(public_key) or not checkpoint_signature_holds(
            public_key, signature, position, head, signed_at
        ):
            raise ReplayBroken
    return signed


class _RowTexts:
    """A row's texts as the event hash takes them, quoted (or parsed) only when they differ from
    the previous row's: consecutive events mostly share one time, command, stream, type and
    actor. Streams, types and actors are kept once each for the whole replay."""

    def __init__(self) -> None:
        self._quoted: dict[str, str] = {}
        self._actors: dict[tuple[str, str], tuple[Actor, str]] = {}
        self._last: tuple[Any, ...] = ("",) * 6
        self._texts: tuple[Any, ...] = ("",) * 5 + (None, datetime.min)

    def of(self, at: str, command: str, stream: str, kind: str, actor_id: str, role: str) -> Any:
        """(quoted at, command, stream, type, actor pair, the Actor, the time), from the cache."""
        last = self._last
        if (at, command, stream, kind, actor_id, role) == last:
            return self._texts
        quoted = self._quoted
        texts = list(self._texts)
        if at != last[0]:
            texts[0], texts[6] = quote(at), parse_time(at)
        if command != last[1]:
            texts[1] = quote(command)
        if stream != last[2]:
            texts[2] = quoted.get(stream) or quoted.setdefault(stream, quote(stream))
        if kind != last[3]:
            texts[3] = quoted.get(kind) or quoted.setdefault(kind, quote(kind))
        if actor_id != last[4] or role != last[5]:
            known = self._actors.get((actor_id, role))
            if known is None:
                known = self._actors[(actor_id, role)] = (
                    Actor(actor_id, role),
                    f"{quote(actor_id)},{quote(role)}",
                )
            texts[5], texts[4] = known
        self._last = (at, command, stream, kind, actor_id, role)
        self._texts = tuple(texts)
        return self._texts


def replay_rows(
    rows: Iterable[Sequence[Any]],
    checkpoints: Sequence[Sequence[Any]],
    public_key: bytes | None,
    upcasters: Upcasters | None,
    fold: Callable[[State, RecordedEvent], State],
    state: State,
) -> State:
    """Fold every row (``query.ROW_COLUMNS`` order, global position order) into ``state``;
    ``ReplayBroken`` at the first row or checkpoint that does not hold."""
    signed = signed_heads(checkpoints, public_key)
    lift = upcasters if upcasters else None
    heads: dict[str, tuple[int, str]] = {}
    texts = _RowTexts().of
    genesis = (0, GENESIS_HASH)
    position = 0
    global_head = GENESIS_HASH
    new = RecordedEvent.__new__  # called directly: skips type.__call__, about 0.5 us
    for row in rows:
        try:
            (at_position, stream, version, kind, schema, payload, at, actor_id, role, command,
             prev, digest, global_prev, global_digest) = row  # fmt: skip
            position += 1
            head_version, head_hash = heads.get(stream, genesis)
            if (
                at_position != position
                or version != head_version + 1
                or prev != head_hash
                or global_prev != global_head
            ):
                raise ReplayBroken
            q_at, q_command, q_stream, q_kind, q_actor, actor, moment = texts(
                at, command, stream, kind, actor_id, role
            )
            # The heads compared equal above were verified: hex, which quotes to itself.
            if digest != event_link(f'"{prev}"', q_stream, version, q_kind, schema, q_at, q_actor,
                                    q_command, payload.encode()):  # fmt: skip
                raise ReplayBroken
            if global_digest != global_link(f'"{global_prev}"', position, f'"{digest}"'):
                raise ReplayBroken
            heads[stream] = (version, digest)
            global_head = global_digest
            if position in signed and any(m[1] != global_head for m in signed.pop(position)):
                raise ReplayBroken
            if lift is not None and lift.lifts(kind, schema):  # an older schema: exact path
                schema, value = lift.upcast(kind, schema, load_payload(payload))
            else:
                value = loads_json(payload)
        except (TypeError, ValueError, AttributeError, UnicodeError) as error:
            raise ReplayBroken from error  # a row not even of the right shape
        state = fold(state, new(RecordedEvent, position, stream, version, kind, schema, value,
                                actor, moment, command, prev, digest))  # fmt: skip
    if signed:  # a checkpoint past the end of the log: its events were removed
        raise ReplayBroken
    return state
