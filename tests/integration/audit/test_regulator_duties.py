"""Two regulator duties proved on real stores, SQLite and PostgreSQL (docs/regulatory.md):

- R4, one authoritative clock: a step of the service's clock is recorded (``clock_adjusted``)
  before the next event, a table's events never go back in recorded time without it, and the
  audit names an unrecorded step;
- R15, side bets: the aggregate payout cap is paid pro rata and re-derived by the audit; the
  progressive's meter, locked when bets close, is checked by the audit against its events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from adapters.clock import monotonic_seconds, system_clock
from adapters.projections import ProjectionRunner
from adapters.projections.gaming_day import GamingDay
from adapters.projections.reports import build_report
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import migrate, open_store
from adapters.store.signing import Signer
from audit.sources import open_database
from audit.verify import verify_log
from eventlog.system_events import SYSTEM_STREAM
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor
from table_core.rules import TableRules
from table_core.side_bets import FORTUNE_8000, SideBetRules
from tests.unit.table.side_bet_support import deck

from .conftest import Casino
from .tamper import copy_log

FLOOR = Actor(id="floor-1", role="floor")
DEALER = Actor(id="dealer-1", role="dealer")
CAGE = Actor(id="cage-1", role="cage")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "sqlite":
        opened = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
        opened = open_store(url, signing_key=Signer.generate())
    try:
        yield opened
    finally:
        opened.close()


def audit(store: Any) -> Any:
    source = open_database(store.engine.url.render_as_string(hide_password=False))
    source.public_key = store.public_key
    return verify_log(source)


def player(name: str) -> Actor:
    return Actor(id=name, role="player")


# --- R4 ------------------------------------------------------------------------------------------


def test_a_clock_stepped_back_mid_round_is_recorded_once_and_the_audit_holds(
    store: Any, tmp_path: Path
) -> None:
    # 06:03 UTC on 28 November: gaming day 2026-11-28 (cut-off 06:00). After the dice the clock
    # is stepped back 10 minutes, to 05:53: the round is settled on the earlier gaming day.
    with freeze_time("2026-11-28 06:03:00", tick=False) as frozen:
        svc = TableService(
            store,
            clock=system_clock,  # as `paigow serve` wires it: the system clock, and
            monotonic=monotonic_seconds,  # the monotonic one to notice steps forwards
            source=SeededDeckAndDice(4),
        )
        svc.start()

        def run(command: Any, command_id: str) -> None:
            frozen.tick(timedelta(seconds=5))
            svc.execute("PG-9", command(svc.now()), command_id)

        run(lambda at: c.OpenTable(table_id="PG-9", actor=FLOOR, at=at), "open")
        run(lambda at: c.SeatPlayer(seat=1, player_id="ana", actor=DEALER, at=at), "seat")
        run(lambda at: c.BuyIn(player_id="ana", amount=50_000, actor=CAGE, at=at), "buy-in")
        run(lambda at: c.StartRound(actor=DEALER, at=at), "start")
        run(lambda at: c.PlaceBet(player_id="ana", amount=2_500, actor=player("ana"), at=at), "bet")
        run(lambda at: c.CloseBets(actor=DEALER, at=at), "close-bets")
        frozen.tick(timedelta(seconds=5))
        svc.deal_electronic("PG-9", DEALER, "deal")
        svc.roll_dice_electronic("PG-9", DEALER, "dice")
        before_step = datetime.now(UTC)
        frozen.move_to(before_step - timedelta(minutes=10))  # the clock is set back mid-round
        run(lambda at: c.SetHand(player_id="ana", actor=player("ana"), at=at), "hand")
        run(lambda at: c.SetBankerHand(actor=DEALER, at=at), "banker-hand")
        run(lambda at: c.Settle(actor=DEALER, at=at), "settle")
        run(lambda at: c.CloseRound(actor=DEALER, at=at), "close")
        svc.stop()

    rows = store.raw_log()[0]
    positions = [row[0] for row in rows]
    assert positions == sorted(set(positions))  # strictly increasing, gap-free
    assert positions == list(range(1, len(rows) + 1))
    adjusted = [row for row in rows if row[3] == "clock_adjusted"]
    assert len(adjusted) == 1
    [row] = adjusted
    payload = json.loads(row[5])
    assert row[1] == SYSTEM_STREAM
    assert payload["detected"] == "earlier_than_last_reading"
    assert payload["old_time"] == "2026-11-28T06:03:35Z"  # the dice's reading
    assert payload["new_time"] == payload["at"] == "2026-11-28T05:53:40Z"
    assert payload["tolerance_ms"] == 2_000
    table = [r for r in rows if r[1] == "PG-9"]
    dice = next(r for r in table if r[3] == "dice_rolled")
    hand = next(r for r in table if r[3] == "hand_set")
    assert dice[0] < row[0] < hand[0]  # recorded between the last event before and the first after
    assert hand[6] < dice[6]  # the table's time went back, with the step on the record

    report = audit(store)
    assert report.findings == [] and report.ok

    # The gaming day of the round is its settlement's, as recorded (docs/projections.md): it
    # started on 28 November and was settled at 05:53, on the gaming day of 27 November.
    runner = ProjectionRunner(store)
    days = build_report(runner, GamingDay.of("UTC", "06:00"), day=None, views=("accounting",))[
        "accounting"
    ]
    played = {row["gaming_day"]: row["rounds_played"] for row in days}
    # 28 November has a row for the buy-in's drop (issue 18's books), and no round.
    assert played == {"2026-11-27": 1, "2026-11-28": 0}

    # The same log without its clock_adjusted, re-hashed and re-signed with a test key: the
    # chain holds, and the audit names the event whose time went back unrecorded.
    copy = open_store(f"sqlite:///{tmp_path / 'copy.db'}")
    try:
        copy_log(store, copy, without=frozenset({row[0]}))
        report = audit(copy)
    finally:
        copy.close()
    assert [(f.kind, f.clause, f.stream_id, f.event_type) for f in report.findings] == [
        ("procedure", "R4", "PG-9", "hand_set")
    ]
    [finding] = report.findings
    # The table's event before the hand (stacks_assigned, with the dice) keeps its position in the
    # copy; the hand moves up one, where the clock_adjusted was.
    before_hand = hand[0] - 2
    assert (finding.position, finding.version) == (hand[0] - 1, hand[2])
    assert finding.message.startswith("recorded at 2026-11-28T05:53:40")
    assert f"(position {before_hand}, at 2026-11-28T06:03:35" in finding.message
    assert "no clock_adjusted event lies between them" in finding.message


def test_a_clock_that_jumps_forward_past_the_tolerance_is_recorded_and_a_drift_within_it_is_not(
    store: Any,
) -> None:
    wall = [datetime(2026, 11, 28, 20, 0, tzinfo=UTC)]
    ticks = [100.0]
    svc = TableService(
        store, clock=lambda: wall[0], monotonic=lambda: ticks[0], clock_tolerance=timedelta(0, 2)
    )
    svc.start()
    wall[0] += timedelta(seconds=31.5)  # 30 s passed, the wall clock drifted 1.5 s: within 2 s
    ticks[0] += 30
    svc.execute("PG-1", c.OpenTable(table_id="PG-1", actor=FLOOR, at=svc.now()), "open")
    wall[0] += timedelta(hours=1, seconds=30)  # 30 s passed, the wall clock jumped an hour
    ticks[0] += 30
    svc.execute("PG-1", c.SeatPlayer(seat=1, player_id="ana", actor=DEALER, at=svc.now()), "seat")
    steps = [
        dict(r.payload) for r in store.read_stream(SYSTEM_STREAM) if r.type == "clock_adjusted"
    ]
    assert [(s["detected"], s["old_time"], s["new_time"]) for s in steps] == [
        ("wall_clock_left_monotonic_clock", "2026-11-28T20:01:01.500000Z",
         "2026-11-28T21:01:01.500000Z"),
    ]  # fmt: skip
    assert audit(store).ok


def test_a_command_stamped_before_the_table_s_last_event_records_the_step_first(
    store: Any,
) -> None:
    at = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)
    svc = TableService(store, clock=lambda: at)
    svc.execute("PG-1", c.OpenTable(table_id="PG-1", actor=FLOOR, at=at), "open")
    earlier = at - timedelta(minutes=3)  # another clock's time (a terminal's, a test's)
    svc.execute("PG-1", c.SeatPlayer(seat=1, player_id="ana", actor=DEALER, at=earlier), "seat")
    steps = [dict(r.payload) for r in store.read_stream(SYSTEM_STREAM)]
    assert [(s["type"], s["detected"], s["table_id"]) for s in steps] == [
        ("clock_adjusted", "earlier_than_table_event", "PG-1")
    ]
    assert audit(store).ok


# --- R15 -----------------------------------------------------------------------------------------

CAPPED = FORTUNE_8000.model_copy(update={"name": "nj_fortune", "aggregate_cap": 10_000})
HANDS = {
    0: "8s 8h Kc Qd 6h 4d 3s",  # the dealer
    1: "9s 9h 9d 9c Kd 7s 2h",  # ana: four of a kind, 25 to 1 on 500: 12,500
    2: "Ts Th Td 5c 5d Jc 2c",  # bruno: full house, 5 to 1 on 1,000: 5,000
    3: "Js Jh Jd 7c 4s 3d 2d",  # chloe: three of a kind, 3 to 1 on 1,000: 3,000
}


def test_the_aggregate_cap_is_paid_pro_rata_recorded_and_re_derived_by_the_audit(
    store: Any,
) -> None:
    clock = iter(datetime(2026, 11, 28, 20, 0, tzinfo=UTC) + timedelta(seconds=s)
                 for s in range(1_000))  # fmt: skip
    svc = TableService(store, clock=lambda: next(clock))
    svc.start()
    profile = TableRules(side_bets=SideBetRules(offered=frozenset({"fortune"}), fortune=CAPPED))
    commands: list[c.Command] = [c.OpenTable(table_id="PG-3", rules=profile, actor=FLOOR,
                                             at=svc.now())]  # fmt: skip
    commands += [  # R20: the shuffler's deck is in custody before the physical deal
        c.ReceiveDeck(deck_id="D-1", seal="S-1", actor=FLOOR, at=svc.now()),
        c.InspectDeck(deck_id="D-1", card_count=53, inspector="floor-2", actor=FLOOR, at=svc.now()),
        c.PutDeckInUse(deck_id="D-1", actor=FLOOR, at=svc.now()),
    ]
    names = ("ana", "bruno", "chloe")
    for seat, name in enumerate(names, start=1):
        commands += [
            c.SeatPlayer(seat=seat, player_id=name, actor=DEALER, at=svc.now()),
            c.BuyIn(player_id=name, amount=20_000, actor=CAGE, at=svc.now()),
        ]
    commands.append(c.StartRound(actor=DEALER, at=svc.now()))
    for name, fortune in zip(names, (500, 1_000, 1_000), strict=True):
        commands += [
            c.PlaceBet(player_id=name, amount=1_000, actor=player(name), at=svc.now()),
            c.PlaceSideBet(player_id=name, bet="fortune", amount=fortune, actor=player(name),
                           at=svc.now()),
        ]  # fmt: skip
    commands += [
        c.CloseBets(actor=DEALER, at=svc.now()),
        c.DealCards(deck=deck(HANDS), actor=DEALER, at=svc.now()),
        c.RollDice(faces=(2, 3, 5), actor=DEALER, at=svc.now()),
        *(c.SetHand(player_id=name, actor=player(name), at=svc.now()) for name in names),
        c.SetBankerHand(actor=DEALER, at=svc.now()),
        c.Settle(actor=DEALER, at=svc.now()),
        c.CloseRound(actor=DEALER, at=svc.now()),
    ]
    for number, command in enumerate(commands):
        svc.execute("PG-3", command, f"cmd-{number}")
    svc.stop()

    settled = [dict(r.payload) for r in store.read_stream("PG-3") if r.type == "side_bet_settled"]
    assert [(s["player_id"], s["payout"], s["reduction"], s["aggregate_cap"]) for s in settled] == [
        ("ana", 6_098, 6_402, 10_000),
        ("bruno", 2_439, 2_561, 10_000),
        ("chloe", 1_463, 1_537, 10_000),
    ]
    assert audit(store).ok  # the audit ran the table's own decide on the Settle: same shares


def test_the_progressive_meter_locked_before_the_deal_is_checked_against_its_events(
    sqlite_casino: Casino,
) -> None:
    # A contribution locked when bets closed, its meter figure changed and the chain rewritten
    # and re-signed: the audit re-derives the close of bets on the meter the events hold.
    casino = sqlite_casino
    position = casino.forger.find("meter_changed", lambda p: p["reason"] == "contribution")
    meter = casino.forger.payload(position)["meter"]
    casino.forger.forge(position, lambda p: p.update(meter=meter + 5_000))
    report = casino.audit()
    first = report.findings[0]
    assert (first.kind, first.clause, first.position) == ("rules", "R-VAR-6", position)
    assert first.event_type == "meter_changed"
