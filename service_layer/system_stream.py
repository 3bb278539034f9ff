"""The ``system`` stream's writer: what the service records about itself (started, stopped, the
store opened, a verification failed, commands refused) and the notes it adds there when a table
records a significant event (a rules change, a voided round).

Several service instances may write the stream at once (the workers of ``paigow serve
--workers N`` starting together): an append that meets another instance's write reads the
stream's version again and appends after it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from adapters.clock import ClockStep
from eventlog.envelope import NewEvent
from eventlog.system_events import (
    SYSTEM_STREAM,
    AuthenticationFailed,
    ClockAdjusted,
    CommandsRefused,
    RoundVoidedNoted,
    RulesProfileChanged,
    ServiceStarted,
    ServiceStopped,
    SoftwareVersionChanged,
    StoreOpened,
    VerificationFailed,
    upcast_system,
)
from service_layer.software_versions import LastStart, last_started, start_check
from table_core.events import Event
from table_core.ports import (
    Actor,
    ConcurrencyError,
    EventStore,
    LogRewritten,
    RecordedEvent,
    SigningKeyMissing,
    TamperDetected,
)

#: Appends to the ``system`` stream tried before giving up: each conflict means another service
#: instance wrote meanwhile, so N workers starting together conflict at most N - 1 times each.
_SYSTEM_ATTEMPTS = 32
#: The ``system`` stream's last events, where the last start is looked for first.
_TAIL = 256


def system_new_event(event: Any) -> NewEvent:
    """A system event as the store records it (its whole model is the payload)."""
    return NewEvent(
        type=event.type,
        schema_version=event.schema_version,
        payload=event.model_dump(mode="json"),
        actor=Actor(id=event.actor_id, role=event.actor_role),
        at=event.at,
    )


class SystemStream:
    """Appends system events to ``store``'s ``system`` stream, at the version it last saw."""

    def __init__(
        self, store: EventStore, on_untagged: Callable[[TamperDetected], Any] | None = None
    ) -> None:
        self.store = store
        #: Told when the store refused to seal because of an event it did not append or a log
        #: rewritten under it (issue 17): the service records ``verification_failed`` and
        #: refuses commands.
        self._on_untagged = on_untagged
        self._version: int | None = None
        # The system stream's command ids must differ between service instances: two that read
        # the same version at the same microsecond would otherwise share an id, and the store
        # would answer the second with the first one's events (an idempotent retry), silently.
        self._instance = secrets.token_hex(4)

    def append(self, events: Sequence[Any], *, checkpoint: bool = True) -> list[RecordedEvent]:
        """Append ``events`` and sign the chain head after them in the same transaction: every
        system event is sealed at once (issue 17: the service's start and stop, its notes, a
        clock step, a key or dispute recorded, a purge). A store with no signing key appends them
        unsealed; ``checkpoint=False`` for a failed verification, whose head must not be signed
        (it may hold what was tampered with)."""
        return self._append_built(lambda: events, checkpoint=checkpoint)

    def _append_built(
        self, build: Callable[[], Sequence[Any]], *, checkpoint: bool = True
    ) -> list[RecordedEvent]:
        """Append what ``build`` returns (after a conflict it is built again on the stream as it
        now is: what it records may depend on what the other instance wrote), sealed unless the
        store cannot sign."""
        if checkpoint:
            try:
                return self._append(build, checkpoint=True)
            except SigningKeyMissing:
                pass  # nothing was written: a store that cannot sign (a reader's service)
            except TamperDetected as error:
                # Nothing was written: the store will not sign over an event it did not append,
                # nor after a gap. The fact is still recorded, unsealed, where the store allows
                # it; the service is told (it then refuses).
                if self._on_untagged is None:
                    raise
                try:
                    recorded = self._append_after(build, error)
                except TamperDetected:  # the store lets nothing more be written at all
                    recorded = []
                self._on_untagged(error)
                return recorded
        return self._append(build, checkpoint=False)

    def _append_after(
        self, build: Callable[[], Sequence[Any]], error: TamperDetected
    ) -> list[RecordedEvent]:
        """Unsealed, after a refusal to seal: on the stream as the store holds it now when the
        refusal was this stream's own head gone (the store forgot what it saw: heads_seen.py)."""
        if isinstance(error, LogRewritten):
            self._version = None
        try:
            return self._append(build, checkpoint=False)
        except LogRewritten:
            self._version = None  # the stream itself was cut: record after what is left
            return self._append(build, checkpoint=False)

    def _append(
        self, build: Callable[[], Sequence[Any]], *, checkpoint: bool
    ) -> list[RecordedEvent]:
        if self._version is None:
            self._version = self.store.stream_version(SYSTEM_STREAM)
        recorded: list[RecordedEvent] = []
        for attempt in range(1, _SYSTEM_ATTEMPTS + 1):
            events = build()
            new = [system_new_event(e) for e in events]
            command_id = f"system:{self._version + 1}:{events[0].at.isoformat()}:{self._instance}"
            try:
                recorded = self.store.append(
                    SYSTEM_STREAM, self._version, new, command_id, checkpoint=checkpoint
                )
                break
            except ConcurrencyError:
                # Another service instance wrote meanwhile (workers starting or stopping
                # together): read the stream's version again and append after it.
                if attempt == _SYSTEM_ATTEMPTS:
                    raise
                self._version = self.store.stream_version(SYSTEM_STREAM)
        self._version += len(new)
        return recorded

    def started(
        self,
        now: datetime,
        identity: Mapping[str, Any],
        store_name: str,
        schema_revision: str | None,
    ) -> None:
        """The service started (``identity``: ``service_started``'s code fields, its ``digest``
        first) and opened the store. R5/R19: when the last ``service_started`` ran other code,
        ``software_version_changed`` comes first, naming the floor's authorisation of the
        digest; without one the start is refused, nothing written
        (``service_layer/software_versions.py``). Workers starting together: the first to write
        records the change, the others then find the new code started."""

        def build() -> list[Any]:
            events: list[Any] = []
            last = self._last_start()
            if last is not None and last.digest != identity["digest"]:
                events.append(self._authorised_change(now, last, identity, store_name))
            events.append(ServiceStarted(at=now, store=store_name, **identity))
            events.append(StoreOpened(at=now, store=store_name, schema_revision=schema_revision))
            return events

        self._append_built(build)

    def _authorised_change(
        self, now: datetime, last: LastStart, identity: Mapping[str, Any], store_name: str
    ) -> Any:
        """R5/R19: the change from the ``last`` start's code to ``identity``'s, naming the
        authorisation waiting for it; :class:`VersionNotAuthorised` (nothing written) when none
        is."""
        upper = self._version or 0
        events = [
            (e.position, e.type, upcast_system(e.type, e.schema_version, e.payload))
            for e in self.store.read_stream(SYSTEM_STREAM)
            if e.version <= upper
        ]
        authorisation = start_check(events, identity["digest"], store_name).authorisation
        assert authorisation is not None  # a change without one was refused above
        return SoftwareVersionChanged(
            at=now,
            old_version=last.version,
            new_version=identity["software_version"],
            authorisation=authorisation["position"],
            reason=authorisation["reason"],
            old_digest=last.digest,
            new_digest=identity["digest"],
        )

    def _last_start(self) -> LastStart | None:
        """The last ``service_started`` of the stream (up to the version this writer holds):
        looked for in the stream's last events, then in all of it; ``None``: never started."""
        upper = self._version or 0
        for after in dict.fromkeys((max(0, upper - _TAIL), 0)):
            page = self.store.read_stream(SYSTEM_STREAM, after)
            for event in reversed(page):
                if event.version <= upper and event.type == "service_started":
                    return last_started(
                        [
                            (
                                0,
                                event.type,
                                upcast_system(event.type, event.schema_version, event.payload),
                            )
                        ]
                    )
        return None

    def clock_adjusted(
        self, step: ClockStep, tolerance_ms: int, table_id: str | None = None
    ) -> int:
        """R4: the clock stepped (``step``); returns the global position recorded."""
        recorded = self.append(
            [
                ClockAdjusted(
                    at=step.new,
                    old_time=step.old,
                    new_time=step.new,
                    detected=step.detected,
                    tolerance_ms=tolerance_ms,
                    table_id=table_id,
                )
            ],
            checkpoint=True,  # sealed at once, as every system event (issue 17)
        )
        return recorded[-1].position if recorded else 0

    def authentication_failed(
        self, now: datetime, route: str, client: str | None, key_id: str | None, failures: int
    ) -> None:
        """R5/R19: failed authentications (rate-limited by
        ``entrypoints/http/auth_failures.py``)."""
        self.append(
            [
                AuthenticationFailed(
                    at=now, route=route, client=client, key_id=key_id, failures=failures
                )
            ]
        )

    def stopped(self, now: datetime) -> None:
        """The service stopped: sealed by a checkpoint, so no event of the log is left unsealed."""
        self.append([ServiceStopped(at=now)], checkpoint=True)

    def verification_failed(self, now: datetime, finding: Any) -> str:
        """The store failed verification at ``finding``, and table commands are refused: returns
        the reason recorded."""
        reason = f"store failed verification at {finding}"
        events = [
            VerificationFailed(
                at=now,
                position=finding.position,
                stream_id=finding.stream_id,
                problem=finding.problem,
                detail=finding.detail,
            ),
            CommandsRefused(at=now, reason=reason),
        ]
        try:  # never sign over a log that did not verify
            self.append(events, checkpoint=False)
        except LogRewritten:
            # The system stream itself went back under the store: record after what is left.
            self._version = None
            self.append(events, checkpoint=False)
        return reason


#: The system event that notes each significant table event, by the table event's type, and the
#: fields of its own (the table, the time, the reason and the actor are every note's).
_NOTES: dict[str, tuple[type[Any], Callable[[Any], dict[str, Any]]]] = {
    "rules_changed": (RulesProfileChanged, lambda e: {"profile_version": e.rules.version}),
    "round_voided": (RoundVoidedNoted, lambda e: {"round": e.round}),
}
#: The types of the table events :func:`significant_notes` notes: a command with none of them (a
#: bet, a deal) has nothing to note, and the service does not ask.
NOTED_TYPES = frozenset(_NOTES)


def significant_notes(events: Sequence[Event]) -> list[Any]:
    """The system events that note the significant ones among a table's ``events``."""
    notes: list[Any] = []
    for e in events:
        noted = _NOTES.get(e.type)
        if noted is not None:
            note, own = noted
            notes.append(
                note(
                    at=e.at,
                    table_id=e.table_id,
                    reason=e.reason,  # type: ignore[union-attr]
                    actor_id=e.actor.id,
                    actor_role=e.actor.role,
                    **own(e),
                )
            )
    return notes
