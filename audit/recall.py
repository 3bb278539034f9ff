"""``paigow audit recall``: one round as the table played it, read from its events alone.

The floor's round history (``adapters/projections``, ``paigow recall``) is a projection kept in
the database; an auditor's recall must also work from a bundle on a machine with no database and
must not write (catching a projection up writes), so this one reads the table's events (read-only
database, or bundle), folds them up to the round for its rules profile and players, and lays the
round out: the bank, the wagers, the deck and the dice, each position's seven cards and how they
were set (by whom, by which House Way clause), the banker's hand, every result, commission and
side bet, or the void and what it returned. It shows what was recorded; ``audit verify`` says
whether it holds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL

from audit.bundle import open_bundle
from audit.round_records import round_record
from audit.sources import connect, stream_rows


def recall(
    table_id: str,
    round_number: int,
    *,
    db: str | URL | None = None,
    bundle: str | Path | None = None,
) -> dict[str, Any] | None:
    """The round's record from the bundle or else the database ``db``, or None when the table
    has no such round."""
    if bundle is not None:
        source = open_bundle(bundle)
        try:
            rows = [row for row in source.rows if row[1] == table_id]
        finally:
            source.close()
        return round_record(table_id, round_number, sorted(rows, key=lambda row: row[2]))
    if db is None:
        raise ValueError("recall reads a bundle or a database")
    connection, mark, _ = connect(db)
    try:
        return round_record(table_id, round_number, stream_rows(connection, mark, table_id))
    finally:
        connection.close()


def render(record: dict[str, Any]) -> str:
    """The record as lines a floor supervisor reads."""
    lines = [
        f"table {record['table_id']} round {record['round']}: {record['status']}, started "
        f"{record['started_at']}"
    ]
    rules = record.get("rules")
    if rules:
        lines.append(
            f"rules v{rules['version']}: House Way {rules['house_way']}{_digest(rules)}, "
            f"{rules['variant']}, "
            f"commission {rules['commission']}, fouls {rules['foul_policy']}, "
            f"bank {rules['banking']}, bets {rules['limits'][0]}..{rules['limits'][1]}"
        )
    for entry in record["events"]:
        lines.append(f"  {entry['global_position']:>8}  {_line(entry)}")
    return "\n".join(printable(line) for line in lines)


def _digest(rules: dict[str, Any]) -> str:
    digest = rules.get("house_way_digest")
    return f" (file SHA-256 {digest})" if digest else ""


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on written as an escape (``\\x1b``,
    ``\\r``, ``\\u202e``): a reason or a name recorded with an ANSI sequence or a carriage
    return (by older code, or by an insider writing rows) cannot repaint the auditor's screen."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def _seat(value: Any) -> str:
    return "dealer" if value is None else f"seat {value}"


def _cards(value: Sequence[str] | None) -> str:
    return " ".join(value) if value else "-"


def _line(e: dict[str, Any]) -> str:
    """One recorded event as a line of the round's layout (``json`` for a type not laid out)."""
    kind = e["type"]
    for phase in (_opening_line, _dealing_line, _setting_line, _settling_line):
        text = phase(kind, e)
        if text is not None:
            return text
    rest = {
        k: v
        for k, v in e.items()
        if k not in ("global_position", "stream_version", "type", "actor")
    }
    return f"{kind} {json.dumps(rest)}"


def _opening_line(kind: str, e: dict[str, Any]) -> str | None:
    """The round's start, the bank and the wagers."""
    if kind == "round_started":
        return f"round started under rules v{e['rules_version']}"
    if kind == "bank_offered":
        verdict = "eligible" if e["eligible"] else f"passes: {e['reason']}"
        return f"bank offered to {_seat(e['seat'])} ({e['player_id']}): {verdict}"
    if kind in ("bank_accepted", "bank_declined"):
        return f"{e['player_id']} at {_seat(e['seat'])} {kind.split('_')[1]} the bank"
    if kind == "bet_placed" and e["seat"] is None:
        return f"the house hand's wager {e['amount']} at position {e['position']} (R-BANK-2)"
    if kind == "bet_placed":
        return (
            f"bet {e['amount']} at {_seat(e['seat'])} ({e['player_id']}), position {e['position']}"
        )
    if kind == "side_bet_placed":
        return f"{e['bet']} bet {e['amount']} at {_seat(e['seat'])} ({e['player_id']})"
    if kind == "bets_closed":
        return f"bets closed: {e['in_action']} in action, banker {_seat(e['banker_seat'])}"
    return None


def _dealing_line(kind: str, e: dict[str, Any]) -> str | None:
    """The deal and the dice."""
    if kind == "stacks_dealt":
        deck = _cards(e["deck"]) if e["deck"] else "(hands reported)"
        return f"dealt ({e['source']}): deck {deck}; unused {_cards(e['unused'])}"
    if kind == "deck_dealt":
        return f"dealt from deck {e['deck_id']} (R20)"
    if kind == "dice_rolled":
        faces = " ".join(str(f) for f in e["faces"])
        return f"dice {faces} = {e['total']}: stack 1 to position {e['first_position']}"
    if kind == "stacks_assigned":
        parts = [
            f"p{a['position']} {_seat(a['seat'])} {a['holder']} stack {a['stack']}: "
            f"{_cards(a['cards'])}"
            for a in e["assignments"]
        ]
        return "stacks: " + "; ".join(parts)
    return None


def _clause(e: dict[str, Any]) -> str:
    """A House Way clause by its id and, when the record has it, its words as the casino wrote
    them."""
    text = e.get("clause_text")
    return f"{e['rule']} ({text})" if text else str(e["rule"])


def _setting_line(kind: str, e: dict[str, Any]) -> str | None:
    """How each hand was set."""
    if kind in ("hand_set", "banker_hand_set"):
        who = "banker" if kind == "banker_hand_set" else _seat(e["seat"])
        how = f" by {_clause(e)}" if e.get("rule") else f" by the {e.get('by', 'player')}"
        return f"{who} sets back {_cards(e['back'])} / front {_cards(e['front'])}{how}"
    if kind == "foul_reset":
        return (
            f"{_seat(e['seat'])} fouled back {_cards(e['player_back'])} / front "
            f"{_cards(e['player_front'])}; reset to back {_cards(e['back'])} / front "
            f"{_cards(e['front'])} by {_clause(e)}"
        )
    if kind == "hand_forfeited":
        back, front = _cards(e["back"]), _cards(e["front"])
        return f"{_seat(e['seat'])} fouled back {back} / front {front}: forfeited"
    return None


def _settling_line(kind: str, e: dict[str, Any]) -> str | None:
    """Results, commission, side bets, the meter, a void and the close."""
    if kind == "round_settled":
        parts = [
            f"{_seat(r['seat'])} {r['back']}/{r['front']} {r['result']} net {r['net']}"
            f" (commission {r['commission']})"
            for r in e["results"]
        ]
        override = f", {e['override']}" if e.get("override") else ""
        return (
            f"settled ({e['variant']}{override}): "
            + "; ".join(parts)
            + (f"; banker result {e['banker']['result']}")
        )
    if kind == "commission_taken":
        return (
            f"commission {e['amount']} from {_seat(e['seat'])} ({e['basis']} {e['basis_amount']})"
        )
    if kind == "side_bet_settled":
        text = f"{e['bet']} at {_seat(e['seat'])}: {e['line'] or 'loses'}, payout {e['payout']}"
        if e.get("reduction"):  # R15: the round's wins on this bet exceeded the aggregate cap
            text += f" ({e['reduction']} less: aggregate cap {e.get('aggregate_cap')})"
        return text
    if kind == "envy_paid":
        return (
            f"envy {e['amount']} to {_seat(e['seat'])} for {e['line']} at {_seat(e['from_seat'])}"
        )
    if kind == "meter_changed":
        return f"meter {e['reason']} {e['amount']:+d} = {e['meter']}"
    if kind == "wager_returned":
        return f"returned {e['amount']} to {_seat(e['seat'])}: no action (R-BANK-3)"
    if kind == "round_voided":
        return f"voided: {e['reason']} ({len(e['returned'])} wagers returned)"
    if kind == "round_closed":
        return "round closed"
    return None
