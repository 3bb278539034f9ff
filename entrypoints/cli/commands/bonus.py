"""``paigow bonus``: side bets on seven cards, one hand a line, or the exact exhaustive count.

Contract (stable): ``paigow bonus --bet fortune|emperors_treasure|insurance [--pay-table NAME]``
reads seven cards a line and writes ``{"cards": [...], "bet": "fortune", "line":
"four_of_a_kind", "pays": 25}`` ("to 1", -1 for a losing line); a bad line writes ``{"line": N,
"error": "..."}`` and the exit status is 1. ``paigow bonus --exhaustive [--bet fortune]`` counts
all 154,143,080 hands (R-VAR-7) and prints every line's count and the table's exact house edge.
Insurance has no standard table (R-VAR-5): it needs ``--pay-table-file FILE.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adapters import strict_json
from entrypoints.cli.lines import run_lines
from entrypoints.cli.progress import Progress
from table_core.cards import cards_text, parse_cards
from table_core.errors import ConfigurationError
from table_core.side_bets import PAY_TABLES, PayTable, get_pay_table, resolve_side_bet
from table_core.side_bets.exhaustive import TOTAL_HANDS, Exhaustive, exhaustive

BETS = ("fortune", "emperors_treasure", "insurance")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bonus",
        help="side bets: pay seven-card hands read a line, or count every hand exactly",
        description="Reads seven cards a line and writes the side bet's line and what it pays "
        '("to 1", -1 when it loses). With --exhaustive, classifies all 154,143,080 seven-card '
        "hands of the 53-card deck and prints every line's count and the exact house edge.",
    )
    parser.add_argument("--bet", choices=BETS, default="fortune")
    parser.add_argument(
        "--pay-table", metavar="NAME", help=f"a posted table: {', '.join(PAY_TABLES)}"
    )
    parser.add_argument(
        "--pay-table-file",
        metavar="FILE.json",
        type=Path,
        help='the casino\'s own table: {"name": ..., "bet": ..., "pays": {line: to_1, ...}}',
    )
    parser.add_argument("--exhaustive", action="store_true", help="count all 154,143,080 hands")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="exhaustive")
    parser.set_defaults(handler=run)


def load_pay_table(bet: str, name: str | None, path: Path | None) -> PayTable:
    """The table to pay by: a casino's file, else a posted table by name (R-VAR-2, R-VAR-5)."""
    if path is None:
        if bet == "insurance":
            raise ConfigurationError(
                "Pai Gow Insurance has no standard pay table: give the casino's with "
                "--pay-table-file FILE.json",
                rule="R-VAR-5",
            )
        return get_pay_table(bet, name)
    if name is not None:
        raise ConfigurationError("give --pay-table or --pay-table-file, not both")
    try:
        data = strict_json.loads(path.read_bytes())
        table = PayTable.model_validate(data)
    except OSError as error:
        raise ConfigurationError(f"cannot read {path}: {error.strerror}") from None
    except strict_json.StrictJsonError as error:  # 1,000-deep, a 4,300-digit number: refused
        raise ConfigurationError(f"{path} is not a pay table: {error}") from None
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'table'}: "
            f"{e['msg'].removeprefix('Value error, ')}"
            for e in error.errors()
        )
        raise ConfigurationError(f"bad pay table in {path}: {problems}") from None
    if table.bet != bet:
        raise ConfigurationError(f"{path} is a {table.bet} table, not {bet}")
    return table


def bonus_line(text: str, table: PayTable) -> dict[str, Any]:
    cards = parse_cards(text, 7)
    line, pays = resolve_side_bet(table, cards)
    return {"cards": cards_text(cards), "bet": table.bet, "line": line, "pays": pays}


def percent(edge: Fraction, places: int = 4) -> str:
    """An exact fraction as a percentage rounded half away from zero to ``places`` decimals."""
    scaled = edge * 100 * 10**places
    units = int(abs(scaled) + Fraction(1, 2)) * (1 if scaled >= 0 else -1)
    sign = "-" if units < 0 else ""
    whole, part = divmod(abs(units), 10**places)
    return f"{sign}{whole}.{part:0{places}d}%"


def exhaustive_report(result: Exhaustive, table: PayTable, seconds: float) -> dict[str, Any]:
    edge = result.house_edge(table)
    return {
        "hands": result.total,
        "suit_classes": {
            "without_joker": result.suit_classes[0],
            "with_joker": result.suit_classes[1],
        },
        "categories": result.categories(),
        "pai_gow_by_highest_card": result.pai_gow_by_highest_card(),
        "bet": table.bet,
        "pay_table": table.name,
        "lines": result.lines(table),
        "pays": dict(table.pays),
        "house_edge": {
            "numerator": result.house_win(table),
            "denominator": result.total,
            "reduced": f"{edge.numerator}/{edge.denominator}",
            "percent": percent(edge),
        },
        "seconds": round(seconds, 1),
    }


def print_table(report: dict[str, Any]) -> None:
    print(
        f"All {report['hands']:,} seven-card hands of the 53-card deck (R-VAR-7), through "
        f"{sum(report['suit_classes'].values()):,} suit classes in {report['seconds']} s"
    )
    sections = (
        ("Best five-card hand", report["categories"], None),
        ("Pai gow by highest card", report["pai_gow_by_highest_card"], None),
        (f"{report['pay_table']} ({report['bet']})", report["lines"], report["pays"]),
    )
    for title, counts, pays in sections:
        width = max(len(name) for name in counts)
        print(f"\n{title}")
        for name, count in counts.items():
            paid = "" if pays is None else f"  pays {pays.get(name, -1):>5}"
            print(f"  {name:<{width}}  {count:>12,}  {count / report['hands']:>9.5%}{paid}")
    edge = report["house_edge"]
    print(
        f"\nHouse edge: {edge['numerator']:,} / {edge['denominator']:,} "
        f"= {edge['reduced']} = {edge['percent']}"
    )


def run_exhaustive(table: PayTable, output: str) -> int:
    progress = Progress(TOTAL_HANDS, "bonus exhaustive")
    started = time.perf_counter()
    result = exhaustive(progress.update)
    progress.close()
    report = exhaustive_report(result, table, time.perf_counter() - started)
    if output == "json":
        print(json.dumps(report))
    else:
        print_table(report)
    return 0


def run(args: argparse.Namespace) -> int:
    table = load_pay_table(args.bet, args.pay_table, args.pay_table_file)
    if args.exhaustive:
        return run_exhaustive(table, args.format)
    return run_lines(sys.stdin, sys.stdout, lambda text: bonus_line(text, table))
