"""``paigow report``: table accounting per gaming day, bankrolls and the banker rotation.

The projections are brought up to date from the events first (a newcomer never reads stale
figures), then every view is read in one snapshot. ``--format table`` is for people (money in
currency units); ``json`` and ``csv`` are the stable contracts of docs/projections.md (money in
integer minor units). CSV carries one view (``--view``, default ``accounting``).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import Any

from entrypoints.cli.render import (
    Column,
    as_text,
    csv_text,
    money,
    output_width,
    pct,
    plain,
    signed_money,
    text_tables,
)
from table_core.errors import DomainError

VIEW_CHOICES = (
    "all",
    "summary",
    "accounting",
    "side_bets",
    "players",
    "house",
    "rotation",
    "eligibility",
    "offers",
    "rollup",
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report", help="table accounting per gaming day, bankrolls and the banker rotation"
    )
    parser.add_argument("--db", metavar="URL", help="database URL (default: $PAIGOW_DB)")
    parser.add_argument("--table", metavar="ID", help="one table (default: every table)")
    parser.add_argument(
        "--day",
        default="today",
        metavar="YYYY-MM-DD",
        help="the gaming day: a date, 'today' (default, by the clock) or 'all'",
    )
    parser.add_argument(
        "--view",
        choices=VIEW_CHOICES,
        help="what to show: summary (one row per table and gaming day: the default for people "
        "with --day all), accounting (every figure of the books), side_bets, players, house, "
        "rotation, eligibility, offers (every offer of the bank), rollup, or all (every view "
        "but rollup: the default for one day and for JSON; CSV: accounting)",
    )
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.add_argument(
        "--tz", metavar="ZONE", help="the casino's time zone (default $PAIGOW_TZ, else UTC)"
    )
    parser.add_argument(
        "--cutoff",
        metavar="HH:MM",
        help="gaming-day cut-off, local time (default $PAIGOW_GAMING_DAY_CUTOFF, else 06:00)",
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="rebuild every projection from the events first"
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="first verify the events (`paigow audit verify`'s checks) and compare every stored "
        "projection row with the events: findings on standard error, exit status 1, no report",
    )
    parser.set_defaults(handler=run_report)


def _day(text: str, gaming_day: Any) -> date | None:
    if text == "all":
        return None
    if text == "today":
        return gaming_day.today()  # type: ignore[no-any-return]
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DomainError(f"--day is YYYY-MM-DD, 'today' or 'all', got {text!r}") from None


def run_report(args: argparse.Namespace) -> int:
    from adapters.projections import opened
    from adapters.projections.reports import VIEWS, build_report
    from adapters.projections.standby import reader
    from entrypoints.cli.main import settings_of
    from entrypoints.cli.progress import Progress

    settings = settings_of(args)
    gaming_day = settings.gaming_day(args.tz, args.cutoff)
    day = _day(args.day, gaming_day)
    view = args.view or _default_view(args.format, day)
    if args.format == "csv" and view == "all":
        raise DomainError("CSV holds one view: choose one with --view")
    views = VIEWS if view == "all" else (view,)
    if view == "summary" and args.format != "table":
        views = ("accounting",)  # the summary's figures are the accounting view's, in JSON and CSV
    try:
        pits = settings.pit_of()
    except ValueError as error:
        raise DomainError(f"PAIGOW_PITS: {error}") from None
    url = _url(args)
    with opened(url, create=False, settings=settings) as store:
        runner = reader(store, rebuild=args.rebuild)  # a standby: nothing written
        progress = Progress(runner.head(), "projections")
        if args.rebuild:
            runner.rebuild(progress=progress.update)
        else:
            runner.catch_up(progress.update)
        progress.close()
        if args.verify and not _verified(url, gaming_day, settings):
            return 1
        report = build_report(
            runner,
            gaming_day,
            day=day,
            table_id=args.table,
            views=tuple("accounting" if v == "summary" else v for v in views),
            catch_up=False,
            pits=pits,
        )
    sys.stdout.write(render(report, views, args.format))
    return 0


def _default_view(fmt: str, day: date | None) -> str:
    """CSV: accounting; people asking for every day: the summary (one row per table and day: the
    long views, every bank offer among them, by name with ``--view``); otherwise every view."""
    if fmt == "csv":
        return "accounting"
    if fmt == "table" and day is None:
        return "summary"
    return "all"


def _verified(url: str, gaming_day: Any, settings: Any) -> bool:
    """``--verify``: the audit of the events and the projections' check; False (and every
    finding on standard error) when anything does not hold."""
    from audit.findings import BESIDE
    from audit.sources import open_database
    from audit.verify import verify_log
    from service_layer.projection_check import check_projections

    source = open_database(
        url, signing_key=settings.signing_key, public_setting=settings.public_key
    )
    try:
        audit = verify_log(source, allow_unsealed_tail=True)  # a live table may be mid-round
    finally:
        source.close()
    findings = sorted(
        [*audit.findings, *check_projections(url, gaming_day)], key=lambda f: f.sort_key()
    )
    for finding in findings:
        print(f"paigow report: {finding}", file=sys.stderr)
    if audit.key_beside_database:
        print(f"paigow report: note: {BESIDE}", file=sys.stderr)
    if findings:
        print(
            f"paigow report: verification FAILED: {len(findings)} finding(s); no report",
            file=sys.stderr,
        )
    return not findings


def _url(args: argparse.Namespace) -> str:
    """The command's database (``--db``, else the ``db`` setting), refusing a SQLite file that
    does not exist (a new, empty one would report nothing, which looks like a quiet day)."""
    from adapters.store import database_url, missing_sqlite
    from entrypoints.cli.main import db_of

    parsed = database_url(db_of(args))
    if (missing := missing_sqlite(parsed)) is not None:
        raise missing
    return parsed.render_as_string(hide_password=False)


def render(report: dict[str, Any], views: tuple[str, ...], fmt: str) -> str:
    from adapters.projections.reports import COLUMNS

    if fmt == "json":
        return json.dumps(report, indent=2, sort_keys=False) + "\n"
    if fmt == "csv":
        (view,) = views
        return csv_text(COLUMNS[view], report[view])
    return _human(report, views)


def _human(report: dict[str, Any], views: tuple[str, ...], width: int | None = None) -> str:
    """Each view a table (or several, cut to fit the width: see entrypoints.cli.render)."""
    width = width or output_width()
    day = f"Gaming day {report['gaming_day']}" if report["gaming_day"] else "Every gaming day"
    parts: list[Any] = [
        f"{day} (cut-off {report['cutoff']} {report['timezone']}); "
        f"events to position {report['position']}"
    ]
    for view in views:
        title, keys, columns = SECTIONS[view]
        rows = report["accounting" if view == "summary" else view]
        parts += text_tables(title, columns, rows, width, keys) if rows else [f"{title}: none"]
        if rows and view in WHY:
            parts.append("\n".join(WHY[view](rows)))
    if views == ("summary",):
        parts.append(
            "More: --view accounting (every figure), --view all (players, the house, the bank, "
            "its offers)"
        )
    return as_text(parts, width)


def _summary_why(rows: list[dict[str, Any]]) -> list[str]:
    """The summary's wins and holds: how they relate, and why two differ where they do."""
    return [
        "game win = main win + side win (the settlements'); game hold % = game win / drop",
        "hold % = inventory win / drop (until the closer: game win / drop)",
        *_differences(rows),
    ]


def _accounting_why(rows: list[dict[str, Any]]) -> list[str]:
    """How the accounting view's wins and holds relate (docs/projections.md, "The words for
    money"), and, a line each, why two of them differ where they do."""
    return [
        "main win = main result + commission; side win = side result − Envy paid",
        "game win = main win + side win; game hold % = game win / drop",
        "hold % = inventory win / drop (until the closer: game win / drop)",
        *_differences(rows),
    ]


def _differences(rows: list[dict[str, Any]]) -> list[str]:
    """A line for each table day whose inventory win is not its game win, or whose game win (its
    books day's) is not the main and side win of the report's gaming day."""
    lines = []
    for row in rows:
        where = f"{row['table_id']} {row['gaming_day']}"
        if row["game_win"] != row["total_win"]:
            lines.append(
                f"{where}: game win {signed_money(row['game_win'])} counts the table's books day "
                f"(opener to closer); main win + side win {signed_money(row['total_win'])} "
                "count the rounds settled in this gaming day"
            )
        variance = row.get("win_variance")
        if variance:
            closer, drop = row.get("closer_variance") or 0, row.get("drop_variance") or 0
            line = (
                f"{where}: inventory win − game win = {signed_money(variance)}: the closer's "
                f"variance {signed_money(closer)} (the tray counted against the tray the events "
                f"give) + the drop's {signed_money(drop)} (the count against the buy-ins)"
            )
            if rest := variance - closer - drop:
                line += f" + {signed_money(rest)} the counts do not explain"
            lines.append(line)
    return lines


#: The lines printed under a view's table: how its figures relate.
WHY: dict[str, Any] = {
    "summary": _summary_why,
    "accounting": _accounting_why,
    "side_bets": lambda rows: [
        "side result = −payouts; bet hold % = side result / handle, before Envy (paid per player)",
        "side win (the accounting view's) = side result − Envy paid",
    ],
    "house": lambda rows: [
        "house result = main result + side result − Envy paid (the audit's, before commission)",
        "game win = house result + commission",
    ],
    "rollup": lambda rows: [
        "hold win = each day's inventory win (until its closer: its game win)",
        "hold % = hold win / drop; stat. hold % = game win / (handle + side handle)",
    ],
}


#: Each view's title, how many leading columns name a row (repeated when a table is cut to fit)
#: and its columns: (header, key, format).
SECTIONS: dict[str, tuple[str, int, list[Column]]] = {
    "summary": (
        "Books by gaming day",
        2,
        [
            ("table", "table_id", plain),
            ("gaming day", "gaming_day", plain),
            ("rounds", "rounds_played", str),
            ("handle", "handle", money),
            ("drop", "drop", money),
            ("game win", "game_win", signed_money),
            ("game hold %", "game_hold_pct", pct),
            ("inventory win", "inventory_win", signed_money),
            ("hold %", "hold_pct", pct),
        ],
    ),
    "accounting": (
        "Table accounting",
        2,
        [
            ("table", "table_id", plain),
            ("gaming day", "gaming_day", plain),
            ("rounds", "rounds_played", str),
            ("voided", "rounds_voided", str),
            ("hands", "hands", str),
            ("push %", "push_rate_pct", pct),
            ("handle", "handle", money),
            ("drop", "drop", money),
            ("commission", "commission", money),
            ("main win", "main_win", signed_money),
            ("side handle", "side_handle", money),
            ("side win", "side_win", signed_money),
            ("game win", "game_win", signed_money),
            ("game hold %", "game_hold_pct", pct),
            ("opener", "opener", money),
            ("fills", "fills", money),
            ("credits", "credits", money),
            ("closer", "closer", money),
            ("inventory win", "inventory_win", signed_money),
            ("hold %", "hold_pct", pct),
        ],
    ),
    "side_bets": (
        "Side bets",
        3,
        [
            ("table", "table_id", plain),
            ("gaming day", "gaming_day", plain),
            ("bet", "bet", plain),
            ("bets", "bets", str),
            ("handle", "handle", money),
            ("side result", "side_result", signed_money),
            ("bet hold %", "hold_pct", pct),
        ],
    ),
    "players": (
        "Player bankrolls",
        3,
        [
            ("table", "table_id", plain),
            ("seat", "seat", plain),
            ("player", "player_id", plain),
            ("balance", "balance", money),
            ("in play", "in_play", money),
            ("bought in", "bought_in", money),
            ("cashed out", "cashed_out", money),
            ("main", "main_result", signed_money),
            ("side", "side_result", signed_money),
            ("commission", "commission_paid", money),
            ("as banker", "banker_result", signed_money),
            ("banker comm.", "banker_commission", money),
            ("net", "net_result", signed_money),
            ("hands", "hands_played", str),
            ("banked", "rounds_banked", str),
        ],
    ),
    "house": (
        "The house, since each table opened",
        1,
        [
            ("table", "table_id", plain),
            ("main result", "main_result", signed_money),
            ("side result", "side_result", signed_money),
            ("Envy paid", "envy_paid", money),
            ("house result", "house_result", signed_money),
            ("commission", "commission", money),
            ("game win", "game_win", signed_money),
            ("meter", "meter", money),
            ("seeded", "meter_seeded", money),
            ("rounds", "rounds_settled", str),
        ],
    ),
    "rollup": (
        "Roll-up: tables, pits, casino (day, month-to-date, year-to-date)",
        3,
        [
            ("level", "level", plain),
            ("name", "name", plain),
            ("period", "period", plain),
            ("from", "from_day", plain),
            ("tables", "tables", str),
            ("drop", "drop", money),
            ("handle", "handle", money),
            ("side handle", "side_handle", money),
            ("hold win", "win", signed_money),
            ("hold %", "hold_pct", pct),
            ("game win", "game_win", signed_money),
            ("stat. hold %", "statistical_hold_pct", pct),
            ("theo hold %", "theoretical_hold_pct", pct),
        ],
    ),
    "rotation": (
        "Banker rotation",
        1,
        [
            ("table", "table_id", plain),
            ("banking", "banking", plain),
            ("round", "round", str),
            ("status", "round_status", plain),
            ("banker", "current_banker", plain),
            ("seat", "current_banker_seat", plain),
            ("player", "current_banker_player_id", plain),
            ("offered to", "offered_seat", plain),
            ("next", "next_banker", plain),
            ("next seat", "next_banker_seat", plain),
            ("next player", "next_banker_player_id", plain),
            ("why", "next_reason", plain),
        ],
    ),
    "eligibility": (
        "Bank eligibility (R-BANK-1)",
        3,
        [
            ("table", "table_id", plain),
            ("seat", "seat", plain),
            ("player", "player_id", plain),
            ("eligible", "eligible", plain),
            ("balance", "balance", money),
            ("required", "required", money),
            ("accepted", "offers_accepted", str),
            ("declined", "offers_declined", str),
            ("passed", "offers_passed", str),
            ("banked", "rounds_banked", str),
            ("reason", "reason", plain),
        ],
    ),
    "offers": (
        "Bank offers",
        4,
        [
            ("table", "table_id", plain),
            ("round", "round", str),
            ("seat", "seat", plain),
            ("player", "player_id", plain),
            ("eligible", "eligible", plain),
            ("outcome", "outcome", plain),
            ("balance", "balance", money),
            ("required", "required", money),
            ("reason", "reason", plain),
        ],
    ),
}
