"""Gaming days: the cut-off (default 06:00) in the casino's zone, a round counted on the day of
its settlement, "today" by the clock, and a day across a change to summer time (freezegun)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from adapters.clock import system_clock
from adapters.projections import GamingDay, ProjectionRunner
from adapters.settings import load_settings
from adapters.store import open_store
from entrypoints.cli.main import main
from table_core import commands as c
from table_core.errors import DomainError

from . import session as s
from .support import report

PARIS = "Europe/Paris"  # CET (UTC+1) until 29 March 2026, 02:00; CEST (UTC+2) after
DEALER_HAND = "Kd Ts 8h 5c 4d 3s 2h"  # fr: K 5 4 3 2 / T 8
WINNER = "Ac Ad 6c 6d 2c / Qs Jh"  # two pair, Q-J: wins both
LOSING_DEALER = "Ah Qc Ts 9s 7d 5c 2d"  # fr: A 9 7 5 2 / Q T
LOSER = "Jc 9d 7h 5d 4h 3c 2s"  # the House Way's J 5 4 3 2 / 9 7 loses both


def _round(sess: s.Session, frozen: Any, bet: int, dealer: str, ana: str, minutes: int) -> None:
    """One round with ana alone, its commands a minute apart, settled ``minutes`` after start."""
    sess(c.StartRound)
    sess(c.PlaceBet, player_id="ana", amount=bet)
    sess.deal({1: dealer, 2: ana.replace("/", "")})
    if "/" in ana:
        sess.hand("ana", ana)
    frozen.tick(timedelta(minutes=minutes))
    sess.finish()


def _evening(store: Any) -> None:
    """Round A settles at 05:50 Paris time on 14 March (gaming day the 13th); round B starts at
    05:55 and settles at 06:05 (the 14th); round C is voided at 06:00 sharp (the 14th)."""
    with freeze_time("2026-03-14T04:40:00Z") as frozen:  # 05:40 in Paris
        sess = s.Session(store, clock=system_clock)
        sess(
            c.OpenTable,
            table_id=s.TABLE,
            rules=s.RULES.model_copy(update={"banking": "dealer"}),
            actor=s.FLOOR,
        )
        sess(c.SeatPlayer, seat=1, player_id="ana")
        sess(c.BuyIn, player_id="ana", amount=10_000, actor=s.CAGE)
        _round(sess, frozen, 1_000, DEALER_HAND, WINNER, minutes=10)  # settles 05:50:0x
        frozen.move_to("2026-03-14T04:55:00Z")
        _round(sess, frozen, 2_000, LOSING_DEALER, LOSER, minutes=10)  # settles 06:05:0x
        frozen.move_to("2026-03-14T04:59:00Z")
        sess(c.StartRound)
        sess(c.PlaceBet, player_id="ana", amount=1_500)
        frozen.move_to("2026-03-14T05:00:00Z")
        sess(c.VoidRound, reason="shuffler fault", actor=s.FLOOR)


def _day(figures: dict[str, Any], day: str) -> dict[str, Any]:
    (row,) = [r for r in figures["accounting"] if r["gaming_day"] == day]
    return row


def test_rounds_either_side_of_the_cut_off_count_on_their_own_gaming_day(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'casino.db'}")
    _evening(store)
    runner = ProjectionRunner(store)
    thirteenth = report(runner, date(2026, 3, 13), PARIS)["accounting"][0]
    assert (thirteenth["rounds_played"], thirteenth["handle"], thirteenth["win"]) == (
        1,
        1_000,
        -950,
    )
    assert thirteenth["rounds_voided"] == 0 and thirteenth["hold_pct"] == "-9.50"  # / drop 10,000
    fourteenth = report(runner, date(2026, 3, 14), PARIS)["accounting"][0]
    assert (fourteenth["rounds_played"], fourteenth["handle"], fourteenth["win"]) == (
        1,
        2_000,
        2_000,
    )
    assert fourteenth["rounds_voided"] == 1 and fourteenth["hold_pct"] is None  # no drop that day
    # In UTC with the same 06:00 cut-off, all three are on the 13th (04:40..05:10 UTC).
    every = report(runner, None, "UTC")["accounting"]
    assert [(r["gaming_day"], r["rounds_played"], r["rounds_voided"]) for r in every] == [
        ("2026-03-13", 2, 1)
    ]
    # Every day listed: the two Paris gaming days, in order.
    paris = report(runner, None, PARIS)["accounting"]
    assert [(r["gaming_day"], r["handle"]) for r in paris] == [
        ("2026-03-13", 1_000),
        ("2026-03-14", 2_000),
    ]
    store.close()


@pytest.mark.parametrize(
    ("now", "today", "drop"),
    [("2026-03-14T04:59:59Z", "2026-03-13", 1_000), ("2026-03-14T05:00:00Z", "2026-03-14", 2_000)],
)
def test_the_report_of_today_follows_the_clock_across_the_cut_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], now: str, today: str, drop: int
) -> None:
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    store = open_store(url)
    _evening(store)
    store.close()
    capsys.readouterr()
    with freeze_time(now):
        status = main(
            ["report", "--db", url, "--tz", PARIS, "--view", "accounting", "--format", "json"]
        )
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gaming_day"] == today and out["timezone"] == PARIS and out["cutoff"] == "06:00"
    assert out["accounting"][0]["handle"] == drop


def test_a_gaming_day_across_the_change_to_summer_time_lasts_23_hours() -> None:
    paris = GamingDay.of(PARIS, "06:00")
    assert paris.start(date(2026, 3, 28)) == datetime(2026, 3, 28, 5, 0, tzinfo=UTC)
    assert paris.start(date(2026, 3, 29)) == datetime(2026, 3, 29, 4, 0, tzinfo=UTC)
    assert paris.day_of(datetime(2026, 3, 29, 3, 59, 59, tzinfo=UTC)) == date(2026, 3, 28)
    assert paris.day_of(datetime(2026, 3, 29, 4, 0, tzinfo=UTC)) == date(2026, 3, 29)
    late = GamingDay.of(PARIS, "02:30")  # a cut-off inside the skipped hour
    assert late.day_of(datetime(2026, 3, 29, 0, 59, tzinfo=UTC)) == date(2026, 3, 28)


def test_the_settings_come_from_the_environment_and_bad_ones_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAIGOW_TZ", "America/Los_Angeles")
    monkeypatch.setenv("PAIGOW_GAMING_DAY_CUTOFF", "04:00")
    vegas = load_settings().gaming_day()
    assert (vegas.zone_name, vegas.cutoff_text) == ("America/Los_Angeles", "04:00")
    assert vegas.day_of(datetime(2026, 7, 1, 10, 59, tzinfo=UTC)) == date(2026, 6, 30)  # 03:59 PDT
    with pytest.raises(DomainError, match="quarter hour"):
        GamingDay.of("UTC", "06:10")
    with pytest.raises(DomainError, match="unknown time zone"):
        load_settings().gaming_day("Mars/Olympus_Mons")
    with pytest.raises(DomainError, match="HH:MM"):
        GamingDay.of("UTC", "six")
