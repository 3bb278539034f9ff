"""Round history (game recall): each round in order with everything a regulator's recall needs.

One row per round in ``proj_rounds``; the whole record is a JSON document built from the round's
events as they come (``record``): the bank offers and the banker, wagers (returned ones too),
side bets, the deck order, the dice, the stack of every position (dead ones too), the four unused
cards, each hand as set (by the player or the House Way, with the clause id), fouls and resets,
the banker's hand, each wager's result, payout and commission, side-bet results, Envy, meter
changes and a void's reason and returns. A round not yet settled or voided reads ``in_progress``.
A round event of a type this code does not know is kept whole under ``other``, so nothing a
newer table records is lost from a recall.

``proj_round_seats`` says which seats (and players) had action in which round: a main wager, a
side bet or the bank, for "the last 10 rounds of seat 3".
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table

from adapters.projections.db import Rows, Tx, given
from adapters.projections.positions import same_names
from adapters.projections.schema import round_seats, rounds
from eventlog.canonical import format_time
from table_core.ports import RecordedEvent

NAME = "rounds"
TABLES: tuple[Table, ...] = (rounds, round_seats)

Payload = dict[str, Any]
Doc = dict[str, Any]

IN_PROGRESS = "in_progress"
#: The round's status: how far it got. ``settled`` rounds become ``closed`` at round_closed.
STATUSES = (IN_PROGRESS, "settled", "closed", "voided")


def new_record(table_id: str, p: Payload, at: str, position: int) -> Doc:
    return {
        "table_id": table_id,
        "round": p["round"],
        "status": IN_PROGRESS,
        "phase": "offering_bank" if p["bank_order"] else "open_for_bets",
        "rules_version": p["rules_version"],
        "started_at": at,
        "ended_at": None,
        "closed_at": None,
        "first_position": position,
        "last_position": position,
        "bank": {
            "order": list(p["bank_order"]),
            "offers": [],
            "banker_seat": None,
            "banker_player_id": None,
            "co_bank": False,
            "in_action": None,
        },
        "wagers": [],
        "side_bets": [],
        "deal": None,
        "dice": None,
        "stacks": [],
        "hands": [],
        "banker_hand": None,
        "settlement": None,
        "commission": [],
        "envy": [],
        "meter": [],
        "void": None,
        "other": [],
    }


def _round_defaults(key: tuple[Any, ...]) -> dict[str, Any]:
    return {"banker_seat": None, "banker_player_id": None, "ended_at": None, "record": ""}


class RoundsBatch:
    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.rows = Rows(tx, rounds, _round_defaults)
        self.docs: dict[tuple[str, int], Doc] = {}
        self.seats: set[tuple[str, int, int, str]] = set()

    def doc(self, table: str, round_number: int) -> Doc | None:
        key = (table, round_number)
        doc = self.docs.get(key)
        if doc is None:
            row = self.rows.get(table, round_number)
            if not row["record"]:
                return None  # a round event without its round_started: nothing to attach it to
            doc = self.docs[key] = json.loads(row["record"])
        return doc

    def apply(self, event: RecordedEvent) -> None:
        p = event.payload
        number = p.get("round")
        if not isinstance(number, int):
            return  # a table fact (seats, chips, rules, a meter seed): not part of a round
        at = format_time(event.at)
        if event.type == "round_started":
            self.docs[(event.stream_id, number)] = new_record(
                event.stream_id, p, at, event.position
            )
            return
        doc = self.doc(event.stream_id, number)
        if doc is None:
            return
        doc["last_position"] = event.position
        handler = _HANDLERS.get(event.type)
        if handler is None:  # a newer event type: kept whole for the recall
            doc["other"].append({"type": event.type, "position": event.position, "payload": p})
            return
        handler(self, doc, p, at)

    def seat_had_action(self, doc: Doc, seat: int | None, player_id: str | None) -> None:
        if seat is not None and player_id is not None:
            self.seats.add((doc["table_id"], doc["round"], seat, player_id))

    def flush(self) -> None:
        for (table, number), doc in self.docs.items():
            row = self.rows.get(table, number)
            row.update(
                same_names(
                    doc, "status", "started_at", "ended_at", "first_position", "last_position"
                ),
                **same_names(doc["bank"], "banker_seat", "banker_player_id"),
                record=json.dumps(doc, sort_keys=True, separators=(",", ":")),
            )
        self.rows.flush()
        self.docs.clear()
        self.tx.executemany(
            f"INSERT INTO {round_seats.name} (table_id, round, seat, player_id) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (table_id, round, seat) DO NOTHING",
            sorted(self.seats),
        )
        self.seats.clear()


def _offered(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["bank"]["offers"].append(
        {
            "seat": p["seat"],
            "player_id": p["player_id"],
            "eligible": p["eligible"],
            "reason": p.get("reason"),
            "balance": p.get("balance", 0),
            "required": p.get("required", 0),
            "outcome": "pending" if p["eligible"] else "passed",
        }
    )
    doc["phase"] = "offering_bank" if p["eligible"] else "open_for_bets"


def _answer(doc: Doc, seat: int, outcome: str) -> None:
    for offer in reversed(doc["bank"]["offers"]):
        if offer["seat"] == seat and offer["outcome"] == "pending":
            offer["outcome"] = outcome
            return


def _accepted(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    _answer(doc, p["seat"], "accepted")
    doc["bank"].update(banker_seat=p["seat"], banker_player_id=p["player_id"])
    doc["bank"]["co_bank"] = p.get("co_bank", False)
    doc["phase"] = "open_for_bets"
    b.seat_had_action(doc, p["seat"], p["player_id"])


def _declined(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    _answer(doc, p["seat"], "declined")
    doc["phase"] = "open_for_bets"


def _bet(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["wagers"].append(
        {
            "seat": p["seat"],
            "player_id": p["player_id"],
            "position": p["position"],
            "amount": p["amount"],
            "status": "in_action",
        }
    )
    b.seat_had_action(doc, p["seat"], p["player_id"])


def _side_bet(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["side_bets"].append(
        {
            "seat": p["seat"],
            "player_id": p["player_id"],
            "bet": p["bet"],
            "amount": p["amount"],
            "status": "open",
            "line": None,
            "pays": None,
            "payout": None,
            "pay_table": None,
            "from_meter": None,
        }
    )
    b.seat_had_action(doc, p["seat"], p["player_id"])


def _returned(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    # R-BANK-3 "no action": the wager (or a side bet following it back) is returned.
    if p.get("kind", "main") == "side":
        for bet in doc["side_bets"]:
            if bet["seat"] == p["seat"] and bet["bet"] == p["bet"] and bet["status"] == "open":
                bet["status"] = "returned"
                break
        return
    for wager in doc["wagers"]:
        if wager["seat"] == p["seat"] and wager["status"] == "in_action":
            wager.update(status="returned", reason=p["reason"], clause=p["clause"])
            break


def _bets_closed(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["bank"].update(
        banker_seat=p["banker_seat"],
        banker_player_id=p["banker_player_id"],
        co_bank=p.get("co_bank", False),
        in_action=p["in_action"],
    )
    doc["phase"] = "bets_closed"


def _dealt(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["deal"] = {
        "source": p["source"],
        "deck": p["deck"],
        "stacks": p["stacks"],
        "unused": p["unused"],
    }
    doc["phase"] = "dealt"


def _deck_dealt(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    """R20: the deck the round was dealt from (rounds of a table keeping custody only)."""
    doc["deal"]["deck_id"] = p["deck_id"]


def _dice(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["dice"] = {"faces": p["faces"], "total": p["total"], "first_position": p["first_position"]}


def _assigned(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["stacks"] = list(p["assignments"])
    doc["phase"] = "dice_rolled"


def _hand(doc: Doc, p: Payload, **what: Any) -> None:
    doc["hands"].append(
        {
            "seat": p["seat"],
            "position": p["position"],
            "back": p["back"],
            "front": p["front"],
            "player_back": None,
            "player_front": None,
            "forfeited": False,
            "clause": None,
        }
        | what
    )


def _hand_set(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    _hand(doc, p, by=p["by"], reason=p["reason"], rule=p.get("rule"))


def _foul_reset(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    # R-SET-2 reset: the player's fouled split is kept beside the House Way's that replaced it.
    _hand(
        doc,
        p,
        by="house_way",
        reason="foul_reset",
        rule=p["rule"],
        player_back=p["player_back"],
        player_front=p["player_front"],
        clause=p["clause"],
    )


def _forfeited(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    _hand(
        doc,
        p,
        by="player",
        reason="foul_forfeit",
        rule=None,
        player_back=p["back"],
        player_front=p["front"],
        forfeited=True,
        clause=p["clause"],
    )


def _banker_hand(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["banker_hand"] = {
        name: p.get(name)
        for name in ("seat", "player_id", "position", "back", "front", "house_way", "rule")
    }
    doc["phase"] = "banker_hand_set"


def _settled(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["settlement"] = {
        "variant": p.get("variant", "commission"),
        "override": p.get("override"),
        "results": p["results"],
        "banker": p["banker"],
    }
    doc.update(status="settled", phase="settled", ended_at=at)


def _commission(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["commission"].append(
        {
            name: p.get(name)
            for name in ("seat", "player_id", "payer", "amount", "basis", "basis_amount", "clause")
        }
    )


def _side_settled(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    for bet in doc["side_bets"]:
        if bet["seat"] == p["seat"] and bet["bet"] == p["bet"] and bet["status"] == "open":
            bet.update(
                status="settled",
                line=p["line"],
                pays=p["pays"],
                payout=p["payout"],
                pay_table=p.get("pay_table"),
                from_meter=p.get("from_meter", 0),
            )
            if p.get("aggregate_cap") is not None:  # R15: only where a cap applies, so the
                # records of uncapped bets (and of logs older than the cap) stay as they were
                bet.update(aggregate_cap=p["aggregate_cap"], reduction=p.get("reduction", 0))
            return


def _envy(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["envy"].append(
        {
            name: p.get(name)
            for name in ("seat", "player_id", "from_seat", "from_player_id", "line", "amount")
        }
    )


def _meter(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["meter"].append(
        {name: p.get(name) for name in ("reason", "amount", "meter", "seat", "player_id", "line")}
    )


def _voided(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc["void"] = {"reason": p["reason"], "returned": p["returned"]}
    for wager in doc["wagers"]:
        if wager["status"] == "in_action":
            wager["status"] = "returned"
    for bet in doc["side_bets"]:
        if bet["status"] == "open":
            bet["status"] = "returned"
    doc.update(status="voided", phase="voided", ended_at=at)


def _closed(b: RoundsBatch, doc: Doc, p: Payload, at: str) -> None:
    doc.update(status="closed", phase="closed", closed_at=at)


_HANDLERS: dict[str, Callable[[RoundsBatch, Doc, Payload, str], None]] = {
    "bank_offered": _offered,
    "bank_accepted": _accepted,
    "bank_declined": _declined,
    "bet_placed": _bet,
    "side_bet_placed": _side_bet,
    "wager_returned": _returned,
    "bets_closed": _bets_closed,
    "stacks_dealt": _dealt,
    "deck_dealt": _deck_dealt,
    "dice_rolled": _dice,
    "stacks_assigned": _assigned,
    "hand_set": _hand_set,
    "foul_reset": _foul_reset,
    "hand_forfeited": _forfeited,
    "banker_hand_set": _banker_hand,
    "round_settled": _settled,
    "commission_taken": _commission,
    "side_bet_settled": _side_settled,
    "envy_paid": _envy,
    "meter_changed": _meter,
    "round_voided": _voided,
    "round_closed": _closed,
}


# --- reading -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundRecord:
    """One round as recalled: the key facts as fields, everything in ``record`` (the JSON
    document described in docs/projections.md, "Round history")."""

    table_id: str
    round: int
    status: str
    started_at: str
    ended_at: str | None
    banker_seat: int | None
    banker_player_id: str | None
    record: dict[str, Any] = field(repr=False)

    @property
    def in_progress(self) -> bool:
        return self.status == IN_PROGRESS

    def to_dict(self) -> dict[str, Any]:
        return self.record


def read_rounds(
    tx: Tx,
    table_id: str,
    round_number: int | None = None,
    last: int | None = None,
    seat: int | None = None,
    player_id: str | None = None,
) -> list[RoundRecord]:
    """The table's rounds in order: one round, or the ``last`` ones (all when ``None``), only
    those where ``seat`` / ``player_id`` had action when given."""
    clauses, params = given(
        ("r.table_id = ?", table_id),
        ("s.seat = ?", seat),
        ("s.player_id = ?", player_id),
        ("r.round = ?", round_number),
    )
    join = ""
    if seat is not None or player_id is not None:  # the seats where each round had action
        join = f" JOIN {round_seats.name} s ON s.table_id = r.table_id AND s.round = r.round"
    limit = f" LIMIT {int(last)}" if last is not None else ""
    found = tx.all(
        "SELECT DISTINCT r.table_id, r.round, r.status, r.started_at, r.ended_at, r.banker_seat, "
        f"r.banker_player_id, r.record FROM {rounds.name} r{join} "
        f"WHERE {' AND '.join(clauses)} ORDER BY r.round DESC{limit}",
        params,
    )
    records = [
        RoundRecord(table, number, status, started, ended, seat_, player, json.loads(text))
        for table, number, status, started, ended, seat_, player, text in found
    ]
    records.reverse()
    return records
