"""``paigow recall``: game recall, each round with everything a regulator's recall needs.

``--round N`` shows one round, ``--last N`` the most recent N (default 10), ``--seat S`` /
``--player ID`` only the rounds where that seat or player had action. The projections are
brought up to date first. ``--format json`` gives each round's whole record and ``csv`` one row
per position; both are stable contracts (docs/projections.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

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


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("a whole number from 1")
    return value


def run_recall(args: argparse.Namespace) -> int:
    from adapters.cli.commands.report import _url
    from adapters.projections import ProjectionRunner, opened
    from adapters.projections.rounds import read_rounds

    last = None if args.round is not None else (args.last or 10)
    with opened(_url(args.db)) as store:
        runner = ProjectionRunner(store)
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
    from adapters.projections.render import csv_text

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
    return "\n\n".join(_human(r.record) for r in records) + "\n"


def _human(record: dict[str, Any]) -> str:
    from adapters.projections.positions import position_rows
    from adapters.projections.render import money, plain, signed_money, text_table

    status = "IN PROGRESS" if record["status"] == "in_progress" else record["status"]
    ended = f", ended {record['ended_at']}" if record["ended_at"] else ""
    lines = [
        f"Round {record['round']} at table {record['table_id']}: {status} "
        f"(phase {record['phase']}, rules v{record['rules_version']}, "
        f"started {record['started_at']}{ended}, events {record['first_position']}.."
        f"{record['last_position']})"
    ]
    bank = record["bank"]
    if bank["banker_player_id"]:
        co_bank = " (the house co-banks)" if bank["co_bank"] else ""
        banker = f"player {bank['banker_player_id']} at seat {bank['banker_seat']}{co_bank}"
    elif record["phase"] == "offering_bank":
        banker = "not decided yet (the bank is being offered)"
    else:
        banker = "the dealer"
    lines.append(f"Banker: {banker}")
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
    rows = position_rows(record)
    for row in rows:
        row["side"] = "; ".join(_side_bet(b) for b in row["side_bets"])
        if row["wager"] is not None:
            returned = " returned" if row["wager_status"] == "returned" else ""
            row["staked"] = money(row["wager"]) + returned
        if row["player_back"]:
            row["fouled"] = f"{row['player_back']} / {row['player_front']}"
    if rows:
        lines.append(
            text_table(
                [
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
                ],
                [
                    row
                    | {
                        "hands": f"{row['back_result']}/{row['front_result']}"
                        if row["back_result"]
                        else None
                    }
                    for row in rows
                ],
            )
        )
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
    return "\n".join(lines)


def _side_bet(bet: dict[str, Any]) -> str:
    from adapters.projections.render import money, signed_money

    if bet["status"] != "settled":
        return f"{bet['bet']} {money(bet['amount'])} {bet['status']}"
    return (
        f"{bet['bet']} {money(bet['amount'])} {bet['line'] or 'lost'} {signed_money(bet['payout'])}"
    )
