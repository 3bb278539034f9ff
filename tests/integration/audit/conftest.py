"""A recorded casino session to audit, on SQLite or PostgreSQL (each a template recorded once a
process, copied per test), with the ``Forger`` to tamper with it.

Every test of a casino runs twice (``audit_jobs``): once in one process, and once where each
``audit()`` is ALSO done by two worker processes with the tables split into ranges of a few
rows (``audit.ranges``); that report must equal the one process's finding for finding (same
order, positions, messages) and in every figure, and it is the one the test then checks."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store import SqlEventStore, open_store
from adapters.store.signing import Signer
from audit.findings import AuditReport
from audit.sources import LogSource, open_database
from audit.verify import verify_log
from entrypoints.simulation.mixed_session import Session, SessionStats
from service_layer.service import TableService
from tests.integration.pg_template import Schemas, schema_url

from .tamper import Forger

START = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
TABLES = 4
# per table: small for CI; four tables cover every profile of the mixed session
ROUNDS = 6
#: Rows a range with worker processes: small, so that every table of the session is cut into
#: many ranges and states are handed on between the workers mid-round.
RANGE_ROWS = 7


def record_session(store: Any, *, tables: int = TABLES, rounds: int = ROUNDS) -> SessionStats:
    service = TableService(
        store,
        clock=SteppingClock(START, timedelta(seconds=2)),
        source=SeededDeckAndDice(2026),
    )
    service.start()
    stats = Session(service, seed=11, tables=tables).play(rounds)
    service.stop()
    assert not stats.refused, stats.refused
    return stats


@dataclass
class Casino:
    store: Any
    forger: Forger
    url: str
    stats: SessionStats
    jobs: int = 1

    def audit(self, **scope: Any) -> Any:
        alone = verify_log(self.source(), **scope)
        if self.jobs == 1 or "jobs" in scope:
            return alone
        shared = verify_log(self.source(), jobs=self.jobs, range_rows=RANGE_ROWS, **scope)
        assert_same(shared, alone)
        return shared

    def source(self) -> LogSource:
        source = open_database(self.url)
        source.public_key = self.store.public_key  # the casino's published key
        return source


def assert_same(shared: AuditReport, alone: AuditReport) -> None:
    """Worker processes found exactly what one process found (every field of every finding, in
    the same order), and the report says the same of everything but the time taken."""
    assert shared.findings == alone.findings
    assert {**shared.to_dict(), "seconds": 0} == {**alone.to_dict(), "seconds": 0}


@pytest.fixture(params=[1, 2], ids=["one-process", "two-workers"])
def audit_jobs(request: pytest.FixtureRequest) -> int:
    return int(request.param)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SessionStats]:
    path = tmp_path_factory.mktemp("audit-template") / "casino.db"
    store = open_store(f"sqlite:///{path}")
    try:
        stats = record_session(store)
    finally:
        store.close()
    return path, stats


def _copy_sqlite(template: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm", ".signing-key", ".signing-key.pub"):
        source = Path(str(template) + suffix)
        if source.exists():
            shutil.copy(source, Path(str(target) + suffix))


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def pg_session_template(
    pg_database: str, pg_head_template: Schemas | None
) -> tuple[str, str, Signer, SessionStats] | None:
    """The session recorded once a process into a PostgreSQL schema, and the script that copies
    it (as SQLite's template file is copied): recording it took seconds a test."""
    if pg_head_template is None:
        return None
    schema = pg_head_template.take()
    signer = Signer.generate()
    store = open_store(schema_url(pg_database.split("#")[0], schema), signing_key=signer)
    try:
        stats = record_session(store)
    finally:
        store.close()
    return schema, pg_head_template.capture(schema), signer, stats


def _pg_copy(request: pytest.FixtureRequest) -> tuple[str, Signer, SessionStats, str | None]:
    """A copy of the recorded session of this test's own: its URL, key, figures, schema."""
    template = request.getfixturevalue("pg_session_template")
    if template is None:  # no pg_dump: recorded again
        url = request.getfixturevalue("pg_url")
        signer = Signer.generate()
        store = open_store(url, signing_key=signer)
        try:
            return url, signer, record_session(store), None
        finally:
            store.close()
    recorded, script, signer, stats = template
    schema = request.getfixturevalue("pg_head_template").copy(script, recorded)
    return (
        schema_url(request.getfixturevalue("pg_database").split("#")[0], schema),
        signer,
        stats,
        schema,
    )


def _casino(
    backend: str, jobs: int, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Casino]:
    copy = None
    if backend == "sqlite":
        template, stats = request.getfixturevalue("sqlite_template")
        path = tmp_path / "casino.db"
        _copy_sqlite(template, path)
        url = f"sqlite:///{path}"
        store = open_store(url)
        target: Any = str(path)
    else:
        url, signer, stats, copy = _pg_copy(request)
        store = open_store(url, signing_key=signer)
        target = url
    assert isinstance(store, SqlEventStore)
    try:
        yield Casino(store, Forger(store, backend, target), url, stats, jobs)
    finally:
        store.close()
        if copy is not None:
            request.getfixturevalue("pg_head_template").release(copy)


@pytest.fixture
def casino(
    backend: str, audit_jobs: int, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Casino]:
    """The session on each engine."""
    yield from _casino(backend, audit_jobs, tmp_path, request)


@pytest.fixture
def live(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Casino]:
    """The session on each engine, audited in one process (tests of the running service)."""
    yield from _casino(backend, 1, tmp_path, request)


@pytest.fixture
def sqlite_casino(
    audit_jobs: int, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Casino]:
    """The session on SQLite only (tampering tests: the engines' readers are tested above)."""
    yield from _casino("sqlite", audit_jobs, tmp_path, request)
