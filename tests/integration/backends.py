"""Opening a fresh store of one backend for a test, again and again as restarted processes would."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.store import InMemoryEventStore, open_store
from adapters.store.signing import Signer

Opener = Callable[[], Any]


def open_backend(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Yields a function that opens the same database on each call: the in-memory fake (one
    object), a SQLite file, or a fresh schema of the real PostgreSQL (``pg_url``)."""
    opened: list[Any] = []
    if kind == "memory":
        memory = InMemoryEventStore(Signer.generate())
        yield lambda: memory
        return
    if kind == "sqlite":
        url = request.getfixturevalue("sqlite_url")  # at the head revision already
        key: Any = None
    else:
        url = request.getfixturevalue("pg_url")  # at the head revision already
        key = Signer.generate()

    def open_again() -> Any:
        store = open_store(url, signing_key=key)
        opened.append(store)
        return store

    yield open_again
    for store in opened:
        store.close()
