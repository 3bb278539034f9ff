"""Adopting untagged events (``paigow db adopt``): an operator holding the signing key vouches,
by a recorded and attributed step, for events that no append tag of the key covers.

Every append is tagged by the key (adapters/store/tags.py), so an event after the last checkpoint
without a valid tag reads as an insider's INSERT and the store refuses to sign over it. Two
honest logs have such events: the head of a log written before the append tags existed that no
checkpoint sealed (a legacy log ends with an unsealed ``service_stopped``), and events appended
without the key by code older than the refusal of key-less appends. Neither is ever trusted
silently. The operator lists them, checks them (``paigow audit verify``, ``paigow recall``), and
adopts them through a position:

1. ``unsealed_events_adopted`` on the system stream: the first position and the one adopted
   through, how many were untagged, the log's hash there, the actor and the reason (appended
   unsealed, tagged by the key);
2. an anchor row tagged by the key at that position (``append_tag_anchors``): tags are required
   after it;
3. a checkpoint signed by the key over the log's head: the adopted events and the record of their
   adoption are sealed together.

A crash between the steps leaves the record without its anchor (run it again) or the anchor
without its checkpoint (the service's next checkpoint seals both); never an anchor without the
record before it. Refused (nothing written) without the key, with an empty reason, when nothing
is untagged, or when an untagged event lies after the position named (adopt through it, or find
out who wrote it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from eventlog.system_events import UnsealedEventsAdopted
from eventlog.verifier import Finding
from service_layer.system_stream import SystemStream
from table_core.ports import Actor


class AdoptionRefused(Exception):
    """Nothing was written: the one line says why."""


@dataclass(frozen=True)
class Adopted:
    first_position: int
    through_position: int
    events: int
    record_position: int
    checkpoint_position: int


def untagged(store: Any) -> list[Finding]:
    """The events after the floor that no tag of the store's key covers (a store with no key:
    refused, it cannot tell)."""
    if getattr(store, "signer", None) is None:
        raise AdoptionRefused(
            "adopting events needs the signing key: set PAIGOW_SIGNING_KEY to its PEM file"
        )
    found: list[Finding] = store.untagged_events()
    return found


def adopt(store: Any, through: int, reason: str, actor: Actor, now: datetime) -> Adopted:
    """Vouch for the untagged events up to ``through`` (the steps above)."""
    reason = reason.strip()
    if not reason:
        raise AdoptionRefused("an adoption states its reason (--reason)")
    found = untagged(store)
    if not found:
        raise AdoptionRefused("nothing to adopt: every event after the last checkpoint is tagged")
    later = [f for f in found if f.position > through]
    if later:
        raise AdoptionRefused(
            f"position {later[0].position} (stream {later[0].stream_id!r} version "
            f"{later[0].version}) is untagged too and lies after {through}: adopt through "
            f"{found[-1].position} once it is checked, or find out who wrote it"
        )
    global_hash = _global_hash(store, through)
    if global_hash is None:
        raise AdoptionRefused(f"position {through} is not in the log")
    if not store.may_record_anchors():
        raise AdoptionRefused(
            "an adoption writes an anchor, which this login may not: run it as the owner role "
            "(docs/operations.md, PostgreSQL roles)"
        )
    record = UnsealedEventsAdopted(
        at=now,
        actor_id=actor.id,
        actor_role=actor.role,
        first_position=found[0].position,
        through_position=through,
        events=len(found),
        global_hash=global_hash,
        reason=reason,
    )
    recorded = SystemStream(store).append([record], checkpoint=False)
    store.record_tag_anchor(store.signer, through)
    signed = store.checkpoint(now)
    return Adopted(found[0].position, through, len(found), recorded[-1].position, signed.position)


def _global_hash(store: Any, position: int) -> str | None:
    with store._connection() as conn:
        row = conn.execute(
            store.sql("SELECT hash FROM event_log WHERE position = ?"), (position,)
        ).fetchone()
    return None if row is None else str(row[0])
