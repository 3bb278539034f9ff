"""A log written by the code before the redesign (issue 16) verifies, replays and reports exactly as
it did then, hash for hash: stored bytes and hashes are a contract with every casino's archive.

The fixture was made once with ``paigow simulate --seed 1 --rounds 200 --players 6 --fortune`` on
the code of that day; ``golden_*`` are that code's outputs on a copy of it, with the keys added
since (JSON keys and CSV columns are added at the end, never renamed or removed: every figure that
code gave is still there, unchanged).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from .conftest import Run

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_log"


@pytest.fixture
def legacy(tmp_path: Path, paigow: Run) -> str:
    """A copy beside the scratch folder (the reading commands build projections in it), upgraded:
    schema 0006 (issue 18) added the books' projection tables; the events and their bytes stay."""
    for name in ("seed1_200.db", "seed1_200.db.signing-key.pub"):
        shutil.copy(FIXTURE / name, tmp_path / name)
    url = f"sqlite:///{tmp_path / 'seed1_200.db'}"
    assert paigow("db", "upgrade", "--db", url).returncode == 0
    return url


def _without_timing(record: dict[str, object]) -> dict[str, object]:
    kept = {key: value for key, value in record.items() if key not in ("seconds", "source")}
    kept["summary"] = str(record["summary"]).split(": ", 2)[-1].rsplit(", ", 1)[0]
    return kept


def test_the_legacy_log_audits_exactly_as_before(paigow: Run, legacy: str) -> None:
    done = paigow("audit", "verify", "--db", legacy, "--format", "json", "--allow-unsealed-tail")
    assert done.returncode == 0, done.stderr
    golden = json.loads((FIXTURE / "golden_audit.json").read_text())
    assert _without_timing(json.loads(done.stdout.splitlines()[-1])) == _without_timing(golden)


def test_the_legacy_log_reports_the_same_books(paigow: Run, legacy: str) -> None:
    as_json = paigow("report", "--db", legacy, "--day", "all", "--format", "json")
    as_csv = paigow("report", "--db", legacy, "--day", "all", "--format", "csv")
    assert as_json.returncode == 0 and as_csv.returncode == 0, as_json.stderr + as_csv.stderr
    assert json.loads(as_json.stdout) == json.loads((FIXTURE / "golden_report.json").read_text())
    assert as_csv.stdout == (FIXTURE / "golden_report.csv").read_text()


def test_the_legacy_log_recalls_every_round_byte_for_byte(paigow: Run, legacy: str) -> None:
    done = paigow("recall", "--db", legacy, "--table", "SIM-1", "--last", "200", "--format", "json")
    assert done.returncode == 0, done.stderr
    digest = hashlib.sha256(done.stdout.encode()).hexdigest()
    assert digest == (FIXTURE / "golden_recall.sha256").read_text().strip()


def test_the_legacy_log_fails_without_the_flag_at_its_unsealed_stop(
    paigow: Run, legacy: str
) -> None:
    """Its last event, the system stream's ``service_stopped`` at 6784, follows the last
    checkpoint (6783): written before the service sealed its stop (issue 17)."""
    done = paigow("audit", "verify", "--db", legacy, "--format", "json")
    assert done.returncode == 1, done.stderr
    *findings, summary = (json.loads(line) for line in done.stdout.splitlines())
    assert [(f["clause"], f["position"], f["last_position"]) for f in findings] == [
        ("chain.unsealed", 6784, 6784)
    ]
    assert findings[0]["message"].startswith("unsealed: 1 events from position 6784: ")
    assert summary["ok"] is False and summary["unsealed_tail"] is None


def test_db_verify_reports_the_legacy_logs_unsealed_stop_and_names_the_adoption(
    paigow: Run, legacy: str
) -> None:
    """Its trailing ``service_stopped`` is no round in progress: ``db verify`` fails it and says
    how such a head is taken on (``paigow db adopt``, with the key: this fixture has only the
    public half, so it is read, never written on)."""
    done = paigow("db", "verify", "--db", legacy)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "paigow: verification FAILED: unsealed: 1 events from position 6784: service lifecycle "
        "events after the last checkpoint (a log written before every stop was sealed: check it, "
        f"then `paigow db adopt --db {legacy}`)\n"
    )
