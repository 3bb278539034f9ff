"""A running service notices at once a log that went backwards or was rewritten under it: a
table's last rounds cut with their checkpoints, the log's tail cut, a table's last event rewritten
and hashed again. The next command is ``log_tampered`` (never a 409 "another command changed it
first"), ``verification_failed`` is recorded naming the position the service held, every command
is refused, ``/ready`` names it, and nothing more is signed. On SQLite (the file's writer) and
PostgreSQL (the owner: only it can delete), the service in process; the live server's reproduction
is tests/e2e/http/test_insider_http.py.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.store.migrate import head_revision
from entrypoints.simulation.mixed_session import Session
from service_layer.readiness import readiness
from service_layer.service import LogTampered, StoreUnverified, TableService
from table_core import commands as c
from table_core.events import Actor
from table_core.ports import LogRewritten

from .conftest import START, Casino
from .insider import system_events
from .test_insider import verify

DEALER = Actor(id="dealer-1", role="dealer")


def _playing(casino: Casino) -> tuple[TableService, Session]:
    """A started service that played three rounds on table A-1 and one on B-1 (it wrote them)."""
    service = TableService(
        casino.store,
        clock=SteppingClock(START + timedelta(hours=2), timedelta(seconds=2)),
        source=SeededDeckAndDice(7),
        verify=lambda: casino.store.verify().first_bad,
    )
    service.start()
    play = Session(service, seed=3, tables=2, prefix="T-")
    play.play(3)
    assert not play.stats.refused
    return service, play


def _last_round_start(casino: Casino, table: str) -> int:
    return max(int(r[0]) for r in casino.forger.rows() if r[1] == table and r[3] == "round_started")


def _start_round(service: TableService, table: str, tag: str) -> None:
    service.execute(table, c.StartRound(actor=DEALER, at=service.now()), f"{table}:{tag}")


def _refused_everywhere(casino: Casino, service: TableService, signed: list[int]) -> None:
    """Every command refused, /ready names it, the store signs nothing more."""
    with pytest.raises(StoreUnverified, match="commands are refused"):
        _start_round(service, "T-2", "after")
    found = readiness(casino.store, service, head_revision())
    assert found.reason is not None and found.reason.startswith("commands: log_tampered: ")
    assert service.tampered_count == 1
    with pytest.raises(LogRewritten):
        casino.store.checkpoint(service.now())
    service.stop()
    assert [cp.position for cp in casino.store.checkpoints()] == signed


@pytest.mark.parametrize("sealed", [False, True], ids=["round-start", "sealed-buy-in"])
def test_a_tables_last_round_cut_with_its_checkpoint_is_noticed_at_once(
    live: Casino, tmp_path: Path, capsys: Any, sealed: bool
) -> None:
    """The next command is a round's start (PostgreSQL: the one-call append, the server checks
    the head it extends) or a buy-in between rounds (sealed at once: the pipelined append checks
    it before signing)."""
    service, _play = _playing(live)
    held = live.forger.rows()[-1]  # the log's last event: T-2's round end, sealed
    first = _last_round_start(live, "T-1")
    held_t1 = max(int(r[0]) for r in live.forger.rows() if r[1] == "T-1")
    player = sorted(service.load("T-1").balances)[0]
    live.forger.cut_tail(first)  # T-1's last round and what followed, with their checkpoints
    signed = [cp.position for cp in live.store.checkpoints()]
    with pytest.raises(LogTampered, match=f"position {held_t1}"):  # never a 409
        if sealed:
            cage = Actor(id="cage-1", role="cage")
            buy_in = c.BuyIn(player_id=player, amount=100, actor=cage, at=service.now())
            service.execute("T-1", buy_in, "T-1:buy")
        else:
            _start_round(service, "T-1", "next")
    _refused_everywhere(live, service, signed)
    failed = [(p["position"], p["stream_id"], p["problem"])
              for _, p in system_events(live, "verification_failed")]  # fmt: skip
    assert failed == [(held_t1, "T-1", "rewound")]
    assert held[0] > held_t1
    status, findings, _ = verify(live, tmp_path, capsys)
    recorded = [f for f in findings if f["clause"] == "service.verification_failed"]
    assert status == 1 and f"position {held_t1}" in recorded[0]["message"]


def test_a_cut_of_the_logs_tail_is_noticed_by_a_command_on_another_table(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    """T-2's last round is the log's tail; the next command is at T-1, untouched: the log's head
    went back under the store, and that is enough."""
    service, _play = _playing(live)
    last = int(live.forger.rows()[-1][0])
    live.forger.cut_tail(_last_round_start(live, "T-2"))
    signed = [cp.position for cp in live.store.checkpoints()]
    with pytest.raises(LogTampered, match=f"position {last}"):
        _start_round(service, "T-1", "next")
    with pytest.raises(StoreUnverified):
        _start_round(service, "T-2", "after")
    service.stop()
    assert [cp.position for cp in live.store.checkpoints()] == signed
    failed = [(p["position"], p["problem"]) for _, p in system_events(live, "verification_failed")]
    assert failed == [(last, "rewound")]


def test_a_tables_last_event_rewritten_and_rehashed_is_noticed(
    live: Casino, tmp_path: Path, capsys: Any
) -> None:
    service, _play = _playing(live)
    position = max(int(r[0]) for r in live.forger.rows() if r[1] == "T-1")
    # The payload changed, the event and both chains after it hashed again, no checkpoint touched.
    live.forger.forge(position, lambda p: p.update(note="mallory"), sign=False)
    signed = [cp.position for cp in live.store.checkpoints()]
    with pytest.raises(LogTampered, match=f"position {position}"):
        _start_round(service, "T-1", "next")
    _refused_everywhere(live, service, signed)
    failed = [(p["position"], p["problem"]) for _, p in system_events(live, "verification_failed")]
    assert failed == [(position, "rewritten")]


def test_another_writer_moving_a_table_on_is_still_a_conflict(live: Casino) -> None:
    """The other side of the line: a second process holding the key appends to the table; the
    first one's stale append is a version conflict (caught up and decided again), not tampering."""
    from adapters.store import open_store

    service, _play = _playing(live)
    second = open_store(live.url, signing_key=live.store.signer)
    try:
        other = TableService(second, clock=SteppingClock(START + timedelta(hours=3),
                             timedelta(seconds=2)), shared=True)  # fmt: skip
        _start_round(other, "T-1", "other")
    finally:
        second.close()
    from table_core.ports import ConcurrencyError

    with pytest.raises(ConcurrencyError):
        _start_round(service, "T-1", "stale")  # decided on the table held, one version behind
    assert service.tampered is None and service.refusing is None
    assert live.store.tampered is None
