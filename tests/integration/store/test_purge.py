"""R18 on SQLite and PostgreSQL: a purge past retention archives, records ``range_purged`` and
removes the log's head; the remaining log verifies from that point, and a head cut without that
event fails naming the first missing position. Refusals write nothing (R17 holds, retention)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from adapters.clock import SteppingClock
from adapters.disputes import Request, open_dispute
from adapters.purge import PurgeRefused, _create_triggers, _triggers, purge
from adapters.rng import SeededDeckAndDice
from adapters.service import TableService
from adapters.simulation.mixed_session import Session
from adapters.store import migrate, open_store
from adapters.store.schema import APPEND_ONLY_TABLES
from adapters.store.signing import Signer
from audit.bundle import open_bundle
from audit.sources import open_database
from audit.verify import verify_log
from eventlog.system_events import SYSTEM_STREAM
from table_core.ports import Actor

START = datetime(2020, 3, 1, 20, 0, tzinfo=UTC)
SIX_YEARS_ON = START + timedelta(days=6 * 365)
FLOOR = Actor("floor-1", "floor")


@pytest.fixture(params=["sqlite", "postgresql"])
def casino(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """Table OLD-1 played and done, then table NEW-1 opened and played: a log to purge."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"
        store = open_store(url)
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url)
        store = open_store(url, signing_key=Signer.generate())
    service = TableService(
        store, clock=SteppingClock(START, timedelta(seconds=3)), source=SeededDeckAndDice(5)
    )
    Session(service, seed=2, tables=1, prefix="OLD-").play(2)
    Session(service, seed=3, tables=1, prefix="NEW-").play(2)
    try:
        yield store, url
    finally:
        store.close()


def _old_table_end(store: Any) -> int:
    return store.read_stream("OLD-1")[-1].position


def _audit(store: Any, url: str) -> Any:
    source = open_database(url)
    source.public_key = store.public_key
    return verify_log(source)


def test_a_purged_log_verifies_and_its_archive_verifies_alone(
    casino: tuple[Any, str], tmp_path: Path
) -> None:
    store, url = casino
    through = _old_table_end(store)
    done = purge(
        store,
        url,
        through=through,
        archive=tmp_path / "archive.jsonl",
        actor=FLOOR,
        reason="five years past",
        retention_days=1826,
        now=SIX_YEARS_ON,
    )
    assert (done["first_position"], done["last_position"], done["tables"]) == (
        1,
        through,
        ["OLD-1"],
    )
    assert store.read_stream("OLD-1") == []
    remaining = store.read_all()
    assert remaining[0].position == through + 1
    assert remaining[-1].type == "range_purged" and remaining[-1].stream_id == SYSTEM_STREAM
    assert store.verify().ok, store.verify().first_bad
    report = _audit(store, url)
    assert report.findings == [], [str(f) for f in report.findings]
    archive = verify_log(open_bundle(tmp_path / "archive.jsonl", public_key=None))
    assert archive.findings == [], [str(f) for f in archive.findings]
    # the triggers are back: a DELETE is still refused
    with pytest.raises(Exception, match="append-only"), store.engine.begin() as conn:
        conn.execute(text("DELETE FROM events"))


def test_a_head_cut_without_range_purged_fails_naming_the_first_missing_position(
    casino: tuple[Any, str],
) -> None:
    store, url = casino
    through = _old_table_end(store)
    postgres = store.engine.dialect.name == "postgresql"
    with store.engine.begin() as conn:  # what a tamperer with the owner's rights would do
        for table in APPEND_ONLY_TABLES:
            for trigger in _triggers(table, postgres):
                suffix = f" ON {table}" if postgres else ""
                conn.execute(text(f"DROP TRIGGER {trigger}{suffix}"))
        ids = f"SELECT event_id FROM event_log WHERE position <= {through}"
        rows = [r[0] for r in conn.execute(text(ids))]
        conn.execute(text(f"DELETE FROM event_log WHERE position <= {through}"))
        conn.execute(text(f"DELETE FROM events WHERE id IN ({','.join(map(str, rows))})"))
        conn.execute(text(f"DELETE FROM checkpoints WHERE position <= {through}"))
        for table in APPEND_ONLY_TABLES:
            for statement in _create_triggers(table, postgres):
                conn.execute(text(statement))
    first_bad = store.verify().first_bad
    assert first_bad is not None and first_bad.position == 1
    assert "no range_purged event records a purge through position" in first_bad.detail
    messages = [str(f) for f in _audit(store, url).findings]
    assert any(
        m.startswith("position 1") and "global position 1 is missing" in m for m in messages
    ), messages


def test_a_purge_inside_retention_or_over_a_dispute_is_refused_and_writes_nothing(
    casino: tuple[Any, str], tmp_path: Path
) -> None:
    store, url = casino
    through = _old_table_end(store)
    args: dict[str, Any] = {"archive": tmp_path / "a.jsonl", "actor": FLOOR, "reason": "old"}
    before = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(PurgeRefused, match="inside the retention of 1826 days"):
        purge(
            store, url, through=through, retention_days=1826, now=START + timedelta(days=30), **args
        )
    with pytest.raises(PurgeRefused, match="table NEW-1 has events on both sides"):
        purge(store, url, through=through + 3, retention_days=1826, now=SIX_YEARS_ON, **args)
    with pytest.raises(PurgeRefused, match="needs a reason"):
        purge(
            store,
            url,
            through=through,
            retention_days=1826,
            now=SIX_YEARS_ON,
            **{**args, "reason": " "},
        )
    assert store.stream_version(SYSTEM_STREAM) == before
    dispute = open_dispute(store, Request("OLD-1", "chip count", rounds=[2]), FLOOR, START)
    held = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(PurgeRefused, match=f"held by dispute {dispute['dispute_id']}"):
        purge(store, url, through=through, retention_days=1826, now=SIX_YEARS_ON, **args)
    assert store.stream_version(SYSTEM_STREAM) == held
    assert not (tmp_path / "a.jsonl").exists()
    assert store.read_all()[0].position == 1
