"""Table snapshots (issue 22) on SQLite and PostgreSQL: a restart over a log with a snapshot folds
only the events after it, holds the state a full replay gives and decides the next command alike;
a snapshot that does not hold (signed by another key, its position or hash not the chain's, its
state not parsing) is refused with one warning line and the service replays. One that names the
store's key and whose signature does not hold (its state edited) was written behind the store's
back: tests/integration/audit/test_insider_rows.py has it refused as tampering."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from adapters.clock import SteppingClock
from adapters.logging import get_logger
from adapters.rng import SeededDeckAndDice
from adapters.store.signing import Signer
from service_layer.held_tables import table_events
from service_layer.service import TableService
from service_layer.snapshots import COLUMNS, INSERT, Snapshot, Snapshots
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.table import TableState, decide, fold
from tests.integration.backends import Opener, open_backend

DEALER = Actor(id="dealer-7", role="dealer")
FLOOR = Actor(id="floor-2", role="floor")
CAGE = Actor(id="cage-1", role="cage")
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
TABLE = "PG-1"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    yield from open_backend(request.param, request, tmp_path)


def started(store: Any, hour: int) -> TableService:
    """A service as ``paigow serve`` wires one: verifying at start, snapshots on."""
    svc = TableService(
        store,
        clock=SteppingClock(START + timedelta(hours=hour), timedelta(seconds=1)),
        source=SeededDeckAndDice(hour),
        verify=lambda: store.verify().first_bad,
        snapshots=Snapshots(store, 1000, get_logger(store="test")),
    )
    svc.start()
    return svc


def run(svc: TableService, command_id: str, make: Callable[[datetime], c.Command]) -> None:
    svc.execute(TABLE, make(svc.now()), command_id)


def open_table(svc: TableService) -> None:
    run(svc, "open", lambda at: c.OpenTable(table_id=TABLE, actor=FLOOR, at=at))
    for seat, name in ((2, "ana"), (5, "bo")):
        run(svc, f"seat-{name}", lambda at, s=seat, n=name: c.SeatPlayer(
            seat=s, player_id=n, actor=DEALER, at=at))  # fmt: skip
        run(svc, f"buy-{name}", lambda at, n=name: c.BuyIn(
            player_id=n, amount=50_000, actor=CAGE, at=at))  # fmt: skip


def start_round(svc: TableService, n: int) -> None:
    run(svc, f"start-{n}", lambda at: c.StartRound(actor=DEALER, at=at))
    run(svc, f"bet-ana-{n}", lambda at: c.PlaceBet(player_id="ana", amount=2_000, actor=DEALER,
                                                    at=at))  # fmt: skip


def play_round(svc: TableService, n: int) -> None:
    start_round(svc, n)
    run(svc, f"bet-bo-{n}", lambda at: c.PlaceBet(player_id="bo", amount=1_500, actor=DEALER,
                                                  at=at))  # fmt: skip
    run(svc, f"close-bets-{n}", lambda at: c.CloseBets(actor=DEALER, at=at))
    svc.deal_electronic(TABLE, DEALER, f"deal-{n}")
    svc.roll_dice_electronic(TABLE, DEALER, f"dice-{n}")
    for name in ("ana", "bo"):
        run(svc, f"hand-{name}-{n}", lambda at, p=name: c.SetHand(player_id=p, actor=DEALER,
                                                                    at=at))  # fmt: skip
    for step, command in (("banker", c.SetBankerHand), ("settle", c.Settle),
                          ("close", c.CloseRound)):  # fmt: skip
        run(svc, f"{step}-{n}", lambda at, k=command: k(actor=DEALER, at=at))


def full_replay(store: Any) -> TableState:
    return fold(table_events(store.read_stream(TABLE)))


def snapshot_taken(store_factory: Opener) -> tuple[Any, Snapshot]:
    """Two rounds played and the service stopped (a snapshot at its stop), then one more round
    and the start of another by a service that never stops (a crash): the log's tail."""
    first = started(store_factory(), 0)
    open_table(first)
    play_round(first, 1)
    play_round(first, 2)
    first.stop()
    store = store_factory()
    with store._connection() as conn:
        rows = list(conn.execute(f"SELECT {COLUMNS} FROM table_snapshots ORDER BY id"))
    assert len(rows) == 1
    snap = Snapshot(*rows[0])
    second = started(store, 1)
    play_round(second, 3)
    start_round(second, 4)
    return store, snap


def test_a_restart_folds_only_the_tail_and_decides_alike(store_factory: Opener) -> None:
    store, snap = snapshot_taken(store_factory)
    assert snap.table_id == TABLE and snap.version == 31 and full_replay(store).version == 45
    with capture_logs() as logs:
        again = started(store_factory(), 2)
    walked = again.snapshots.walked if again.snapshots else None
    assert walked is not None and walked.folded == 14  # round 3 (12 events) and round 4's start (2)
    assert not [e for e in logs if e["log_level"] == "warning"]
    whole = full_replay(store)
    assert again.load(TABLE) == whole and again.refusing is None
    assert whole.round is not None and whole.round.number == 4 and whole.phase == "open_for_bets"
    at = START + timedelta(hours=5)
    for command in (c.PlaceBet(player_id="bo", amount=1_500, actor=DEALER, at=at),
                    c.CloseBets(actor=DEALER, at=at), c.Settle(actor=DEALER, at=at)):  # fmt: skip
        assert _decided(again.load(TABLE), command) == _decided(whole, command)
    run(again, "bet-bo-4", lambda at: c.PlaceBet(player_id="bo", amount=1_500, actor=DEALER,
                                                 at=at))  # fmt: skip
    assert again.load(TABLE) == full_replay(store)


def _decided(state: TableState, command: c.Command) -> object:
    try:
        return decide(state, command)
    except DomainError as refusal:
        return refusal.message


def _plant(store: Any, snap: Snapshot, signer: Signer | None = None, **changes: Any) -> None:
    """A snapshot row as an insider (or a bug) would write it: the newest of its table."""
    fields = {**snap.__dict__, **changes}
    if signer is not None:
        fields["key_id"] = signer.key_id
        fields["signature"] = signer.private_key.sign(Snapshot(**fields).message()).hex()
    row = tuple(Snapshot(**fields).__dict__.values())
    with store._connection() as conn:
        conn.execute(store.sql(INSERT), row)  # the engines' connections are autocommit


def _edited_state(snap: Snapshot) -> str:
    data = json.loads(snap.state)
    data["state"]["balances"] = [[k, v + 100_000] for k, v in data["state"]["balances"]]
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


TAMPERING: dict[str, Callable[[Any, Snapshot], None]] = {
    "signed by another key": lambda store, snap: _plant(
        store, snap, Signer.generate(), state=_edited_state(snap)
    ),
    "hash not the chain's": lambda store, snap: _plant(
        store, snap, store.signer, global_hash="ab" * 32
    ),
    "position not a checkpoint": lambda store, snap: _plant(
        store, snap, store.signer, position=snap.position - 1
    ),
    "version not the table's": lambda store, snap: _plant(
        store, snap, store.signer, version=snap.version - 1, state=_older_state(snap)
    ),
    "state not parsing": lambda store, snap: _plant(store, snap, store.signer, state='{"x":1}'),
}
REASONS = {
    "signed by another key": "not signed by the store's key",
    "hash not the chain's": "no checkpoint there is signed over its hash",
    "position not a checkpoint": "no checkpoint there is signed over its hash",
    "version not the table's": "is not the chain's",
    "state not parsing": "the state does not parse",
}


def _older_state(snap: Snapshot) -> str:
    data = json.loads(snap.state)
    data["state"]["version"] -= 1
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize("tampering", sorted(TAMPERING))
def test_a_snapshot_that_does_not_hold_is_refused_and_the_service_replays(
    store_factory: Opener, tampering: str
) -> None:
    store, snap = snapshot_taken(store_factory)
    TAMPERING[tampering](store, snap)
    with capture_logs() as logs:
        again = started(store_factory(), 2)
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warnings] == ["snapshot_refused"]
    assert REASONS[tampering] in warnings[0]["reason"]
    assert warnings[0]["reason"].startswith(f"table {TABLE} at position ")
    walked = again.snapshots.walked if again.snapshots else None
    whole = full_replay(store)
    assert walked is not None and walked.folded == whole.version  # replayed from zero
    assert again.load(TABLE) == whole and again.refusing is None
    assert again.load(TABLE).balances == {"ana": whole.balances["ana"], "bo": whole.balances["bo"]}
