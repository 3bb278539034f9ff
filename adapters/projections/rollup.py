"""Roll-ups of the books (issue 18, R16): per table, per pit and for the casino, the gaming day,
month-to-date and year-to-date, with the statistical hold against the theoretical hold.

Summed from the accounting view's rows (one per table and gaming day), so every figure is the
report's own: ``drop``, ``handle``, ``side_handle``, ``win`` (each day's inventory win once its
closer is recorded, else its game win, as ``hold_pct`` takes it), ``game_win`` (the settlements'),
``hold_pct`` = win / drop. ``statistical_hold_pct`` = game win / (handle + side handle): what the
wagers actually kept; ``theoretical_hold_pct`` = theo / (handle + side handle), theo being each
day's main handle x the main wager's edge under the table's rules plus each side bet's handle x
its edge (``table_core/edges.py``, the ratings' versioned table).

Pits are the ``pits`` setting (``PAIGOW_PITS``: ``main=PG-1,PG-2;high-limit=PG-9``); a table in
none is in pit ``-``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date
from fractions import Fraction
from typing import Any

from adapters.projections.books import percent
from adapters.projections.db import Tx
from adapters.projections.schema import rating_tables
from table_core import edges

COLUMNS = (
    "level", "name", "period", "from_day", "to_day", "tables", "table_days", "drop", "handle",
    "side_handle", "win", "game_win", "hold_pct", "statistical_hold_pct",
    "theoretical_hold_pct", "theo_win",
)  # fmt: skip
NO_PIT = "-"


def parse_pits(text: str) -> dict[str, str]:
    """``"main=PG-1,PG-2;vip=PG-9"`` -> table -> pit; a table named twice is refused."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        pit, sep, tables = part.partition("=")
        if not sep or not pit.strip():
            raise ValueError(f"a pit is NAME=TABLE,TABLE…, not {part!r}")
        for table in filter(None, (t.strip() for t in tables.split(","))):
            if table in out:
                raise ValueError(f"table {table} is in pits {out[table]} and {pit.strip()}")
            out[table] = pit.strip()
    return out


def _rules(tx: Tx) -> dict[str, dict[str, Any]]:
    found = tx.all(f"SELECT table_id, rules FROM {rating_tables.name}", [])
    return {table: json.loads(rules) for table, rules in found}


def _theo(day: dict[str, Any], bets: Iterable[dict[str, Any]], rules: dict[str, Any]) -> Fraction:
    main, _ = edges.main_edge(rules)
    theo = Fraction(0) if main is None else day["handle"] * main
    for bet in bets:
        edge = edges.side_edge(rules, bet["bet"])
        if edge is not None:
            theo += bet["handle"] * edge
    return theo


def rollup(
    tx: Tx,
    days: list[dict[str, Any]],
    side: list[dict[str, Any]],
    day: date,
    pits: Mapping[str, str],
) -> list[dict[str, Any]]:
    """Rows per level (``table``, ``pit``, ``casino``) and period (``day``, ``mtd``, ``ytd``)
    ending on ``day``, from the accounting view's ``days`` and ``side`` rows (every day)."""
    rules = _rules(tx)
    periods = {
        "day": day,
        "mtd": day.replace(day=1),
        "ytd": day.replace(month=1, day=1),
    }
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in days:
        on = date.fromisoformat(row["gaming_day"])
        table = row["table_id"]
        bets = [b for b in side if b["table_id"] == table and b["gaming_day"] == row["gaming_day"]]
        theo = _theo(row, bets, rules.get(table, {}))
        win = row["inventory_win"] if row["inventory_win"] is not None else row["total_win"]
        for period, start in periods.items():
            if not start <= on <= day:
                continue
            for level, name in (("table", table), ("pit", pits.get(table, NO_PIT)),
                                ("casino", "casino")):  # fmt: skip
                g = groups.setdefault((level, name, period), _empty(level, name, period, start))
                g["_tables"].add(table)
                g["table_days"] += 1
                g["drop"] += row["drop"]
                g["handle"] += row["handle"]
                g["side_handle"] += row["side_handle"]
                g["win"] += win
                g["game_win"] += row["total_win"]
                g["_theo"] += theo
    order = {"table": 0, "pit": 1, "casino": 2}
    out = []
    for key in sorted(groups, key=lambda k: (order[k[0]], k[1], list(periods).index(k[2]))):
        g = groups[key]
        wagered = g["handle"] + g["side_handle"]
        theo = g.pop("_theo")
        g["tables"] = len(g.pop("_tables"))
        g["to_day"] = day.isoformat()
        g["hold_pct"] = percent(g["win"], g["drop"])
        g["statistical_hold_pct"] = percent(g["game_win"], wagered)
        g["theo_win"] = int((2 * theo + 1) // 2)
        g["theoretical_hold_pct"] = _fraction_pct(theo, wagered)
        out.append({name: g[name] for name in COLUMNS})
    return out


def _empty(level: str, name: str, period: str, start: date) -> dict[str, Any]:
    return {
        "level": level,
        "name": name,
        "period": period,
        "from_day": start.isoformat(),
        "_tables": set(),
        "table_days": 0,
        "drop": 0,
        "handle": 0,
        "side_handle": 0,
        "win": 0,
        "game_win": 0,
        "_theo": Fraction(0),
    }


def _fraction_pct(part: Fraction, whole: int) -> str | None:
    """``part / whole`` in percent, two decimals half up (as ``books.percent``)."""
    if whole == 0:
        return None
    hundredths = part * 10_000 / whole
    negative = hundredths < 0
    rounded = int((abs(hundredths) * 2 + 1) // 2)
    sign = "-" if negative and rounded else ""
    return f"{sign}{rounded // 100}.{rounded % 100:02d}"
