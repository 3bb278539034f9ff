"""The replay path: read every event, verify its hashes and links, and fold it, in one tight loop.

A restart rebuilds every table from the log, so this loop is the store's hottest read. It checks
what ``verify.ChainVerifier`` checks, written for speed:

- sequence and links: global position n + 1, stream version v + 1, ``prev_hash`` and
  ``global_prev`` equal to the heads already verified;
- both hashes recomputed from the stored bytes (``canonical.event_hash`` / ``global_hash``,
  inline: the texts that repeat are quoted once, and a head already verified is hex);
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
from hashlib import sha256
from json.encoder import encode_basestring_ascii as quote
from typing import Any, TypeVar

from adapters.store.canonical import (
    EVENT_DOMAIN,
    GENESIS_HASH,
    GLOBAL_DOMAIN,
    checkpoint_message,
    key_id,
    load_payload,
    loads_json,
    parse_time,
)
from adapters.store.verify import Finding, Report, _signature_holds
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


def replay_rows(
    rows: Iterable[Sequence[Any]],
    checkpoints: Sequence[Sequence[Any]],
    public_key: bytes | None,
    upcasters: Upcasters | None,
    fold: Callable[[State, RecordedEvent], State],
    state: State,
) -> State:
    """Fold every row (``verify.ROW_COLUMNS`` order, global position order) into ``state``;
    ``ReplayBroken`` at the first row or checkpoint that does not hold."""
    marks = sorted((tuple(c) for c in checkpoints), key=lambda c: c[0])
    signed: dict[int, list[tuple[Any, ...]]] = {}
    for mark in marks:
        signed.setdefault(mark[0], []).append(mark)
    last_signed = marks[-1] if marks else None
    if last_signed is not None and public_key is not None:
        _, head, signed_at, signer, signature = last_signed
        message = checkpoint_message(last_signed[0], head, signed_at)
        if signer != key_id(public_key) or not _signature_holds(public_key, signature, message):
            raise ReplayBroken
    lift = upcasters if upcasters else None
    heads: dict[str, tuple[int, str]] = {}
    quoted: dict[str, str] = {}  # stream ids and types, quoted once
    actors: dict[tuple[str, str], tuple[Actor, str]] = {}  # and each actor with its quoted pair
    # Consecutive events mostly share one time, command, stream, type and actor: each text is
    # quoted (or parsed) when it differs from the previous event's, a comparison otherwise.
    last_at = last_command = last_stream = last_kind = last_actor_id = last_role = ""
    quoted_at = quoted_command = q_stream = q_kind = q_actor = ""
    actor: Any = None
    moment = datetime.min
    event_opening = f'["{EVENT_DOMAIN}","'
    global_opening = f'["{GLOBAL_DOMAIN}","'
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
                last_at = at
                quoted_at = quote(at)
                moment = parse_time(at)
            if command != last_command:
                last_command = command
                quoted_command = quote(command)
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
            text = (
                f'{event_opening}{prev}",{q_stream},{version:d},{q_kind},{schema:d},{quoted_at},'
                f"{q_actor},{quoted_command}]\n{payload}"
            )
            if sha256(text.encode()).hexdigest() != digest:
                raise ReplayBroken
            chained = f'{global_opening}{global_prev}",{position},"{digest}"]'
            if sha256(chained.encode()).hexdigest() != global_digest:
                raise ReplayBroken
            heads[stream] = (version, digest)
            global_head = global_digest
            if position in signed:
                for mark in signed.pop(position):
                    if mark[1] != global_head:
                        raise ReplayBroken
            if lift is not None and lift.lifts(kind, schema):  # an older schema: exact path
                schema, value = lift.upcast(kind, schema, load_payload(payload))
            else:
                value = loads_json(payload)
        except (TypeError, ValueError, AttributeError, UnicodeError) as error:
            raise ReplayBroken from error  # a row not even of the right shape
        state = fold(
            state,
            new(RecordedEvent, position, stream, version, kind, schema, value, actor, moment,
                command, prev, digest),
        )  # fmt: skip
    if signed:  # a checkpoint past the end of the log: its events were removed
        raise ReplayBroken
    return state
