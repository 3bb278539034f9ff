"""The books (issue 18, duty R16): every table with its gaming day and status, and per table and
gaming day the opener, fills, credits, closer, the drop (recorded at the table and counted) and the
game win, from the events of the table's stream.

A table's gaming day is the one its last ``gaming_day_opened`` named (the table's own day, not the
report's clock): every settlement between its opener and its closer counts on it. The game win is
the house's result on main wagers, the commission and the side bets (less Envy), as
``accounting`` counts them; ``drop_recorded`` is the cash and marker buy-ins of the day.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from sqlalchemy import Table

from adapters.projections.db import HandledBatch, Rows, Tx
from adapters.projections.schema import books_days, tables
from table_core.ports import RecordedEvent

NAME = "books"
TABLES: tuple[Table, ...] = (tables, books_days)
Payload = dict[str, Any]
_MEDIA = {"cash": "cash", None: "cash", "marker": "markers", "chips": "chips_in"}


class BooksBatch(HandledBatch):
    def __init__(self, tx: Tx) -> None:
        self.tables = Rows(tx, tables, lambda key: {"gaming_day": "", "status": "open",
                                                    "house_way": ""})  # fmt: skip
        self.days = Rows(tx, books_days, lambda key: {"status": "open", "counted": False})
        super().__init__(_HANDLERS, self.tables, self.days)

    def day(self, event: RecordedEvent) -> dict[str, Any] | None:
        """The table's open (or last) books day, ``None`` for a table without books."""
        table = self.tables.get(event.stream_id)
        if not table["gaming_day"]:
            return None
        return self.days.get(event.stream_id, table["gaming_day"])


def _table_opened(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.tables.get(e.stream_id)
    row["house_way"] = p["rules"]["hand"]["house_way"]


def _rules_changed(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id)["house_way"] = p["rules"]["hand"]["house_way"]


def _day_opened(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    table = b.tables.get(e.stream_id)
    table.update(gaming_day=p["gaming_day"], status="open")
    day = b.days.get(e.stream_id, p["gaming_day"])
    day.update(status="open", opener=p["total"], opener_variance=p["variance"])


def _day_closed(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id)["status"] = "closed"
    day = b.days.get(e.stream_id, p["gaming_day"])
    day.update(status="closed", closer=p["total"], closer_variance=p["variance"])


def _filled(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    day = b.days.get(e.stream_id, p["gaming_day"])
    day["fills"] += p["total"]
    day["fill_slips"] += 1


def _credited(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    day = b.days.get(e.stream_id, p["gaming_day"])
    day["credits"] += p["total"]
    day["credit_slips"] += 1


def _counted(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    day = b.days.get(e.stream_id, p["gaming_day"])
    day.update(
        counted=True, drop_counted=p["total"], count_cash=p["cash"], count_markers=p["markers"]
    )
    if day["status"] == "closed":
        day["status"] = "counted"


def _bought_in(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    day = b.day(e)
    if day is None:
        return
    medium = p.get("medium")
    day[_MEDIA.get(medium, "promotional")] += p["amount"]
    if medium in ("cash", "marker", None):
        day["drop_recorded"] += p["amount"]


def _settled(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
    day = b.day(e)
    if day is not None:
        win = p["banker"]["house_share"]
        win += sum(r["net"] for r in p["results"] if r["player_id"] is None)
        day["game_win"] += win


def _game_change(sign: int, key: str) -> Callable[[BooksBatch, RecordedEvent, Payload], None]:
    def apply(b: BooksBatch, e: RecordedEvent, p: Payload) -> None:
        day = b.day(e)
        if day is not None:
            day["game_win"] += sign * p[key]

    return apply


_HANDLERS: dict[str, Callable[[BooksBatch, RecordedEvent, Payload], None]] = {
    "table_opened": _table_opened,
    "rules_changed": _rules_changed,
    "gaming_day_opened": _day_opened,
    "gaming_day_closed": _day_closed,
    "tray_filled": _filled,
    "tray_credited": _credited,
    "drop_counted": _counted,
    "chips_bought_in": _bought_in,
    "round_settled": _settled,
    "commission_taken": _game_change(1, "amount"),
    "side_bet_settled": _game_change(-1, "payout"),
    "envy_paid": _game_change(-1, "amount"),
}


def book_figures(row: dict[str, Any]) -> dict[str, Any]:
    """One books day as the report prints it: the drop is the count's when counted, else what the
    table recorded; win = closer + credits + drop - opener - fills (once closed)."""
    counted = bool(row["counted"])  # SQLite answers 0/1
    drop = row["drop_counted"] if counted else row["drop_recorded"]
    closed = row["status"] in ("closed", "counted")
    win = row["closer"] + row["credits"] + drop - row["opener"] - row["fills"] if closed else None
    return {
        "status": row["status"],
        "opener": row["opener"],
        "opener_variance": row["opener_variance"],
        "fills": row["fills"],
        "fill_slips": row["fill_slips"],
        "credits": row["credits"],
        "credit_slips": row["credit_slips"],
        "closer": row["closer"] if closed else None,
        "closer_variance": row["closer_variance"] if closed else None,
        "drop_recorded": row["drop_recorded"],
        "drop_counted": row["drop_counted"] if counted else None,
        "drop_variance": row["drop_counted"] - row["drop_recorded"] if counted else None,
        "cash": row["cash"],
        "markers": row["markers"],
        "chips_in": row["chips_in"],
        "promotional": row["promotional"],
        "drop": drop,
        "inventory_win": win,
        "game_win": row["game_win"],
        "win_variance": None if win is None else win - row["game_win"],
    }


#: The books' keys of a report row (beside ``drop`` and ``hold_pct``); ``None`` without books.
BOOK_COLUMNS = (
    "books",
    "opener",
    "opener_variance",
    "fills",
    "credits",
    "closer",
    "closer_variance",
    "drop_recorded",
    "drop_counted",
    "drop_variance",
    "cash",
    "markers",
    "chips_in",
    "promotional",
    "inventory_win",
    "game_win",
    "win_variance",
)


def no_books(drop_recorded: int, game_win: int) -> dict[str, Any]:
    """A table day without an opener: the drop is what the table recorded (buy-ins for cash and
    markers, and those recorded without a medium), the win the game's."""
    row: dict[str, Any] = dict.fromkeys(BOOK_COLUMNS)
    row.update(books="none", drop=drop_recorded, drop_recorded=drop_recorded, game_win=game_win)
    return row


def books_of(tx: Tx, day: date | None) -> dict[tuple[str, date], dict[str, Any]]:
    """Every books day (or those of ``day``) as ``book_figures`` gives it."""
    columns = [c.name for c in books_days.columns]
    where, params = ("WHERE gaming_day = ?", [day.isoformat()]) if day is not None else ("", [])
    found = tx.all(f"SELECT {', '.join(columns)} FROM {books_days.name} {where}", params)
    out = {}
    for values in found:
        row = dict(zip(columns, values, strict=True))
        figures = book_figures(row)
        figures["books"] = figures.pop("status")
        out[(row["table_id"], date.fromisoformat(row["gaming_day"]))] = figures
    return out


def percent(part: int, whole: int) -> str | None:
    """``part / whole`` as a percentage with two decimals, half up, exact from integers;
    ``None`` when ``whole`` is 0 (no hold % without a drop)."""
    if whole == 0:
        return None
    negative = (part < 0) != (whole < 0)
    hundredths, rest = divmod(abs(part) * 10_000, abs(whole))
    if rest * 2 >= abs(whole):
        hundredths += 1
    sign = "-" if negative and hundredths else ""
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}"


def win_of(book: dict[str, Any]) -> int:
    """The win a hold % is of: the inventory win once the day is closed, else the game win (a
    books day, or an accounting row, which carries both)."""
    win: int = book["inventory_win"] if book["inventory_win"] is not None else book["game_win"]
    return win


def hold_of(book: dict[str, Any]) -> str | None:
    """hold % = win / drop, the win as :func:`win_of` picks it."""
    return percent(win_of(book), book["drop"])


def read_tables(tx: Tx) -> list[dict[str, Any]]:
    """Every table (``GET /tables``): its gaming day (``None`` without books), House Way, status
    (``open`` or ``closed``) and ``books`` (``tracked`` or ``none``), by table id."""
    found = tx.all(
        f"SELECT table_id, gaming_day, status, house_way FROM {tables.name} ORDER BY table_id", []
    )
    return [
        {
            "table_id": table_id,
            "gaming_day": gaming_day or None,
            "house_way": house_way,
            "status": status,
            "books": "tracked" if gaming_day else "none",
        }
        for table_id, gaming_day, status, house_way in found
    ]
