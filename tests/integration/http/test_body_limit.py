"""Every request body is limited while it is read (command_door.BodyLimit): over the limit,
413 ``body_too_large`` in the API's error shape and nothing done, on every route (the command door
and FastAPI's), with or without ``Content-Length``; a body at the limit is read as always."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
from fastapi.testclient import TestClient

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from entrypoints.http.app import create_app
from entrypoints.http.command_door import DEFAULT_MAX_BODY
from service_layer.operators.keys import MemoryKeyStore
from service_layer.service import TableService
from tests.integration.http.conftest import START, TABLE, served

LIMIT = DEFAULT_MAX_BODY
REFUSAL = {
    "error": "body_too_large",
    "message": f"the request body is over {LIMIT} bytes, this server's limit "
    "(PAIGOW_HTTP_MAX_BODY): nothing was done",
}


def _app() -> tuple[Any, TableService, dict[str, str]]:
    store = InMemoryEventStore(Signer.generate())
    service = TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(3)
    )
    keys = MemoryKeyStore(store)
    keys.create("security-1", "security", START)
    tokens = {role: keys.create(f"{role}-1", role, START)[1] for role in ("floor", "auditor")}
    return create_app(service, keys, load_settings()), service, tokens


def _padded(body: bytes, size: int) -> bytes:
    """``body`` with spaces after it up to ``size`` bytes: still the same JSON."""
    return body + b" " * (size - len(body))


def _headers(token: str, key: str) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {token}",
        "Idempotency-Key": key,
        "Content-Type": "application/json",
    }


def _chunks(data: bytes, size: int = 16 * 1024) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_a_body_over_the_limit_is_413_and_one_at_the_limit_is_read() -> None:
    app, service, tokens = _app()
    client = TestClient(app)
    path = f"/tables/{TABLE}/open"
    over = _padded(b"{}", LIMIT + 1)
    with_length = client.post(path, content=over, headers=_headers(tokens["floor"], "o-1"))
    assert (with_length.status_code, with_length.json()) == (413, REFUSAL)
    chunked = client.post(path, content=_chunks(over), headers=_headers(tokens["floor"], "o-2"))
    assert (chunked.status_code, chunked.json()) == (413, REFUSAL)
    assert service.store.stream_version(TABLE) == 0  # nothing was done
    at_limit = client.post(
        path, content=_padded(b"{}", LIMIT), headers=_headers(tokens["floor"], "o-3")
    )
    assert at_limit.status_code == 200, at_limit.text
    assert service.store.stream_version(TABLE) == 1


def test_every_route_has_the_limit() -> None:
    """A FastAPI endpoint with a body (a dispute), and the floor's sign-in form."""
    app, service, tokens = _app()
    keys_made = service.store.stream_version("system")  # the keys' own events
    client = TestClient(app)
    auth = {"Authorization": f"Bearer {tokens['auditor']}", "Content-Type": "application/json"}
    dispute = client.post("/disputes", content=_padded(b"{}", LIMIT + 1), headers=auth)
    assert (dispute.status_code, dispute.json()) == (413, REFUSAL)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    signin = client.post("/floor/signin", content=b"key=" + b"x" * LIMIT, headers=form)
    assert (signin.status_code, signin.json()) == (413, REFUSAL)
    assert service.store.stream_version("system") == keys_made


def test_a_real_server_refuses_before_reading_and_cuts_a_chunked_body() -> None:
    """Over a socket: a 10 MB body declared by ``Content-Length`` and a 10 MB chunked one are
    both 413; the connection then still answers."""
    app, service, tokens = _app()
    big = _padded(b"{}", 10 * 1024 * 1024)
    with served(app) as base, httpx.Client(base_url=base, timeout=30) as client:
        path = f"/tables/{TABLE}/open"
        declared = client.post(path, content=big, headers=_headers(tokens["floor"], "s-1"))
        assert (declared.status_code, declared.json()) == (413, REFUSAL)
        chunked = client.post(path, content=_chunks(big), headers=_headers(tokens["floor"], "s-2"))
        assert (chunked.status_code, chunked.json()) == (413, REFUSAL)
        assert client.get("/health").status_code == 200
        assert service.store.stream_version(TABLE) == 0
