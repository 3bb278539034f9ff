"""``paigow table``: the books from the terminal (issue 18, R16). A gaming day opened, filled,
credited, closed and counted, each command as an operator's API key and each slip signed by one
key per signer (R19); each refusal the issue names exits 2 with one line and writes nothing;
``paigow table list`` shows the table closed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Run, operator_keys


def test_a_gaming_day_from_the_terminal(paigow: Run, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'casino.db'}"
    assert paigow("db", "upgrade", "--db", db).returncode == 0
    keys = {role: str(path) for role, path in operator_keys(db, tmp_path).items()}
    at = ("--db", db, "--table", "PG-1")
    names = ("--floor", "floor-1", "--cage", "cage-1", "--dealer", "dealer-1")
    signers = (
        "--key-file",
        keys["cage"],
        "--sign",
        keys["floor"],
        "--sign",
        keys["dealer"],
        *names,
    )
    floor, count = ("--key-file", keys["floor"]), ("--key-file", keys["count"])
    day = (*floor, "--sign", keys["dealer"])

    def ok(*args: str) -> dict[str, object]:
        done = paigow("table", *args)
        assert done.returncode == 0, done.stderr
        result: dict[str, object] = json.loads(done.stdout)
        return result

    def refused(*args: str) -> str:
        done = paigow("table", *args)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert "Traceback" not in done.stderr
        return done.stderr.strip().splitlines()[-1]

    opened = ok(
        "open-day",
        *at,
        "--day",
        "2026-12-01",
        "--opener",
        "2500=500000",
        *day,
        "--floor",
        "floor-1",
        "--dealer",
        "dealer-1",
    )
    assert opened["events"] == ["table_opened", "gaming_day_opened"]
    assert ok("fill", *at, "--slip", "F-1", "--chips", "2500=100000", *signers)["version"] == 3
    assert refused("credit", *at, "--slip", "C-1", "--chips", "2500=700000", *signers) == (
        "paigow: the tray of table PG-1 holds 600000, credit C-1 needs 700000: fill it first"
    )
    assert refused("fill", *at, "--slip", "F-2", "--chips", "2500=12.5", *signers) == (
        "paigow: the amount of 2500 '12.5' is not a whole number of minor units"
    )
    assert refused("fill", *at, "--slip", "F-2", "--chips", "2500=-2500", *signers) == (
        "paigow: chips of 2500: -2500 is not a non-negative multiple of it"
    )
    assert refused("count", *at, "--day", "2026-12-01", "--cash", "0", *count) == (
        "paigow: gaming day 2026-12-01 of table PG-1 is not closed and uncounted"
    )
    assert refused(
        "close-day", *at, "--closer", "300=600", *day, "--floor", "floor-1", "--dealer", "dealer-1"
    ) == ("paigow: denomination 300 is not in the profile (100, 500, 2500, 10000)")
    assert (
        refused(
            "correct-rating",
            *at,
            "--player",
            "ana",
            "--reason",
            " ",
            "--minutes",
            "5",
            *floor,
            "--floor",
            "floor-1",
        )
        == "paigow: a rating correction states its reason"
    )
    closed = ok(
        "close-day",
        *at,
        "--closer",
        "2500=600000",
        *day,
        "--floor",
        "floor-1",
        "--dealer",
        "dealer-1",
    )
    assert closed["version"] == 4  # every refusal above wrote nothing
    assert refused("fill", *at, "--slip", "F-3", "--chips", "2500=2500", *signers) == (
        "paigow: cannot fill the tray in state closed"
    )
    counted = ok("count", *at, "--day", "2026-12-01", "--cash", "0", *count, "--counter", "count-1")
    assert counted["events"] == ["drop_counted"]
    audited = paigow("audit", "verify", "--db", db)  # the books balance; money printed as money
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert (
        "money: table PG-1: 0 players bought in 0.00, cashed out 0.00, still in players' "
        "hands 0.00" in audited.stdout
    )
    assert ", hold " not in audited.stdout
    listed = paigow("table", "list", "--db", db, "--format", "json")
    assert json.loads(listed.stdout) == [
        {
            "table_id": "PG-1",
            "gaming_day": "2026-12-01",
            "house_way": "fr",
            "status": "closed",
            "books": "tracked",
        }
    ]


def test_table_list_and_recall_read_the_db_setting_when_no_db_is_given(paigow: Run) -> None:
    """Without ``--db`` the ``db`` setting names the database (here its default, ``paigow.db``
    in the folder the command runs in)."""
    assert paigow("db", "upgrade").returncode == 0
    listed = paigow("table", "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    recalled = paigow("recall", "--table", "PG-1")
    assert recalled.returncode == 0, recalled.stderr
    assert recalled.stdout == "table PG-1: no rounds (events to position 0)\n"
