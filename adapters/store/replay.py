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


def replay_rows(
    rows: Iterable[Sequence[Any]],
    checkpoints: Sequence[Sequence[Any]],
    public_key: bytes | None,
    upcasters: Upcasters | None,
    fold: Callable[[State, RecordedEvent], State],
    state: State,
) -> State:
    """Fold every row (``query.ROW_COLUMNS`` order, global position order) into ``state``;
    ``ReplayBroken`` at the first row or checkpoint that does not hold.

    Over 60 lines: a restart's hottest loop, kept in one frame. Consecutive events mostly share one
    time, command, stream, type and actor, so each text is quoted (or parsed) when it differs from
    the previous row's, a comparison otherwise; a call per row for that cost about 10% of it.
    """
    signed = signed_heads(checkpoints, public_key)
    lift = upcasters if upcasters else None
    heads: dict[str, tuple[int, str]] = {}
    quoted: dict[str, str] = {}  # stream ids and types, quoted once
    actors: dict[tuple[str, str], tuple[Actor, str]] = {}  # and each actor with its quoted pair
    last_at = last_command = last_stream = last_kind = last_actor_id = last_role = ""
    quoted_at = quoted_command = q_stream = q_kind = q_actor = ""
    actor: Any = None
    moment = datetime.min
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
            if at != last_at:
                last_at, quoted_at, moment = at, quote(at), parse_time(at)
            if command != last_command:
                last_command, quoted_command = command, quote(command)
            if stream != last_stream:
                last_stream = stream
                q_stream = quoted.get(stream) or quoted.setdefault(stream, quote(stream))
            if kind != last_kind:
                last_kind = kind
                q_kind = quoted.get(kind) or quoted.setdefault(kind, quote(kind))
            if actor_id != last_actor_id or role != last_role:
                last_actor_id, last_role = actor_id, role
                known = actors.get((actor_id, role))
                if known is None:
                    known = actors[(actor_id, role)] = (
                        Actor(actor_id, role),
                        f"{quote(actor_id)},{quote(role)}",
                    )
                actor, q_actor = known
            # ``prev`` and ``global_prev`` equal heads already verified: hex, as the recipe takes.
            if digest != event_link(prev, q_stream, version, q_kind, schema, quoted_at, q_actor,
                                    quoted_command, payload):  # fmt: skip
                raise ReplayBroken
            if global_digest != global_link(global_prev, position, digest):
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
