"""R5/R19 from the command line: a database last run by another software version refuses
``paigow simulate`` (one line naming the command, exit 2, nothing written) until the floor
authorises exactly the running version with ``paigow service authorise-version`` (as a floor
supervisor's API key, R19); the change then names the authorisation and the audit passes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.clock import SteppingClock
from adapters.service import TableService
from adapters.software_versions import authorise
from adapters.store import open_store
from eventlog.provenance import software_version
from table_core.ports import Actor

from .conftest import Run, operator_keys

DB = "sqlite:///casino.db"


def test_an_unauthorised_version_is_refused_until_the_floor_authorises_it(
    paigow: Run, tmp_path: Path
) -> None:
    made = paigow("simulate", "--db", DB, "--rounds", "1", "--players", "1", "--seed", "2")
    assert made.returncode == 0, made.stderr  # the first start of a new database needs none
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:  # a rollback to an older release, authorised: its version injected, not installed
        at = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
        authorise(store, "0.0.9", "rollback drill", Actor("floor-ines", "floor"), at)
        clock = SteppingClock(at, timedelta(seconds=1))
        TableService(store, clock=clock, software_version="0.0.9").start()
    finally:
        store.close()
    running = software_version()
    size = (tmp_path / "casino.db").stat().st_size
    refused = paigow("simulate", "--db", DB, "--rounds", "1", "--players", "1")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.splitlines() == [
        f"paigow: software version {running} is not authorised (the log last ran 0.0.9): a floor "
        f"supervisor authorises it first with `paigow service authorise-version {running} "
        "--reason TEXT --key-file FLOOR-KEY` (R5/R19); nothing was written"
    ]
    assert (tmp_path / "casino.db").stat().st_size == size
    operator_keys(DB, tmp_path, ("security", "floor"), floor="floor-ines")
    floor = ("--key-file", "floor.key")
    empty = paigow("service", "authorise-version", running, "--db", DB, "--reason", " ", *floor)
    assert (empty.returncode, empty.stderr) == (
        2,
        "paigow service: a software version's authorisation needs a reason\n",
    )
    granted = paigow(
        *("service", "authorise-version", running, "--db", DB),
        *("--reason", "CHG-12 release", *floor, "--floor", "floor-ines"),
    )
    assert granted.returncode == 0, granted.stderr
    record = json.loads(granted.stdout)
    assert (record["version"], record["authorised_by"]) == (
        running,
        {"id": "floor-ines", "role": "floor"},
    )
    # The casino's store has operator keys now, which paigow simulate leaves alone: the service
    # itself starts under the running version.
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:
        TableService(store).start()
    finally:
        store.close()
    versions = paigow("service", "versions", "--db", DB)
    lines = [json.loads(line) for line in versions.stdout.splitlines()]
    assert [(line["event"], line.get("new_version")) for line in lines] == [
        ("software_version_authorised", None),
        ("software_version_changed", "0.0.9"),
        ("software_version_authorised", None),
        ("software_version_changed", running),
    ]
    assert (lines[3]["authorisation"], lines[3]["reason"]) == (record["position"], "CHG-12 release")
    audited = paigow("audit", "verify", "--db", DB)
    assert audited.returncode == 0, audited.stdout + audited.stderr
