"""Banker rotation (R-BANK-1..2): who banks the current round and who would bank the next, every
offer with its outcome (accepted, declined, passed with the reason, pending) and each seated
player's eligibility.

The stored rows hold the facts (the profile, the seats, the last seat offered, whether the last
settled round was player-banked, the wagers of the last dealer-banked round). Eligibility and the
next banker are worked out when read, with ``table_core.banking`` (the same functions the table
uses, never a second copy of the rules) and the balances of the bankroll projection, which the
runner always keeps at the same position.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Table

from adapters.projections.db import HandledBatch, Rows, Tx, given, no_defaults, table_rows
from adapters.projections.schema import bank_offers, rotation, rotation_players
from eventlog.canonical import format_time
from table_core.banking import bank_eligibility, bank_order
from table_core.ports import RecordedEvent
from table_core.rules import TableRules

NAME = "rotation"
TABLES: tuple[Table, ...] = (rotation, rotation_players, bank_offers)

Payload = dict[str, Any]
LIVE = ("offering_bank", "open_for_bets", "in_play")


def _table_defaults(key: tuple[Any, ...]) -> dict[str, Any]:
    return {
        "rules": "{}",
        "seats": "{}",
        "round_status": None,
        "banker_seat": None,
        "banker_player_id": None,
        "co_bank": False,
        "offered_seat": None,
        "last_bank_was_player": False,
        "last_dealer_wagers": "{}",
    }


def _offer_defaults(key: tuple[Any, ...]) -> dict[str, Any]:
    return {"player_id": None, "reason": None, "eligible": False, "outcome": "", "at": ""}


class RotationBatch(HandledBatch):
    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.tables = Rows(tx, rotation, _table_defaults)
        self.players = Rows(tx, rotation_players, no_defaults)
        self.offers = Rows(tx, bank_offers, _offer_defaults)
        self._seq: dict[tuple[str, int], int] = {}
        super().__init__(_HANDLERS, self.tables, self.players, self.offers)

    def next_seq(self, table: str, round_number: int) -> int:
        key = (table, round_number)
        seq = self._seq.get(key)
        if seq is None:
            found = self.tx.one(
                f"SELECT COALESCE(MAX(seq), 0) FROM {bank_offers.name} "
                "WHERE table_id = ? AND round = ?",
                key,
            )
            seq = int(found[0]) if found else 0
        self._seq[key] = seq + 1
        return seq + 1

    def pending_offer(self, table: str, round_number: int, seat: int) -> dict[str, Any] | None:
        """The offer the seat is answering: always the round's latest offer (R-BANK-1)."""
        seq = self._seq.get((table, round_number))
        if seq is None:
            found = self.tx.one(
                f"SELECT MAX(seq) FROM {bank_offers.name} WHERE table_id = ? AND round = ?",
                (table, round_number),
            )
            if found is None or found[0] is None:
                return None
            seq = int(found[0])
        offer = self.offers.get(table, round_number, seq)
        return offer if offer["seat"] == seat and offer["outcome"] == "pending" else None


def _rules(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id)["rules"] = json.dumps(p["rules"], sort_keys=True)


def _seated(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.tables.get(e.stream_id)
    seats = json.loads(row["seats"])
    seats[str(p["seat"])] = p["player_id"]
    row["seats"] = json.dumps(seats, sort_keys=True)


def _left(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.tables.get(e.stream_id)
    seats = json.loads(row["seats"])
    seats.pop(str(p["seat"]), None)
    row["seats"] = json.dumps(seats, sort_keys=True)


def _round_started(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id).update(
        round=p["round"],
        round_status="offering_bank" if p["bank_order"] else "open_for_bets",
        banker_seat=None,
        banker_player_id=None,
        co_bank=False,
        offered_seat=None,
    )


def _bank_offered(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.tables.get(e.stream_id)
    row["bank_pointer"] = p["seat"]
    row["offered_seat"] = p["seat"] if p["eligible"] else None
    row["round_status"] = "offering_bank" if p["eligible"] else "open_for_bets"
    seq = b.next_seq(e.stream_id, p["round"])
    b.offers.get(e.stream_id, p["round"], seq).update(
        seat=p["seat"],
        player_id=p["player_id"],
        eligible=p["eligible"],
        reason=p.get("reason"),
        balance=p.get("balance", 0),
        required=p.get("required", 0),
        outcome="pending" if p["eligible"] else "passed",
        at=format_time(e.at),
    )
    if not p["eligible"] and p["player_id"] is not None:
        b.players.get(e.stream_id, p["player_id"])["offers_passed"] += 1


def _answered(b: RotationBatch, e: RecordedEvent, p: Payload, outcome: str) -> None:
    offer = b.pending_offer(e.stream_id, p["round"], p["seat"])
    if offer is not None:
        offer["outcome"] = outcome
    b.players.get(e.stream_id, p["player_id"])[f"offers_{outcome}"] += 1
    row = b.tables.get(e.stream_id)
    row.update(offered_seat=None, round_status="open_for_bets")
    if outcome == "accepted":
        row.update(
            banker_seat=p["seat"], banker_player_id=p["player_id"], co_bank=p.get("co_bank", False)
        )


def _accepted(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    _answered(b, e, p, "accepted")


def _declined(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    _answered(b, e, p, "declined")


def _bets_closed(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id).update(
        round_status="in_play",
        banker_seat=p["banker_seat"],
        banker_player_id=p["banker_player_id"],
        co_bank=p.get("co_bank", False),
    )


def _settled(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.tables.get(e.stream_id)
    row["round_status"] = "settled"
    banker = p["banker"]["player_id"]
    if banker is not None:
        row["last_bank_was_player"] = True
        row["player_banked_rounds"] += 1
        b.players.get(e.stream_id, banker)["rounds_banked"] += 1
        return
    # R-BANK-1 eligibility looks at the wagers of the last dealer-banked (settled) round.
    wagers = {r["player_id"]: r["wager"] for r in p["results"] if r["player_id"] is not None}
    row["last_bank_was_player"] = False
    row["last_dealer_wagers"] = json.dumps(wagers, sort_keys=True)
    row["dealer_banked_rounds"] += 1


def _voided(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    # A voided round counts neither for eligibility nor for dealer_between (docs/table.md).
    b.tables.get(e.stream_id).update(round_status="voided", offered_seat=None)


def _closed(b: RotationBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id)["round_status"] = "closed"


_HANDLERS: dict[str, Callable[[RotationBatch, RecordedEvent, Payload], None]] = {
    "table_opened": _rules,
    "rules_changed": _rules,
    "player_seated": _seated,
    "player_left": _left,
    "round_started": _round_started,
    "bank_offered": _bank_offered,
    "bank_accepted": _accepted,
    "bank_declined": _declined,
    "bets_closed": _bets_closed,
    "round_settled": _settled,
    "round_voided": _voided,
    "round_closed": _closed,
}


# --- reading -------------------------------------------------------------------------------------

ROTATION_COLUMNS = (
    "table_id",
    "banking",
    "dealer_between",
    "round",
    "round_status",
    "current_banker",
    "current_banker_seat",
    "current_banker_player_id",
    "co_bank",
    "offered_seat",
    "next_banker",
    "next_banker_seat",
    "next_banker_player_id",
    "next_reason",
    "dealer_banked_rounds",
    "player_banked_rounds",
)
#: A seat's verdict on banking (``bank_eligibility``): now, and at each offer made.
_VERDICT_COLUMNS = ("seat", "player_id", "eligible", "reason", "balance", "required")
ELIGIBILITY_COLUMNS = (
    "table_id",
    *_VERDICT_COLUMNS,
    "offers_accepted",
    "offers_declined",
    "offers_passed",
    "rounds_banked",
)
OFFER_COLUMNS = ("table_id", "round", "seq", *_VERDICT_COLUMNS, "outcome", "at")


def _balances(tx: Tx, table_id: str) -> dict[str, int]:
    return dict(
        tx.all(
            "SELECT player_id, balance FROM proj_bankroll_players WHERE table_id = ?", (table_id,)
        )
    )


def _state(tx: Tx, table_id: str | None) -> list[dict[str, Any]]:
    return table_rows(tx, rotation, table_id, "ORDER BY table_id")


def _eligibility(row: dict[str, Any], rules: TableRules, balances: dict[str, int]) -> list[Any]:
    seats = {int(seat): player for seat, player in json.loads(row["seats"]).items()}
    wagers = json.loads(row["last_dealer_wagers"])
    out = []
    for seat in sorted(seats):
        player = seats[seat]
        others = [p for s, p in seats.items() if s != seat]
        verdict = bank_eligibility(player, balances.get(player, 0), others, wagers, rules)
        out.append((seat, player, verdict))
    return out


def eligibility(tx: Tx, table_id: str | None = None) -> list[dict[str, Any]]:
    """Each seated player: could they take the bank now (R-BANK-1), and their offers so far."""
    out: list[dict[str, Any]] = []
    for row in _state(tx, table_id):
        if row["rules"] == "{}":
            continue
        rules = TableRules.model_validate(json.loads(row["rules"]))
        table = row["table_id"]
        counts = {
            found[0]: found[1:]
            for found in tx.all(
                "SELECT player_id, offers_accepted, offers_declined, offers_passed, "
                f"rounds_banked FROM {rotation_players.name} WHERE table_id = ?",
                (table,),
            )
        }
        balances = _balances(tx, table)
        for seat, player, verdict in _eligibility(row, rules, balances):
            accepted, declined, passed, banked = counts.get(player, (0, 0, 0, 0))
            out.append(
                {
                    "table_id": table,
                    "seat": seat,
                    "player_id": player,
                    "eligible": verdict.eligible,
                    "reason": verdict.reason,
                    "balance": balances.get(player, 0),
                    "required": verdict.required,
                    "offers_accepted": accepted,
                    "offers_declined": declined,
                    "offers_passed": passed,
                    "rounds_banked": banked,
                }
            )
    return out


def banker_rotation(tx: Tx, table_id: str | None = None) -> list[dict[str, Any]]:
    """Per table: who banks the current (or last) round and who would bank the next one.

    The next banker is what ``StartRound`` would do on the facts recorded so far (R-BANK-1): the
    dealer at a dealer-banking table, or after a player bank with ``dealer_between``; otherwise
    the first seat in turn after the last one offered whose player is eligible now (that player
    may still decline), else the dealer. A round still in play counts as it stands: a
    player-banked one is taken to end as a player bank.
    """
    out: list[dict[str, Any]] = []
    for row in _state(tx, table_id):
        if row["rules"] == "{}":
            continue
        rules = TableRules.model_validate(json.loads(row["rules"]))
        live = row["round_status"] in LIVE
        player_banks = row["banker_player_id"] is not None
        current = "player" if player_banks else ("dealer" if row["round"] else None)
        if row["round_status"] == "offering_bank":
            current = "offering"  # not decided yet: the offered player may accept or decline
        last_was_player = player_banks if live else row["last_bank_was_player"]
        nxt, seat, player, reason = _next_banker(tx, row, rules, last_was_player)
        out.append(
            {
                "table_id": row["table_id"],
                "banking": rules.banking,
                "dealer_between": rules.dealer_between,
                "round": row["round"],
                "round_status": row["round_status"],
                "current_banker": current,
                "current_banker_seat": row["banker_seat"],
                "current_banker_player_id": row["banker_player_id"],
                "co_bank": row["co_bank"],
                "offered_seat": row["offered_seat"],
                "next_banker": nxt,
                "next_banker_seat": seat,
                "next_banker_player_id": player,
                "next_reason": reason,
                "dealer_banked_rounds": row["dealer_banked_rounds"],
                "player_banked_rounds": row["player_banked_rounds"],
            }
        )
    return out


def _next_banker(
    tx: Tx, row: dict[str, Any], rules: TableRules, last_was_player: bool
) -> tuple[str, int | None, str | None, str]:
    if rules.banking == "dealer":
        return "dealer", None, None, "the dealer banks at this table (R-BANK-1)"
    if rules.dealer_between and last_was_player:
        return "dealer", None, None, "the dealer banks between two player banks (dealer_between)"
    seats = {int(seat): player for seat, player in json.loads(row["seats"]).items()}
    balances = _balances(tx, row["table_id"])
    verdicts = {seat: (player, v) for seat, player, v in _eligibility(row, rules, balances)}
    for seat in bank_order(seats, row["bank_pointer"]):
        player, verdict = verdicts[seat]
        if verdict.eligible:
            return "offer", seat, player, f"the bank will be offered to seat {seat} first"
    return "dealer", None, None, "no seated player is eligible to bank (R-BANK-1)"


def offers(
    tx: Tx, table_id: str | None = None, since: str | None = None, until: str | None = None
) -> list[dict[str, Any]]:
    """Every offer of the bank in order, or those made in ``[since, until)`` (store time text)."""
    clauses, params = given(
        ("table_id = ?", table_id or None), ("at >= ?", since), ("at < ?", until)
    )
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    found = tx.all(
        f"SELECT {', '.join(OFFER_COLUMNS)} FROM {bank_offers.name} {where} "
        "ORDER BY table_id, round, seq",
        params,
    )
    out = []
    for values in found:
        offer = dict(zip(OFFER_COLUMNS, values, strict=True))
        offer["eligible"] = bool(offer["eligible"])
        out.append(offer)
    return out
