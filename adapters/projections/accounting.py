"""Table accounting: drop, win, hold %, commission, push rate, side-bet handle and win, rounds
played and voided, per table and gaming day.

Rows are kept per table and UTC quarter hour (``bucket``: epoch seconds). A gaming day is the
range of quarter hours from its cut-off (default 06:00) in the casino's time zone to the next
day's, worked out when reading (``gaming_day.py``): so the cut-off and the zone are settings of
the report, and changing them needs no rebuild. Every time zone's offset today is a multiple of
15 minutes, so a quarter hour never straddles a cut-off (a cut-off must fall on a quarter hour).

What counts where (docs/projections.md): a round counts on the gaming day of its settlement (or
its void), when its result is known; every figure of one settlement carries that command's time.
- ``handle``: the players' main wagers settled (the house hand's own wager excluded; wagers
  returned for "no action" or by a void never played); ``drop``: the drop box's cash and markers
  (``books.py``: counted once counted, else recorded);
- ``main_result``: the house's result on main wagers before commission (the bank's result when the
  dealer banks; its co-bank share and the house hand's result when a player banks);
- ``main_win`` (alias ``win``) = main_result + commission; ``game_win`` = main win + side win;
  ``hold_pct`` = inventory win / drop (game win / drop before the closer), ``game_hold_pct`` =
  game win / drop (docs/projections.md, "The words for money");
- side bets per bet: handle (the amounts wagered), bets, the house's side result (−payouts); Envy
  bonuses are the house's cost of Fortune, shown apart and taken off the side win.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Table

from adapters.projections.books import BOOK_COLUMNS, books_of, hold_of, no_books, percent
from adapters.projections.db import HandledBatch, Rows, Tx, no_defaults
from adapters.projections.gaming_day import GamingDay
from adapters.projections.schema import accounting, accounting_side_bets
from table_core.ports import RecordedEvent

NAME = "accounting"
TABLES: tuple[Table, ...] = (accounting, accounting_side_bets)
BUCKET_SECONDS = 15 * 60

Payload = dict[str, Any]


def bucket_of(event: RecordedEvent) -> int:
    seconds = int(event.at.timestamp())
    return seconds - seconds % BUCKET_SECONDS


class AccountingBatch(HandledBatch):
    def __init__(self, tx: Tx) -> None:
        self.rows = Rows(tx, accounting, no_defaults)
        self.side = Rows(tx, accounting_side_bets, no_defaults)
        super().__init__(_HANDLERS, self.rows, self.side)


def _settled(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.rows.get(e.stream_id, bucket_of(e))
    row["rounds_played"] += 1
    row["main_result"] += p["banker"]["house_share"]
    for result in p["results"]:
        if result["player_id"] is None:  # the house hand: the house's own result, not drop
            row["main_result"] += result["net"]
            continue
        row["hands"] += 1
        row["drop_amount"] += result["wager"]
        row["pushes"] += result["result"] == "push"


def _commission(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    b.rows.get(e.stream_id, bucket_of(e))["commission"] += p["amount"]


def _side_settled(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.side.get(e.stream_id, bucket_of(e), p["bet"])
    row["bets"] += 1
    row["handle"] += p["amount"]
    row["result"] -= p["payout"]


def _envy(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    b.rows.get(e.stream_id, bucket_of(e))["envy_paid"] += p["amount"]


def _bought_in(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    if p.get("medium") in ("cash", "marker", None):  # the drop box's; old buy-ins read as cash
        b.rows.get(e.stream_id, bucket_of(e))["buy_in_drop"] += p["amount"]


def _voided(b: AccountingBatch, e: RecordedEvent, p: Payload) -> None:
    b.rows.get(e.stream_id, bucket_of(e))["rounds_voided"] += 1


_HANDLERS: dict[str, Callable[[AccountingBatch, RecordedEvent, Payload], None]] = {
    "round_settled": _settled,
    "commission_taken": _commission,
    "side_bet_settled": _side_settled,
    "envy_paid": _envy,
    "round_voided": _voided,
    "chips_bought_in": _bought_in,
}


# --- reading -------------------------------------------------------------------------------------

ACCOUNTING_COLUMNS = (
    "table_id",
    "gaming_day",
    "rounds_played",
    "rounds_voided",
    "hands",
    "pushes",
    "push_rate_pct",
    "handle",
    "drop",
    "main_result",
    "commission",
    "win",
    "hold_pct",
    "side_bets",
    "side_handle",
    "side_result",
    "envy_paid",
    "side_win",
    "side_hold_pct",
    "total_win",
    *BOOK_COLUMNS,
    # Added under the vocabulary's names (docs/projections.md, "The words for money"): ``win``
    # stays, the same figure, as ``main_win``'s alias.
    "main_win",
    "game_hold_pct",
)
SIDE_BET_COLUMNS = (
    *("table_id", "gaming_day", "bet", "bets", "handle", "result", "hold_pct"),
    "side_result",  # = result: the vocabulary's name
)
_SUMS = (
    "rounds_played",
    "rounds_voided",
    "hands",
    "pushes",
    "drop_amount",
    "main_result",
    "commission",
    "envy_paid",
    "buy_in_drop",
)


def _bucket_range(day_start: int, day_end: int) -> tuple[int, int]:
    # A margin either side: the exact day of each quarter hour is decided by GamingDay.day_of.
    return day_start - 2 * 86_400, day_end + 2 * 86_400


def daily(
    tx: Tx,
    gaming_day: GamingDay,
    table_ids: list[str],
    day: date | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Accounting rows per table and gaming day, and the side bets per bet. With ``day``, one
    row per table in ``table_ids`` (zeros for an idle table); without, every gaming day that had
    activity."""
    where, params = "", []
    if day is not None:
        start = int(gaming_day.start(day).timestamp())
        end = int(gaming_day.start(day + timedelta(days=1)).timestamp())
        low, high = _bucket_range(start, end)
        where, params = "WHERE bucket >= ? AND bucket < ?", [low, high]
    day_cache: dict[int, date] = {}

    def day_of(bucket: int) -> date:
        found = day_cache.get(bucket)
        if found is None:
            found = day_cache[bucket] = gaming_day.day_of(datetime.fromtimestamp(bucket, UTC))
        return found

    wanted = set(table_ids)
    sums: dict[tuple[str, date], dict[str, int]] = {}
    if day is not None:
        for table in table_ids:
            sums[(table, day)] = dict.fromkeys(_SUMS, 0)
    found = tx.all(
        f"SELECT table_id, bucket, {', '.join(_SUMS)} FROM {accounting.name} {where}", params
    )
    for table, bucket, *values in found:
        on = day_of(bucket)
        if table not in wanted or (day is not None and on != day):
            continue
        row = sums.setdefault((table, on), dict.fromkeys(_SUMS, 0))
        for name, value in zip(_SUMS, values, strict=True):
            row[name] += value
    side: dict[tuple[str, date, str], dict[str, int]] = {}
    side_found = tx.all(
        f"SELECT table_id, bucket, bet, bets, handle, result FROM {accounting_side_bets.name} "
        f"{where}",
        params,
    )
    for table, bucket, bet, bets, handle, result in side_found:
        on = day_of(bucket)
        if table not in wanted or (day is not None and on != day):
            continue
        row = side.setdefault((table, on, bet), {"bets": 0, "handle": 0, "result": 0})
        row["bets"] += bets
        row["handle"] += handle
        row["result"] += result
        sums.setdefault((table, on), dict.fromkeys(_SUMS, 0))
    books = books_of(tx, day)
    for table, on in books:
        if table in wanted:
            sums.setdefault((table, on), dict.fromkeys(_SUMS, 0))
    days = []
    for (table, on), s in sorted(sums.items(), key=lambda item: (item[0][1], item[0][0])):
        bets = [v for (t, d, _), v in side.items() if t == table and d == on]
        handle = sum(v["handle"] for v in bets)
        side_result = sum(v["result"] for v in bets)
        win = s["main_result"] + s["commission"]
        side_win = side_result - s["envy_paid"]
        book = books.get((table, on)) or no_books(s["buy_in_drop"], win + side_win)
        days.append(
            {
                "table_id": table,
                "gaming_day": on.isoformat(),
                "rounds_played": s["rounds_played"],
                "rounds_voided": s["rounds_voided"],
                "hands": s["hands"],
                "pushes": s["pushes"],
                "push_rate_pct": percent(s["pushes"], s["hands"]),
                "handle": s["drop_amount"],
                "drop": book["drop"],
                "main_result": s["main_result"],
                "commission": s["commission"],
                "win": win,
                "hold_pct": hold_of(book),
                "side_bets": sum(v["bets"] for v in bets),
                "side_handle": handle,
                "side_result": side_result,
                "envy_paid": s["envy_paid"],
                "side_win": side_win,
                "side_hold_pct": percent(side_win, handle),
                "total_win": win + side_win,
                **{key: book[key] for key in BOOK_COLUMNS},
                "main_win": win,
                "game_hold_pct": percent(book["game_win"], book["drop"]),
            }
        )
    side_rows = [
        {
            "table_id": table,
            "gaming_day": on.isoformat(),
            "bet": bet,
            "bets": v["bets"],
            "handle": v["handle"],
            "result": v["result"],
            "hold_pct": percent(v["result"], v["handle"]),
            "side_result": v["result"],
        }
        for (table, on, bet), v in sorted(side.items(), key=lambda i: (i[0][1], i[0][0], i[0][2]))
    ]
    return days, side_rows


HOUR_COLUMNS = ("hour", "rounds_played", "handle", "drop", "win", "hold_pct")


def hourly(tx: Tx, gaming_day: GamingDay, table_ids: list[str], day: date) -> list[dict[str, Any]]:
    """The gaming day ``day`` hour by hour (the floor's chart, docs/floor.md): per clock hour of
    the casino's zone that had a round played, the rounds, the handle (main wagers settled), the
    drop the table recorded (cash and marker buy-ins), the win (main result + commission) and
    hold % = win / drop (``None`` for an hour without a buy-in). All tables in ``table_ids``."""
    start = int(gaming_day.start(day).timestamp())
    end = int(gaming_day.start(day + timedelta(days=1)).timestamp())
    wanted = set(table_ids)
    hours: dict[int, dict[str, int]] = {}
    found = tx.all(
        f"SELECT table_id, bucket, rounds_played, drop_amount, buy_in_drop, main_result, "
        f"commission FROM {accounting.name} WHERE bucket >= ? AND bucket < ?",
        [start, end],
    )
    for table, bucket, played, handle, drop, result, commission in found:
        if table not in wanted:
            continue
        hour = bucket - bucket % 3600
        row = hours.setdefault(hour, {"rounds_played": 0, "handle": 0, "drop": 0, "win": 0})
        row["rounds_played"] += played
        row["handle"] += handle
        row["drop"] += drop
        row["win"] += result + commission
    out = []
    for hour, row in sorted(hours.items()):
        if row["rounds_played"] == 0:
            continue
        local = datetime.fromtimestamp(hour, UTC).astimezone(gaming_day.zone)
        out.append(
            {
                "hour": local.strftime("%H:%M"),
                **row,
                "hold_pct": percent(row["win"], row["drop"]),
            }
        )
    return out


def day_totals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's accounting rows summed per gaming day over their tables (the floor's by-day
    chart and the day's totals): rounds, handle, drop, win (main result + commission) and
    hold % = win / drop."""
    days: dict[str, dict[str, int]] = {}
    for row in rows:
        total = days.setdefault(
            row["gaming_day"], {"rounds_played": 0, "handle": 0, "drop": 0, "win": 0}
        )
        for name in ("rounds_played", "handle", "drop", "win"):
            total[name] += row[name]
    return [
        {"gaming_day": day, **t, "hold_pct": percent(t["win"], t["drop"])}
        for day, t in sorted(days.items())
    ]
