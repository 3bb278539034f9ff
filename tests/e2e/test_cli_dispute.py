"""R17 and R18 from the command line: a dispute opened on a round, a purge over it refused, the
dispute's bundle exported and verified with the database deleted; bad input is one line, exit 2."""

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

#: The floor supervisor's API key (floor.key, made beside the database by ``night``).
FLOOR = ("--key-file", "floor.key", "--actor", "floor-marie")


@pytest.fixture
def night(tmp_path: Path) -> Path:
    """Two tables, three rounds each, recorded in 2019: past a five-year retention."""
    path = tmp_path / "night.db"
    store = open_store(f"sqlite:///{path}")
    try:
        service = TableService(
            store,
            clock=SteppingClock(datetime(2019, 12, 1, 21, 0, tzinfo=UTC), timedelta(seconds=3)),
            source=SeededDeckAndDice(42),
        )
        Session(service, seed=4, tables=1, prefix="OLD-").play(3)
        Session(service, seed=5, tables=1, prefix="PG-").play(3)
    finally:
        store.close()
    operator_keys(f"sqlite:///{path}", tmp_path, ("security", "floor"), floor="floor-marie")
    return path


def test_dispute_held_from_purge_exported_and_verified_without_the_database(
    paigow: Run, night: Path, tmp_path: Path
) -> None:
    db = "sqlite:///night.db"
    opened = paigow(
        "dispute",
        "open",
        "--db",
        db,
        "--table",
        "OLD-1",
        "--round",
        "2",
        "--reason",
        "player 3 disputes the banker's House Way",
        "--player",
        "p3",
        "--surveillance",
        "CAM-4 21:07",
        *FLOOR,
    )
    assert opened.returncode == 0, opened.stderr
    record = json.loads(opened.stdout)
    assert (record["table_id"], record["rounds"], record["status"]) == ("OLD-1", [2], "open")
    dispute = record["dispute_id"]
    listed = paigow("dispute", "list", "--db", db)
    assert [json.loads(line)["dispute_id"] for line in listed.stdout.splitlines()] == [dispute]

    store = open_store(f"sqlite:///{night}")
    through = store.read_stream("OLD-1")[-1].position
    store.close()
    refused = paigow(
        "purge",
        "--db",
        db,
        "--through",
        str(through),
        "--archive",
        "a.jsonl",
        "--reason",
        "retention over",
        *FLOOR,
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        f"paigow purge: table OLD-1 is held by dispute {dispute} (rounds 2): it cannot be purged\n"
    )
    assert not (tmp_path / "a.jsonl").exists()

    exported = paigow("dispute", "export", dispute, "--db", db, "--out", "dispute.jsonl")
    assert exported.returncode == 0, exported.stderr
    manifest = json.loads((tmp_path / "dispute.jsonl").read_text().splitlines()[0])["manifest"]
    assert manifest["dispute"]["dispute_id"] == dispute
    assert [r["round"] for r in manifest["recall"]] == [2]
    assert manifest["checkpoints"] > 0
    for suffix in ("", "-wal", "-shm"):  # the database is gone: the bundle stands alone
        Path(f"{night}{suffix}").unlink(missing_ok=True)
    checked = paigow(
        "audit", "verify", "--bundle", "dispute.jsonl", "--public-key", "night.db.signing-key.pub"
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1].startswith("audit OK: bundle dispute.jsonl: ")
    assert "signatures checked with key" in checked.stdout
    assert "NOT covered" not in checked.stdout

    # The reason edited in the exported file: named, and the seal no longer holds (R17).
    bundle = tmp_path / "dispute.jsonl"
    lines = bundle.read_text().splitlines(keepends=True)
    head = json.loads(lines[0])
    head["manifest"]["dispute"]["reason"] = "the player was paid in full"
    bundle.write_text(json.dumps(head, separators=(",", ":")) + "\n" + "".join(lines[1:]))
    edited = paigow(
        "audit", "verify", "--bundle", "dispute.jsonl", "--public-key", "night.db.signing-key.pub"
    )
    assert edited.returncode == 1
    assert [line for line in edited.stdout.splitlines() if ": integrity " in line] == [
        f"position {record['position']}: integrity bundle.dispute: the manifest's dispute reason "
        'says "the player was paid in full", the dispute\'s events give "player 3 disputes the '
        "banker's House Way\"",
        "the log: integrity bundle.seal: the manifest's seal does not hold: the manifest was "
        "changed after it was signed",
    ]


def test_bad_disputes_are_one_line_exit_2_and_write_nothing(paigow: Run, night: Path) -> None:
    db = "sqlite:///night.db"
    cases = [
        (
            ["--table", "OLD-1", "--round", "7", "--reason", "r"],
            "paigow dispute: table OLD-1 has no round 7: it played rounds 1..3\n",
        ),
        (
            ["--table", "OLD-1", "--round", "1", "--reason", "  "],
            "paigow dispute: a dispute needs a reason: it was left empty\n",
        ),
    ]
    for extra, message in cases:
        done = paigow("dispute", "open", "--db", db, *extra, *FLOOR)
        assert (done.returncode, done.stderr, done.stdout) == (2, message, "")
    assert paigow("dispute", "list", "--db", db).stdout == ""
    closed = paigow("dispute", "close", "D-00000000", "--db", db, "--outcome", "x", *FLOOR)
    assert (closed.returncode, closed.stderr) == (2, "paigow dispute: no dispute D-00000000\n")
