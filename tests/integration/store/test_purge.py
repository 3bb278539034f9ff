"""R18 on SQLite and PostgreSQL: a purge past retention archives, records ``range_purged`` and
removes the log's head; the remaining log verifies from that point, and a head cut without that
event fails naming the first missing position. Retention is judged per category against the
log's own time (its last sealed event), never the host's clock; a change of the configured
periods is recorded; the audit checks every purge against the retention in force. Refusals write
nothing (R17 holds, retention)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.schema import APPEND_ONLY_TABLES
from adapters.store.signing import Signer
from audit.bundle import open_bundle
from audit.sources import open_database
from audit.verify import verify_log
from entrypoints.simulation.mixed_session import Session
from eventlog.retention import MINIMUM_DAYS
from eventlog.system_events import SYSTEM_STREAM, RetentionSet
from service_layer import purge as purging
from service_layer.disputes import Request, close_dispute, open_dispute
from service_layer.log_time import LogTime, sealed_log_time
from service_layer.purge import PurgeRefused, _create_triggers, _triggers, purge
from service_layer.service import TableService
from service_layer.system_stream import SystemStream
from table_core.ports import Actor
from tests.integration.audit.tamper import Forger

START = datetime(2020, 3, 1, 20, 0, tzinfo=UTC)
SIX_YEARS_ON = START + timedelta(days=6 * 365)
FLOOR = Actor("floor-1", "floor")
DEFAULTS = dict(MINIMUM_DAYS)  # game 1826, system 1826, disputes 365, access 90


@pytest.fixture(params=["sqlite", "postgresql"])
def casino(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """Table OLD-1 played and done, then table NEW-1 opened and played: a log to purge."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"
        store = open_store(url)
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
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


def _the_service_runs_at(store: Any, at: datetime) -> None:
    """The service starts and stops at ``at``: sealed events of that time, the log's time."""
    service = TableService(store, clock=lambda: at)
    service.start()
    service.stop()


def _audit(store: Any, url: str) -> Any:
    source = open_database(url)
    source.public_key = store.public_key
    return verify_log(source)


def test_a_purged_log_verifies_and_its_archive_verifies_alone(
    casino: tuple[Any, str], tmp_path: Path
) -> None:
    store, url = casino
    through = _old_table_end(store)
    _the_service_runs_at(store, SIX_YEARS_ON)
    log_time = sealed_log_time(store)
    assert log_time.at == SIX_YEARS_ON
    done = purge(
        store,
        url,
        through=through,
        archive=tmp_path / "archive.jsonl",
        actor=FLOOR,
        reason="five years past",
        retention=DEFAULTS,
        now=SIX_YEARS_ON + timedelta(hours=1),  # the host's clock: it stamps the records only
    )
    assert (done["first_position"], done["last_position"], done["tables"]) == (
        1,
        through,
        ["OLD-1"],
    )
    assert (done["log_time"], done["log_time_position"]) == (
        "2026-02-28T20:00:00Z",
        log_time.position,
    )
    assert done["retention"] == DEFAULTS and done["retention_days"] == 1826
    assert done["newest"]["game"]["position"] == through  # OLD-1's last event, its newest
    assert set(done["newest"]) <= {"game", "system"}
    assert store.read_stream("OLD-1") == []
    remaining = store.read_all()
    assert remaining[0].position == through + 1
    assert remaining[-1].type == "range_purged" and remaining[-1].stream_id == SYSTEM_STREAM
    recorded = remaining[-2]  # the first retention recorded: in the purge's transaction
    assert recorded.type == "retention_set" and recorded.actor == FLOOR
    assert (recorded.payload["periods"], recorded.payload["previous"]) == (DEFAULTS, None)
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
    # The log's time is its last sealed event (START + minutes): a host clock six years on does
    # not make its young events purgeable.
    with pytest.raises(PurgeRefused, match="inside the retention of 1826 days for game events"):
        purge(store, url, through=through, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    with pytest.raises(PurgeRefused, match="game events: 1 days, below the jurisdiction's minimum"):
        purge(
            store, url, through=through, retention={**DEFAULTS, "game": 1}, now=SIX_YEARS_ON, **args
        )
    assert store.stream_version(SYSTEM_STREAM) == before
    _the_service_runs_at(store, SIX_YEARS_ON)
    before = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(PurgeRefused, match="table NEW-1 has events on both sides"):
        purge(store, url, through=through + 3, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    with pytest.raises(PurgeRefused, match="needs a reason"):
        purge(
            store,
            url,
            through=through,
            retention=DEFAULTS,
            now=SIX_YEARS_ON,
            **{**args, "reason": " "},
        )
    assert store.stream_version(SYSTEM_STREAM) == before
    dispute = open_dispute(store, Request("OLD-1", "chip count", rounds=[2]), FLOOR, SIX_YEARS_ON)
    held = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(PurgeRefused, match=f"held by dispute {dispute['dispute_id']}"):
        purge(store, url, through=through, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    assert store.stream_version(SYSTEM_STREAM) == held
    assert not (tmp_path / "a.jsonl").exists()
    assert store.read_all()[0].position == 1


def test_the_dispute_history_is_kept_its_own_period(
    casino: tuple[Any, str], tmp_path: Path
) -> None:
    """A dispute opened and closed in the range is dispute history: kept a year at least, and
    longer when the casino says so, whatever the games' period allows."""
    store, url = casino
    a_year_on = START + timedelta(days=400)
    opened = open_dispute(store, Request("OLD-1", "chip count", rounds=[1]), FLOOR, a_year_on)
    close_dispute(store, opened["dispute_id"], "settled", FLOOR, a_year_on)
    closed_at = store.read_stream(SYSTEM_STREAM)[-1].position
    _the_service_runs_at(store, a_year_on + timedelta(days=1836))  # games: past five years
    longer = {**DEFAULTS, "disputes": 1856}
    args: dict[str, Any] = {"actor": FLOOR, "reason": "past retention", "now": SIX_YEARS_ON}
    before = store.stream_version(SYSTEM_STREAM)
    with pytest.raises(
        PurgeRefused,
        match=re.escape(
            f"position {closed_at} (dispute history) was recorded at {a_year_on.isoformat()}, "
            "inside the retention of 1856 days for dispute history (kept until "
            f"{(a_year_on + timedelta(days=1856)).isoformat()}; the log's time is "
            f"{(a_year_on + timedelta(days=1836)).isoformat()}, its last sealed event at position "
            f"{closed_at + 3})"
        ),
    ):
        purge(store, url, through=closed_at, retention=longer, archive=tmp_path / "a", **args)
    assert store.stream_version(SYSTEM_STREAM) == before
    done = purge(store, url, through=closed_at, retention=DEFAULTS, archive=tmp_path / "b", **args)
    assert done["newest"]["disputes"] == {"position": closed_at, "at": a_year_on.isoformat()}
    assert done["tables"] == ["NEW-1", "OLD-1"]
    report = _audit(store, url)
    assert report.findings == [], [str(f) for f in report.findings]


@pytest.mark.parametrize("last", ["longer", "same"])
def test_a_change_of_the_periods_is_recorded_by_the_purge_that_applies_it(
    casino: tuple[Any, str], tmp_path: Path, last: str
) -> None:
    """``retention_set`` (the purge's actor and reason, the periods and those they replace) comes
    before ``range_purged`` when the configured periods differ from the last recorded; none when
    they are the same."""
    store, url = casino
    longer = {**DEFAULTS, "game": 2000}
    recorded = longer if last == "longer" else DEFAULTS
    earlier = RetentionSet(at=START, actor_id="floor-0", actor_role="floor", periods=recorded,
                           previous=None, reason="as an earlier purge recorded it")  # fmt: skip
    SystemStream(store).append([earlier])
    _the_service_runs_at(store, SIX_YEARS_ON)
    through = _old_table_end(store)
    purge(store, url, through=through, retention=DEFAULTS, archive=tmp_path / "a", actor=FLOOR,
          reason="five years past", now=SIX_YEARS_ON)  # fmt: skip
    tail = [e for e in store.read_stream(SYSTEM_STREAM) if e.position > through]
    kinds = [e.type for e in tail if e.type in ("retention_set", "range_purged")]
    if last == "same":
        assert kinds == ["retention_set", "range_purged"]  # the earlier one, then the purge
    else:
        assert kinds == ["retention_set", "retention_set", "range_purged"]
        change = [e for e in tail if e.type == "retention_set"][-1]
        assert (change.actor, change.payload["reason"]) == (FLOOR, "five years past")
        assert (change.payload["periods"], change.payload["previous"]) == (DEFAULTS, longer)
    report = _audit(store, url)
    assert report.findings == [], [str(f) for f in report.findings]


def test_the_audit_names_a_purge_judged_by_a_clock_ahead_of_its_log(
    casino: tuple[Any, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A purge whose code took the host's clock for the log's (here: told the log's time is six
    years on while its last sealed event is from the start): the audit reads the log's time
    itself and names the ``range_purged`` twice, for the time and for the young range."""
    store, url = casino
    through = _old_table_end(store)
    young = sealed_log_time(store)
    monkeypatch.setattr(
        purging, "sealed_log_time", lambda store: LogTime(young.position, SIX_YEARS_ON)
    )
    done = purge(store, url, through=through, archive=tmp_path / "a", actor=FLOOR,
                 reason="space", retention=DEFAULTS, now=SIX_YEARS_ON)  # fmt: skip
    position = store.read_all()[-1].position
    report = _audit(store, url)
    newest = done["newest"]["game"]
    assert [(f.kind, f.clause, f.position, f.message) for f in report.findings] == [
        ("procedure", "R18", position, f"purge of positions 1..{through} was judged at "
         f"{SIX_YEARS_ON.isoformat()}, later than the log's time {young.at.isoformat()} (its "
         "latest event before the purge)"),
        ("procedure", "R18", position, f"purge of positions 1..{through} removed position "
         f"{newest['position']} (game events) was recorded at {newest['at']}, inside the "
         f"retention of 1826 days for game events (kept until "
         f"{(datetime.fromisoformat(newest['at']) + timedelta(days=1826)).isoformat()}; the "
         f"log's time is {young.at.isoformat()})"),
    ]  # fmt: skip


def test_the_log_time_is_what_the_key_vouches_for_not_a_row_an_insider_wrote(
    casino: tuple[Any, str], tmp_path: Path
) -> None:
    """Without the key, an insider cannot move the log's time: an event appended with a late
    time is not sealed; a checkpoint row over it does not hold; a sealed event's time edited no
    longer hashes to the signed head. Each purge is refused, nothing written."""
    store, url = casino
    postgres = store.engine.dialect.name == "postgresql"
    forger = Forger(store, "postgresql" if postgres else "sqlite",
                    url if postgres else url.removeprefix("sqlite:///"))  # fmt: skip
    through = _old_table_end(store)
    sealed = sealed_log_time(store)
    late = "2026-02-28T20:00:00Z"
    position = forger.append_forged(
        SYSTEM_STREAM, "service_started",
        {"type": "service_started", "schema_version": 1, "at": late, "actor_id": "paigow",
         "actor_role": "system", "software_version": "0.1.0", "store": "x"},
    )  # fmt: skip
    assert sealed_log_time(store) == sealed  # unsealed: not the log's time
    args: dict[str, Any] = {"archive": tmp_path / "a", "actor": FLOOR, "reason": "space"}
    with pytest.raises(PurgeRefused, match="inside the retention of 1826 days for game events"):
        purge(store, url, through=through, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    head = forger.rows()[-1][13]
    forger._insert_only([(
        "INSERT INTO checkpoints (position, hash, signed_at, key_id, signature) "
        "VALUES (?, ?, ?, ?, ?)",
        (position, head, late, "0" * 16, "ab" * 64),
    )])  # fmt: skip
    with pytest.raises(
        PurgeRefused,
        match=f"the log's time cannot be read: the newest checkpoint \\(position {position}\\) "
        "is not signed by the store's key",
    ):
        purge(store, url, through=through, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    forger._sql([("DELETE FROM checkpoints WHERE position = ?", (position,))])
    ids = forger._ids()
    forger._sql([("UPDATE events SET recorded_at = ? WHERE id = ?", (late, ids[sealed.position]))])
    with pytest.raises(
        PurgeRefused,
        match=f"position {sealed.position} does not hash to the signed head {sealed.position}",
    ):
        purge(store, url, through=through, retention=DEFAULTS, now=SIX_YEARS_ON, **args)
    assert not (tmp_path / "a").exists() and store.read_all()[0].position == 1
