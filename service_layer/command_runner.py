"""Commands from HTTP to the application service: one at a time per table, at the expected version.

The service keeps each loaded table in memory and is not built for two threads deciding on the
same table at once, so each table has a lock here (different tables run in parallel; rules changes
and voids also write the ``system`` stream, so they take one more lock). Under the table's lock:

1. ``expected_version``, when given, must be the table's version; otherwise 409 with the current
   version, unless the ``Idempotency-Key`` is already recorded (a retry of a command that went
   through: its first events are the answer). Another process may have written (a second server
   on the same database, another worker of ``paigow serve --workers N``): the table is caught up
   once (the events after the version held) before calling the caller stale, and the store's own
   check catches the rest (``ConcurrencyError``, 409).
2. The service decides and appends, all or nothing. The ``Idempotency-Key`` is the command id: a
   key already recorded answers the events it recorded and writes nothing (the service and the
   store look it up only when needed, so a first try costs no extra query).
3. A key already recorded answers its first events only for the SAME request: the same route,
   body and API key's actor and role (the IETF Idempotency-Key draft, section 2.7: a key reused
   for another payload is 422). The first request is not stored as such; it is re-decided
   instead: the core is pure, so the new request, given the table as it stood before the key's
   events and their time, must decide exactly those events (electronic deals and dice, drawn
   from the source, must match the recorded kind and actor). Only replays pay for this check.

Locks exist only while a command holds or waits for them (``_TableLocks``): a stream of commands
naming table ids nobody opened leaves nothing behind in memory.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import partial

from service_layer.command_outcome import CommandResult
from service_layer.idempotency import other_request
from service_layer.problems import ApiProblem, StaleVersion
from service_layer.service import TableService
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.ports import ConcurrencyError, RecordedEvent

Build = Callable[[Actor, datetime], c.Command]
#: Commands whose events the service mirrors into the ``system`` stream (RULES changes, voids).
_SYSTEM_NOTED = (c.ChangeRules, c.InstallHouseWay, c.VoidRound)


class _TableLocks:
    """One lock per table id, held in the map only while a thread holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[threading.Lock, list[int]]] = {}
        self._guard = threading.Lock()

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.contextmanager
    def hold(self, table_id: str) -> Iterator[None]:
        with self._guard:
            entry = self._locks.get(table_id)
            if entry is None:
                entry = self._locks[table_id] = (threading.Lock(), [0])
            entry[1][0] += 1  # users: holding or waiting
        try:
            with entry[0]:
                yield
        finally:
            with self._guard:
                entry[1][0] -= 1
                if entry[1][0] == 0:
                    del self._locks[table_id]


#: Appends tried on the table caught up when another process wrote first (no version pinned).
_CONFLICT_ATTEMPTS = 5


class CommandRunner:
    def __init__(self, service: TableService) -> None:
        self.service = service
        self._locks = _TableLocks()
        self._system = threading.Lock()

    def lock(self, table_id: str) -> contextlib.AbstractContextManager[None]:
        """Hold the table's lock (``with runner.lock(table_id): ...``)."""
        return self._locks.hold(table_id)

    def _replayed(self, table_id: str, key: str) -> list[RecordedEvent] | None:
        earlier = self.service.store.events_of_command(key)
        if earlier is not None:
            self._same_table(table_id, key, earlier)
        return earlier

    def _same_request(
        self,
        table_id: str,
        key: str,
        records: list[RecordedEvent],
        build: Build | None,
        actor: Actor,
        electronic: str | None,
        expected: int | None,
    ) -> None:
        """Refuse (422) a recorded key reused for another request (the module's point 3)."""
        why = other_request(self.service.store, table_id, records, build, actor, electronic)
        if why is None and expected is not None and expected != records[0].version - 1:
            why = f"it was decided at version {records[0].version - 1}, not {expected}"
        if why is not None:
            raise ApiProblem(
                422,
                "idempotency_key_reused",
                f"Idempotency-Key {key!r} was used for another request ({why}): a key stands "
                "for one request; use a new key for a new command",
            )

    @staticmethod
    def _same_table(table_id: str, key: str, records: list[RecordedEvent]) -> None:
        if records and records[0].stream_id != table_id:
            raise ApiProblem(
                409,
                "idempotency_key_reused",
                f"Idempotency-Key {key!r} was already used on table {records[0].stream_id!r}: "
                "use a new key for a new command",
            )

    def run(
        self,
        table_id: str,
        key: str,
        expected: int | None,
        build: Build | None = None,
        *,
        actor: Actor,
        electronic: str | None = None,
    ) -> tuple[list[RecordedEvent], bool]:
        """Run one command; returns its recorded events and whether they were a replay.

        ``electronic`` is ``"deal"`` or ``"dice"`` for the service's own deck-and-dice source;
        otherwise ``build(actor, now)`` makes the command.
        """
        with self.lock(table_id):
            if expected is not None and self.service.load(table_id).version != expected:
                # Another process may have moved the table on: catch up (only the later events)
                # before calling the caller stale.
                current = self.service.refresh(table_id).version
                if current != expected:
                    # A retry of a command that went through carries the version it was
                    # decided on: answer its first outcome rather than a 409.
                    earlier = self._replayed(table_id, key)
                    if earlier:
                        self._same_request(
                            table_id, key, earlier, build, actor, electronic, expected
                        )
                    if earlier is not None:
                        return earlier, True
                    raise StaleVersion(expected, current)
            try:
                result = self._at_latest(
                    partial(self._execute, table_id, key, build, actor, electronic), expected
                )
            except DomainError:
                if self.service.load(table_id).table_id is None:
                    self.service.forget(table_id)  # keep no empty state for a stray table id
                raise
            # The service answers a refused retry with the key's first events, wherever they
            # were: on this table, and for this same request, or refused.
            self._same_table(table_id, key, result.events)
            if result.replayed and result.events:
                self._same_request(table_id, key, result.events, build, actor, electronic, expected)
        return result.events, result.replayed

    @staticmethod
    def _at_latest(attempt: Callable[[], CommandResult], expected: int | None) -> CommandResult:
        """``attempt()``; with no version pinned, again on the table caught up while other
        processes (the other workers) keep moving it on, a few times: the caller wants the command
        on the table as it is. A pinned version is the caller's to retry (409)."""
        for tried in range(1, _CONFLICT_ATTEMPTS + 1):
            try:
                return attempt()
            except ConcurrencyError:
                if expected is not None or tried == _CONFLICT_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _execute(
        self,
        table_id: str,
        key: str,
        build: Build | None,
        actor: Actor,
        electronic: str | None,
    ) -> CommandResult:
        svc = self.service
        if electronic == "deal":
            return svc.deal_electronic(table_id, actor, key)
        if electronic == "dice":
            return svc.roll_dice_electronic(table_id, actor, key)
        assert build is not None
        command = build(actor, svc.now())
        if isinstance(command, _SYSTEM_NOTED):
            with self._system:
                return svc.execute(table_id, command, key)
        return svc.execute(table_id, command, key)
