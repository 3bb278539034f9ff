"""The FastAPI application: commands, queries, the error shapes and the OpenAPI document.

``create_app(service, keys, settings)`` wires an application service (service_layer/service.py)
and a key store (keys.py) with the settings; ``paigow serve`` builds all three from a database URL
(entrypoints/bootstrap.py, server.py). The app itself opens
nothing and starts nothing, so tests build it over the in-memory store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from adapters.settings import Settings
from adapters.store.migrate import head_revision
from entrypoints.http import (
    command_routes,
    disputes,
    errors,
    feed_routes,
    house_way_routes,
    operations,
    queries,
    software_routes,
)
from entrypoints.http.auth_failures import FailureLimiter
from entrypoints.http.command_door import BodyLimit, CommandDoor
from entrypoints.http.observe import Observe
from eventlog.provenance import software_version
from service_layer.command_runner import CommandRunner
from service_layer.metrics import store_registry
from service_layer.operators.keys import KeyStore
from service_layer.service import TableService

DESCRIPTION = """\
Commands and queries of a Pai Gow Poker table over JSON.

* Authentication: `Authorization: Bearer <API key>`; each key is bound to an actor and one role,
  and a role outside its rights gets 403 (the matrix: docs/http.md, "Keys and roles"):
  * `dealer`: runs the round (bets, deal, dice, hands, settlement) and seats players; co-signs
    the opener, the closer, fills and credits;
  * `floor`: the floor supervisor: opens tables and gaming days, changes rules, voids rounds,
    keeps the decks' custody, corrects ratings; reads the reports and verifies the log;
  * `cage`: sells and cashes chips (buy-in, cash-out); signs fills and credits;
  * `count`: the count team: records a closed gaming day's drop box;
  * `auditor`: reads, verifies the log and handles disputes;
  * `security`: the key officer: makes, revokes and re-roles keys on the command line, and gives
    no table command.
* Every command needs an `Idempotency-Key` header, used as the command id: a retry answers the
  first result and writes nothing.
* `expected_version` in a command's body: a stale one gets 409 with `current_version`.
* A rules violation is 422 with `rule` (the clause of the rulebook) and a message.
* Money is integer cents (minor units): `2500` is 25.00, and `25.00` is refused; cards are text
  (`As`, `Td`, `JK`).
"""


def create_app(
    service: TableService, keys: KeyStore, settings: Settings, lifespan: Any = None
) -> FastAPI:
    """The app over ``service`` and ``keys``, configured by ``settings`` (the body limit, the
    feed, the floor pages, the gaming day of the reports)."""
    app = FastAPI(
        title="Pai Gow Poker table API",
        version=software_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served from this server's own assets (operations.install_documents)
        redoc_url=None,
    )
    app.state.settings = settings  # the queries' gaming day and pits, the floor's, the audit's
    app.state.service = service
    app.state.keys = keys
    app.state.runner = CommandRunner(service)
    app.state.auth_failures = FailureLimiter()  # R5/R19: authentication_failed, rate-limited
    app.state.head = head_revision()
    app.state.store_gauges = store_registry(service.store, service, app.state.head)
    errors.install(app)
    # Every POST to a command's path is answered by the door, refusals too (command_door.py).
    app.add_middleware(CommandDoor)
    # Outside the door, FastAPI and the floor: every body is limited while it is read.
    app.add_middleware(BodyLimit, limit=settings.http_max_body)
    app.add_middleware(Observe)  # added last: outermost, it sees the door's answers too
    app.include_router(command_routes.router)
    app.include_router(queries.router)
    app.include_router(disputes.router)
    app.include_router(software_routes.router)
    app.include_router(house_way_routes.router)
    app.include_router(operations.router)
    operations.install_documents(app)
    feed_routes.install(app, settings)  # the event feed and its subscriptions (docs/feed.md)
    from entrypoints.http import floor

    floor.install(app, settings)
    return app


def openapi_document(app: FastAPI) -> dict[str, Any]:
    return app.openapi()


def openapi_text(app: FastAPI) -> str:
    """The document as ``docs/openapi.json`` holds it: sorted keys, stable across runs."""
    document = dict(openapi_document(app))
    document["info"] = {**document["info"], "version": "see the package version"}
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_openapi(app: FastAPI, path: Path) -> None:
    """The document to ``path``: a new file, or one holding an earlier document (``docs/openapi
    .json``); never over anything else (a typo naming the database)."""
    from table_core.ports import StoreError

    refusal = f"{path} exists and is no OpenAPI document: it is never written over"
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        earlier = {"openapi": None}
    except (OSError, ValueError):
        raise StoreError(refusal) from None
    if not isinstance(earlier, dict) or "openapi" not in earlier:
        raise StoreError(refusal)
    try:
        path.write_text(openapi_text(app), encoding="utf-8")
    except OSError as error:
        raise StoreError(f"cannot write {path}: {error.strerror}") from None
