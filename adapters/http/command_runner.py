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
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

from adapters.http.errors import ApiProblem, StaleVersion
from adapters.service import CommandResult, TableService
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.ports import ConcurrencyError, RecordedEvent

Build = Callable[[Actor, datetime], c.Command]
#: Commands whose events the service mirrors into the ``system`` stream (RULES changes, voids).
_SYSTEM_NOTED = (c.ChangeRules, c.VoidRound)


class CommandRunner:
    def __init__(self, service: TableService) -> None:
        self.service = service
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._system = threading.Lock()

    def lock(self, table_id: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(table_id)
            if lock is None:
                lock = self._locks[table_id] = threading.Lock()
            return lock

    def _replayed(self, table_id: str, key: str) -> list[RecordedEvent] | None:
        earlier = self.service.store.events_of_command(key)
        if earlier is not None:
            self._same_table(table_id, key, earlier)
        return earlier

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
                    if earlier is not None:
                        return earlier, True
                    raise StaleVersion(expected, current)
            try:
                result = self._execute(table_id, key, build, actor, electronic)
            except ConcurrencyError:
                if expected is not None:
                    raise
                # No version pinned: the caller wants the command on the table as it is. The
                # service marked its copy stale; decide once more on the table caught up.
                result = self._execute(table_id, key, build, actor, electronic)
            except DomainError:
                if self.service.load(table_id).table_id is None:
                    self.service.forget(table_id)  # keep no empty state for a stray table id
                raise
        # The service answers a refused retry with the key's first events, wherever they were.
        self._same_table(table_id, key, result.events)
        return result.events, result.replayed

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
