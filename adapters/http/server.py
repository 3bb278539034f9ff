"""``paigow serve``: the store at a URL, the application service over it, uvicorn on a port.

At start the service records ``service_started`` and ``store_opened`` in the ``system`` stream
and verifies the store (every hash, link and signature): while it fails, commands are refused
(503) and reads go on. At stop it records ``service_stopped``. One process, one service: the
tables' command locks live in this process (docs/http.md: running more than one server on one
database is safe, the store refuses the stale writer with 409, but each server loads each table).

``paigow serve --workers N`` (N > 1) runs N such processes on one socket: uvicorn's supervisor
spawns them and each builds its own app with :func:`worker_app`, from the environment variables
below that the parent sets first (internal: not a setting for people). Each worker records its
own ``service_started`` / ``service_stopped``; its service is ``shared`` (reads catch up with
what the other workers wrote).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from adapters.collector import quiet_collector
from adapters.http.app import create_app
from adapters.http.keys import key_store_for
from adapters.logging import configure_logging, get_logger
from adapters.rng import SecureDeckAndDice
from adapters.service import TableService
from adapters.store import database_url, open_store
from adapters.store.migrate import head_revision
from table_core.dealing import DeckAndDiceSource

#: Internal, set by ``paigow serve --workers N`` for its worker processes: the database URL as
#: given (empty: ``$PAIGOW_DB`` or the default, resolved as ``build_app`` does), and whether to
#: verify the store at start ("1") or not ("0").
WORKER_DB_ENV = "PAIGOW_SERVE_WORKER_DB"
WORKER_VERIFY_ENV = "PAIGOW_SERVE_WORKER_VERIFY"
#: The uvicorn import string of the workers' app factory.
WORKER_APP = "adapters.http.server:worker_app"


def build_service(
    store: Any, source: DeckAndDiceSource | None, verify: bool, name: str, shared: bool = False
) -> TableService:
    def verification() -> Any:
        return store.verify().first_bad

    service = TableService(
        store,
        source=source if source is not None else SecureDeckAndDice(),
        verify=verification if verify else None,
        store_name=name,
        schema_revision=head_revision(),
        shared=shared,
    )
    if shared:  # one of several workers: say which one logged each line
        service.log = service.log.bind(pid=os.getpid())
    return service


def build_app(
    url: str | None,
    *,
    source: DeckAndDiceSource | None = None,
    verify: bool = True,
    shared: bool = False,
) -> FastAPI:
    """The app over the store at ``url``; the service starts and stops with the server.
    ``shared``: other processes (the other workers) write the store too."""
    store = open_store(url)
    shown = database_url(url).render_as_string(hide_password=True)
    service = build_service(store, source, verify, shown, shared)
    log = get_logger(component="http", **({"pid": os.getpid()} if shared else {}))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.start()
        # Everything built so far lives as long as the server: out of the collector's full walks;
        # young collections every 10,000 allocations (adapters/collector.py).
        quiet_collector()
        log.info("http_started", db=shown, refusing=service.refusing)
        if getattr(store, "signer", True) is None:
            # Every round end signs a checkpoint: without a key no round can close (503).
            log.warning("no_signing_key", hint="set PAIGOW_SIGNING_KEY to a PEM key file")
        try:
            yield
        finally:
            service.stop()
            store.close()
            log.info("http_stopped")

    app = create_app(service, key_store_for(store), lifespan=lifespan)
    if database_url(url).drivername != "memory":
        # ``audit verify`` reads the database itself, read-only and in one snapshot.
        app.state.audit_url = database_url(url).render_as_string(hide_password=False)
    return app


def worker_app() -> FastAPI:
    """One worker's app for ``paigow serve --workers N`` (uvicorn's factory, called in each
    spawned worker process): as ``build_app`` makes it, from what the parent put in the
    environment; the service is ``shared``, since the other workers write the same store."""
    configure_logging(fmt=os.environ.get("PAIGOW_LOG_FORMAT") or "json")
    return build_app(
        os.environ.get(WORKER_DB_ENV) or None,
        verify=os.environ.get(WORKER_VERIFY_ENV, "1") != "0",
        shared=True,
    )
