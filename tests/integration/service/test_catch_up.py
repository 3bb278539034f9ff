"""A stale table is caught up, not reloaded: two services (two processes, two workers of ``paigow
serve --workers N``) writing one table over every store. A service whose table another wrote
reads only the events after the version it holds, and its state is then the fold of the whole
stream, event for event. Also: a refusal decided on a stale state is decided again on the table
caught up, and service instances starting together all record themselves in the system stream.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from eventlog.system_events import SYSTEM_STREAM
from service_layer.held_tables import table_events
from service_layer.service import TableService
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.ports import ConcurrencyError
from table_core.table import TableState, fold
from tests.integration.counting_store import CountingStore

DEALER = Actor(id="dealer-7", role="dealer")
FLOOR = Actor(id="floor-2", role="floor")
CAGE = Actor(id="cage-1", role="cage")
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
TABLE = "PG-1"
Factory = Callable[[], Any]
Build = Callable[[TableService], c.Command]


def service(store: Any, seed: int = 3, **kw: Any) -> TableService:
    return TableService(
        CountingStore(store, TABLE),
        clock=SteppingClock(START, timedelta(seconds=1)),
        source=SeededDeckAndDice(seed),
        **kw,
    )


def counting(svc: TableService) -> CountingStore:
    store = svc.store
    assert isinstance(store, CountingStore)
    return store


def fresh_fold(svc: TableService) -> TableState:
    """The table folded from its whole stream, read past the counting wrapper."""
    return fold(table_events(counting(svc).inner.read_stream(TABLE)))


def run(svc: TableService, build: Build, command_id: str) -> None:
    """A command as the HTTP runner sends one without ``expected_version``: a stale writer is
    refused by the store, catches up and decides once more."""
    try:
        svc.execute(TABLE, build(svc), command_id)
    except ConcurrencyError:
        svc.execute(TABLE, build(svc), command_id)


def commands() -> list[tuple[str, Build]]:
    """Opening the table and one whole round with two players, electronic deal and dice."""
    steps: list[tuple[str, Build]] = [
        ("open", lambda s: c.OpenTable(table_id=TABLE, actor=FLOOR, at=s.now())),
        ("seat-ana", lambda s: c.SeatPlayer(seat=2, player_id="ana", actor=DEALER, at=s.now())),
        ("seat-bo", lambda s: c.SeatPlayer(seat=5, player_id="bo", actor=DEALER, at=s.now())),
        ("buy-ana", lambda s: c.BuyIn(player_id="ana", amount=50_000, actor=CAGE, at=s.now())),
        ("buy-bo", lambda s: c.BuyIn(player_id="bo", amount=30_000, actor=CAGE, at=s.now())),
        ("start", lambda s: c.StartRound(actor=DEALER, at=s.now())),
        ("bet-ana", lambda s: c.PlaceBet(player_id="ana", amount=2_000, actor=DEALER, at=s.now())),
        ("bet-bo", lambda s: c.PlaceBet(player_id="bo", amount=1_500, actor=DEALER, at=s.now())),
        ("close-bets", lambda s: c.CloseBets(actor=DEALER, at=s.now())),
    ]
    return steps


def finish(svc: TableService, n: int) -> None:
    """The rest of the round, each step on ``svc`` (the electronic draws included)."""
    svc.deal_electronic(TABLE, DEALER, f"deal-{n}")
    svc.roll_dice_electronic(TABLE, DEALER, f"dice-{n}")


def test_two_services_writing_one_table_alternately_read_only_the_later_events(
    store_factory: Factory,
) -> None:
    one, two = service(store_factory(), seed=3), service(store_factory(), seed=4)
    written = {id(one): 0, id(two): 0}
    steps = commands()
    rest: list[tuple[str, Build]] = [
        ("hand-ana", lambda s: c.SetHand(player_id="ana", actor=DEALER, at=s.now())),
        ("hand-bo", lambda s: c.SetHand(player_id="bo", actor=DEALER, at=s.now())),
        ("banker", lambda s: c.SetBankerHand(actor=DEALER, at=s.now())),
        ("settle", lambda s: c.Settle(actor=DEALER, at=s.now())),
        ("close-round", lambda s: c.CloseRound(actor=DEALER, at=s.now())),
    ]
    plan: list[tuple[str, Build | None]] = [*steps, ("draws", None), *rest]
    for turn, (command_id, build) in enumerate(plan):
        svc = (one, two)[turn % 2]
        before = svc.store.stream_version(TABLE)
        if build is None:
            finish(svc, 1)
        else:
            run(svc, build, command_id)
        written[id(svc)] += svc.store.stream_version(TABLE) - before
        # The writer's state is the table now, event for event.
        assert svc.load(TABLE) == fresh_fold(svc)
    for svc in (one, two):
        assert svc.refresh(TABLE) == fresh_fold(svc)
    final = fresh_fold(one)
    assert final.last_round == 1 and final.round is not None and final.round.phase == "closed"
    assert sum(final.balances.values()) + final.house_result + final.commission == 80_000
    for svc, other in ((one, two), (two, one)):
        reads = counting(svc).table_reads()
        # One whole read: the first load (a service that opens the table reads nothing more);
        # after it, only events after the version held, never an event twice, and only the
        # events the other service wrote.
        assert [after for after, _ in reads].count(0) == 1
        assert all(after > 0 for after, _ in reads[1:])
        assert sum(n for _, n in reads) <= written[id(other)]
        caught_up = [after for after, n in reads if after > 0 and n > 0]
        assert caught_up == sorted(set(caught_up))


def test_a_stale_writer_catches_up_from_the_version_it_held(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory())
    for command_id, build in commands()[:5]:
        run(one, build, command_id)
    held = two.load(TABLE).version  # two has the table loaded
    one.execute(TABLE, c.StartRound(actor=DEALER, at=one.now()), "one:start")
    one.execute(TABLE, c.PlaceBet(player_id="ana", amount=2_000, actor=DEALER, at=one.now()), "b1")
    counting(two).reads.clear()

    with pytest.raises(ConcurrencyError):  # decided on the stale state: the store refuses it
        two.execute(TABLE, c.StartRound(actor=DEALER, at=two.now()), "two:start")
    assert counting(two).table_reads() == []  # nothing read yet: the table is only marked stale
    two.execute(TABLE, c.PlaceBet(player_id="bo", amount=1_000, actor=DEALER, at=two.now()), "b2")

    assert counting(two).table_reads() == [(held, 2)]
    assert two.load(TABLE) == fresh_fold(two)
    wagers = two.load(TABLE).round.wagers  # type: ignore[union-attr]
    assert {w.player_id: w.amount for w in wagers.values()} == {"ana": 2_000, "bo": 1_000}


def test_a_refusal_on_a_stale_state_is_decided_again_on_the_table_caught_up(
    store_factory: Factory,
) -> None:
    one, two = service(store_factory()), service(store_factory())
    for command_id, build in commands()[:5]:
        run(one, build, command_id)
    held = two.load(TABLE).version
    one.execute(TABLE, c.StartRound(actor=DEALER, at=one.now()), "one:start")
    counting(two).reads.clear()

    # Two's state has no round open, so the core refuses the bet there; the table has one.
    bet = c.PlaceBet(player_id="bo", amount=1_000, actor=DEALER, at=two.now())
    result = two.execute(TABLE, bet, "two:bet")

    assert not result.replayed and [e.type for e in result.events] == ["bet_placed"]
    assert counting(two).table_reads() == [(held, 1)]
    assert two.load(TABLE) == fresh_fold(two)


def test_a_refusal_that_stands_costs_one_read_of_no_events(store_factory: Factory) -> None:
    svc = service(store_factory())
    for command_id, build in commands()[:5]:
        run(svc, build, command_id)
    version = svc.load(TABLE).version
    counting(svc).reads.clear()

    with pytest.raises(DomainError):  # no round is open, in memory nor in the store
        svc.execute(TABLE, c.CloseBets(actor=DEALER, at=svc.now()), "close")

    assert counting(svc).table_reads() == [(version, 0)]


def test_a_stale_deal_is_drawn_on_the_table_caught_up(store_factory: Factory) -> None:
    one, two = service(store_factory(), seed=3), service(store_factory(), seed=8)
    for command_id, build in commands():
        run(one, build, command_id)
    two.load(TABLE)
    dealt = one.deal_electronic(TABLE, DEALER, "deal-1").state.version
    counting(two).reads.clear()
    held = two.load(TABLE).version

    # Two holds the round with its bets closed; one dealt it since: the dice roll on the deal.
    rolled = two.roll_dice_electronic(TABLE, DEALER, "dice-1")

    assert rolled.events[0].type == "dice_rolled"
    assert counting(two).table_reads() == [(held, dealt - held)]
    assert two.load(TABLE) == fresh_fold(two)


def test_a_command_another_service_recorded_is_answered_with_the_table_caught_up(
    store_factory: Factory,
) -> None:
    one, two = service(store_factory()), service(store_factory())
    for command_id, build in commands()[:6]:
        run(one, build, command_id)
    held = two.load(TABLE).version
    bet = c.PlaceBet(player_id="ana", amount=2_000, actor=DEALER, at=one.now())
    first = one.execute(TABLE, bet, "terminal-3:bet")
    counting(two).reads.clear()

    # The terminal timed out on one and retried on two (the command stamped anew, as the HTTP
    # layer does), where the bet is still open: the first outcome, nothing written.
    retry = c.PlaceBet(player_id="ana", amount=2_000, actor=DEALER, at=two.now())
    again = two.execute(TABLE, retry, "terminal-3:bet")

    assert again.replayed and [e.hash for e in again.events] == [e.hash for e in first.events]
    assert again.state == fresh_fold(two)
    assert all(after == held for after, _ in counting(two).table_reads())


def test_a_stale_batch_catches_up_from_the_version_it_held(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory())
    for command_id, build in commands()[:5]:
        run(one, build, command_id)
    held = two.load(TABLE).version
    one.execute(TABLE, c.StartRound(actor=DEALER, at=one.now()), "one:start")
    counting(two).reads.clear()
    bets = [
        (c.PlaceBet(player_id="ana", amount=1_000, actor=DEALER, at=two.now()), "b-ana"),
        (c.PlaceBet(player_id="bo", amount=1_000, actor=DEALER, at=two.now()), "b-bo"),
    ]

    results = two.execute_batch(TABLE, bets)  # refused on the stale state, decided again

    assert [len(r.events) for r in results] == [1, 1]
    assert counting(two).table_reads() == [(held, 1)]
    assert two.load(TABLE) == fresh_fold(two)


def test_refresh_loads_the_whole_stream_only_when_nothing_is_held(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory())
    for command_id, build in commands()[:5]:
        run(one, build, command_id)

    assert two.refresh(TABLE) == fresh_fold(two)
    assert two.refresh(TABLE) == fresh_fold(two)
    two.forget(TABLE)
    assert two.load(TABLE) == fresh_fold(two)

    version = one.load(TABLE).version
    assert counting(two).table_reads() == [(0, version), (version, 0), (0, version)]


def test_a_shared_service_catches_up_on_every_load(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory(), shared=True)
    for command_id, build in commands()[:5]:
        run(one, build, command_id)
    held = two.load(TABLE).version
    one.execute(TABLE, c.StartRound(actor=DEALER, at=one.now()), "one:start")

    assert two.load(TABLE) == fresh_fold(two)  # what a reader on another worker sees
    assert counting(two).table_reads()[-1] == (held, 1)


class _Together:
    """The store, where every service reads the system stream's version before any of them
    appends to it (service instances starting at the same moment)."""

    def __init__(self, store: Any, barrier: threading.Barrier) -> None:
        self.inner = store
        self._barrier: threading.Barrier | None = barrier

    def stream_version(self, stream_id: str) -> int:
        version: int = self.inner.stream_version(stream_id)
        if stream_id == SYSTEM_STREAM and self._barrier is not None:
            barrier, self._barrier = self._barrier, None
            barrier.wait(timeout=30)
        return version

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _all_at_once(services: list[TableService], call: Callable[[TableService], None]) -> None:
    failures: list[BaseException] = []

    def one(svc: TableService) -> None:
        try:
            call(svc)
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=one, args=(svc,)) for svc in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_services_starting_and_stopping_together_all_record_themselves(
    store_factory: Factory,
) -> None:
    parties = 4
    together = threading.Barrier(parties)
    fixed = START  # the same instant for all: their command ids must still differ
    services = [
        TableService(_Together(store_factory(), together), clock=lambda: fixed)
        for _ in range(parties)
    ]

    _all_at_once(services, TableService.start)  # each conflicts with those that wrote first
    _all_at_once(services, TableService.stop)  # each holds a system version others moved on

    kinds = [e.type for e in services[0].store.read_stream(SYSTEM_STREAM)]
    assert kinds.count("service_started") == kinds.count("store_opened") == parties
    assert kinds.count("service_stopped") == parties
    assert len(kinds) == 3 * parties
