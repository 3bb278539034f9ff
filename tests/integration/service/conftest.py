"""A fresh store of each backend (the in-memory fake, SQLite, a real PostgreSQL) for the service."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.backends import Opener, open_backend


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens the same database again on each call, as a restarted process would."""
    yield from open_backend(request.param, request, tmp_path)
