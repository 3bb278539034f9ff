"""The one place the application service is wired to its store: ``paigow simulate``,
``paigow serve`` (one process, each of its ``--workers`` and the OpenAPI writer) all call
:func:`wire` with the settings and their command's options.

The store is opened at the URL given (``--db``), else the ``db`` setting; it signs checkpoints
with the ``signing_key`` setting, else the key beside a SQLite file (adapters/store). The service
draws decks and dice from ``source`` (the secure source unless a command seeds one) and reads the
time from ``clock``, recording its steps (R4) beyond the ``clock_step_tolerance`` setting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.engine import URL

from adapters.clock import Clock, monotonic_seconds, system_clock
from adapters.logging import get_logger
from adapters.rng import SecureDeckAndDice
from adapters.settings import Settings
from adapters.store import InMemoryEventStore, SqlEventStore, database_url, open_store
from adapters.store.key_advice import key_refusal
from adapters.store.migrate import head_revision
from service_layer.readiness import require_signing_key
from service_layer.service import TableService
from service_layer.snapshots import Snapshots
from table_core.dealing import DeckAndDiceSource


@dataclass(frozen=True)
class Wiring:
    """An open store, the service over it, and the database URL they were opened at."""

    store: SqlEventStore | InMemoryEventStore
    service: TableService
    url: URL

    @property
    def shown(self) -> str:
        """The URL for people and logs: the password hidden."""
        return self.url.render_as_string(hide_password=True)


def wire(
    settings: Settings,
    db: str | None = None,
    *,
    source: DeckAndDiceSource | None = None,
    clock: Clock = system_clock,
    verify: bool = False,
    shared: bool = False,
    record_schema_revision: bool = False,
    signing: str | None = None,
    metered: bool = False,
    software_version: str | None = None,
    code_digest: str | None = None,
) -> Wiring:
    """The store at ``db`` (else the ``db`` setting) and the service over it, not started.

    ``verify``: the service verifies the store at start (every hash, link and signature) and
    refuses commands while it fails. ``shared``: other processes write the store too (the
    workers of ``paigow serve --workers N``); each log line then says which process wrote it.
    ``record_schema_revision``: ``store_opened`` records the schema revision (the server does;
    ``paigow simulate`` never did, and the logs it writes stay byte for byte as before).
    ``signing``: ``"require"`` refuses a store that cannot sign its checkpoints
    (:class:`service_layer.readiness.SigningKeyRefused`, the store closed; ``"serve"`` says so with
    ``--read-only``'s hint); ``"read_only"`` makes the service refuse every command.
    ``metered``: the service's appends are timed and counted for ``/metrics``.
    ``software_version``: the version label the service records at start (default: the installed
    distribution's). ``code_digest``: the code's digest it records and change control compares
    (default: the running code's, ``adapters/code_identity.py``; tests name another to act an
    upgrade, R5/R19)."""
    url = database_url(db or settings.db)
    store = open_store(url.render_as_string(hide_password=False), signing_key=settings.signing_key)
    shown = url.render_as_string(hide_password=True)
    if signing in ("require", "serve"):
        try:
            require_signing_key(store, shown, read_only_hint=signing == "serve")
        except BaseException:
            store.close()
            raise
    if metered:
        from service_layer.metrics import MeteredStore  # prometheus-client: for the server only

    service = TableService(
        MeteredStore(store) if metered else store,
        clock=clock,
        source=source if source is not None else SecureDeckAndDice(),
        verify=_verification(store) if verify else None,
        store_name=shown,
        schema_revision=head_revision() if record_schema_revision else None,
        shared=shared,
        clock_tolerance=timedelta(seconds=settings.clock_step_tolerance),
        # The system clock's steps forwards show against the monotonic clock; a simulation's
        # stepping clock has none to compare with (R4: only its steps back are noticed).
        monotonic=monotonic_seconds if clock is system_clock else None,
        software_version=software_version,
        code_digest=code_digest,
        snapshots=_snapshots(store, settings, shown),
    )
    if shared:  # one of several workers: say which one logged each line
        service.log = service.log.bind(pid=os.getpid())
    if signing == "read_only":
        service.read_only = key_refusal(store, shown) or "started with --read-only"
    return Wiring(store, service, url)


def _snapshots(store: Any, settings: Settings, shown: str) -> Snapshots | None:
    """Issue 22: the tables' snapshots on a SQL store, unless ``snapshot_rounds`` is 0."""
    if not isinstance(store, SqlEventStore) or settings.snapshot_rounds == 0:
        return None
    return Snapshots(store, settings.snapshot_rounds, get_logger(store=shown))


def _verification(store: Any) -> Any:
    def verification() -> Any:
        return store.verify().first_bad

    return verification
