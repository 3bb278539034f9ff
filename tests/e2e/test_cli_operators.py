"""R19 from the command line: every writing command acts as an authenticated operator. The red
team's four self-declared actors (``--floor mallory`` authorising a version, ``--actor mallory2``
closing a dispute, ``--actor mallory`` purging with a one-day retention, ``mallory`` as all three
signers of a fill) are refused without a key, with a key of the wrong role, and with a key whose
actor is not the one named: one line, exit status 2, nothing written. A key works from
``$PAIGOW_API_KEY`` too, never shows its token, and a key file others can read is refused;
``paigow simulate`` leaves a store with operator keys alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adapters.store import open_store
from tests.e2e.conftest import Run, operator_keys

DB = "sqlite:///casino.db"


def _written(tmp_path: Path) -> int:
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}", create=False)
    try:
        return len(store.read_all())
    finally:
        store.close()


def _refused(done: object) -> str:
    assert done.returncode == 2, done.stderr  # type: ignore[attr-defined]
    assert done.stdout == ""  # type: ignore[attr-defined]
    lines = done.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, lines
    return str(lines[0])


def test_self_declared_actors_are_refused(
    paigow: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = paigow("simulate", "--db", DB, "--rounds", "2", "--players", "1", "--seed", "4")
    assert made.returncode == 0, made.stderr  # a store with no key: simulated people play
    keys = {role: str(path) for role, path in operator_keys(DB, tmp_path).items()}
    as_floor = ("--key-file", keys["floor"])
    opened = paigow(
        "dispute", "open", "--db", DB, "--table", "SIM-1", "--round", "1", "--reason", "r",
        *as_floor,
    )  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    dispute = json.loads(opened.stdout)["dispute_id"]
    before = _written(tmp_path)

    # The reproduction names a version label: refused before any key is looked at (R5/R19).
    label = ("service", "authorise-version", "6.6.6", "--reason", "x", "--db", DB)
    assert _refused(paigow(*label, "--floor", "mallory")).startswith(
        "paigow service: a software version is authorised by its code's digest"
    )
    authorise = ("service", "authorise-version", "6" * 64, "--reason", "x", "--db", DB)
    assert _refused(paigow(*authorise, "--floor", "mallory")) == (
        "paigow: paigow service authorise-version acts as an operator: give --key-file FILE or "
        "set PAIGOW_API_KEY to an API key of the floor role (the key officer makes one: "
        "`paigow keys create --role floor --out floor.key --key-file security.key --db "
        f"{DB}`)"
    )
    assert _refused(paigow(*authorise, "--floor", "mallory", "--key-file", keys["cage"])) == (
        "paigow: the cage role may not run paigow service authorise-version: it is for floor"
    )
    assert _refused(paigow(*authorise, "--floor", "mallory", *as_floor)) == (
        "paigow: --floor mallory is not this key's actor (floor-1): the API key says who acts"
    )

    close = ("dispute", "close", dispute, "--outcome", "x", "--db", DB, "--actor", "mallory2")
    assert "acts as an operator" in _refused(paigow(*close))
    assert _refused(paigow(*close, "--key-file", keys["dealer"])) == (
        "paigow: the dealer role may not run paigow dispute close: it is for auditor, floor"
    )
    assert "--actor mallory2 is not this key's actor (floor-1)" in _refused(
        paigow(*close, *as_floor)
    )

    # The reproduction's PAIGOW_RETENTION_DAYS=1 is refused as the setting is read (R18,
    # tests/e2e/test_cli_purge.py); with the setting in range, the key decides.
    monkeypatch.setenv("PAIGOW_RETENTION_DAYS", "1826")
    purge = ("purge", "--through", "85", "--archive", "f", "--reason", "space", "--db", DB)
    assert "acts as an operator" in _refused(paigow(*purge, "--actor", "mallory"))
    assert _refused(paigow(*purge, "--actor", "mallory", "--key-file", keys["count"])) == (
        "paigow: the count role may not run paigow purge: it is for floor"
    )
    assert not (tmp_path / "f").exists()

    mallory = ("--floor", "mallory", "--cage", "mallory", "--dealer", "mallory")
    fill = ("table", "fill", "--db", DB, "--table", "SIM-1", "--slip", "F-1", "--chips",
            "2500=2500", *mallory)  # fmt: skip
    assert "acts as an operator" in _refused(paigow(*fill))
    assert _refused(paigow(*fill, "--key-file", keys["count"])) == (
        "paigow: the count role may not run paigow table fill: it is for cage, dealer, floor"
    )
    assert _refused(paigow(*fill, "--key-file", keys["dealer"])) == (
        "paigow: paigow table fill is signed by floor, cage, dealer, each with a key of their "
        "own: the floor and cage keys are missing"
    )
    signed = ("--key-file", keys["dealer"], "--sign", keys["floor"], "--sign", keys["cage"])
    assert _refused(paigow(*fill, *signed)) == (
        "paigow: --floor mallory is not the floor key's actor (floor-1): the key says who signs"
    )
    assert _written(tmp_path) == before  # no refusal wrote anything

    token = Path(keys["floor"]).read_text().strip()
    monkeypatch.setenv("PAIGOW_API_KEY", token)
    granted = paigow(*authorise)
    assert granted.returncode == 0, granted.stderr
    assert json.loads(granted.stdout)["authorised_by"] == {"id": "floor-1", "role": "floor"}
    assert token not in granted.stdout + granted.stderr
    monkeypatch.delenv("PAIGOW_API_KEY")

    os.chmod(keys["floor"], 0o644)
    assert _refused(paigow(*authorise, *as_floor)) == (
        f"paigow: the key file {keys['floor']} is readable by its group or others: "
        f"`chmod 600 {keys['floor']}`"
    )
    simulated = paigow("simulate", "--db", DB, "--rounds", "1", "--players", "1")
    assert _refused(simulated) == (
        f"paigow: {DB} has operator keys: paigow simulate plays simulated people, who hold "
        "none; simulate into a database of its own"
    )


def test_a_writing_command_refuses_code_the_log_does_not_run(paigow: Run, tmp_path: Path) -> None:
    """R5/R19: a writing command runs only the code the log runs or a floor supervisor
    authorised, as a start of the service does: a release installed beside a log that runs
    other code records nothing until its digest is authorised."""
    import hashlib
    from datetime import UTC, datetime

    from service_layer.change_control import authorise
    from service_layer.service import TableService
    from table_core.ports import Actor

    made = paigow("simulate", "--db", DB, "--rounds", "1", "--players", "1", "--seed", "5")
    assert made.returncode == 0, made.stderr
    other = hashlib.sha256(b"the release the casino runs").hexdigest()
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    try:  # the log now runs other code: this checkout is a release not yet authorised
        authorise(store, other, "CHG-7", Actor("floor-ines", "floor"), datetime.now(UTC))
        TableService(store, code_digest=other).start()
    finally:
        store.close()
    keys = operator_keys(DB, tmp_path, ("security", "floor"))
    before = _written(tmp_path)
    receive = ("deck", "receive", "--db", DB, "--table", "SIM-1", "--deck", "D-9", "--seal", "S")
    line = _refused(paigow(*receive, "--key-file", str(keys["floor"])))
    assert line.startswith("paigow: the running code (digest ")
    assert f"is not authorised (the log last ran {other}" in line
    assert _written(tmp_path) == before
