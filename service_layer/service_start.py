"""The service's start and stop: what it records of itself on the system stream at each, the code
it runs (R5/R19: its digest, recorded at start and checked by change control), and at start the
store verified, or the tables restored from their snapshots and the log verified after them
(issue 22). A part of :class:`service_layer.service.TableService` (it inherits
:class:`ServiceStart`), kept apart from the commands it serves between the two."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from adapters.code_identity import RunningCode, rng_identity, running_code
from service_layer.snapshot_walk import WalkBroken
from service_layer.snapshots import Snapshots
from table_core.ports import TamperDetected

if TYPE_CHECKING:
    from service_layer.held_tables import HeldTables
    from service_layer.system_stream import SystemStream
    from table_core.dealing import DeckAndDiceSource


class ServiceStart:
    """``start``, ``stop`` and the running code's identity, over the service's store and stream."""

    if TYPE_CHECKING:
        software_version: str
        snapshots: Snapshots | None
        source: DeckAndDiceSource | None
        read_only: str | None
        log: Any
        _code_digest: str | None
        _running: RunningCode | None
        _verify: Callable[[], Any] | None
        _store_name: str
        _schema_revision: str | None
        _held_tables: HeldTables
        _system: SystemStream
        _tampered: str | None

        def now(self) -> datetime: ...
        def check_store(self) -> bool: ...
        def _untagged(self, error: TamperDetected) -> str: ...

    @property
    def code_digest(self) -> str:
        """R5/R19: the digest of the code this service runs (``adapters/code_identity.py``);
        ``CodeIdentityRefused`` when a module of it came from a file the digest does not cover."""
        if self._code_digest is not None:
            return self._code_digest
        if self._running is None:
            self._running = running_code()
        return self._running.code.digest

    def identity(self) -> dict[str, Any]:
        """What ``service_started`` records of the code: its digest, the recipe, the parts, the
        version label and the deck-and-dice source (R5/R19)."""
        digest = self.code_digest
        running = self._running if self._code_digest is None else None
        code = running.code if running is not None else None
        return {
            "digest": digest,
            "recipe": code.recipe if code is not None else None,
            "parts": dict(code.parts) if code is not None else {},
            "software_version": self.software_version,
            "rng": rng_identity(self.source, running),
        }

    def start(self) -> None:
        """Record that the service started, the code it runs and which store it opened; verify
        the store. Under code other than the last start's, only with the floor's authorisation
        of its digest (R5/R19): else ``VersionNotAuthorised``, nothing written."""
        identity = self.identity()
        self._system.started(self.now(), identity, self._store_name, self._schema_revision)
        self.log.info(
            "service_started", schema_revision=self._schema_revision, digest=identity["digest"]
        )
        if self.snapshots is None or self._verify is None:
            self.check_store()
        else:
            self._restore(self.snapshots)

    def _restore(self, snapshots: Snapshots) -> None:
        """Issue 22: the tables from their snapshots and the log verified after them; with none
        usable, the whole store verified as before and every table folded from zero."""
        try:
            walked = snapshots.restore()
            if walked is None and self.check_store():
                walked = snapshots.replay()
        except WalkBroken as broken:
            self.log.warning("snapshot_tail_refused", reason=str(broken))
            snapshots.walked = walked = None
            self.check_store()  # names what does not hold; commands wait while it fails
        except TamperDetected as forged:  # a snapshot the store's key did not sign
            self._untagged(forged)
            snapshots.walked = walked = None
            self.check_store()
        if walked is None:
            return
        for table_id, state in walked.states.items():
            self._held_tables.keep(table_id, state, walked.last.get(table_id))
        self.log.info("tables_restored", tables=len(walked.states), position=walked.position)

    def stop(self) -> None:
        self._system.stopped(self.now())
        if self.snapshots is not None and not self.read_only and self._tampered is None:
            self.snapshots.take(self._held_tables, self.now())
        self.log.info("service_stopped")
