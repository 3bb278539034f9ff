"""Bankroll: each player's chips per table (balance, chips on the layout, results) and the
house's result per table (main wagers, commission, side bets, Envy, the progressive meter).

Money moves exactly as the table's state folds it (docs/table.md, money): a bet leaves the
balance for the layout; ``round_settled`` gives each player ``wager + net`` back and the
player-banker ``net``; a side bet gives ``amount + payout``; Envy pays ``amount``. So for every
player ``balance + in_play + cashed_out = bought_in + net_result``, and the house's
``main_result + commission + side_result - envy_paid`` is the table's ``house_result +
commission``. The meter is house money set aside (R-VAR-6): shown, never counted as a result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Table

from adapters.projections.db import HandledBatch, Rows, Tx, no_defaults, table_rows
from adapters.projections.schema import PLAYER_MONEY, bankroll_house, bankroll_players
from table_core.ports import RecordedEvent

NAME = "bankroll"
TABLES: tuple[Table, ...] = (bankroll_players, bankroll_house)

Payload = dict[str, Any]


def _player_defaults(key: tuple[Any, ...]) -> dict[str, Any]:
    return {"seat": None}


class BankrollBatch(HandledBatch):
    def __init__(self, tx: Tx) -> None:
        self.players = Rows(tx, bankroll_players, _player_defaults)
        self.house = Rows(tx, bankroll_house, no_defaults)
        super().__init__(_HANDLERS, self.players, self.house)

    def apply(self, event: RecordedEvent) -> None:
        handler = _HANDLERS.get(event.type)
        if handler is not None:  # other facts move no chips; a handler takes the table's id
            handler(self, event.stream_id, event.payload)

    def _chips(self, table: str, player: str | None, to_balance: int, to_layout: int) -> None:
        if player is None:  # the house hand's wager is the house's own money
            return
        row = self.players.get(table, player)
        row["balance"] += to_balance
        row["in_play"] += to_layout


def _table_opened(b: BankrollBatch, table: str, e: Payload) -> None:
    b.house.get(table)


def _player_seated(b: BankrollBatch, table: str, e: Payload) -> None:
    b.players.get(table, e["player_id"])["seat"] = e["seat"]


def _player_left(b: BankrollBatch, table: str, e: Payload) -> None:
    b.players.get(table, e["player_id"])["seat"] = None


def _bought_in(b: BankrollBatch, table: str, e: Payload) -> None:
    row = b.players.get(table, e["player_id"])
    row["balance"] += e["amount"]
    row["bought_in"] += e["amount"]


def _cashed_out(b: BankrollBatch, table: str, e: Payload) -> None:
    row = b.players.get(table, e["player_id"])
    row["balance"] -= e["amount"]
    row["cashed_out"] += e["amount"]


def _onto_layout(b: BankrollBatch, table: str, e: Payload) -> None:
    b._chips(table, e["player_id"], -e["amount"], e["amount"])


def _wager_returned(b: BankrollBatch, table: str, e: Payload) -> None:
    b._chips(table, e["player_id"], e["amount"], -e["amount"])  # R-BANK-3 "no action"


def _round_voided(b: BankrollBatch, table: str, e: Payload) -> None:
    for returned in e["returned"]:
        b._chips(table, returned["player_id"], returned["amount"], -returned["amount"])


def _round_settled(b: BankrollBatch, table: str, e: Payload) -> None:
    house = b.house.get(table)
    house["rounds_settled"] += 1
    house["main_result"] += e["banker"]["house_share"]
    for result in e["results"]:
        player = result["player_id"]
        if player is None:  # the house hand against a player-banker (R-BANK-2)
            house["main_result"] += result["net"]
            continue
        row = b.players.get(table, player)
        row["balance"] += result["wager"] + result["net"]
        row["in_play"] -= result["wager"]
        row["main_result"] += result["payout"]
        row["commission_paid"] += result["commission"]
        row["hands_played"] += 1
    banker = e["banker"]
    if banker["player_id"] is not None:  # a player-banker (R-BANK-2, R-BANK-4)
        row = b.players.get(table, banker["player_id"])
        row["balance"] += banker["net"]
        row["banker_result"] += banker["player_share"]
        row["banker_commission"] += banker["commission"]
        row["rounds_banked"] += 1


def _commission_taken(b: BankrollBatch, table: str, e: Payload) -> None:
    # R-PAY-3: the books sum these; the chips already moved in round_settled.
    b.house.get(table)["commission"] += e["amount"]


def _side_bet_settled(b: BankrollBatch, table: str, e: Payload) -> None:
    row = b.players.get(table, e["player_id"])
    row["balance"] += e["amount"] + e["payout"]
    row["in_play"] -= e["amount"]
    row["side_result"] += e["payout"]
    b.house.get(table)["side_result"] -= e["payout"]  # the house banks side bets (R-BANK-5)


def _envy_paid(b: BankrollBatch, table: str, e: Payload) -> None:
    row = b.players.get(table, e["player_id"])
    row["balance"] += e["amount"]
    row["side_result"] += e["amount"]
    b.house.get(table)["envy_paid"] += e["amount"]  # R-VAR-3


def _meter_changed(b: BankrollBatch, table: str, e: Payload) -> None:
    house = b.house.get(table)
    house["meter"] += e["amount"]
    if e["reason"] in ("seed", "reset"):  # the house's own money into the meter (R-VAR-6)
        house["meter_seeded"] += e["amount"]


_HANDLERS: dict[str, Callable[[BankrollBatch, str, Payload], None]] = {
    "table_opened": _table_opened,
    "player_seated": _player_seated,
    "player_left": _player_left,
    "chips_bought_in": _bought_in,
    "chips_cashed_out": _cashed_out,
    "bet_placed": _onto_layout,
    "side_bet_placed": _onto_layout,
    "wager_returned": _wager_returned,
    "round_voided": _round_voided,
    "round_settled": _round_settled,
    "commission_taken": _commission_taken,
    "side_bet_settled": _side_bet_settled,
    "envy_paid": _envy_paid,
    "meter_changed": _meter_changed,
}


# --- reading -------------------------------------------------------------------------------------

PLAYER_COLUMNS = (
    "table_id",
    "player_id",
    "seat",
    *PLAYER_MONEY,
    "net_result",
    "hands_played",
    "rounds_banked",
)
HOUSE_COLUMNS = (
    "table_id",
    "main_result",
    "commission",
    "side_result",
    "envy_paid",
    "total_result",
    "meter",
    "meter_seeded",
    "meter_from_players",
    "rounds_settled",
    # The vocabulary's names (docs/projections.md): the table state's and the audit's house result
    # (before commission), and the game win (= total_result).
    "house_result",
    "game_win",
)


def players(tx: Tx, table_id: str | None = None) -> list[dict[str, Any]]:
    """Every player's bankroll, by table then seat (players who left last, by id)."""
    out = []
    for row in table_rows(tx, bankroll_players, table_id):
        row["net_result"] = (
            row["main_result"]
            + row["side_result"]
            - row["commission_paid"]
            + row["banker_result"]
            - row["banker_commission"]
        )
        out.append({name: row[name] for name in PLAYER_COLUMNS})
    out.sort(key=lambda r: (r["table_id"], r["seat"] is None, r["seat"] or 0, r["player_id"]))
    return out


def house(tx: Tx, table_id: str | None = None) -> list[dict[str, Any]]:
    out = []
    for row in table_rows(tx, bankroll_house, table_id, "ORDER BY table_id"):
        row["house_result"] = row["main_result"] + row["side_result"] - row["envy_paid"]
        row["total_result"] = row["game_win"] = row["house_result"] + row["commission"]
        row["meter_from_players"] = row["meter"] - row["meter_seeded"]
        out.append({name: row[name] for name in HOUSE_COLUMNS})
    return out
