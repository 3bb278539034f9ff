"""``paigow report`` and ``paigow recall`` as a casino script runs them: the installed console
script on a SQLite file holding the scripted evening of tests/integration/projections/session.py
(figures worked out by hand there)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from adapters.projections.accounting import ACCOUNTING_COLUMNS
from adapters.projections.positions import POSITION_COLUMNS
from adapters.store import open_store
from entrypoints.cli.render import PIPE_WIDTH
from tests.integration.projections import session as s

from .conftest import Run

DB = "sqlite:///casino.db"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The evening, recorded once for the module (about 80 commands)."""
    path = tmp_path_factory.mktemp("evening") / "casino.db"
    store = open_store(f"sqlite:///{path}")
    try:
        s.play_evening(s.Session(store))
    finally:
        store.close()  # the last connection closed: everything is in the database file
    return path


@pytest.fixture
def evening(recorded: Path, tmp_path: Path) -> str:
    """A copy of the recorded evening in the folder the command runs in."""
    shutil.copyfile(recorded, tmp_path / "casino.db")
    return DB


def test_the_report_in_json_holds_the_figures_of_the_evening(paigow: Run, evening: str) -> None:
    done = paigow(
        "report", "--db", evening, "--day", "2026-03-14", "--tz", "UTC", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["gaming_day"], report["timezone"], report["cutoff"]) == (
        "2026-03-14",
        "UTC",
        "06:00",
    )
    assert report["accounting"] == [s.ACCOUNTING]
    assert report["players"] == s.PLAYERS
    assert report["house"] == [s.HOUSE]
    assert report["rotation"] == [s.ROTATION]
    assert report["eligibility"] == s.ELIGIBILITY
    assert len(report["offers"]) == len(s.OFFERS)
    rebuilt = paigow(
        "report", "--db", evening, "--day", "2026-03-14", "--format", "json", "--rebuild"
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout) == report  # every figure again, from the events alone


def test_the_report_in_csv_is_one_view_with_its_documented_columns(
    paigow: Run, evening: str
) -> None:
    done = paigow("report", "--db", evening, "--day", "2026-03-14", "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0] == list(ACCOUNTING_COLUMNS)
    assert rows[1] == [str("" if v is None else v) for v in s.ACCOUNTING.values()]
    players = paigow("report", "--db", evening, "--view", "players", "--format", "csv")
    table = list(csv.DictReader(io.StringIO(players.stdout)))
    assert [(r["player_id"], r["seat"], r["balance"]) for r in table] == [
        ("ana", "1", "50750"),
        ("chloe", "3", "23851"),
        ("bruno", "", "0"),
    ]
    refused = paigow("report", "--db", evening, "--view", "all", "--format", "csv")
    assert refused.returncode == 2 and "one view" in refused.stderr


def _sections(out: str, title: str) -> list[str]:
    """The tables of one view: the first and any cut off it to fit the width ("continued")."""
    return [
        block
        for block in out.split("\n\n")
        if block.startswith((f"{title}\n", f"{title} (continued)\n"))
    ]


def _row(tables: list[str], *first: str) -> list[str]:
    """The cells of the row whose leading cells are ``first`` across the tables of a view, those
    (repeated in each table) once."""
    cells: list[str] = []
    for table in tables:
        rows = [line.split() for line in table.splitlines()]
        found = next(row for row in rows if row[: len(first)] == list(first))
        cells += found if not cells else found[len(first) :]
    return cells


def _width() -> int:
    return int(os.environ.get("COLUMNS", PIPE_WIDTH))


def test_the_report_for_people_is_a_readable_table(paigow: Run, evening: str) -> None:
    done = paigow("report", "--db", evening, "--day", "2026-03-14")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Gaming day 2026-03-14 (cut-off 06:00 UTC)")
    assert max(len(line) for line in out.splitlines()) <= _width()  # fits a pipe's width
    accounting = _sections(out, "Table accounting")
    assert accounting, out
    # table, gaming day, rounds, voided, hands, push %, handle, drop, commission, main win,
    # side handle, side win, game win, game hold % (the books' columns empty: no opener at this
    # table), hold %. The drop is the buy-ins (1,000.00, recorded without a medium: cash); with
    # no inventory, hold % is the game win -84.50 over it (the wagers' 150.01 are the handle).
    assert _row(accounting, "PG-7", "2026-03-14") == [
        "PG-7",
        "2026-03-14",
        "3",
        "1",
        "7",
        "14.29%",
        "150.01",
        "1,000.00",
        "5.50",
        "-64.50",
        "5.00",
        "-20.00",
        "-84.50",
        "-8.45%",
        "-8.45%",
    ]
    # Each win is named once, and the report says how they make one another.
    said = " ".join(out.split())
    assert "main win = main result + commission; side win = side result − Envy paid" in said
    assert "game win = main win + side win; game hold % = game win / drop" in said
    assert "hold % = inventory win / drop (until the closer: game win / drop)" in said
    house = _sections(out, "The house, since each table opened")
    # main result, side result, Envy paid, house result (the audit's), commission, game win
    assert _row(house, "PG-7")[1:7] == ["-70.00", "-15.00", "5.00", "-90.00", "5.50", "-84.50"]
    players = _sections(out, "Player bankrolls")
    # table, seat, player, balance, in play, bought in, cashed out, main, side, commission,
    # as banker, banker comm., net, hands, banked
    assert _row(players, "PG-7", "1", "ana") == [
        "PG-7",
        "1",
        "ana",
        "507.50",
        "0.00",
        "500.00",
        "0.00",
        "+10.00",
        "0.00",
        "2.50",
        "0.00",
        "0.00",
        "+7.50",
        "3",
        "0",
    ]
    assert "the dealer banks between two player banks (dealer_between)" in " ".join(out.split())


def test_the_report_for_people_is_cut_to_fit_a_narrow_terminal(paigow: Run, evening: str) -> None:
    """At 60 columns every view is cut into tables of whole columns: each amount stays whole."""
    from adapters.projections.reports import VIEWS
    from entrypoints.cli.commands.report import _human

    done = paigow("report", "--db", evening, "--day", "2026-03-14", "--format", "json")
    report = json.loads(done.stdout)
    out = _human(report, VIEWS, width=60)
    assert max(len(line) for line in out.splitlines()) <= 60
    accounting = _sections(out, "Table accounting")
    assert len(accounting) > 1
    assert _row(accounting, "PG-7", "2026-03-14")[2:] == [
        "3", "1", "7", "14.29%", "150.01", "1,000.00", "5.50", "-64.50", "5.00", "-20.00",
        "-84.50", "-8.45%", "-8.45%",
    ]  # fmt: skip


def test_every_day_for_people_is_a_summary_and_the_long_views_are_asked_for(
    paigow: Run, evening: str
) -> None:
    """``--day all`` prints one row per table and gaming day; the accounting view's every figure,
    players, the bank's offers… by name (``--view``), and ``--view all`` as before."""
    done = paigow("report", "--db", evening, "--day", "all", "--tz", "UTC")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Every gaming day (cut-off 06:00 UTC)")
    (summary,) = _sections(out, "Books by gaming day")
    # rounds, handle, drop, game win, game hold %, (inventory win: no books), hold %
    assert _row([summary], "PG-7", "2026-03-14")[2:] == [
        "3", "150.01", "1,000.00", "-84.50", "-8.45%", "-8.45%",
    ]  # fmt: skip
    assert "Bank offers" not in out and "Player bankrolls" not in out
    assert "--view accounting" in out and len(out.splitlines()) < 20
    every = paigow("report", "--db", evening, "--day", "all", "--view", "all")
    assert "Bank offers" in every.stdout and "Table accounting" in every.stdout
    accounting = paigow("report", "--db", evening, "--day", "all", "--view", "accounting")
    assert _sections(accounting.stdout, "Table accounting")
    assert "Books by gaming day" not in accounting.stdout
    as_json = paigow("report", "--db", evening, "--day", "all", "--format", "json")
    assert set(json.loads(as_json.stdout)) >= {"accounting", "offers", "players"}  # as it was


def test_a_pipe_gets_columns_width_else_100(evening: str, tmp_path: Path) -> None:
    from .conftest import PAIGOW

    command = [str(PAIGOW), "report", "--db", evening, "--day", "2026-03-14"]
    widths = {}
    for columns in ("72", None):
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        if columns is not None:
            env["COLUMNS"] = columns
        done = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        widths[columns] = max(len(line) for line in done.stdout.splitlines())
    assert 60 < widths["72"] <= 72
    assert 72 < widths[None] <= 100


def test_recall_of_one_round_for_people(paigow: Run, evening: str) -> None:
    done = paigow("recall", "--db", evening, "--table", "PG-7", "--round", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Round 3 at table PG-7: closed")
    assert max(len(line) for line in out.splitlines()) <= _width()
    assert "Dice 2+3+5 = 10: stack 1 to position 3 (R-DEAL-3)" in out
    # chloe's position, across the tables cut to fit the width
    chloe = " ".join(line for line in out.splitlines() if " chloe " in line)
    for shown in (
        "8h 8c 6s 4c 3h",
        "Kd Jd",
        "foul_reset",
        "fr.one_pair.default",
        "Kd Jd 6s 4c 3h / 8h 8c",
        "win/win",
        "+10.00",
        "0.50",
        "+9.50",
    ):
        assert shown in chloe, shown
    assert "Commission: chloe (seat 3, player) 0.50, percent_of_win on 10.00, R-PAY-2" in out


def test_recall_in_json_and_csv(paigow: Run, evening: str) -> None:
    done = paigow("recall", "--db", evening, "--table", "PG-7", "--seat", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    recalled = json.loads(done.stdout)
    assert [r["round"] for r in recalled["rounds"]] == [1, 2, 4]
    assert recalled["rounds"][2]["void"]["reason"] == "card exposed"
    table = paigow("recall", "--db", evening, "--table", "PG-7", "--last", "3", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert list(rows[0]) == list(POSITION_COLUMNS)
    # Round 3: seven positions (dead stacks too); round 4, voided before the deal: its two
    # wagers; round 5, in progress: chloe's wager.
    assert [(r["round"], r["position"], r["holder"]) for r in rows] == [
        ("3", "1", "banker"),
        ("3", "2", "player"),
        ("3", "3", "dead"),
        ("3", "4", "player"),
        ("3", "5", "dead"),
        ("3", "6", "dead"),
        ("3", "7", "dead"),
        ("4", "2", "player"),
        ("4", "3", "player"),
        ("5", "3", "player"),
    ]
    assert rows[3]["player_back"] == "Kd Jd 6s 4c 3h" and rows[3]["set_reason"] == "foul_reset"
    assert rows[-1]["status"] == "in_progress" and rows[-1]["wager"] == "1000"


def test_errors_are_one_line_and_exit_2(paigow: Run, evening: str) -> None:
    missing = paigow("report", "--db", "sqlite:///nowhere.db")
    assert missing.returncode == 2 and missing.stderr.startswith("paigow: no database at")
    assert not (Path(missing.args[0]).parent / "nowhere.db").exists()
    no_round = paigow("recall", "--db", evening, "--table", "PG-7", "--round", "99")
    assert no_round.returncode == 2
    assert no_round.stderr == "paigow: table PG-7 has no round 99\n"
    bad_day = paigow("report", "--db", evening, "--day", "14/03/2026")
    assert bad_day.returncode == 2 and "--day is YYYY-MM-DD" in bad_day.stderr


def test_a_books_day_whose_inventory_win_is_not_its_game_win_says_why_in_one_line() -> None:
    """The scripted books day (tests/integration/projections/books_day.py): the closer is 0.50
    short of the tray the events give, so the inventory win is 0.50 below the game win."""
    from entrypoints.cli.commands.report import _human
    from tests.integration.projections import books_day

    report = {"gaming_day": "2026-03-14", "cutoff": "06:00", "timezone": "UTC", "position": 1}
    report["accounting"] = [books_day.ACCOUNTING]
    out = " ".join(_human(report, ("accounting",), width=100).split())
    assert (
        "PG-7 2026-03-14: inventory win − game win = -0.50: the closer's variance -0.50 (the tray "
        "counted against the tray the events give) + the drop's 0.00 (the count against the "
        "buy-ins)"
    ) in out
    assert "the counts do not explain" not in out and "books day (opener to closer)" not in out
