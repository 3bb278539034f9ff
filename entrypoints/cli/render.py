"""Text tables (rich) and CSV for the report and recall commands.

Human output shows money in currency units with two decimals (the store holds minor units: 125
is 1.25); JSON and CSV keep the integer minor units, which are the contract. A table fits the
width it is given (the terminal's, or ``PIPE_WIDTH`` in a pipe or a file): when its columns do not
fit side by side it is cut into several tables of whole columns, each repeating the leading key
columns (table, seat, player, ...), so an amount is never wrapped or cut short.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

# rich is imported where a table is drawn: JSON and CSV runs, and the command line's start, skip it.

Cell = Callable[[Any], str]
#: (header, key, format): the column's header, the row's key and how a value is shown.
Column = tuple[str, str, Cell]

#: The width of the text written to a pipe or a file when ``COLUMNS`` does not say (a terminal's
#: own width is used otherwise).
PIPE_WIDTH = 100
#: A text column's share of the width when cutting a table: wider text wraps inside its column.
_TEXT_COLUMN_MOST = 28
#: What a column costs beside its cells: the padding and the separator between columns.
_COLUMN_GAP = 2


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


def plain(value: Any, booleans: tuple[str, str] = ("no", "yes")) -> str:
    """A cell's text: ``None`` empty, a boolean one of ``booleans`` (false, true), a list its
    items spaced."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return booleans[value]
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return str(value)


def output_width() -> int:
    """The terminal's width when standard output is one (``COLUMNS`` when set), else
    ``PIPE_WIDTH``."""
    return shutil.get_terminal_size((PIPE_WIDTH, 24)).columns


def text_tables(
    title: str,
    columns: Sequence[Column],
    rows: Iterable[dict[str, Any]],
    width: int,
    keys: int = 1,
) -> list[Table]:
    """The rows as one table, or as several when the columns do not fit ``width`` side by side:
    each then holds the first ``keys`` columns and as many of the others as fit (the title says
    "continued"). Numbers (and money) are right-aligned and never wrap; headers and text wrap
    between words inside their column."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    cells = [[fmt(row.get(key)) for _, key, fmt in columns] for row in rows]
    least, natural = zip(
        *(_widths(column, [r[i] for r in cells]) for i, column in enumerate(columns)), strict=True
    )
    tables = []
    for part, chosen in enumerate(_fit(least, width, keys)):
        room = width - sum(least[i] + _COLUMN_GAP for i in chosen) + _COLUMN_GAP
        extra = {}  # the room left unwraps headers and text, the smallest needs first
        for i in sorted(chosen, key=lambda i: natural[i] - least[i]):
            extra[i] = max(0, min(room, natural[i] - least[i]))
            room -= extra[i]
        table = Table(
            title=title if part == 0 else f"{title} (continued)",
            title_justify="left",
            title_style="bold",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            show_edge=False,
            collapse_padding=True,
        )
        for i in chosen:
            header, _, fmt = columns[i]
            table.add_column(
                header,
                justify="left" if fmt is plain else "right",
                overflow="fold",
                width=least[i] + extra[i],
            )
        for row in cells:
            table.add_row(*(Text(row[i]) for i in chosen))
        tables.append(table)
    return tables


def _widths(column: Column, cells: list[str]) -> tuple[int, int]:
    """The least width a column takes (its longest number, or its text up to
    ``_TEXT_COLUMN_MOST``; a header wraps between its words) and the width with nothing wrapped."""
    from rich.cells import cell_len

    header, _, fmt = column
    header_word = max(cell_len(word) for word in header.split())
    longest = max((cell_len(cell) for cell in cells), default=0)
    natural = max(cell_len(header), longest)
    if fmt is plain:
        return max(header_word, min(longest, _TEXT_COLUMN_MOST)), natural
    return max(header_word, longest), natural


def _fit(least: Sequence[int], width: int, keys: int) -> list[list[int]]:
    """Column indexes cut into groups that fit ``width``, each led by the key columns."""
    lead = list(range(min(keys, len(least))))
    groups: list[list[int]] = []
    group = list(lead)
    for i in range(len(lead), len(least)):
        used = sum(least[j] + _COLUMN_GAP for j in group)
        if len(group) > len(lead) and used + least[i] > width:
            groups.append(group)
            group = list(lead)
        group.append(i)
    groups.append(group)
    return groups


def as_text(parts: Iterable[RenderableType | str], width: int) -> str:
    """Render text lines and tables at ``width`` columns, plain (no colour, no markup: a name in
    brackets is shown as it is), a blank line between parts (an empty one is left out)."""
    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        color_system=None,
        force_terminal=False,
        markup=False,
        emoji=False,
        highlight=False,
    )
    shown = [part for part in parts if part != ""]
    for i, part in enumerate(shown):
        if i:
            console.print()
        console.print(Text(part) if isinstance(part, str) else part)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def csv_text(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> str:
    """RFC 4180 CSV with a header row; ``None`` is empty, booleans are ``true``/``false``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        # The csv module writes any other value as str() would: plain's text, booleans aside.
        writer.writerow([plain(row.get(name), ("false", "true")) for name in columns])
    return buffer.getvalue()
