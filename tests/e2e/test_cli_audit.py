"""``paigow audit`` as a regulator runs it: exit statuses, findings, the summary line, a bundle
checked on a machine with no database, and a round recalled."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store import open_store
from entrypoints.cli.render import money as amount
from entrypoints.cli.render import signed_money
from entrypoints.simulation.mixed_session import Session
from service_layer.service import TableService
from tests.integration.audit.tamper import Forger

from .conftest import Run


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A casino night at four tables, recorded through the service into SQLite."""
    path = tmp_path_factory.mktemp("night") / "night.db"
    store = open_store(f"sqlite:///{path}")
    try:
        service = TableService(
            store,
            clock=SteppingClock(datetime(2026, 12, 1, 21, 0, tzinfo=UTC), timedelta(seconds=3)),
            source=SeededDeckAndDice(42),
        )
        Session(service, seed=4, tables=4).play(3)
    finally:
        store.close()
    return path


@pytest.fixture
def night(recorded: Path, tmp_path: Path) -> Path:
    """A copy in the command's working folder (with its key files), free to tamper with."""
    for suffix in ("", ".signing-key", ".signing-key.pub"):
        shutil.copy(f"{recorded}{suffix}", tmp_path / f"night.db{suffix}")
    return tmp_path / "night.db"


def test_a_clean_night_verifies_with_status_0_and_a_summary_line(paigow: Run, night: Path) -> None:
    done = paigow("audit", "verify", "--db", "sqlite:///night.db")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[-1].startswith("audit OK: sqlite:///night.db: ")
    assert "12 rounds re-derived" in out[-1]
    assert "signatures checked with key" in out[-1]
    # No key was given: the one beside the database was used, and the result says so (issue 17).
    # Once: the summary says it, no other line repeats it.
    assert "(key taken from beside the database: not an independent check)" in out[-1]
    assert done.stdout.count("not an independent check") == 1
    assert [line for line in out if line.startswith("money: table ")] == out[:-1]


def test_the_audits_game_win_is_the_reports(paigow: Run, night: Path) -> None:
    """One word a figure (docs/projections.md, "The words for money"): each table's game win on
    the audit's money line is the report's, and the house result beside it is that win before
    commission, said so on the line."""
    done = paigow("audit", "verify", "--db", "sqlite:///night.db", "--format", "json")
    audited = {m["table_id"]: m for m in json.loads(done.stdout.splitlines()[-1])["money"]}
    text = paigow("audit", "verify", "--db", "sqlite:///night.db").stdout
    house = paigow("report", "--db", "sqlite:///night.db", "--view", "house", "--format", "json")
    reported = {row["table_id"]: row for row in json.loads(house.stdout)["house"]}
    assert audited and set(audited) == set(reported)
    for table, money in audited.items():
        assert money["game_win"] == reported[table]["game_win"] == reported[table]["total_result"]
        assert money["house_result"] == reported[table]["house_result"]
        assert money["game_win"] == money["house_result"] + money["commission"]
        line = next(line for line in text.splitlines() if line.startswith(f"money: table {table}:"))
        assert line.endswith(
            f"; game win {signed_money(money['game_win'])} = house result "
            f"{signed_money(money['house_result'])} + commission {amount(money['commission'])}"
        )


def test_a_changed_commission_exits_1_and_says_where_in_words(paigow: Run, night: Path) -> None:
    store = open_store(f"sqlite:///{night}")
    try:
        forger = Forger(store, "sqlite", str(night))
        position = forger.find("commission_taken")
        forger.forge(position, lambda p: p.update(amount=p["amount"] + 7))
        charged = forger.payload(position)
    finally:
        store.close()
    done = paigow("audit", "verify", "--db", "sqlite:///night.db")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    finding = next(line for line in lines if line.startswith(f"position {position}, "))
    assert f"table {charged['table_id']}" in finding and "commission_taken" in finding
    assert "rules R-PAY-2:" in finding
    amount = charged["amount"]
    assert f"seat {charged['seat']}: commission recorded {amount}, rules give {amount - 7}" in (
        finding
    )
    assert lines[-1].startswith("audit FAILED: ")
    json_run = paigow("audit", "verify", "--db", "sqlite:///night.db", "--format", "json")
    assert json_run.returncode == 1
    records = [json.loads(line) for line in json_run.stdout.splitlines()]
    assert records[-1]["ok"] is False and records[-1]["summary"].startswith("audit FAILED")
    assert any(r.get("position") == position and r.get("kind") == "rules" for r in records)


def test_a_bundle_verifies_without_the_database_and_fails_once_edited(
    paigow: Run, night: Path, tmp_path: Path
) -> None:
    done = paigow("audit", "export", "--db", "sqlite:///night.db", "--table", "PG-1",
                  "--out", "pg1.bundle")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("exported ")
    again = paigow("audit", "export", "--db", "sqlite:///night.db", "--table", "PG-1",
                   "--out", "pg1.bundle")  # fmt: skip
    assert (again.returncode, again.stdout) == (0, done.stdout)  # an earlier bundle is replaced
    night.unlink()  # no database any more: the bundle is all there is
    checked = paigow("audit", "verify", "--bundle", "pg1.bundle")
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.splitlines()[-1].startswith("audit OK: bundle pg1.bundle")
    bundle = tmp_path / "pg1.bundle"
    text = bundle.read_text(encoding="utf-8")
    bundle.write_text(text.replace('\\"amount\\":1000', '\\"amount\\":9000', 1), encoding="utf-8")
    tampered = paigow("audit", "verify", "--bundle", "pg1.bundle")
    assert tampered.returncode == 1
    assert "integrity chain.hash" in tampered.stdout


def test_recall_shows_a_round_as_it_was_played(paigow: Run, night: Path) -> None:
    done = paigow("audit", "recall", "--db", "sqlite:///night.db", "--table", "PG-2",
                  "--round", "3")  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("table PG-2 round 3: ")
    assert "House Way trump_plaza" in text
    assert "dice " in text or "voided" in text
    as_json = paigow("audit", "recall", "--db", "sqlite:///night.db", "--table", "PG-2",
                     "--round", "3", "--format", "json")  # fmt: skip
    assert json.loads(as_json.stdout)["round"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("audit", "verify", "--db", "sqlite:///missing.db"), "no database at missing.db"),
        (("audit", "verify", "--bundle", "missing.bundle"), "cannot open the bundle"),
        (("audit", "verify", "--db", "sqlite:///night.db", "--from", "5", "--to", "2"),
         "--from 5 is after --to 2"),
        (("audit", "verify", "--db", "x", "--bundle", "y"), "not allowed with argument"),
        (("audit", "recall", "--db", "sqlite:///night.db", "--table", "PG-1", "--round", "77"),
         "has no round 77"),
        (("audit", "export", "--db", "sqlite:///night.db", "--out", "no-such-folder/b.json"),
         "paigow audit: --out no-such-folder/b.json: no folder no-such-folder\n"),
        (("audit", "export", "--db", "sqlite:///night.db", "--out", "."),
         "paigow audit: --out . is a folder: name the bundle's file\n"),
        (("audit", "export", "--db", "sqlite:///night.db", "--out", "night.db"),  # a typo
         "paigow audit: --out night.db exists and is no audit bundle: a bundle never replaces "
         "another file\n"),
    ],
)  # fmt: skip
def test_bad_usage_exits_2_with_one_line(
    paigow: Run, night: Path, args: tuple[str, ...], message: str
) -> None:
    done = paigow(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (night.parent / "missing.db").exists()  # the audit never creates a database


def _untimed(text: str) -> str:
    """The output with the time taken (the summary's last figure, JSON ``seconds``) taken out."""
    lines = []
    for line in text.splitlines():
        if line.startswith("{") and '"seconds"' in line:
            record = json.loads(line)
            record["seconds"] = 0
            record["summary"] = record["summary"].rsplit(", ", 1)[0]
            line = json.dumps(record)
        elif line.startswith("audit "):
            line = line.rsplit(", ", 1)[0]
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize("form", ["text", "json"])
def test_worker_processes_print_exactly_what_one_process_prints(
    paigow: Run, night: Path, form: str
) -> None:
    # Issue 22: --jobs splits each table's rounds into ranges; the hidden --range-rows cuts this
    # small night into ranges of five rows, so states are handed on mid-round between workers.
    store = open_store(f"sqlite:///{night}")
    try:
        forger = Forger(store, "sqlite", str(night))
        forger.forge(forger.find("commission_taken"), lambda p: p.update(amount=p["amount"] + 7))
        forger.forge(forger.find("dice_rolled"), lambda p: p.update(faces=[6, 6, 6]))
        forger.delete(forger.find("hand_set"))
    finally:
        store.close()
    verify = ("audit", "verify", "--db", "sqlite:///night.db", "--format", form)
    alone = paigow(*verify, "--jobs", "1")
    shared = paigow(*verify, "--jobs", "2", "--range-rows", "5")
    assert alone.returncode == shared.returncode == 1, shared.stderr
    assert _untimed(shared.stdout) == _untimed(alone.stdout)
    # What both found: the deleted event (table and global chains), the dice and the commission.
    pattern = (
        r'"clause": "([^"]+)"'
        if form == "json"
        else r"^position \d+[^:]*: (?:integrity|procedure|rules|money) (\S+):"
    )
    clauses = re.findall(pattern, alone.stdout, re.M)
    assert clauses == ["R-DEAL-3", "chain.sequence", "chain.sequence", "R-PAY-2", "books"]
