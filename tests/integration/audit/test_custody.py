"""The audit of the deck chain of custody (R20), on SQLite and PostgreSQL: every round dealt once a
table keeps custody names a deck that was in use, inspected and not held; rounds dealt before the
table's first custody event are reported as having no custody record, without failing; a deal
whose deck was forged is a finding naming the round; so is a physical deal without custody at a
table whose rules require it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.rng import SeededDeckAndDice
from adapters.settings import load_settings
from adapters.store import SqlEventStore, migrate, open_store
from adapters.store.signing import Signer
from audit.sources import open_database
from audit.verify import verify_log
from service_layer.service import TableService
from table_core import commands as c
from table_core.events import Actor
from table_core.rules import TableRules

from .tamper import Forger

DEALER = Actor(id="dealer-7", role="dealer")
FLOOR = Actor(id="floor-2", role="floor")
CAGE = Actor(id="cage-1", role="cage")
START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


@dataclass
class Opened:
    store: SqlEventStore
    url: str
    target: Any  # what the Forger edits: the SQLite file, or the PostgreSQL URL


@pytest.fixture
def opened(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> Iterator[Opened]:
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'custody.db'}"
        store = open_store(url)
        target: Any = str(tmp_path / "custody.db")
    else:
        url = request.getfixturevalue("pg_url")
        migrate.upgrade(url, load_settings().pg_roles())
        store = open_store(url, signing_key=Signer.generate())
        target = url
    assert isinstance(store, SqlEventStore)
    try:
        yield Opened(store, url, target)
    finally:
        store.close()


def play(svc: TableService, n: int) -> None:
    run = svc.execute
    run("PG-1", c.StartRound(actor=DEALER, at=svc.now()), f"r{n}-start")
    run("PG-1", c.PlaceBet(player_id="ana", amount=2_500, actor=DEALER, at=svc.now()), f"r{n}-b")
    run("PG-1", c.CloseBets(actor=DEALER, at=svc.now()), f"r{n}-close")
    svc.deal_electronic("PG-1", DEALER, f"r{n}-deal")
    svc.roll_dice_electronic("PG-1", DEALER, f"r{n}-dice")
    run("PG-1", c.SetHand(player_id="ana", actor=DEALER, at=svc.now()), f"r{n}-hand")
    run("PG-1", c.SetBankerHand(actor=DEALER, at=svc.now()), f"r{n}-banker")
    run("PG-1", c.Settle(actor=DEALER, at=svc.now()), f"r{n}-settle")
    run("PG-1", c.CloseRound(actor=DEALER, at=svc.now()), f"r{n}-end")


def record(store: Any, rules: TableRules | None = None) -> None:
    """Round 1 before custody (an electronic deal: the service's draw); deck D-1 from round 2;
    round 4 from D-2 after D-1 retires. ``rules``: the table's (default: a new profile, which
    requires custody for a physical deal)."""
    svc = TableService(
        store, clock=SteppingClock(START, timedelta(seconds=1)), source=SeededDeckAndDice(5)
    )
    run = svc.execute
    opening = c.OpenTable(table_id="PG-1", rules=rules or TableRules(), actor=FLOOR, at=svc.now())
    run("PG-1", opening, "open")
    run("PG-1", c.SeatPlayer(seat=2, player_id="ana", actor=DEALER, at=svc.now()), "seat")
    run("PG-1", c.BuyIn(player_id="ana", amount=100_000, actor=CAGE, at=svc.now()), "buy")
    play(svc, 1)
    for deck in ("D-1", "D-2"):
        f = {"actor": FLOOR, "at": svc.now()}
        run("PG-1", c.ReceiveDeck(deck_id=deck, seal=f"S-{deck}", **f), f"{deck}-in")
        run("PG-1", c.InspectDeck(deck_id=deck, card_count=53, inspector="i-1", **f), f"{deck}-i")
        loaded = c.LoadShuffler(deck_id=deck, shuffler_serial="SH-9", received_at=START, **f)
        run("PG-1", loaded, f"{deck}-load")
    run("PG-1", c.PutDeckInUse(deck_id="D-1", actor=FLOOR, at=svc.now()), "D-1-use")
    play(svc, 2)
    play(svc, 3)
    run("PG-1", c.RetireDeck(deck_id="D-1", reason="worn", actor=FLOOR, at=svc.now()), "D-1-out")
    run("PG-1", c.PutDeckInUse(deck_id="D-2", actor=FLOOR, at=svc.now()), "D-2-use")
    play(svc, 4)


def audit(opened: Opened) -> Any:
    source = open_database(opened.url)
    source.public_key = opened.store.public_key
    return verify_log(source)


def test_every_dealt_round_has_a_deck_in_use_and_inspected(opened: Opened) -> None:
    record(opened.store)
    report = audit(opened)
    assert report.ok, [str(f) for f in report.findings]
    assert report.rounds_with_deck == 3
    assert report.rounds_before_custody == ["PG-1 round 1"]
    assert report.to_dict()["custody"] == {
        "rounds_with_deck": 3,
        "no_custody_record": ["PG-1 round 1"],
    }
    assert "no custody record (before custody was kept): PG-1 round 1" in report.summary()


def test_a_deal_from_a_retired_deck_is_a_finding(opened: Opened, backend: str) -> None:
    """An insider re-points round 4 at the retired deck and re-signs the chain: the chain holds,
    the custody check names the round (R20) and nothing else is reported twice."""
    record(opened.store)
    forger = Forger(opened.store, backend, opened.target)
    position = forger.find("deck_dealt", lambda p: p["round"] == 4)
    forger.forge(position, lambda p: p.update(deck_id="D-1"))
    report = audit(opened)
    assert [(f.kind, f.clause, f.message, f.position) for f in report.findings] == [
        ("procedure", "R20", "round 4: the deal names deck D-1, which was not in use (retired)",
         position),
    ]  # fmt: skip
    assert report.rounds_with_deck == 2


def test_a_physical_deal_without_custody_where_the_rules_require_it_is_a_finding(
    opened: Opened, backend: str
) -> None:
    """An insider with the key reports round 1 (dealt before the table received a deck) as a
    physical deal and re-signs the chain: the table's rules require custody for it (R20)."""
    record(opened.store)
    forger = Forger(opened.store, backend, opened.target)
    position = forger.find("stacks_dealt", lambda p: p["round"] == 1)
    forger.forge(position, lambda p: p.update(source="live"))
    report = audit(opened)
    assert [(f.kind, f.clause, f.message, f.position) for f in report.findings] == [
        ("procedure", "R20", "round 1: the deal names no deck, though the table's rules "
         "(version 1) require deck custody for a physical deal", position),
    ]  # fmt: skip
    assert report.rounds_before_custody == [] and report.rounds_with_deck == 3
    source = open_database(opened.url)
    source.public_key = opened.store.public_key
    in_ranges = verify_log(source, jobs=2, range_rows=7)  # audit --jobs: decided in the workers
    assert in_ranges.findings == report.findings


def test_without_the_requirement_a_physical_deal_before_custody_fails_nothing(
    opened: Opened, backend: str
) -> None:
    """The same log under rules that do not require custody (as every table opened before the
    setting existed): round 1 has no custody record, and that is no finding."""
    record(opened.store, TableRules(deck_custody_required=False))
    forger = Forger(opened.store, backend, opened.target)
    position = forger.find("stacks_dealt", lambda p: p["round"] == 1)
    forger.forge(position, lambda p: p.update(source="live"))
    report = audit(opened)
    assert report.ok, [str(f) for f in report.findings]
    assert report.rounds_before_custody == ["PG-1 round 1"] and report.rounds_with_deck == 3
