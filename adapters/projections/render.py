"""Plain-text tables and CSV for the report and recall commands.

Human output shows money in currency units with two decimals (the store holds minor units: 125
is 1.25); JSON and CSV keep the integer minor units, which are the contract.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Cell = Callable[[Any], str]


def money(value: Any) -> str:
    if value is None or value == "":
        return ""
    sign = "-" if value < 0 else ""
    units, cents = divmod(abs(int(value)), 100)
    return f"{sign}{units:,}.{cents:02d}"


def signed_money(value: Any) -> str:
    if value is None or value == "":
        return ""
    return ("+" if value > 0 else "") + money(value)


def pct(value: Any) -> str:
    return "" if value is None else f"{value}%"


def plain(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return str(value)


def text_table(columns: Sequence[tuple[str, str, Cell]], rows: Iterable[dict[str, Any]]) -> str:
    """Columns are (header, key, format); numbers (and money) are right-aligned."""
    cells = [[fmt(row.get(key)) for _, key, fmt in columns] for row in rows]
    headers = [header for header, _, _ in columns]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    right = [fmt is not plain for _, _, fmt in columns]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    return "\n".join(out)


def csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """RFC 4180 CSV with a header row; ``None`` is empty, booleans are ``true``/``false``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(name)) for name in columns])
    return buffer.getvalue()


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return value
