"""The application service over every store: one round, restart, retries, stale writers, dealing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from eventlog.system_events import SYSTEM_STREAM
from service_layer.service import StoreUnverified, TableService
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.ports import CommandIdConflict, ConcurrencyError
from table_core.rules import TableRules

DEALER = Actor(id="dealer-7", role="dealer")
FLOOR = Actor(id="floor-2", role="floor")
CAGE = Actor(id="cage-1", role="cage")
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
Factory = Callable[[], Any]


def service(store: Any, seed: int = 3) -> TableService:
    return TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(seed)
    )


def open_table(svc: TableService) -> None:
    run = svc.execute
    run("PG-1", c.OpenTable(table_id="PG-1", actor=FLOOR, at=svc.now()), "open")
    run("PG-1", c.SeatPlayer(seat=2, player_id="ana", actor=DEALER, at=svc.now()), "seat-ana")
    run("PG-1", c.BuyIn(player_id="ana", amount=100_000, actor=CAGE, at=svc.now()), "buy-ana")


def play_round(svc: TableService, n: int) -> None:
    run = svc.execute
    run("PG-1", c.StartRound(actor=DEALER, at=svc.now()), f"r{n}-start")
    run("PG-1", c.PlaceBet(player_id="ana", amount=2_500, actor=DEALER, at=svc.now()), f"r{n}-bet")
    run("PG-1", c.CloseBets(actor=DEALER, at=svc.now()), f"r{n}-close")
    svc.deal_electronic("PG-1", DEALER, f"r{n}-deal")
    svc.roll_dice_electronic("PG-1", DEALER, f"r{n}-dice")
    run("PG-1", c.SetHand(player_id="ana", actor=DEALER, at=svc.now()), f"r{n}-hand")
    run("PG-1", c.SetBankerHand(actor=DEALER, at=svc.now()), f"r{n}-banker")
    run("PG-1", c.Settle(actor=DEALER, at=svc.now()), f"r{n}-settle")
    run("PG-1", c.CloseRound(actor=DEALER, at=svc.now()), f"r{n}-close-round")


def test_a_restarted_service_rebuilds_the_table_from_its_events(store_factory: Factory) -> None:
    svc = service(store_factory())
    svc.start()
    open_table(svc)
    play_round(svc, 1)
    play_round(svc, 2)
    live = svc.load("PG-1")
    again = TableService(store_factory()).load("PG-1")
    assert again == live
    assert live.version == svc.store.stream_version("PG-1")
    assert live.last_round == 2 and live.round is not None and live.round.phase == "closed"
    assert live.balances["ana"] + live.house_result + live.commission == 100_000


def test_a_retried_bet_returns_the_first_events_and_writes_nothing(store_factory: Factory) -> None:
    svc = service(store_factory())
    open_table(svc)
    svc.execute("PG-1", c.StartRound(actor=DEALER, at=svc.now()), "start")
    bet = c.PlaceBet(player_id="ana", amount=2_500, actor=DEALER, at=svc.now())
    first = svc.execute("PG-1", bet, "terminal-7:bet:41")
    version = svc.store.stream_version("PG-1")
    retry = svc.execute("PG-1", bet, "terminal-7:bet:41")  # the terminal timed out and retried
    assert retry.replayed and [e.hash for e in retry.events] == [e.hash for e in first.events]
    assert svc.store.stream_version("PG-1") == version
    fresh = service(store_factory())  # the retry reaches another process after a restart
    again = fresh.execute("PG-1", bet, "terminal-7:bet:41")
    assert again.replayed and [e.position for e in again.events] == [
        e.position for e in first.events
    ]
    assert fresh.store.stream_version("PG-1") == version
    assert again.state.round is not None and len(again.state.round.wagers) == 1


def test_a_stale_writer_gets_a_concurrency_error_and_writes_nothing(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory())
    open_table(one)
    two.load("PG-1")  # terminal two has the table loaded
    one.execute("PG-1", c.StartRound(actor=DEALER, at=one.now()), "one:start")
    version = one.store.stream_version("PG-1")
    with pytest.raises(ConcurrencyError):
        two.execute("PG-1", c.StartRound(actor=DEALER, at=two.now()), "two:start")
    assert one.store.stream_version("PG-1") == version
    with pytest.raises(DomainError, match="open_for_bets"):  # reloaded: the round is already open
        two.execute("PG-1", c.StartRound(actor=DEALER, at=two.now()), "two:start")


def test_a_recorded_deal_is_never_drawn_again(store_factory: Factory) -> None:
    svc = service(store_factory(), seed=11)
    open_table(svc)
    svc.execute("PG-1", c.StartRound(actor=DEALER, at=svc.now()), "start")
    svc.execute("PG-1", c.PlaceBet(player_id="ana", amount=1_000, actor=DEALER, at=svc.now()), "b")
    svc.execute("PG-1", c.CloseBets(actor=DEALER, at=svc.now()), "close")
    dealt = svc.deal_electronic("PG-1", DEALER, "deal-1")
    deck = dealt.state.round.deal  # type: ignore[union-attr]
    restarted = service(store_factory(), seed=99)  # a crash: a new process, another source
    with pytest.raises(DomainError, match="dealt"):
        restarted.deal_electronic("PG-1", DEALER, "deal-2")
    assert restarted.deal_electronic("PG-1", DEALER, "deal-1").replayed
    assert restarted.load("PG-1").round.deal == deck  # type: ignore[union-attr]
    rolled = restarted.roll_dice_electronic("PG-1", DEALER, "dice-1")
    assert rolled.state.round.dice is not None  # type: ignore[union-attr]


def test_the_system_stream_records_what_a_regulator_expects(store_factory: Factory) -> None:
    store = store_factory()
    svc = service(store)
    svc.start()
    open_table(svc)
    rules = TableRules(version=2)
    reason = "new commission sign posted"
    change = c.ChangeRules(rules=rules, reason=reason, actor=FLOOR, at=svc.now())
    svc.execute("PG-1", change, "rules-2")
    svc.execute("PG-1", c.StartRound(actor=DEALER, at=svc.now()), "start")
    svc.execute("PG-1", c.VoidRound(reason="card exposed", actor=FLOOR, at=svc.now()), "void")
    svc.stop()
    types = [e.type for e in store.read_stream(SYSTEM_STREAM)]
    assert types == [
        "service_started",
        "store_opened",
        "rules_profile_changed",
        "round_voided",
        "service_stopped",
    ]


class _Finding:
    position, stream_id, problem, detail = 7, "PG-1", "hash", "payload bytes changed"

    def __str__(self) -> str:
        return "position 7: hash: payload bytes changed"


def test_commands_are_refused_while_the_store_fails_verification(store_factory: Factory) -> None:
    store = store_factory()
    verdict: list[Any] = [_Finding()]
    svc = TableService(store, clock=SteppingClock(START), verify=lambda: verdict[0])
    svc.start()
    with pytest.raises(StoreUnverified, match="position 7"):
        svc.execute("PG-1", c.OpenTable(table_id="PG-1", actor=FLOOR, at=svc.now()), "open")
    assert store.stream_version("PG-1") == 0
    assert [e.type for e in store.read_stream(SYSTEM_STREAM)][-2:] == [
        "verification_failed",
        "commands_refused",
    ]
    verdict[0] = None
    assert svc.check_store()
    svc.execute("PG-1", c.OpenTable(table_id="PG-1", actor=FLOOR, at=svc.now()), "open")


def test_a_command_id_used_on_another_table_is_a_conflict_not_a_replay(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    open_table(svc)
    svc.execute("PG-2", c.OpenTable(table_id="PG-2", actor=FLOOR, at=svc.now()), "open-2")
    svc.execute("PG-1", c.StartRound(actor=DEALER, at=svc.now()), "terminal-3:41")
    version = svc.store.stream_version("PG-2")
    # the same key sent for table PG-2, where the core refuses the command: never PG-1's events
    with pytest.raises(CommandIdConflict, match="PG-1"):
        svc.execute("PG-2", c.CloseBets(actor=DEALER, at=svc.now()), "terminal-3:41")
    assert svc.store.stream_version("PG-2") == version
