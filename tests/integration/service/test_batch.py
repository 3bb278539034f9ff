"""``TableService.execute_batch``: a whole round in one transaction, over every store.

Each command is decided against the state the previous ones left; the store records them all or
none, each event under its own command id (R-DEAL-4's electronic draws included), and signs a
checkpoint at each round's end (one a round, however many rounds the batch holds).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from service_layer.batches import BatchItem, Deferred, ElectronicDeal, ElectronicDice
from service_layer.held_tables import table_events
from service_layer.service import TableService
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.house_ways import set_by_house_way
from table_core.ports import ConcurrencyError
from table_core.table import TableState, fold

DEALER = Actor(id="dealer-7", role="dealer")
FLOOR = Actor(id="floor-2", role="floor")
CAGE = Actor(id="cage-1", role="cage")
ANA = Actor(id="ana", role="player")
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)
Factory = Callable[[], Any]


def service(store: Any, seed: int = 5) -> TableService:
    return TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(seed)
    )


def opening(svc: TableService) -> list[BatchItem]:
    at = svc.now
    return [
        (c.OpenTable(table_id="PG-1", actor=FLOOR, at=at()), "open"),
        (c.SeatPlayer(seat=2, player_id="ana", actor=ANA, at=at()), "seat-ana"),
        (c.SeatPlayer(seat=5, player_id="ben", actor=DEALER, at=at()), "seat-ben"),
        (c.BuyIn(player_id="ana", amount=100_000, actor=CAGE, at=at()), "buy-ana"),
        (c.BuyIn(player_id="ben", amount=50_000, actor=CAGE, at=at()), "buy-ben"),
    ]


def own_split(svc: TableService, player_id: str, house_way: str) -> Deferred:
    """The player splits their seven cards by a House Way of their own, once they see them."""

    def build(state: TableState) -> c.Command:
        assert state.round is not None
        seat = state.seat_of(player_id)
        assert seat is not None
        split = set_by_house_way(state.round.hands[seat], house_way)
        return c.SetHand(
            player_id=player_id, back=split.back, front=split.front, actor=DEALER, at=svc.now()
        )

    return Deferred(build)


def a_round(svc: TableService, n: int, bet: int = 2_500) -> list[BatchItem]:
    """A whole round. The commands after the draws, and every command of a round after the first
    (batched behind it), are stamped when their turn comes, so the times follow the batch's order
    (R4: a table's times never go back within a batch); round 1's first four are commands."""
    at = svc.now

    def later(make: Callable[[datetime], c.Command]) -> Deferred:
        return Deferred(lambda state: make(at()))

    def first(make: Callable[[datetime], c.Command]) -> c.Command | Deferred:
        return make(at()) if n == 1 else later(make)

    return [
        (first(lambda t: c.StartRound(actor=DEALER, at=t)), f"r{n}-start"),
        (
            first(lambda t: c.PlaceBet(player_id="ana", amount=bet, actor=ANA, at=t)),
            f"r{n}-bet-ana",
        ),
        (
            first(lambda t: c.PlaceBet(player_id="ben", amount=1_000, actor=DEALER, at=t)),
            f"r{n}-bet-ben",
        ),
        (first(lambda t: c.CloseBets(actor=DEALER, at=t)), f"r{n}-close"),
        (ElectronicDeal(DEALER), f"r{n}-deal"),
        (ElectronicDice(DEALER), f"r{n}-dice"),
        (later(lambda t: c.SetHand(player_id="ana", actor=ANA, at=t)), f"r{n}-hand-ana"),
        (own_split(svc, "ben", "foxwoods"), f"r{n}-hand-ben"),
        (later(lambda t: c.SetBankerHand(actor=DEALER, at=t)), f"r{n}-banker"),
        (later(lambda t: c.Settle(actor=DEALER, at=t)), f"r{n}-settle"),
        (later(lambda t: c.CloseRound(actor=DEALER, at=t)), f"r{n}-close-round"),
    ]


def test_a_whole_round_is_one_transaction_each_event_under_its_command(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    checkpoints = len(svc.store.checkpoints())

    results = svc.execute_batch("PG-1", a_round(svc, 1))

    assert [len(r.events) > 0 for r in results] == [True] * 11
    assert all(e.command_id == "r1-deal" for e in results[4].events)
    assert [e.type for e in results[5].events] == ["dice_rolled", "stacks_assigned"]
    [ben_hand] = results[7].events
    assert ben_hand.payload["by"] == "player" and ben_hand.payload["reason"] == "player_set"
    final = results[-1].state
    assert final.round is not None and final.round.phase == "closed"
    # One checkpoint, over the round's last event (R-DEAL-4: the draws are in the chain).
    assert len(svc.store.checkpoints()) == checkpoints + 1
    assert svc.store.checkpoints()[-1].position == results[-1].events[-1].position
    # The state kept in memory is the fold of what was recorded, as a restart rebuilds it.
    recorded = svc.store.read_stream("PG-1")
    assert fold(table_events(recorded)) == final == TableService(store_factory()).load("PG-1")
    assert (
        final.balances["ana"] + final.balances["ben"] + final.house_result + (final.commission)
        == 150_000
    )
    assert svc.store.events_of_command("r1-bet-ben") == results[2].events


def test_a_refused_command_refuses_the_whole_batch(store_factory: Factory) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    version = svc.store.stream_version("PG-1")

    with pytest.raises(DomainError, match="a bet at this table is"):
        svc.execute_batch("PG-1", a_round(svc, 1, bet=999_999))  # above the table maximum

    assert svc.store.stream_version("PG-1") == version
    assert svc.store.events_of_command("r1-start") is None
    assert svc.load("PG-1").round is None  # the service's own view did not move either
    results = svc.execute_batch("PG-1", a_round(svc, 1))
    assert results[-1].state.last_round == 1


def test_a_batch_of_three_rounds_signs_a_checkpoint_at_each_rounds_end(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    before = len(svc.store.checkpoints())

    results = svc.execute_batch("PG-1", a_round(svc, 1) + a_round(svc, 2) + a_round(svc, 3))

    assert results[-1].state.last_round == 3
    closes = [e.position for r in results for e in r.events if e.type == "round_closed"]
    assert len(closes) == 3
    assert [c.position for c in svc.store.checkpoints()[before:]] == closes
    # One transaction: the three rounds' events are consecutive in the global log.
    positions = [e.position for r in results for e in r.events]
    assert positions == list(range(positions[0], positions[0] + len(positions)))
    assert svc.store.verify().ok


def test_a_refused_command_in_a_later_round_refuses_every_round_of_the_batch(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    version, checkpoints = svc.store.stream_version("PG-1"), len(svc.store.checkpoints())

    with pytest.raises(DomainError, match="a bet at this table is"):
        svc.execute_batch("PG-1", a_round(svc, 1) + a_round(svc, 2, bet=999_999))

    assert svc.store.stream_version("PG-1") == version
    assert len(svc.store.checkpoints()) == checkpoints
    assert svc.store.events_of_command("r1-close-round") is None
    assert svc.load("PG-1").last_round == 0


def test_a_retried_batch_answers_its_first_events_and_writes_nothing(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    first = svc.execute_batch("PG-1", a_round(svc, 1))
    version = svc.store.stream_version("PG-1")

    fresh = service(store_factory(), seed=99)  # the retry reaches another process
    again = fresh.execute_batch("PG-1", a_round(fresh, 1))

    assert all(r.replayed for r in again)
    assert [e.hash for r in again for e in r.events] == [e.hash for r in first for e in r.events]
    assert fresh.store.stream_version("PG-1") == version


def test_a_batch_whose_first_commands_went_through_alone_appends_only_the_rest(
    store_factory: Factory,
) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    items = a_round(svc, 1)
    svc.execute("PG-1", items[0][0], items[0][1])  # type: ignore[arg-type]
    svc.execute("PG-1", items[1][0], items[1][1])  # type: ignore[arg-type]

    results = svc.execute_batch("PG-1", items)

    assert [r.replayed for r in results] == [True, True] + [False] * 9
    assert results[-1].state.round is not None and results[-1].state.round.phase == "closed"
    types = [e.type for e in svc.store.read_stream("PG-1")]
    assert types.count("bet_placed") == 2 and types.count("round_started") == 1


def test_deferred_items_with_nothing_to_do_are_skipped(store_factory: Factory) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    items = a_round(svc, 1)
    nothing = Deferred(lambda state: None)
    results = svc.execute_batch("PG-1", [(nothing, "skip-0"), *items[:2], (nothing, "skip-1")])

    assert [len(r.events) for r in results] == [0, 1, 1, 0]  # the dealer banks: no offers
    assert results[0].state.round is None
    assert results[3].state == results[2].state
    assert svc.store.events_of_command("skip-1") is None


def test_a_stale_batch_gets_a_concurrency_error_and_writes_nothing(store_factory: Factory) -> None:
    one, two = service(store_factory()), service(store_factory())
    one.execute_batch("PG-1", opening(one))
    two.load("PG-1")
    one.execute("PG-1", c.StartRound(actor=DEALER, at=one.now()), "one:start")
    version = one.store.stream_version("PG-1")

    with pytest.raises(ConcurrencyError):
        two.execute_batch("PG-1", [(c.StartRound(actor=DEALER, at=two.now()), "two:start")])

    assert one.store.stream_version("PG-1") == version
    assert two.store.events_of_command("two:start") is None


def test_an_electronic_deal_is_drawn_only_in_its_phase(store_factory: Factory) -> None:
    svc = service(store_factory())
    svc.execute_batch("PG-1", opening(svc))
    dealt = svc.execute_batch("PG-1", a_round(svc, 1)[:5])
    deck = dealt[-1].state.round.deal  # type: ignore[union-attr]

    with pytest.raises(DomainError, match="the round is dealt, not bets_closed"):
        svc.execute_batch("PG-1", [(ElectronicDeal(DEALER), "deal-again")])

    assert svc.load("PG-1").round.deal == deck  # type: ignore[union-attr]
    assert svc.store.events_of_command("deal-again") is None


def test_no_table_event_can_hold_a_float_so_the_service_skips_the_payload_walk() -> None:
    """The service appends the core's events with ``serialized=True``: the store then holds them
    to 64-bit integers but no longer walks them for floats. That is sound while no event model
    has a float anywhere, which this checks on every model's JSON schema."""
    import json

    from table_core.events import EVENT_TYPES

    with_floats = [
        model.__name__
        for model in EVENT_TYPES
        if '"number"' in json.dumps(model.model_json_schema(mode="serialization"))
    ]
    assert with_floats == []


def test_a_batch_whose_times_go_back_is_refused_whole_and_the_clock_step_is_recorded_once(
    store_factory: Factory,
) -> None:
    """R4: a step of the clock cannot be recorded between the events of one transaction. A
    batch whose commands were stamped before a step and whose draws come after it is refused,
    nothing written; the step itself is recorded once, and the same round stamped again goes
    through (the step's record lies between the table's events before and after it)."""
    clock = [START]
    svc = TableService(store_factory(), clock=lambda: clock[0], source=SeededDeckAndDice(5))
    svc.execute_batch("PG-1", opening(svc))
    version = svc.store.stream_version("PG-1")
    clock[0] += timedelta(minutes=1)
    items = a_round(svc, 1)[:5]  # start, bets, close stamped now; the deal drawn at its turn
    clock[0] -= timedelta(minutes=10)  # the clock is set back before the batch runs

    with pytest.raises(DomainError, match="the times of this batch go back"):
        svc.execute_batch("PG-1", items)

    assert svc.store.stream_version("PG-1") == version
    steps = [e for e in svc.store.read_stream("system") if e.type == "clock_adjusted"]
    assert [e.payload["detected"] for e in steps] == ["earlier_than_last_reading"]
    svc.execute_batch("PG-1", [*a_round(svc, 2)[:5]])  # stamped after the step: in order
    recorded = svc.store.read_stream("PG-1")
    assert recorded[version].position > steps[0].position > recorded[version - 1].position
    assert len([e for e in svc.store.read_stream("system") if e.type == "clock_adjusted"]) == 1
