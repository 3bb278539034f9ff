"""A fresh store of each backend (the in-memory fake, SQLite, a real PostgreSQL) for the service."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.store import InMemoryEventStore, migrate, open_store
from adapters.store.signing import Signer


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Opens the same database again on each call, as a restarted process would."""
    opened: list[Any] = []
    if request.param == "memory":
        memory = InMemoryEventStore(Signer.generate())

        def open_memory() -> Any:
            return memory

        yield open_memory
        return
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'table.db'}"
        key: Any = None
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url)
        key = Signer.generate()

    def open_again() -> Any:
        store = open_store(url, signing_key=key)
        opened.append(store)
        return store

    yield open_again
    for store in opened:
        store.close()
