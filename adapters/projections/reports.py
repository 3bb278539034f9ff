"""The report's views as plain data, for ``paigow report`` (and any other reader).

Views: ``accounting`` (per table and gaming day), ``side_bets`` (per table, gaming day and
bet), ``players`` (bankroll per player), ``house`` (the house's result per table), ``rotation``
(current and next banker per table), ``eligibility`` (each seated player, R-BANK-1) and
``offers`` (every offer of the bank). The keys of each row are the stable contract documented in
docs/projections.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from adapters.projections import accounting, bankroll, rotation
from adapters.projections.gaming_day import GamingDay
from adapters.projections.projection_runner import ProjectionRunner
from adapters.projections.rollup import COLUMNS as ROLLUP_COLUMNS
from adapters.projections.rollup import rollup
from eventlog.canonical import format_time

VIEWS = ("accounting", "side_bets", "players", "house", "rotation", "eligibility", "offers")
#: Views read only when asked for by name (``all`` keeps the report it always was).
EXTRA_VIEWS = ("rollup",)

COLUMNS: dict[str, tuple[str, ...]] = {
    "accounting": accounting.ACCOUNTING_COLUMNS,
    "side_bets": accounting.SIDE_BET_COLUMNS,
    "players": bankroll.PLAYER_COLUMNS,
    "house": bankroll.HOUSE_COLUMNS,
    "rotation": rotation.ROTATION_COLUMNS,
    "eligibility": rotation.ELIGIBILITY_COLUMNS,
    "offers": rotation.OFFER_COLUMNS,
    "rollup": ROLLUP_COLUMNS,
}


def build_report(
    runner: ProjectionRunner,
    gaming_day: GamingDay,
    *,
    day: date | None,
    table_id: str | None = None,
    views: tuple[str, ...] = VIEWS,
    catch_up: bool = True,
    pits: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Catch up, then read every view asked for in one snapshot. ``day=None``: every gaming day
    with activity (accounting); the other views are as of now whatever the day. ``rollup``: per
    table, pit (``pits``: table -> pit) and casino, the day, month- and year-to-date ending on
    ``day`` (without a day: on the last gaming day with activity)."""
    if catch_up:
        runner.catch_up()
    out: dict[str, Any] = {
        "position": min(runner.positions().values()),
        "gaming_day": None if day is None else day.isoformat(),
        "timezone": gaming_day.zone_name,
        "cutoff": gaming_day.cutoff_text,
        "table_id": table_id,
    }
    with runner.db.read() as tx:
        tables = [row["table_id"] for row in bankroll.house(tx, table_id)]
        if table_id is not None and table_id not in tables:
            tables = []
        if "accounting" in views or "side_bets" in views:
            days, side = accounting.daily(tx, gaming_day, tables, day)
            if "accounting" in views:
                out["accounting"] = days
            if "side_bets" in views:
                out["side_bets"] = side
        if "rollup" in views:
            every, every_side = accounting.daily(tx, gaming_day, tables, None)
            last = day or max((date.fromisoformat(r["gaming_day"]) for r in every), default=None)
            out["rollup"] = [] if last is None else rollup(tx, every, every_side, last, pits or {})
        if "players" in views:
            out["players"] = bankroll.players(tx, table_id)
        if "house" in views:
            out["house"] = bankroll.house(tx, table_id)
        if "rotation" in views:
            out["rotation"] = rotation.banker_rotation(tx, table_id)
        if "eligibility" in views:
            out["eligibility"] = rotation.eligibility(tx, table_id)
        if "offers" in views:  # the offers made in the gaming day (all of them without a day)
            since = until = None
            if day is not None:
                since = format_time(gaming_day.start(day))
                until = format_time(gaming_day.start(day + timedelta(days=1)))
            out["offers"] = rotation.offers(tx, table_id, since, until)
    return out
