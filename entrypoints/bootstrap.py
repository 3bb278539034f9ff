"""The composition root: the one place the settings are read from the environment (besides the
command line's entry, ``entrypoints/cli/main.py``, where the arguments are parsed) and the
application service is wired to its store. ``paigow simulate``, ``table``, ``deck``, ``serve``
(one process, each of its ``--workers`` and the OpenAPI writer) all call :func:`wire` with the
settings and their command's options; everything below receives the settings, or the values it
needs, as arguments (tests/unit/test_settings_reads.py keeps it so).

The store is opened at the URL given (``--db``), else the ``db`` setting; it signs checkpoints
with the ``signing_key`` setting, else the key beside a SQLite file (adapters/store). The service
draws decks and dice from ``source`` (the secure source unless a command seeds one) and reads the
time from ``clock``, recording its steps (R4) beyond the ``clock_step_tolerance`` setting.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from adapters.clock import Clock, monotonic_seconds, system_clock
from adapters.logging import configure_logging, get_logger
from adapters.rng import SecureDeckAndDice
from adapters.settings import Settings, load_settings
from adapters.store import SqlEventStore, database_url, open_configured
from adapters.store.key_advice import key_refusal
from adapters.store.migrate import head_revision
from entrypoints.wiring import Serving, Wiring
from service_layer.readiness import require_signing_key
from service_layer.service import TableService
from service_layer.snapshots import Snapshots
from table_core.dealing import DeckAndDiceSource

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["WORKER_APP", "Serving", "Wiring", "serve_app", "wire", "worker_app"]

#: The uvicorn import string of the workers' app factory (``paigow serve --workers N``).
WORKER_APP = "entrypoints.bootstrap:worker_app"


def wire(
    settings: Settings,
    db: str | None = None,
    *,
    source: DeckAndDiceSource | None = None,
    clock: Clock = system_clock,
    require_signing: bool = False,
    serving: Serving | None = None,
) -> Wiring:
    """The store at ``db`` (else the ``db`` setting) and the service over it, not started.

    ``require_signing``: a store that cannot sign its checkpoints is refused
    (:class:`service_layer.readiness.SigningKeyRefused`, the store closed). ``serving``: the
    service is a server's (:class:`Serving`): its appends are timed and counted for
    ``/metrics``, ``store_opened`` records the schema revision (``paigow simulate`` never did,
    and the logs it writes stay byte for byte as before), and a store that cannot sign is refused
    with ``--read-only``'s hint unless the server is read-only, whose service then refuses every
    command."""
    url = database_url(db or settings.db)
    store = open_configured(settings, url.render_as_string(hide_password=False))
    shown = url.render_as_string(hide_password=True)
    read_only = serving is not None and serving.read_only
    if require_signing or (serving is not None and not read_only):
        try:
            require_signing_key(store, shown, read_only_hint=serving is not None)
        except BaseException:
            store.close()
            raise
    if serving is not None:
        from service_layer.metrics import MeteredStore  # prometheus-client: for the server only

    shared = serving is not None and serving.shared
    service = TableService(
        MeteredStore(store) if serving is not None else store,
        clock=clock,
        source=source if source is not None else SecureDeckAndDice(),
        verify=_verification(store) if serving is not None and serving.verify else None,
        store_name=shown,
        schema_revision=head_revision() if serving is not None else None,
        shared=shared,
        clock_tolerance=timedelta(seconds=settings.clock_step_tolerance),
        # The system clock's steps forwards show against the monotonic clock; a simulation's
        # stepping clock has none to compare with (R4: only its steps back are noticed).
        monotonic=monotonic_seconds if clock is system_clock else None,
        snapshots=_snapshots(store, settings, shown),
    )
    if shared:  # one of several workers: say which one logged each line
        service.log = service.log.bind(pid=os.getpid())
    if read_only:
        service.read_only = key_refusal(store, shown) or "started with --read-only"
    return Wiring(store, service, url)


def serve_app(
    settings: Settings,
    db: str | None = None,
    serving: Serving | None = None,
    *,
    source: DeckAndDiceSource | None = None,
) -> FastAPI:
    """The HTTP app of ``paigow serve`` over the store at ``db`` (else the ``db`` setting): the
    service wired as a server's, started and stopped with the app (entrypoints/http/server.py)."""
    from entrypoints.http.server import app_over

    serving = serving or Serving()
    return app_over(wire(settings, db, source=source, serving=serving), settings, serving)


def worker_app() -> FastAPI:
    """One worker's app for ``paigow serve --workers N`` (uvicorn's factory, called in each
    spawned worker process): as :func:`serve_app` makes it, from the settings the parent put in
    the environment (``serve_worker_db``, ``serve_worker_verify``, ``serve_worker_read_only``);
    the service is ``shared``, since the other workers write the same store."""
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format or "json")
    serving = Serving(
        verify=settings.serve_worker_verify, shared=True, read_only=settings.serve_worker_read_only
    )
    return serve_app(settings, settings.serve_worker_db, serving)


def _snapshots(store: Any, settings: Settings, shown: str) -> Snapshots | None:
    """Issue 22: the tables' snapshots on a SQL store, unless ``snapshot_rounds`` is 0."""
    if not isinstance(store, SqlEventStore) or settings.snapshot_rounds == 0:
        return None
    return Snapshots(store, settings.snapshot_rounds, get_logger(store=shown))


def _verification(store: Any) -> Any:
    def verification() -> Any:
        return store.verify().first_bad

    return verification
