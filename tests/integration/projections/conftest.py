"""A fresh store of each backend for the projections: SQLite (a file), a real PostgreSQL and the
in-memory fake (whose projections live in a private in-memory SQLite database)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.backends import Opener
from tests.integration.backends import open_backend as _opener


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
