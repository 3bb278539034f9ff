"""The HTTP app over a fresh store, with one API key per role and a small client for the table."""

from __future__ import annotations

import contextlib
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import InMemoryEventStore, open_store
from adapters.store.signing import Signer
from entrypoints.http.app import create_app
from entrypoints.http.command_routes import ROUTES
from service_layer.operators.keys import KeyStore, MemoryKeyStore, key_store_for
from service_layer.operators.rights import SIGNERS
from service_layer.service import TableService

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
ROLES = ("dealer", "floor", "cage", "auditor", "count", "security")
TABLE = "PG-1"


@dataclass
class Api:
    """A TestClient with a token per role; ``post`` sends a command with a fresh key each time."""

    client: TestClient
    service: TableService
    keys: KeyStore
    tokens: dict[str, str]
    prefix: str = "test"
    _keys: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def headers(self, role: str, key: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.tokens[role]}"}
        headers["Idempotency-Key"] = key or f"{self.prefix}-{next(self._keys)}"
        return headers

    def post(
        self,
        role: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        key: str | None = None,
        table: str = TABLE,
    ) -> Any:
        """A command as ``role``; a slip's other signers sign it with their keys unless the body
        says who (``signatures``)."""
        body = self.cosigned(role, path, body)
        return self.client.post(
            f"/tables/{table}{path}", json=body, headers=self.headers(role, key)
        )

    def cosigned(self, role: str, path: str, body: dict[str, Any] | None) -> dict[str, Any] | None:
        route = ROUTES.get(path)
        if route is None or route.signed is None or body is None or "signatures" in body:
            return body
        others = [r for r in SIGNERS[route.operation] if r != role]
        return {**body, "signatures": self.sign(*others)}

    def sign(self, *roles: str) -> list[dict[str, str]]:
        """The body's ``signatures`` of a slip's other signers: one key each (R19)."""
        return [{"token": self.tokens[role]} for role in roles]

    def get(self, role: str, path: str) -> Any:
        return self.client.get(path, headers={"Authorization": f"Bearer {self.tokens[role]}"})

    def ok(self, role: str, path: str, body: dict[str, Any] | None = None, **kw: Any) -> Any:
        response = self.post(role, path, body, **kw)
        assert response.status_code == 200, response.text
        return response.json()

    def version(self, table: str = TABLE) -> int:
        return self.service.store.stream_version(table)


def build_api(store: Any, keys: KeyStore, seed: int = 3, prefix: str = "test") -> Api:
    service = TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(seed)
    )
    tokens = {role: keys.create(f"{role}-1", role, START)[1] for role in ROLES}
    return Api(
        TestClient(create_app(service, keys, load_settings())), service, keys, tokens, prefix
    )


@pytest.fixture
def api() -> Api:
    """Over the in-memory store: fast, for the API's own behaviour."""
    store = InMemoryEventStore(Signer.generate())
    return build_api(store, MemoryKeyStore(store))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database of each engine (PostgreSQL: a fresh schema of its own)."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_url"))  # at the head revision already
    return str(request.getfixturevalue("sqlite_url"))


@pytest.fixture
def sql_api(db_url: str) -> Iterator[Api]:
    """Over a real database, keys in its ``api_keys`` table."""
    store = open_store(db_url, signing_key=Signer.generate())
    try:
        yield build_api(store, key_store_for(store))
    finally:
        store.close()


def open_table(api: Api, *players: tuple[int, str, int]) -> None:
    """Open the table (floor), seat the players (dealer) and sell them chips (cage)."""
    api.ok("floor", "/open", {})
    for seat, player, chips in players:
        api.ok("dealer", "/seat", {"seat": seat, "player_id": player})
        api.ok("cage", "/buy-in", {"player_id": player, "amount": chips})


def deck_in_use(api: Api, deck_id: str = "D-1") -> None:
    """R20: the floor receives a deck, inspects it (53 cards) and puts it in use, as a physical
    deal (``/round/deal/report``) at a new table needs."""
    api.ok("floor", "/decks/receive", {"deck_id": deck_id, "seal": f"S-{deck_id}"})
    api.ok("floor", "/decks/inspect", {"deck_id": deck_id, "card_count": 53, "inspector": "i-1"})
    api.ok("floor", "/decks/use", {"deck_id": deck_id})


@contextlib.contextmanager
def served(app: Any) -> Iterator[str]:
    """A real uvicorn server for ``app`` on a free loopback port, in a thread; yields its URL."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
