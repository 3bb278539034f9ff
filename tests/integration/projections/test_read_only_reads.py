"""Reads that can lag, on a session that may not write (issue 23; docs/operations.md).

A hot standby refuses every write; so does a PostgreSQL session started with
``-c default_transaction_read_only=on``, which this test puts in the URL (the cheap stand-in for a
standby; ``tests/e2e/ha`` reads a real one). The commands run in this process (``main(argv)``),
as ``paigow`` runs them. ``paigow report``, ``paigow recall``, ``paigow
ratings``, ``paigow table list`` and ``paigow audit verify|recall`` on that URL write nothing (no
projection row, no checkpoint row) and answer exactly what they answer on the read-write URL for
the same log: with the projections never caught up, caught up half-way, and at the log's head.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from adapters.projections import ProjectionRunner
from adapters.projections.schema import metadata
from adapters.projections.standby import FrozenRunner, MemoryRunner, reader
from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from entrypoints.cli.main import main
from tests.integration.conftest import pg_database, pg_head_template, pg_url  # noqa: F401 (fixtures)
from tests.integration.projections import session as s

#: The reads compared, each as the command-line arguments after ``--db URL`` is placed.
READS = {
    "report": ["report", "--day", "all", "--format", "json"],
    "report_text": ["report", "--day", "all", "--view", "accounting"],
    "recall": ["recall", "--table", s.TABLE, "--last", "50", "--format", "json"],
    "ratings": ["ratings", "--format", "json"],
    "tables": ["table", "list", "--format", "json"],
    "audit_recall": ["audit", "recall", "--table", s.TABLE, "--round", "2"],
}


def read_only_url(url: str) -> str:
    parsed = make_url(url)
    options = parsed.query.get("options", "")
    return parsed.update_query_dict(
        {"options": f"{options} -cdefault_transaction_read_only=on".strip()}
    ).render_as_string(hide_password=False)


@pytest.fixture
def evening(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:  # noqa: F811
    """An evening at table PG-7 on a fresh schema, its projections never caught up."""
    migrate.upgrade(pg_url, load_settings().pg_roles())
    key = tmp_path / "signing.pem"
    key.write_bytes(Signer.generate().private_pem())
    key.chmod(0o600)
    store = open_store(pg_url, signing_key=key)
    try:
        s.play_evening(s.Session(store))
    finally:
        store.close()
    monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(key))
    monkeypatch.setenv("COLUMNS", "200")
    return pg_url


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Any:
    """``paigow ARGS --db URL`` in this process: its standard output (exit status 0 asserted)."""

    def read(url: str, args: list[str]) -> str:
        where = 2 if args[0] in ("audit", "table") else 1
        status = main([*args[:where], "--db", url, *args[where:]])
        out, err = capsys.readouterr()
        assert status == 0, (args, out, err)
        return out

    return read


def shown(out: str, url: str) -> str:
    """``audit verify``'s summary without the URL it names and the time it took."""
    out = out.replace(make_url(url).render_as_string(hide_password=True), "URL")
    return re.sub(r", [0-9.]+ s$", "", out.strip())


def stored(url: str) -> dict[str, int]:
    """How many rows each projection table holds."""
    store = open_store(url)
    try:
        with store._connection() as conn:
            return {
                table.name: int(conn.execute(f"SELECT count(*) FROM {table.name}").fetchone()[0])
                for table in metadata.sorted_tables
            }
    finally:
        store.close()


def runner_kind(url: str) -> type[Any]:
    store = open_store(url, create=False)
    try:
        return type(reader(store))
    finally:
        store.close()


def test_read_only_reads_write_nothing_and_answer_as_the_primary(evening: str, run: Any) -> None:
    url = evening
    read_only = read_only_url(url)
    assert runner_kind(url) is ProjectionRunner
    assert runner_kind(read_only) is MemoryRunner  # nothing stored yet: caught up in memory
    nothing = stored(url)
    assert set(nothing.values()) == {0}
    behind = {name: run(read_only, args) for name, args in READS.items()}
    assert stored(url) == nothing  # not a row written, not even a checkpoint

    # Half-way: the stored projections plus the events after them, in memory.
    store = open_store(url)
    try:
        head = ProjectionRunner(store).head()
        ProjectionRunner(store).catch_up(until=head // 2)
    finally:
        store.close()
    half = stored(url)
    assert half["projection_checkpoints"] == 6 and half["proj_rounds"] > 0
    assert runner_kind(read_only) is MemoryRunner
    halfway = {name: run(read_only, args) for name, args in READS.items()}
    assert stored(url) == half

    # The read-write URL catches the projections up (writes them) and answers the same.
    primary = {name: run(url, args) for name, args in READS.items()}
    caught_up = stored(url)
    assert caught_up != half
    assert behind == primary
    assert halfway == primary
    assert f'"position": {head}' in primary["report"]
    assert '"round": 2' in primary["recall"]

    # At the head: the stored projections read as they stand.
    assert runner_kind(read_only) is FrozenRunner
    at_head = {name: run(read_only, args) for name, args in READS.items()}
    assert at_head == primary
    # --rebuild on a read-only session rebuilds in memory from the first event.
    assert run(read_only, [*READS["report"], "--rebuild"]) == primary["report"]
    assert stored(url) == caught_up

    # The regulator's audit on the read-only session: read-only already, the same verdict.
    # (round 5 is still in play: its events are not sealed by a checkpoint yet)
    verify = ["audit", "verify", "--allow-unsealed-tail"]
    verdicts = [shown(run(u, verify), u) for u in (url, read_only)]
    assert verdicts[0] == verdicts[1]
    assert "81 events, 1 tables, 5 rounds re-derived" in verdicts[1]
    assert stored(url) == caught_up
