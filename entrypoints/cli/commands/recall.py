"""``paigow recall``: game recall, each round with everything a regulator's recall needs.

``--round N`` shows one round, ``--last N`` the most recent N (default 10), ``--seat S`` /
``--player ID`` only the rounds where that seat or player had action. The projections are
brought up to date first. ``--format json`` gives each round's whole record and ``csv`` one row
per position; both are stable contracts (docs/projections.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from entrypoints.cli.options import bounded
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
    parser = subparsers.add_parser("recall", help="game recall: the rounds of a table in full")
    parser.add_argument("--db", metavar="URL", help="database URL (default: $PAIGOW_DB)")
    parser.add_argument("--table", metavar="ID", required=True)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--round", type=_positive, metavar="N", help="that round only")
    which.add_argument("--last", type=_positive, metavar="N", help="the last N rounds (10)")
    parser.add_argument("--seat", type=int, choices=range(1, 7), metavar="S", help="seat 1..6")
    parser.add_argument("--player", metavar="ID", help="rounds where this player had action")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    parser.set_defaults(handler=run_recall)


_FROM_1 = "a whole number from 1"
_positive = bounded(int, 1, math.inf, _FROM_1, not_a=_FROM_1, name="_positive")


def run_recall(args: argparse.Namespace) -> int:
    from adapters.projections import opened
    from adapters.projections.rounds import read_rounds
    from adapters.projections.standby import reader
    from entrypoints.cli.commands.report import _url

    last = None if args.round is not None else (args.last or 10)
    with opened(_url(args), create=False) as store:
        runner = reader(store)  # a standby: nothing written
        runner.catch_up()
        position = min(runner.positions().values())
        with runner.db.read() as tx:
            records = read_rounds(tx, args.table, args.round, last, args.seat, args.player)
    if args.round is not None and not records:
        raise DomainError(f"table {args.table} has no round {args.round}")
    sys.stdout.write(render(args.table, position, records, args.format))
    return 0


def render(table_id: str, position: int, records: list[Any], fmt: str) -> str:
    from adapters.projections.positions import POSITION_COLUMNS, position_rows, side_bets_csv

    if fmt == "json":
        payload = {
            "table_id": table_id,
            "position": position,
            "rounds": [r.to_dict() for r in records],
        }
        return json.dumps(payload, indent=2) + "\n"
    if fmt == "csv":
        rows = []
        for record in records:
            for row in position_rows(record.record):
                rows.append(row | {"side_bets": side_bets_csv(row["side_bets"])})
        return csv_text(POSITION_COLUMNS, rows)
    if not records:
        return f"table {table_id}: no rounds (events to position {position})\n"
    width = output_width()
    return "\n".join(_human(r.record, width) for r in records)


#: The positions table of a round: (header, key, format); the first four name a row.
POSITIONS: list[Column] = [
    ("pos", "position", str),
    ("stack", "stack", plain),
    ("seat", "seat", plain),
    ("player", "player_id", plain),
    ("holder", "holder", plain),
    ("cards", "cards", plain),
    ("wager", "staked", plain),
    ("back", "back", plain),
    ("front", "front", plain),
    ("set by", "set_reason", plain),
    ("rule", "rule", plain),
    ("fouled split", "fouled", plain),
    ("b/f", "hands", plain),
    ("result", "result", plain),
    ("payout", "payout", signed_money),
    ("comm.", "commission", money),
    ("net", "net", signed_money),
    ("side bets", "side", plain),
]


def _human(record: dict[str, Any], width: int) -> str:
    """One round for people: what happened in lines, each position in a table cut to fit."""
    from adapters.projections.positions import position_rows

    lines = [_heading(record), *_bank_and_deal(record)]
    rows = [_shown_row(row) for row in position_rows(record)]
    # A column empty in every row (no foul, no side bet) is left out: the rest fit better.
    columns = [
        column
        for i, column in enumerate(POSITIONS)
        if i < 4 or any(column[2](row.get(column[1])) for row in rows)
    ]
    tables = text_tables("Positions", columns, rows, width, keys=4) if rows else []
    return as_text(["\n".join(lines), *tables, "\n".join(_outcome(record))], width)


def _heading(record: dict[str, Any]) -> str:
    status = "IN PROGRESS" if record["status"] == "in_progress" else record["status"]
    ended = f", ended {record['ended_at']}" if record["ended_at"] else ""
    return (
        f"Round {record['round']} at table {record['table_id']}: {status} "
        f"(phase {record['phase']}, rules v{record['rules_version']}, "
        f"started {record['started_at']}{ended}, events {record['first_position']}.."
        f"{record['last_position']})"
    )


def _bank_and_deal(record: dict[str, Any]) -> list[str]:
    """Who banked (and the offers of the bank), the deal and the dice."""
    bank = record["bank"]
    if bank["banker_player_id"]:
        co_bank = " (the house co-banks)" if bank["co_bank"] else ""
        banker = f"player {bank['banker_player_id']} at seat {bank['banker_seat']}{co_bank}"
    elif record["phase"] == "offering_bank":
        banker = "not decided yet (the bank is being offered)"
    else:
        banker = "the dealer"
    lines = [f"Banker: {banker}"]
    for offer in bank["offers"]:
        why = f" ({offer['reason']})" if offer["reason"] else ""
        lines.append(
            f"  bank offered to seat {offer['seat']} {offer['player_id'] or '(empty)'}: "
            f"{offer['outcome']}{why}"
        )
    deal = record["deal"]
    if deal is not None:
        lines.append(f"Deal ({deal['source']}): unused {' '.join(deal['unused'])}")
        if deal["deck"] is not None:
            lines.append(f"  deck order {' '.join(deal['deck'])}")
    dice = record["dice"]
    if dice is not None:
        faces = "+".join(str(f) for f in dice["faces"])
        lines.append(
            f"Dice {faces} = {dice['total']}: stack 1 to position {dice['first_position']} "
            "(R-DEAL-3)"
        )
    return lines


def _shown_row(row: dict[str, Any]) -> dict[str, Any]:
    """A position's row with the cells people read: the wager (returned or not), the side bets,
    the fouled split and the back/front results."""
    shown = dict(row, side="; ".join(_side_bet(b) for b in row["side_bets"]))
    if row["wager"] is not None:
        returned = " returned" if row["wager_status"] == "returned" else ""
        shown["staked"] = money(row["wager"]) + returned
    if row["player_back"]:
        shown["fouled"] = f"{row['player_back']} / {row['player_front']}"
    if row["back_result"]:
        shown["hands"] = f"{row['back_result']}/{row['front_result']}"
    return shown


def _outcome(record: dict[str, Any]) -> list[str]:
    """The bank's result, commission, Envy, the meter, a void and anything else recorded."""
    lines = []
    settlement = record["settlement"]
    if settlement is not None:
        bank = settlement["banker"]
        summary = f"Bank result {signed_money(bank['result'])}"
        if bank["player_id"] is not None:
            summary += (
                f": the house's share {signed_money(bank['house_share'])}, "
                f"{bank['player_id']}'s {signed_money(bank['player_share'])}, "
                f"commission {money(bank['commission'])}, net {signed_money(bank['net'])}"
            )
        lines.append(summary)
        if settlement["override"]:
            lines.append(f"Variant {settlement['variant']}: {settlement['override']} (R-VAR-1)")
    for fee in record["commission"]:
        lines.append(
            f"Commission: {fee['player_id']} (seat {fee['seat']}, {fee['payer']}) "
            f"{money(fee['amount'])}, {fee['basis']} on {money(fee['basis_amount'])}, "
            f"{fee['clause']}"
        )
    for envy in record["envy"]:
        lines.append(
            f"Envy: {envy['player_id']} (seat {envy['seat']}) paid {money(envy['amount'])} for "
            f"seat {envy['from_seat']}'s {envy['line']} (R-VAR-3)"
        )
    for change in record["meter"]:
        lines.append(
            f"Meter: {change['reason']} {signed_money(change['amount'])} -> "
            f"{money(change['meter'])} (R-VAR-6)"
        )
    void = record["void"]
    if void is not None:
        returned = ", ".join(
            f"{r['player_id'] or 'house'} {money(r['amount'])}" for r in void["returned"]
        )
        lines.append(f"VOIDED: {void['reason']}; returned {returned or 'nothing'}")
    for other in record["other"]:
        lines.append(f"Also recorded: {other['type']} at position {other['position']}")
    return lines


def _side_bet(bet: dict[str, Any]) -> str:
    if bet["status"] != "settled":
        return f"{bet['bet']} {money(bet['amount'])} {bet['status']}"
    return (
        f"{bet['bet']} {money(bet['amount'])} {bet['line'] or 'lost'} {signed_money(bet['payout'])}"
    )
