"""The command line under fault and bad input (issue 17): a bad line is a bad line (1,000-deep
JSON, a 4,300-digit number), a full disk is one line and exit 2, and ``paigow audit recall``
escapes what a terminal would act on."""

from __future__ import annotations

import json
import resource
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

from adapters.clock import SteppingClock
from adapters.store import open_store
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor
from tests.e2e.conftest import PAIGOW, Run

GOOD = json.dumps(
    {
        "player": {"back": "As Ad Qd 7c 7h", "front": "JK 2c"},
        "banker": {"back": "Kd Kh 9s 8d 3c", "front": "Qh Jc"},
        "wager": 2000,
    }
)


def test_settle_answers_deep_json_and_huge_numbers_as_bad_lines_and_goes_on(paigow: Run) -> None:
    lines = [
        "[" * 1000 + "]" * 1000,
        '{"wager": ' + "9" * 4300 + "}",
        '{"a": 1, "a": 2}',
        GOOD,
    ]
    done = paigow("settle", stdin="\n".join(lines) + "\n")
    assert done.returncode == 1 and done.stderr == ""
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"line": 1, "error": "nested deeper than 32 levels"},
        {"line": 2, "error": "a number of more than 40 digits"},
        {"line": 3, "error": "the key 'a' appears twice in one object"},
        {
            "result": "win",
            "back": "win",
            "front": "win",
            "player_fouled": False,
            "net": 1900,
            "commission": 100,
        },
    ]


def test_bonus_refuses_a_deep_or_huge_pay_table_file_in_one_line(
    paigow: Run, tmp_path: Path
) -> None:
    (tmp_path / "deep.json").write_text('{"x": ' * 1000 + "1" + "}" * 1000)
    (tmp_path / "huge.json").write_text('{"x": ' + "9" * 4300 + "}")
    for name, why in (("deep", "nested deeper than 32 levels"), ("huge", "more than 40 digits")):
        done = paigow("bonus", "--bet", "insurance", "--pay-table-file", f"{name}.json")
        assert done.returncode == 2
        assert (
            done.stderr
            == f"paigow: {name}.json is not a pay table: "
            + (why if name == "deep" else f"a number of {why}")
            + "\n"
        )


def _limit_file_size() -> None:
    # A full disk for this process: no file it writes may grow past 400 KiB (the database and
    # its log reach that within a few hundred rounds). Python ignores SIGXFSZ: writes fail.
    resource.setrlimit(resource.RLIMIT_FSIZE, (400 * 1024, 400 * 1024))


def test_simulate_on_a_full_disk_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(PAIGOW), "simulate", "--rounds", "3000", "--quiet", "--db", "sqlite:///full.db"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_limit_file_size,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("paigow: the event store is unavailable: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_audit_recall_escapes_control_characters_it_prints(paigow: Run, tmp_path: Path) -> None:
    """A reason recorded with an ANSI sequence and a carriage return (HTTP refuses them now;
    older code or an insider may have recorded one) is shown escaped, never acted on."""
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    service = TableService(
        store, clock=SteppingClock(datetime(2026, 12, 1, 20, tzinfo=UTC), timedelta(seconds=1))
    )
    floor = Actor(id="floor-1", role="floor")
    for number, command in enumerate(
        [
            c.OpenTable(table_id="PG-9", actor=floor, at=service.now()),
            c.SeatPlayer(seat=1, player_id="ana", actor=floor, at=service.now()),
            c.BuyIn(player_id="ana", amount=10_000, actor=floor, at=service.now()),
            c.StartRound(actor=floor, at=service.now()),
            c.VoidRound(reason="\x1b[2J\x1b[32mall fine\r", actor=floor, at=service.now()),
        ]
    ):
        service.execute("PG-9", command, f"k-{number}")
    store.close()
    shown = paigow(
        "audit", "recall", "--db", "sqlite:///casino.db", "--table", "PG-9", "--round", "1"
    )
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\r" not in shown.stdout
    assert "\\x1b[2J\\x1b[32mall fine\\r" in shown.stdout
