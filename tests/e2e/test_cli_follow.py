"""``paigow audit follow`` as a regulator runs it (issue 22): a separate process tailing the
casino's database while the casino plays, on SQLite (polling) and on PostgreSQL (LISTEN/NOTIFY,
in a read-only session). It reports each round verified, catches a row an insider changes while
it runs (and exits 1 with ``--exit-on-finding``), resumes from its state file without reporting
again, and refuses bad usage with one line and exit status 2.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from entrypoints.simulation.mixed_session import DEALER, FLOOR, Session
from service_layer.service import TableService
from table_core import commands as c
from tests.integration.audit.tamper import Forger
from tests.integration.conftest import pg_database, pg_head_template, pg_url  # noqa: F401 (fixtures)

from .conftest import PAIGOW, Run

WAIT = 90.0  # seconds: a loaded 2-core machine; the latency is printed, not asserted


@dataclass
class Live:
    """A casino playing through its service, its database, and a follower's URL for it."""

    kind: str
    url: str
    follow_url: str
    store: Any
    service: TableService
    session: Session
    forger: Forger
    key_file: Path

    def last_checkpoint(self) -> int:
        return max(int(row[0]) for row in self.store.raw_log()[1])


@dataclass
class Follower:
    """``paigow audit follow`` running; each stdout line as it came, with its arrival time."""

    process: subprocess.Popen[str]
    lines: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    def read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            self.lines.append((time.monotonic(), json.loads(text)))

    def verified(self, position: int) -> float:
        """When the follower said it verified up to ``position``."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if line.get("verified", 0) >= position:
                    return at
            assert self.process.poll() is None, self.lines
            time.sleep(0.02)
        raise AssertionError(f"position {position} not verified in {WAIT} s: {self.lines}")

    def alerts(self) -> list[tuple[str, str, int]]:
        return [
            (a["alert"]["kind"], a["alert"]["clause"], a["alert"]["position"])
            for _, a in self.lines
            if "alert" in a
        ]


@pytest.fixture(params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Live]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'casino.db'}"
        store = open_store(url)
        follow_url, target = url, str(tmp_path / "casino.db")
    else:
        url = target = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
        store = open_store(url, signing_key=Signer.generate())
        parsed = make_url(url)
        options = f"{parsed.query['options']} -cdefault_transaction_read_only=on"
        follow_url = parsed.update_query_dict({"options": options}).render_as_string(False)
    key_file = tmp_path / "casino.pub"
    key_file.write_text(store.public_key.hex())  # the key the regulator was given
    service = TableService(
        store,
        clock=SteppingClock(datetime(2026, 12, 2, 20, 0, tzinfo=UTC), timedelta(seconds=2)),
        source=SeededDeckAndDice(22),
    )
    service.start()
    session = Session(service, seed=22, tables=2)
    session.play(2)
    try:
        yield Live(
            request.param,
            url,
            follow_url,
            store,
            service,
            session,
            Forger(store, request.param, target),
            key_file,
        )
    finally:
        store.close()


def start_follower(live: Live, tmp_path: Path, *extra: str) -> Follower:
    process = subprocess.Popen(
        [str(PAIGOW), *follow_args(live, tmp_path), "--exit-on-finding", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    follower = Follower(process)
    threading.Thread(target=follower.read, daemon=True).start()
    return follower


def follow_args(live: Live, tmp_path: Path) -> list[str]:
    return [
        "audit",
        "follow",
        "--db",
        live.follow_url,
        "--public-key",
        str(live.key_file),
        "--state",
        str(tmp_path / "follow-state.json"),
        "--findings",
        str(tmp_path / "findings.jsonl"),
        "--format",
        "json",
    ]


def tamper_a_round(live: Live) -> int:
    """A round starts at PG-1; an insider changes its ``round_started`` row before the round is
    sealed (the triggers got round); the round is voided, which signs the checkpoint over it."""
    service = live.service
    service.execute("PG-1", c.StartRound(at=service.now(), actor=DEALER), "tamper:start")
    position = max(
        int(row[0]) for row in live.forger.rows() if row[1] == "PG-1" and row[3] == "round_started"
    )
    live.forger.replace_payload(position, lambda p: p.update(rules_version=9))
    service.execute("PG-1", c.VoidRound(at=service.now(), reason="x", actor=FLOOR), "tamper:void")
    return position


def test_a_follower_verifies_the_live_log_and_catches_a_row_changed_while_it_runs(
    live: Live, tmp_path: Path, paigow: Run
) -> None:
    follower = start_follower(live, tmp_path)
    try:
        follower.verified(live.last_checkpoint())
        latencies = []
        for table in live.session.tables * 2:  # a round at a time, each sealed by a checkpoint
            live.session.round(table)
            committed, position = time.monotonic(), live.last_checkpoint()
            latencies.append(follower.verified(position) - committed)
        state = json.loads((tmp_path / "follow-state.json").read_text())
        assert state["position"] == live.last_checkpoint()
        print(f"\n{live.kind}: checkpoint commit -> verdict, seconds: {latencies}")

        position = tamper_a_round(live)
        assert follower.process.wait(timeout=WAIT) == 1
    finally:
        if follower.process.poll() is None:
            follower.process.kill()
    time.sleep(0.1)  # the reader thread takes the last lines
    expected = [("integrity", "chain.hash", position), ("procedure", "replay", position)]
    assert follower.alerts() == expected
    journal = [json.loads(x) for x in (tmp_path / "findings.jsonl").read_text().splitlines()]
    assert [(x["seq"], x["finding"]["clause"], x["finding"]["position"]) for x in journal] == [
        (1, "chain.hash", position),
        (2, "replay", position),
    ]

    state = json.loads((tmp_path / "follow-state.json").read_text())
    assert state["position"] == state["checkpoint_position"] > position
    # Restarted: it re-folds up to its saved position in silence and reports nothing again.
    again = paigow(*follow_args(live, tmp_path), "--once")
    lines = [json.loads(x) for x in again.stdout.splitlines()]
    assert again.returncode == 0, again.stderr
    assert lines[0]["position"] == state["position"]
    assert [x for x in lines if "alert" in x] == []
    assert len((tmp_path / "findings.jsonl").read_text().splitlines()) == 2


@pytest.mark.parametrize("live", ["postgresql"], indirect=True)
def test_the_postgresql_follower_session_is_read_only(live: Live) -> None:
    """The URL the follower ran with above cannot write (SQLite: the file opened ``mode=ro``)."""
    import psycopg

    from audit.sources import connect

    connection, _mark, _shown = connect(live.follow_url)
    connection.rollback()
    connection.autocommit = True  # not even the follower's own transaction settings
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        connection.execute("DELETE FROM proj_tables")
    connection.close()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--db", "sqlite:///missing.db"], "paigow: no database at missing.db;"),
        (["--poll", "0"], "paigow audit follow: --poll: 0.01 to 60 seconds; see --help"),
        (["--state", "state.json"], "paigow: state.json is not a follower state file"),
        (["--bogus"], "paigow: unrecognized arguments: --bogus; see --help"),
    ],
)
def test_bad_usage_is_one_line_and_status_2(
    paigow: Run, tmp_path: Path, args: list[str], says: str
) -> None:
    (tmp_path / "state.json").write_text("{not json")
    db = [] if "--db" in args else ["--db", "sqlite:///c.db"]
    if not (tmp_path / "c.db").exists():
        open_store(f"sqlite:///{tmp_path / 'c.db'}").close()
    done = paigow("audit", "follow", *db, *args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(says), done.stderr
    assert done.stdout == ""


def test_a_state_file_of_another_database_is_refused(paigow: Run, tmp_path: Path) -> None:
    for name in ("a.db", "b.db"):
        open_store(f"sqlite:///{tmp_path / name}").close()
    first = paigow("audit", "follow", "--db", "sqlite:///a.db", "--state", "s.json", "--once")
    assert first.returncode == 0, first.stderr
    done = paigow("audit", "follow", "--db", "sqlite:///b.db", "--state", "s.json", "--once")
    assert done.returncode == 2
    assert (
        done.stderr == "paigow: the state file s.json follows sqlite:///a.db, not sqlite:///b.db\n"
    )


@pytest.mark.parametrize("live", ["sqlite"], indirect=True)
def test_sigterm_stops_it_with_its_state_saved_and_status_0(live: Live, tmp_path: Path) -> None:
    follower = start_follower(live, tmp_path)
    try:
        follower.verified(live.last_checkpoint())
        follower.process.send_signal(signal.SIGTERM)
        assert follower.process.wait(timeout=WAIT) == 0
    finally:
        if follower.process.poll() is None:
            follower.process.kill()
    time.sleep(0.1)  # the reader thread takes the last line
    state = json.loads((tmp_path / "follow-state.json").read_text())
    assert follower.lines[-1][1]["stopped"] and follower.lines[-1][1]["status"] == 0
    assert follower.lines[-1][1]["position"] == state["position"] == live.last_checkpoint()
