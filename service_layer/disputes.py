"""R17: disputes, as events of the ``system`` stream (hashed, chained and signed like the rest).

A floor supervisor or an auditor opens a dispute on rounds of one table: by their numbers or by a
time range (the rounds started inside it), with a reason, the player concerned and the casino's
surveillance references. While it is open its rounds are held: a purge (R18,
``service_layer/purge.py``) refuses any range holding one of their events. Opening it also holds
every deck that dealt one of its rounds (R20, ``service_layer/dispute_decks.py``), in the same
transaction. ``export`` writes the regulator's bundle of the table through the last disputed round
and the dispute's own events (``audit/bundle_dispute.py``: every event with its stored bytes and
hashes, the checkpoints signed at them), its manifest carrying the dispute and the recall of each
disputed round as those events give them, sealed by the signing key; ``paigow audit verify
--bundle`` checks every part of it with no database. Closing records the outcome and ends the
rounds' hold; the decks stay held until the floor releases them (``paigow deck release``).

Every refusal is a ``DisputeError`` (one line) raised before anything is written.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from audit.disputes import TYPES as DISPUTE_TYPES
from audit.disputes import DisputeRecords
from eventlog.system_events import SYSTEM_STREAM, DisputeClosed, DisputeOpened
from service_layer.dispute_decks import hold_decks, new_events, table_state
from service_layer.system_stream import SystemStream, system_new_event
from table_core.errors import DomainError
from table_core.ports import ConcurrencyError, EventStore
from table_core.table import TableState

#: The roles that may open, close and export a dispute (HTTP and CLI alike).
DISPUTE_ROLES = ("floor", "auditor")
#: Openings decided again after another writer moved the table or the system stream on.
_ATTEMPTS = 5


class DisputeError(ValueError):
    """A dispute that cannot be opened, closed or found: nothing was written."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Request:
    """What the floor or the auditor asks to hold."""

    table_id: str
    reason: str
    player: str | None = None
    rounds: Sequence[int] = ()
    from_time: datetime | None = None
    to_time: datetime | None = None
    surveillance: Sequence[str] = ()


def disputes(store: EventStore) -> dict[str, dict[str, Any]]:
    """Every dispute recorded, by id, in the order opened: the opening's fields, ``status``
    (open or closed), and once closed its ``outcome``, who closed it and when."""
    records = DisputeRecords()
    for e in store.read_stream(SYSTEM_STREAM):
        if e.type in DISPUTE_TYPES:
            records.add(e.position, e.type, e.payload)
    return records.found


def held_rounds(store: EventStore) -> dict[str, set[int]]:
    """The rounds of each table held by an open dispute (R17): no purge may touch them."""
    held: dict[str, set[int]] = {}
    for record in disputes(store).values():
        if record["status"] == "open":
            held.setdefault(record["table_id"], set()).update(record["rounds"])
    return held


def open_dispute(store: EventStore, request: Request, actor: Any, now: datetime) -> dict[str, Any]:
    """Record ``dispute_opened`` for ``request`` by ``actor`` (floor or auditor); its record."""
    _check_actor(actor)
    reason = _text(request.reason, "reason")
    rounds = _rounds(store, request)
    references = [_text(r, "surveillance reference") for r in request.surveillance]
    dispute_id = f"D-{secrets.token_hex(4)}"
    for attempt in range(1, _ATTEMPTS + 1):
        # Decided on the table and the system stream as they are; a write by anyone else in
        # between refuses the append (nothing written) and it is decided again.
        state = table_state(store, request.table_id)
        try:
            holds, decks = hold_decks(state, rounds, dispute_id, reason, actor, now)
        except DomainError as error:
            raise DisputeError(f"the disputed decks cannot be held: {error}", 409) from None
        opened = DisputeOpened(
            at=now,
            actor_id=actor.id,
            actor_role=actor.role,
            dispute_id=dispute_id,
            table_id=request.table_id,
            reason=reason,
            player=(request.player or "").strip() or None,
            rounds=rounds,
            from_time=request.from_time,
            to_time=request.to_time,
            surveillance=references,
            decks=decks,
        )
        if not holds:
            SystemStream(store).append([opened])
            break
        try:
            _append_with_holds(store, state.version, holds, opened)
            break
        except ConcurrencyError:
            if attempt == _ATTEMPTS:
                raise
    return disputes(store)[dispute_id]


def _append_with_holds(store: Any, table_version: int, holds: list[Any], opened: Any) -> None:
    """R17 + R20: the table's ``deck_held`` events and ``dispute_opened`` in ONE transaction,
    sealed by one checkpoint (issue 17: every system event is sealed when written)."""
    table_id, dispute_id = opened.table_id, opened.dispute_id
    # One command per hold (its own id), as the audit decides each ``HoldDeck`` again.
    commands = [
        (f"dispute:{dispute_id}:hold:{event.deck_id}", [new])
        for event, new in zip(holds, new_events(holds), strict=True)
    ]
    system = [(f"dispute:{dispute_id}", [system_new_event(opened)])]
    store.append_streams(
        [
            (table_id, table_version, commands),
            (SYSTEM_STREAM, store.stream_version(SYSTEM_STREAM), system),
        ],
        checkpoint=True,
    )


def close_dispute(
    store: EventStore, dispute_id: str, outcome: str, actor: Any, now: datetime
) -> dict[str, Any]:
    """Record ``dispute_closed`` with ``outcome``; refused for an unknown or closed dispute."""
    _check_actor(actor)
    text = _text(outcome, "outcome")
    record = find(store, dispute_id)
    if record["status"] != "open":
        raise DisputeError(f"dispute {dispute_id} is already closed", 409)
    SystemStream(store).append(
        [
            DisputeClosed(
                at=now,
                actor_id=actor.id,
                actor_role=actor.role,
                dispute_id=dispute_id,
                outcome=text,
            )
        ]
    )
    return disputes(store)[dispute_id]


def find(store: EventStore, dispute_id: str) -> dict[str, Any]:
    record = disputes(store).get(dispute_id)
    if record is None:
        raise DisputeError(f"no dispute {dispute_id}", 404)
    return record


def export_dispute(
    store: EventStore, url: Any, dispute_id: str, out: str | Path, **keys: Any
) -> dict[str, Any]:
    """Write the regulator's bundle of dispute ``dispute_id`` to ``out``; its manifest.

    The table's stream from its first event through the last disputed round (and the decks its
    opening held), the dispute's own events, the checkpoints signed at those events, and in the
    manifest the dispute's record and the recall of each disputed round, derived from those
    events (``audit/bundle_dispute.py``); the manifest sealed by the store's signing key. A
    store without one cannot seal it: refused (``DisputeError``), nothing written."""
    from audit import bundle

    find(store, dispute_id)
    sealer = getattr(store, "signer", None)
    if sealer is None:
        raise DisputeError(
            "a dispute bundle is sealed by the casino's signing key, and this store has none: "
            "set PAIGOW_SIGNING_KEY",
            409,
        )
    return bundle.export(url, out, dispute=dispute_id, sealer=sealer, **keys)


def _check_actor(actor: Any) -> None:
    if actor.role not in DISPUTE_ROLES:
        raise DisputeError(
            f"the {actor.role} role may not open or close a dispute: it is for floor and auditor",
            403,
        )


def _text(value: str | None, what: str) -> str:
    text = (value or "").strip()
    if not text:
        raise DisputeError(f"a dispute needs a {what}: it was left empty")
    if len(text) > 2000 or not text.isprintable():
        raise DisputeError(f"a dispute's {what} is 1..2000 printable characters")
    return text


def _rounds(store: EventStore, request: Request) -> list[int]:
    """The rounds the request names, each one the table played; refused when one is not."""
    by_rounds = bool(request.rounds)
    by_time = request.from_time is not None or request.to_time is not None
    if by_rounds == by_time:
        raise DisputeError("a dispute names its rounds or a time range (--from/--to), one of them")
    started: dict[int, datetime] = {
        int(e.payload["round"]): e.at  # type: ignore[arg-type]
        for e in store.read_stream(request.table_id)
        if e.type == "round_started"
    }
    if not started and store.stream_version(request.table_id) == 0:
        raise DisputeError(f"no table {request.table_id}")
    if by_rounds:
        missing = sorted({n for n in request.rounds if n not in started})
        if missing:
            listed = ", ".join(str(n) for n in missing)
            raise DisputeError(
                f"table {request.table_id} has no round {listed}: it played "
                f"{_span(sorted(started))}"
            )
        return sorted(set(request.rounds))
    low, high = request.from_time, request.to_time
    if low is not None and high is not None and low > high:
        raise DisputeError("the time range ends before it starts")
    inside = [
        n
        for n, at in started.items()
        if (low is None or at >= low) and (high is None or at <= high)
    ]
    if not inside:
        raise DisputeError(f"table {request.table_id} started no round in that time range")
    return sorted(inside)


def _span(numbers: list[int]) -> str:
    if not numbers:
        return "no round yet"
    return f"rounds {numbers[0]}..{numbers[-1]}" if len(numbers) > 1 else f"round {numbers[0]}"


def release_refused(store: EventStore, state: TableState, command: Any) -> DomainError | None:
    """R17 + R20: a deck held for a dispute still open stays held; the floor closes the dispute
    first (``paigow dispute close``), then releases it. ``None``: nothing stands in the way."""
    from table_core.commands import ReleaseDeck

    if not isinstance(command, ReleaseDeck):
        return None
    deck = state.decks.get(command.deck_id)
    if deck is None or not deck.held or deck.hold_dispute is None:
        return None
    record = disputes(store).get(deck.hold_dispute)
    if record is None or record["status"] != "open":
        return None
    return DomainError(
        f"deck {deck.deck_id} is held for dispute {deck.hold_dispute}, which is still open: "
        "close the dispute first (paigow dispute close)",
        rule="R17",
    )
