"""How the floor pages print figures they are given: money in minor units, and the ratings' rows
(``GET /players/{id}/ratings``' ratings) written in one function call per table, not a template
loop (a Jinja loop of 300 ratings cost the day's books page about 30 ms). Formatting only: no
figure is worked out here."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup, escape


def money(minor: int | None) -> str:
    """Minor units as the floor reads them (12345 -> 123.45); formatting only."""
    if minor is None:
        return "—"
    sign = "-" if minor < 0 else ""
    units, cents = divmod(abs(minor), 100)
    return f"{sign}{units:,}.{cents:02d}"


def when(value: str | datetime | None) -> str:
    """A time as every page writes it: ISO 8601 date and time to the second, ``YYYY-MM-DD
    HH:MM:SS`` (a recorded ``…T…+00:00`` text or a datetime); formatting only."""
    if not value:
        return "—"
    if isinstance(value, datetime):
        text = (value.astimezone(UTC) if value.tzinfo else value).isoformat()
    else:
        text = value
    return text[:19].replace("T", " ")


def _correction(r: dict[str, Any]) -> str:
    if not r["correction_reason"]:
        return "—"
    said = ""
    if r["corrected_average_bet"] is not None:
        said += f"average bet {money(r['corrected_average_bet'])} "
    if r["corrected_minutes"] is not None:
        said += f"{r['corrected_minutes']} minutes "
    return f'{escape(said)}<span class="reason">({escape(r["correction_reason"])})</span>'


def rating_rows(ratings: Iterable[dict[str, Any]], every_day: bool = False) -> Markup:
    """The ``<tr>`` of each rating: player (linked to its page), card, table, seat, the gaming day
    (``every_day``), status, start, end, minutes, rounds, the average bets, actual and
    theoretical win and the floor's correction; each cell named by ``data-k``."""
    out = []
    for r in ratings:
        player, table = escape(r["player_id"]), escape(r["table_id"])
        minutes = "—" if r["minutes"] is None else str(r["minutes"])
        day = f'<td data-k="gaming_day">{escape(r["gaming_day"] or "—")}</td>' if every_day else ""
        out.append(
            f'<tr data-player="{player}" data-table="{table}">'
            f'<td data-k="player_id"><a href="/floor/players/{player}">{player}</a></td>'
            f'<td data-k="card">{escape(r["card"])}</td>'
            f'<td data-k="table_id"><a href="/floor/tables/{table}">{table}</a></td>'
            f'<td class="num" data-k="seat">{r["seat"]}</td>{day}'
            f'<td data-k="status">{escape(r["status"])}</td>'
            f'<td data-k="started_at">{escape(when(r["started_at"]))}</td>'
            f'<td data-k="ended_at">{escape(when(r["ended_at"]))}</td>'
            f'<td class="num" data-k="minutes">{minutes}</td>'
            f'<td class="num" data-k="rounds">{r["rounds"]}</td>'
            f'<td class="num" data-k="average_bet">{money(r["average_bet"])}</td>'
            f'<td class="num" data-k="average_side_bet">{money(r["average_side_bet"])}</td>'
            f'<td class="num" data-k="actual_win">{money(r["actual_win"])}</td>'
            f'<td class="num" data-k="theo_win">{money(r["theo_win"])}</td>'
            f'<td data-k="correction">{_correction(r)}</td></tr>'
        )
    return Markup("\n".join(out))
