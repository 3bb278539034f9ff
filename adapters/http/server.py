"""``paigow serve``: the store at a URL, the application service over it, uvicorn on a port.

At start the service records ``service_started`` and ``store_opened`` in the ``system`` stream
and verifies the store (every hash, link and signature): while it fails, commands are refused
(503) and reads go on. At stop it records ``service_stopped``. One process, one service: the
tables' command locks live in this process (docs/http.md: running more than one server on one
database is safe, the store refuses the stale writer with 409, but each server loads each table).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from adapters.collector import quiet_collector
from adapters.http.app import create_app
from adapters.http.keys import key_store_for
from adapters.logging import get_logger
from adapters.rng import SecureDeckAndDice
from adapters.service import TableService
from adapters.store import database_url, open_store
from adapters.store.migrate import head_revision
from table_core.dealing import DeckAndDiceSource


def build_service(
    store: Any, source: DeckAndDiceSource | None, verify: bool, name: str
) -> TableService:
    def verification() -> Any:
        return store.verify().first_bad

    return TableService(
        store,
        source=source if source is not None else SecureDeckAndDice(),
        verify=verification if verify else None,
        store_name=name,
        schema_revision=head_revision(),
    )


def build_app(
    url: str | None,
    *,
    source: DeckAndDiceSource | None = None,
    verify: bool = True,
) -> FastAPI:
    """The app over the store at ``url``; the service starts and stops with the server."""
    store = open_store(url)
    shown = database_url(url).render_as_string(hide_password=True)
    service = build_service(store, source, verify, shown)
    log = get_logger(component="http")

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
