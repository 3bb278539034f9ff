"""The floor's sessions are kept by the server (docs/floor.md, "Security"), on SQLite and
PostgreSQL: signing out ends the session (the old cookie signs in no more), a revoked key's open
session ends at its next request, and two worker processes of one server (two apps over one
database, no session secret set) read each other's sessions and sign-outs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, pool, text

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import open_store
from adapters.store.signing import Signer
from entrypoints.http.app import create_app
from entrypoints.http.floor.session import COOKIE
from entrypoints.http.floor.session_store import metadata
from service_layer.operators.keys import key_store_for
from service_layer.service import TableService
from tests.integration.http.conftest import START, Api
from tests.integration.http.test_floor_pages import csrf_of, sign_in


def sign_out(client: TestClient) -> Any:
    page = client.get("/floor/pit")
    return client.post("/floor/signout", data={"csrf": csrf_of(page.text)}, follow_redirects=False)


def pit_with(client: TestClient, cookie: str) -> int:
    client.cookies.clear()
    client.cookies.set(COOKIE, cookie, path="/floor")
    status: int = client.get("/floor/pit", follow_redirects=False).status_code
    return status


def test_the_migrated_table_is_the_session_stores(db_url: str) -> None:
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), metadata)
        assert [d for d in diff if "floor_sessions" in str(d)] == []
    finally:
        engine.dispose()


def test_signing_out_ends_the_session_on_the_server(sql_api: Api, db_url: str) -> None:
    api = sql_api
    assert sign_in(api, api.tokens["floor"]).status_code == 303
    cookie = api.client.cookies[COOKIE]
    assert pit_with(api.client, cookie) == 200
    assert sign_out(api.client).status_code == 303
    assert pit_with(api.client, cookie) == 303  # the old cookie, replayed: back to sign-in
    engine = create_engine(db_url, poolclass=pool.NullPool)
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT session_hash, ended_at FROM floor_sessions"))
            (stored,) = rows.all()
    finally:
        engine.dispose()
    assert stored[1] is not None and len(stored[0]) == 64
    assert stored[0] not in cookie  # the database holds the id's hash, never the id


def test_a_revoked_keys_session_ends_at_its_next_request(sql_api: Api) -> None:
    api = sql_api
    sign_in(api, api.tokens["auditor"])
    assert api.client.get("/floor/audit", follow_redirects=False).status_code == 200
    (auditor,) = [k for k in api.keys.list() if k.role == "auditor"]
    assert api.keys.revoke(auditor.key_id, START)
    answer = api.client.get("/floor/audit", follow_redirects=False)
    assert (answer.status_code, answer.headers["location"]) == (303, "/floor/signin")


def test_a_key_moved_to_a_role_without_pages_ends_its_session(api: Api) -> None:
    sign_in(api, api.tokens["floor"])
    (floor,) = [k for k in api.keys.list() if k.role == "floor"]
    assert api.keys.change_role(floor.key_id, "cage", "moved to the cage", START) == "floor"
    assert api.client.get("/floor/pit", follow_redirects=False).status_code == 303


@pytest.fixture
def workers(db_url: str) -> Iterator[tuple[TestClient, TestClient, Api]]:
    """Two apps over one database and one signing key, as ``paigow serve --workers 2`` builds
    them in two processes; no session secret is set."""
    key = Signer.generate()
    stores = [open_store(db_url, signing_key=key) for _ in range(2)]
    clients = []
    for store in stores:
        service = TableService(
            store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(3)
        )
        clients.append(TestClient(create_app(service, key_store_for(store), load_settings())))
    keys = key_store_for(stores[0])
    token = keys.create("floor-1", "floor", START)[1]
    service = clients[0].app.state.service  # type: ignore[attr-defined]
    api = Api(clients[0], service, keys, {"floor": token})
    try:
        yield clients[0], clients[1], api
    finally:
        for store in stores:
            store.close()


def test_every_worker_reads_every_session_and_every_sign_out(
    workers: tuple[TestClient, TestClient, Api],
) -> None:
    first, second, api = workers
    sign_in(api, api.tokens["floor"])
    cookie = first.cookies[COOKIE]
    assert pit_with(second, cookie) == 200  # signed in on one, read by the other
    assert sign_out(second).status_code == 303  # signed out on the other
    assert pit_with(first, cookie) == 303
