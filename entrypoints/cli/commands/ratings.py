"""``paigow ratings``: player ratings, as a players' club reads them (issue 18, R16).

``paigow ratings [--db URL] [--day YYYY-MM-DD] [--player ID] [--format table|json|csv]``: every
rating (one sitting of a carded player at a table) by start, optionally of one gaming day (the
table's books day; for a table without books, the report's gaming day of the start) and of one
player. The projections are brought up to date first. JSON and CSV keys are the stable contract of
docs/projections.md ("Player ratings"); money in minor units there, in currency units in the table.
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
    plain,
    signed_money,
    text_tables,
)
from table_core.errors import DomainError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("ratings", help="player ratings: time, average bet, theo win")
    parser.add_argument("--db", metavar="URL", help="database URL (default: $PAIGOW_DB)")
    parser.add_argument("--day", metavar="YYYY-MM-DD", help="one gaming day (default: all)")
    parser.add_argument("--player", metavar="ID", help="one player")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.set_defaults(handler=run_ratings)


def _day(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DomainError(f"--day is YYYY-MM-DD, got {text!r}") from None


COLUMNS: list[Column] = [
    ("table", "table_id", plain),
    ("player", "player_id", plain),
    ("card", "card", plain),
    ("gaming day", "gaming_day", plain),
    ("status", "status", plain),
    ("start", "started_at", plain),
    ("minutes", "minutes", plain),
    ("rounds", "rounds", str),
    ("avg bet", "average_bet", money),
    ("avg side", "average_side_bet", money),
    ("cash", "cash", money),
    ("markers", "markers", money),
    ("cashed out", "cashed_out", money),
    ("actual win", "actual_win", signed_money),
    ("theo win", "theo_win", signed_money),
    ("corr. avg bet", "corrected_average_bet", money),
    ("corr. minutes", "corrected_minutes", plain),
    ("reason", "correction_reason", plain),
]


def run_ratings(args: argparse.Namespace) -> int:
    from adapters.projections import opened
    from adapters.projections.ratings import COLUMNS as KEYS
    from adapters.projections.ratings import read_ratings
    from adapters.projections.standby import reader
    from entrypoints.cli.commands.report import _url
    from entrypoints.cli.main import settings_of

    day = _day(args.day)
    settings = settings_of(args)
    gaming_day = settings.gaming_day()
    with opened(_url(args), create=False, settings=settings) as store:
        runner = reader(store)  # a standby: nothing written
        runner.catch_up()
        with runner.db.read() as tx:
            found = read_ratings(tx, day=day, player=args.player, day_of=gaming_day.day_of)
    if args.format == "json":
        sys.stdout.write(json.dumps({"ratings": found}, indent=2) + "\n")
    elif args.format == "csv":
        sys.stdout.write(csv_text(KEYS, found))
    else:
        width = output_width()
        parts: list[Any] = (
            text_tables("Player ratings", COLUMNS, found, width, 2)
            if found
            else ["Player ratings: none"]
        )
        sys.stdout.write(as_text(parts, width))
    return 0
