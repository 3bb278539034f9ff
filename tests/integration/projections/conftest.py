"""A fresh store of each backend for the projections: SQLite (a file), a real PostgreSQL and the
in-memory fake (whose projections live in a private in-memory SQLite database)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.store import InMemoryEventStore, migrate, open_store
from adapters.store.signing import Signer

Opener = Callable[[], Any]


def _opener(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[Any] = []
    if kind == "memory":
        memory = InMemoryEventStore(Signer.generate())
        yield lambda: memory
        return
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"
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


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens the same database again on each call, as a restarted process would."""
    yield from _opener(request.param, request, tmp_path)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def any_opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    yield from _opener(request.param, request, tmp_path)


@pytest.fixture(params=["memory", "sqlite"])
def local_opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """No PostgreSQL: for checks of what a projection holds rather than how it is stored."""
    yield from _opener(request.param, request, tmp_path)
