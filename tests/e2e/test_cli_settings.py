"""The settings (adapters/settings.py) from the command line: the environment's defaults are used,
and a bad value stops the command with one line naming its variable (exit 2, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import Run


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PAIGOW_LOG_LEVEL", "loud"),
        ("PAIGOW_LOG_FORMAT", "xml"),
        ("PAIGOW_TZ", "Mars/Olympus_Mons"),
        ("PAIGOW_GAMING_DAY_CUTOFF", "06:10"),
        ("PAIGOW_CLOCK_STEP_TOLERANCE", "-1"),  # R4: a tolerance below zero
        ("PAIGOW_CLOCK_STEP_TOLERANCE", "two"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it(
    paigow: Run, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    done = paigow("simulate", "--db", "memory://", "--rounds", "1", "--quiet")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"paigow: {variable}={value!r}: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_bad_secret_is_named_never_shown(paigow: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAIGOW_FLOOR_SESSION_SECRET", "hunter2-too-short")
    done = paigow("report", "--db", "memory://")
    assert (done.returncode, done.stderr) == (
        2,
        "paigow: PAIGOW_FLOOR_SESSION_SECRET (its value not shown): String should have at least "
        "32 characters\n",
    )


def test_the_database_comes_from_paigow_db_and_an_empty_variable_is_unset(
    paigow: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PAIGOW_DB", f"sqlite:///{tmp_path / 'casino.db'}")
    monkeypatch.setenv("PAIGOW_LOG_LEVEL", "")
    done = paigow("simulate", "--rounds", "2", "--seed", "1", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["database"] == f"sqlite:///{tmp_path / 'casino.db'}"
    assert (tmp_path / "casino.db").is_file() and not (tmp_path / "paigow.db").exists()
