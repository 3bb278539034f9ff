"""``paigow db verify`` reports the unsealed tail (only rounds in progress may be unsealed);
``paigow db adopt`` vouches, by a recorded and attributed step, for events no append tag of the
key covers (a log's head written before the tags, events appended without the key); a store
without its key appends nothing, with one line naming the fix. On SQLite and PostgreSQL, the
commands in process."""

from __future__ import annotations

import getpass
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from entrypoints.cli.main import main
from eventlog.system_events import SYSTEM_STREAM, ServiceStopped
from service_layer.operators.keys import key_store_for
from service_layer.service import TableService
from service_layer.system_stream import SystemStream
from table_core import commands as c
from table_core.events import Actor
from table_core.ports import Actor as PortsActor

from .conftest import START, Casino
from .insider import Insider, cash_out_payload, system_events
from .test_insider import verify

DEALER = Actor(id="dealer-1", role="dealer")


@pytest.fixture
def keyed(live: Casino, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Casino:
    """The casino with its private key where the commands look for it (PostgreSQL keeps none
    beside the database: ``PAIGOW_SIGNING_KEY``)."""
    if not live.url.startswith("sqlite"):
        key = tmp_path / "casino.pem"
        live.store.signer.write(key)
        monkeypatch.setenv("PAIGOW_SIGNING_KEY", str(key))
    return live


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def _service(casino: Casino, at: datetime | None = None) -> TableService:
    return TableService(
        casino.store,
        clock=SteppingClock(at or START + timedelta(hours=2), timedelta(seconds=2)),
        source=SeededDeckAndDice(7),
        verify=lambda: casino.store.verify().first_bad,
    )


def _table(casino: Casino) -> str:
    return next(str(r[1]) for r in casino.forger.rows() if r[1] != SYSTEM_STREAM)


# --- db verify -----------------------------------------------------------------------------------


def test_db_verify_says_ok_of_a_sealed_log(keyed: Casino, capsys: Any) -> None:
    status, out, err = _run(capsys, "db", "verify", "--db", keyed.url)
    events, checkpoints = len(keyed.forger.rows()), len(keyed.store.checkpoints())
    assert (status, err) == (0, "")
    assert out == f"ok: {events} events, {checkpoints} checkpoints\n"


def test_db_verify_fails_a_forged_unsealed_tail(keyed: Casino, capsys: Any) -> None:
    table = _table(keyed)
    forged = Insider(keyed).append_forged(table, "chips_cashed_out", cash_out_payload(keyed, table))
    status, out, err = _run(capsys, "db", "verify", "--db", keyed.url)
    assert (status, out) == (1, "")
    # The forged event carries no append tag of the key either: the line says so, and what
    # lists such events for checking (docs/store.md, "Adopting untagged events").
    assert err == (
        f"paigow: verification FAILED: unsealed: 1 events from position {forged}: not only "
        f"rounds in progress (a table event outside any round in progress at position {forged}); "
        "1 of them no append tag of the key covers (written without the signing key, or behind "
        f"the store's back): `paigow db adopt --db {keyed.url}` lists them for checking and "
        "adoption\n"
    )


def test_db_verify_lets_a_round_in_progress_be_unsealed_and_says_so(
    keyed: Casino, capsys: Any
) -> None:
    service = _service(keyed)
    service.start()
    table = _table(keyed)
    number = (service.load(table).round.number if service.load(table).round else 0) + 1
    service.execute(table, c.StartRound(actor=DEALER, at=service.now()), f"{table}:go")
    started = int(keyed.forger.rows()[-1][0])
    events, checkpoints = len(keyed.forger.rows()), len(keyed.store.checkpoints())
    status, out, err = _run(capsys, "db", "verify", "--db", keyed.url)
    assert (status, err) == (0, "")
    assert out == (
        f"ok: {events} events, {checkpoints} checkpoints; unsealed: 1 events from position "
        f"{started} (rounds in progress: {table} round {number})\n"
    )


# --- db adopt ------------------------------------------------------------------------------------


def _written_without_tags(casino: Casino) -> int:
    """A head written as the code before the append tags wrote it: the service's stop, unsealed
    and untagged (the committed legacy log ends so). Its position."""
    tagger, casino.store.tagger = casino.store.tagger, None
    try:
        recorded = SystemStream(casino.store).append(
            [ServiceStopped(at=START + timedelta(hours=1))], checkpoint=False
        )
    finally:
        casino.store.tagger = tagger
    return recorded[-1].position


def test_an_untagged_head_is_adopted_by_a_recorded_step_then_served(
    keyed: Casino, tmp_path: Path, capsys: Any
) -> None:
    head = _written_without_tags(keyed)
    status, _out, err = _run(capsys, "db", "verify", "--db", keyed.url)
    assert status == 1 and "service lifecycle events" in err and "paigow db adopt" in err
    status, out, _ = _run(capsys, "db", "adopt", "--db", keyed.url)
    assert status == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"position": head, "stream": SYSTEM_STREAM, "version": keyed.forger.row(head)[2]}
    ]
    reason = "written before the append tags; checked with audit verify"
    status, out, err = _run(
        capsys, "db", "adopt", "--db", keyed.url, "--through", str(head), "--reason", reason
    )
    assert status == 0, err
    done = json.loads(out)
    assert (done["adopted"], done["from"], done["through"]) == (1, head, head)
    assert done["record"] == head + 1 and done["checkpoint"] == head + 1
    (position, record), *_ = system_events(keyed, "unsealed_events_adopted")
    assert position == head + 1
    # No API key yet (a log written before keys): the adoption is the bootstrap's, by the login.
    assert (record["actor_id"], record["actor_role"], record["reason"]) == (
        f"cli:{getpass.getuser()}",
        "bootstrap",
        reason,
    )
    assert (record["first_position"], record["through_position"], record["events"]) == (
        head,
        head,
        1,
    )
    # Served again (after the adoption's own time): nothing refused, every event sealed.
    service = _service(keyed, datetime.now(UTC) + timedelta(minutes=1))
    service.start()
    service.stop()
    assert service.refusing is None and system_events(keyed, "verification_failed") == []
    status, out, _ = _run(capsys, "db", "verify", "--db", keyed.url)
    assert status == 0 and "unsealed" not in out
    status, findings, _ = verify(keyed, tmp_path, capsys)
    assert (status, findings) == (0, [])


def test_without_the_adoption_the_untagged_head_refuses_the_service(keyed: Casino) -> None:
    head = _written_without_tags(keyed)
    service = _service(keyed)
    service.start()
    assert service.tampered is not None and f"position {head}" in service.tampered


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--through", "{before}", "--reason", "r"], "is untagged too"),
        (["--through", "{head}", "--reason", " "], "states its reason"),
        (["--through", "{head}"], "needs --through and --reason"),
        (["--through", "999999", "--reason", "r"], "is not in the log"),
        (["--through", "{head}", "--reason", "r", "--actor", "f"], "leave --actor out"),
    ],
)
def test_an_adoption_that_does_not_hold_writes_nothing(
    keyed: Casino, capsys: Any, argv: list[str], message: str
) -> None:
    head = _written_without_tags(keyed)
    events = len(keyed.forger.rows())
    args = [a.format(before=head - 1, head=head) for a in argv]
    status, out, err = _run(capsys, "db", "adopt", "--db", keyed.url, *args)
    assert (status, out) == (2, "") and message in err and err.count("\n") == 1
    assert len(keyed.forger.rows()) == events


def test_nothing_to_adopt_in_a_sealed_log(keyed: Casino, capsys: Any) -> None:
    status, out, _ = _run(capsys, "db", "adopt", "--db", keyed.url)
    assert (status, out) == (0, "")
    status, _out, err = _run(
        capsys, "db", "adopt", "--db", keyed.url, "--through", "1", "--reason", "r"
    )
    assert status == 2 and "nothing to adopt" in err


# --- no key, no append ---------------------------------------------------------------------------


def test_a_write_without_the_key_is_refused_up_front(
    live: Casino, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What used to be written unsealed and untagged, and then refused every command of the next
    server as if an insider had written it, is now refused before anything is written."""
    monkeypatch.delenv("PAIGOW_SIGNING_KEY", raising=False)
    if live.url.startswith("sqlite"):  # the private half went to the vault
        Path(live.url.removeprefix("sqlite:///") + ".signing-key").unlink()
    events = len(live.forger.rows())
    status, out, err = _run(
        capsys, "keys", "create", "--role", "floor", "--actor", "f-1", "--db", live.url
    )
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert "no signing key" in err and "set PAIGOW_SIGNING_KEY" in err
    assert len(live.forger.rows()) == events
    with live.store.engine.connect() as connection:
        keys = connection.exec_driver_sql("SELECT count(*) FROM api_keys").scalar()
    assert keys == 0  # nothing half-written: the key row waits for its event


@pytest.mark.parametrize("backend", ["postgresql"])
def test_an_anchor_writer_run_as_the_service_role_writes_nothing(
    keyed: Casino, capsys: Any, tmp_path: Path
) -> None:
    """A rotation and an adoption each write an anchor, the owner's right since migration 0012:
    run as the service role they are refused before anything is written (no half-made rotation
    whose new key could vouch for nothing)."""
    import os

    from sqlalchemy.engine import make_url

    role = os.environ["PAIGOW_PG_SERVICE_ROLE"]
    as_service = make_url(keyed.url).set(username=role).render_as_string(hide_password=False)
    _, token = key_store_for(keyed.store).create(
        "sec-1", "security", START, by=PortsActor("cli:ops", "bootstrap")
    )  # both act as the key officer (R19)
    officer = tmp_path / "security.key"
    officer.write_text(token + "\n")
    officer.chmod(0o600)
    events = len(keyed.forger.rows())
    key = os.environ["PAIGOW_SIGNING_KEY"]
    new = tmp_path / "next.pem"
    status, out, err = _run(
        capsys, "keys", "signing", "rotate", "--db", as_service, "--key", key, "--out", str(new),
        "--key-file", str(officer),
    )  # fmt: skip
    assert (status, out) == (2, "") and "run it as the owner role" in err
    assert not new.exists() and not Path(str(new) + ".pub").exists()
    assert len(keyed.forger.rows()) == events
    head = _written_without_tags(keyed)
    events = len(keyed.forger.rows())
    status, out, err = _run(
        capsys, "db", "adopt", "--db", as_service, "--through", str(head), "--reason", "r",
        "--key-file", str(officer),
    )  # fmt: skip
    assert (status, out) == (2, "") and "run it as the owner role" in err
    assert len(keyed.forger.rows()) == events
