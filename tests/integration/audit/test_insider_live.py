"""Issue 17, the hole the threat model named: an insider with write access to the database and NO
signing key INSERTs a well-formed event (hashes by the published recipe) WHILE the service runs.
The service must not fold it and must not seal it: the store's append tags (adapters/store/tags.py)
tell its own appends from the insider's rows. On SQLite and PostgreSQL, the service in process.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store import open_store
from entrypoints.simulation.mixed_session import Session
from eventlog.system_events import SYSTEM_STREAM
from service_layer.service import LogTampered, StoreUnverified, TableService
from table_core import commands as c
from table_core.events import Actor
from table_core.ports import ConcurrencyError

from .conftest import START, Casino
from .test_insider import sealing, verify

FLOOR = Actor(id="floor-1", role="floor")
CAGE = Actor(id="cage-1", role="cage")


def _service(store: Any, *, shared: bool = False) -> TableService:
    clock = SteppingClock(START + timedelta(hours=2), timedelta(seconds=2))
    return TableService(store, clock=clock, source=SeededDeckAndDice(7), shared=shared)


def _forge_cash_out(casino: Casino, table: str) -> int:
    """The insider's row: a cash-out at the tail of ``table``'s stream, by the recipe."""
    forger = casino.forger
    template = forger.payload(forger.find("chips_bought_in", lambda p: p["table_id"] == table))
    template.update(type="chips_cashed_out", at=forger.rows()[-1][6])
    template.pop("source", None)
    return forger.append_forged(table, "chips_cashed_out", template)


def _system_events(casino: Casino, kind: str) -> list[dict[str, Any]]:
    return [
        json.loads(r[5]) for r in casino.forger.rows() if r[1] == SYSTEM_STREAM and r[3] == kind
    ]


def test_a_cash_out_inserted_while_the_service_runs_is_never_sealed(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    service = _service(casino.store)
    service.start()
    table = next(r[1] for r in casino.forger.rows() if r[1] != SYSTEM_STREAM)
    state = service.load(table)  # held in memory, as a running table is
    player = sorted(state.balances)[0]
    signed_before = [cp.position for cp in casino.store.checkpoints()]

    forged = _forge_cash_out(casino, table)

    buy_in = c.BuyIn(player_id=player, amount=10_000, actor=CAGE, at=service.now())
    # The service's view is one version behind: the store refuses the stale write (as before)...
    with pytest.raises(ConcurrencyError):
        service.execute(table, buy_in, f"{table}:live:1")
    # ...and the retry (HTTP decides again on the table caught up) meets the untagged event.
    with pytest.raises(LogTampered, match=f"position {forged}"):
        service.execute(table, buy_in, f"{table}:live:1")
    assert service.refusing is not None and f"position {forged}" in service.refusing
    # The table, and every other, refuses from now on; nothing more is signed.
    other = next(r[1] for r in casino.forger.rows() if r[1] not in (SYSTEM_STREAM, table))
    with pytest.raises(StoreUnverified, match="commands are refused"):
        service.execute(other, c.StartRound(actor=FLOOR, at=service.now()), f"{other}:live:1")
    service.stop()

    failed = _system_events(casino, "verification_failed")
    assert [(f["position"], f["stream_id"], f["problem"]) for f in failed] == [
        (forged, table, "untagged")
    ]
    assert [cp.position for cp in casino.store.checkpoints()] == signed_before
    assert max(signed_before) < forged
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert status == 1
    assert [(f[0], f[1]) for f in sealing(findings)] == [("chain.unsealed", forged)]


def test_a_round_end_on_another_table_signs_nothing_over_the_inserted_event(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    """No version conflict at all: the next checkpoint anywhere (here the service's own sealed
    system event) would cover the forged row, and the store refuses to sign it."""
    service = _service(casino.store)
    service.start()
    table = next(r[1] for r in casino.forger.rows() if r[1] != SYSTEM_STREAM)
    rules = service.load(table).rules  # held before the insider writes: no catch-up below
    assert rules is not None
    forged = _forge_cash_out(casino, table)
    opening = c.OpenTable(table_id="NEW-1", rules=rules, actor=FLOOR, at=service.now())
    with pytest.raises(LogTampered, match=f"position {forged}"):
        service.execute("NEW-1", opening, "NEW-1:open")  # a table fact: sealed at once
    assert casino.store.stream_version("NEW-1") == 0  # nothing written
    assert [f["position"] for f in _system_events(casino, "verification_failed")] == [forged]
    assert all(cp.position < forged for cp in casino.store.checkpoints())


def test_two_workers_sharing_the_database_append_and_sign_without_a_false_alarm(
    casino: Casino, tmp_path: Path, capsys: Any
) -> None:
    """Every holder of the key tags its appends: worker A signs over B's events and catches B's
    tables up (and B A's), and nothing is refused."""
    signer = casino.store.signer
    second = open_store(casino.url, signing_key=signer)
    try:
        a, b = _service(casino.store, shared=True), _service(second, shared=True)
        a.start()
        b.start()
        play_a = Session(a, seed=3, tables=1, prefix="A-")
        play_b = Session(b, seed=4, tables=1, prefix="B-")
        for _ in range(3):
            play_a.play(1)
            play_b.play(1)
            assert b.load("A-1").version == a.load("A-1").version  # caught up, tags checked
            assert a.load("B-1").version == b.load("B-1").version
        b.stop()
        a.stop()
    finally:
        second.close()
    assert not play_a.stats.refused and not play_b.stats.refused
    assert a.refusing is None and b.refusing is None
    assert _system_events(casino, "verification_failed") == []
    status, findings, _ = verify(casino, tmp_path, capsys)
    assert (status, findings) == (0, [])
