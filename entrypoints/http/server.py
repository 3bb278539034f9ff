"""``paigow serve``: the store at a URL, the application service over it, uvicorn on a port.

At start the service records ``service_started`` and ``store_opened`` in the ``system`` stream
and verifies the store (every hash, link and signature): while it fails, commands are refused
(503) and reads go on. At stop it records ``service_stopped``. One process, one service: the
tables' command locks live in this process (docs/http.md: running more than one server on one
database is safe, the store refuses the stale writer with 409, but each server loads each table).

``paigow serve --workers N`` (N > 1) runs N such processes on one socket: uvicorn's supervisor
spawns them and each builds its own app with ``entrypoints.bootstrap.worker_app``, from the settings
``serve_worker_db`` and ``serve_worker_verify`` that the parent sets in the environment first
(internal: not settings for people; adapters/settings.py). Each worker records its
own ``service_started`` / ``service_stopped``; its service is ``shared`` (reads catch up with
what the other workers wrote).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from adapters.collector import quiet_collector
from adapters.logging import get_logger
from adapters.settings import Settings
from entrypoints.http.app import create_app
from entrypoints.wiring import Serving, Wiring
from service_layer.operators.keys import key_store_for, public_key_setting
from service_layer.readiness import store_role_warning
from service_layer.software_versions import require_authorised


def app_over(wired: Wiring, settings: Settings, serving: Serving) -> FastAPI:
    """The app over a server's wiring (entrypoints/bootstrap.py ``serve_app``); the service
    starts and stops with the server.

    A store that cannot sign the checkpoints its rounds need (no key, or not the log's key) was
    refused by the wiring (``SigningKeyRefused``: one line, exit 2) unless ``read_only``: the
    service then refuses every command (503 ``read_only``), answers queries, and writes nothing,
    not even its own start and stop (a key-less store could not seal them). A start under code
    other than the log's last start's (its digest) is refused (``VersionNotAuthorised``: one
    line, exit 2) unless the floor authorised that digest
    (``service_layer/software_versions.py``); so is code that cannot be identified
    (``CodeIdentityRefused``, ``adapters/code_identity.py``)."""
    read_only, shared = serving.read_only, serving.shared
    store, service, shown = wired.store, wired.service, wired.shown
    if not read_only:
        # R5/R19: a code change nobody authorised is refused here, before uvicorn starts
        # (one line, exit 2), not in the lifespan where it would be a traceback.
        try:
            require_authorised(store, service.code_digest)
        except BaseException:
            store.close()
            raise
    log = get_logger(component="http", **({"pid": os.getpid()} if shared else {}))
    # A login with more rights than the service role's: served all the same, said once at start
    # and in /ready (service_layer/readiness.py).
    try:
        role_warning = store_role_warning(store)
    except BaseException:
        store.close()
        raise
    if role_warning is not None:
        log.warning("store_role_warning", warning=role_warning)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if not read_only:
            service.start()
        # Everything built so far lives as long as the server: out of the collector's full walks;
        # young collections every 10,000 allocations (adapters/collector.py).
        quiet_collector()
        log.info("http_started", db=shown, refusing=service.refusing, read_only=service.read_only)
        try:
            yield
        finally:
            if not read_only:
                service.stop()
            store.close()
            log.info("http_stopped")

    # A key event the store did not append (an insider's INSERT) stops the keys' fold and is
    # the service's ``verification_failed``, as an untagged table event is (ledger.py).
    keys = key_store_for(store, service.note_untagged, public_key_setting(settings.public_key))
    app = create_app(service, keys, settings, lifespan=lifespan)
    app.state.warnings = [role_warning] if role_warning is not None else []
    if wired.url.drivername != "memory":
        # ``audit verify`` reads the database itself, read-only and in one snapshot.
        app.state.audit_url = wired.url.render_as_string(hide_password=False)
    return app
