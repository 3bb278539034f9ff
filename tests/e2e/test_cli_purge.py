"""R18 from the command line: ``paigow purge`` judges retention against the log's own time (its
last sealed event), never the host's clock, and refuses a period below the jurisdiction's minimum;
each refusal is one line, exit status 2, nothing written. Once the log's time is past retention,
the purge runs, records the periods it applied, and the audit says OK."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store import open_store
from entrypoints.simulation.mixed_session import Session
from service_layer.service import TableService

from .conftest import Run, operator_keys

NIGHT = datetime(2019, 12, 1, 21, 0, tzinfo=UTC)
SIX_YEARS_ON = NIGHT + timedelta(days=6 * 365)
DB = "sqlite:///night.db"


@pytest.fixture
def night(tmp_path: Path) -> Path:
    """A table played on one night of 2019, then a second one: nothing written since."""
    path = tmp_path / "night.db"
    store = open_store(f"sqlite:///{path}")
    try:
        service = TableService(
            store, clock=SteppingClock(NIGHT, timedelta(seconds=3)), source=SeededDeckAndDice(42)
        )
        service.start()
        Session(service, seed=4, tables=1, prefix="OLD-").play(2)
        Session(service, seed=5, tables=1, prefix="PG-").play(2)
        service.stop()
    finally:
        store.close()
    # The floor supervisor's key, made that night (R19: a purge acts as a floor key).
    operator_keys(DB, tmp_path, ("security", "floor"), at=NIGHT, floor="floor-marie")
    return path


def _old_end(path: Path) -> int:
    store = open_store(f"sqlite:///{path}")
    try:
        return store.read_stream("OLD-1")[-1].position
    finally:
        store.close()


def _purge(paigow: Run, through: int) -> tuple[int, str, str]:
    done = paigow(
        "purge", "--db", DB, "--through", str(through), "--archive", "a.jsonl",
        "--reason", "space", "--key-file", "floor.key",
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def _events(path: Path) -> int:
    store = open_store(f"sqlite:///{path}")
    try:
        return len(store.read_all())
    finally:
        store.close()


def test_an_environment_variable_cannot_lower_retention_below_the_minimum(
    paigow: Run, night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reproduction: ``PAIGOW_RETENTION_DAYS=1 paigow purge …`` is refused as the setting is
    read, before anything is opened."""
    before, through = _events(night), _old_end(night)
    monkeypatch.setenv("PAIGOW_RETENTION_DAYS", "1")
    assert _purge(paigow, through) == (
        2,
        "",
        "paigow: PAIGOW_RETENTION_DAYS='1': below the jurisdiction's minimum of 1826 days (R18)\n",
    )
    monkeypatch.setenv("PAIGOW_RETENTION_DAYS", "1826")
    monkeypatch.setenv("PAIGOW_RETENTION_ACCESS_DAYS", "30")
    status, _, stderr = _purge(paigow, through)
    assert (status, stderr) == (
        2,
        "paigow: PAIGOW_RETENTION_ACCESS_DAYS='30': below the jurisdiction's minimum of 90 days "
        "(R18)\n",
    )
    monkeypatch.delenv("PAIGOW_RETENTION_DAYS")
    monkeypatch.delenv("PAIGOW_RETENTION_ACCESS_DAYS")
    assert _events(night) == before and not (tmp_path / "a.jsonl").exists()


def test_the_host_clock_does_not_make_young_events_purgeable(
    paigow: Run, night: Path, tmp_path: Path
) -> None:
    """The host's clock is years past the night (2019 + five years), but the log's own time is
    the night's last sealed event: the night is still inside retention."""
    through = _old_end(night)
    before = _events(night)
    status, stdout, stderr = _purge(paigow, through)
    assert (status, stdout) == (2, "")
    assert stderr.startswith(
        f"paigow purge: position {through} (game events) was recorded at 2019-12-01T21:"
    )
    assert ", inside the retention of 1826 days for game events (kept until 2024-11-30T21:" in (
        stderr
    )
    assert "; the log's time is 2019-12-01T21:" in stderr
    assert stderr.count("\n") == 1
    assert _events(night) == before and not (tmp_path / "a.jsonl").exists()


def test_once_the_log_itself_is_past_retention_the_purge_runs_and_audits_ok(
    paigow: Run, night: Path, tmp_path: Path
) -> None:
    store = open_store(f"sqlite:///{night}")
    try:  # the service runs again six years after the night: the log's time moves on
        later = TableService(store, clock=lambda: SIX_YEARS_ON)
        later.start()
        later.stop()
    finally:
        store.close()
    through = _old_end(night)
    # An archive of an earlier purge under the same name: its events are nowhere else, so a new
    # archive never replaces it, and nothing is purged.
    (tmp_path / "a.jsonl").write_text('{"manifest": {"format": "paigow-audit-bundle"}}\n')
    before = _events(night)
    status, stdout, stderr = _purge(paigow, through)
    assert (status, stdout, stderr) == (
        2,
        "",
        "paigow: a.jsonl exists: this bundle never replaces a file (name a new one)\n",
    )
    assert _events(night) == before
    (tmp_path / "a.jsonl").unlink()
    status, stdout, stderr = _purge(paigow, through)
    assert status == 0, stderr
    done = json.loads(stdout)
    assert (done["last_position"], done["tables"]) == (through, ["OLD-1"])
    assert done["log_time"] == "2025-11-29T21:00:00Z"  # SIX_YEARS_ON (2020 had a 29 February)
    assert done["retention"] == {"access": 90, "disputes": 365, "game": 1826, "system": 1826}
    audited = paigow("audit", "verify", "--db", DB)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert audited.stdout.splitlines()[-1].startswith("audit OK: ")
