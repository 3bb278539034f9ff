"""Player ratings (issue 18, duty R16): what a players' club rates, from the table's events.

A rating opens when a carded player sits (``player_seated.card``) and closes when the player
leaves (``player_left``) or the table closes its gaming day (``gaming_day_closed``). It holds the
start and end, the rounds played, the main wagers and side bets (count and sum: the average bets),
the buy-ins by medium, the cash-out, the player's result, and the **theoretical win**: each wager
settled times the house edge of that bet under the table's rules (``table_core/edges.py``, a
versioned table the project computed itself), summed in millionths of a minor unit and rounded
half up when read. A floor supervisor's correction (``rating_corrected``: average bet, minutes, a
reason) is kept beside the figures, never over them.

The house's view: ``actual_win`` is what the house won from the player (−their result: main
wagers after commission, side bets, Envy, and their bank's share when they banked), ``theo_win``
what it expects to win from their wagers. A round the player banked adds no theoretical win (a
player-banker's wager is no bet against the house).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import Table

from adapters.projections.db import HandledBatch, Rows, Tx
from adapters.projections.schema import rating_tables, ratings
from eventlog.canonical import format_time as time_text
from table_core import edges
from table_core.ports import RecordedEvent

NAME = "ratings"
TABLES: tuple[Table, ...] = (ratings, rating_tables)
Payload = dict[str, Any]
_MEDIA = {"cash": "cash", None: "cash", "marker": "markers", "chips": "chips_in"}
MICRO = 1_000_000


class RatingsBatch(HandledBatch):
    def __init__(self, tx: Tx) -> None:
        self.tables = Rows(tx, rating_tables, lambda key: {"rules": "{}", "gaming_day": "",
                                                           "open_ratings": "{}"})  # fmt: skip
        self.ratings = Rows(tx, ratings, lambda key: {"card": "", "gaming_day": "",
                                                      "status": "open", "started_at": "",
                                                      "ended_at": "", "edges_version": "",
                                                      "corrected_average_bet": None,
                                                      "corrected_minutes": None,
                                                      "correction_reason": None})  # fmt: skip
        self._rules: dict[str, tuple[Fraction | None, dict[str, Any]]] = {}
        self._seqs: dict[str, dict[str, dict[str, int]]] = {}
        super().__init__(_HANDLERS, self.tables, self.ratings)

    def flush(self) -> None:
        for table_id, seqs in self._seqs.items():
            self.tables.get(table_id)["open_ratings"] = json.dumps(seqs, sort_keys=True)
        super().flush()

    def seqs_of(self, table_id: str) -> dict[str, dict[str, int]]:
        """``{"open": {player: seq}, "last": {player: seq}}``: the table's open ratings and each
        player's last one there."""
        found = self._seqs.get(table_id)
        if found is None:
            stored = json.loads(self.tables.get(table_id)["open_ratings"])
            found = self._seqs[table_id] = {"open": {}, "last": {}} | stored
        return found

    def open_of(self, table_id: str) -> dict[str, int]:
        """The table's open ratings: player -> seq."""
        return self.seqs_of(table_id)["open"]

    def rating(self, table_id: str, player: str | None) -> dict[str, Any] | None:
        if player is None:
            return None
        seq = self.open_of(table_id).get(player)
        return None if seq is None else self.ratings.get(table_id, player, seq)

    def edges_of(self, table_id: str) -> tuple[Fraction | None, dict[str, Any]]:
        found = self._rules.get(table_id)
        if found is None:
            rules = json.loads(self.tables.get(table_id)["rules"])
            found = self._rules[table_id] = (edges.main_edge(rules)[0], rules)
        return found

    def set_rules(self, table_id: str, rules: dict[str, Any]) -> None:
        self.tables.get(table_id)["rules"] = json.dumps(rules, sort_keys=True)
        self._rules.pop(table_id, None)


def _rules(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    b.set_rules(e.stream_id, p["rules"])


def _day_opened(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    b.tables.get(e.stream_id)["gaming_day"] = p["gaming_day"]


def _close(b: RatingsBatch, e: RecordedEvent, player: str) -> None:
    seq = b.open_of(e.stream_id).pop(player, None)
    if seq is not None:
        row = b.ratings.get(e.stream_id, player, seq)
        row.update(status="closed", ended_at=time_text(e.at))


def _seated(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    card = p.get("card")
    if card is None:  # an uncarded player is not rated
        return
    opened = b.open_of(e.stream_id)
    player = p["player_id"]
    _close(b, e, player)
    last = b.seqs_of(e.stream_id)["last"]
    seq = last[player] = last.get(player, 0) + 1
    row = b.ratings.get(e.stream_id, player, seq)
    row.update(
        card=card,
        seat=p["seat"],
        gaming_day=b.tables.get(e.stream_id)["gaming_day"],
        started_at=time_text(e.at),
        edges_version=edges.VERSION,
    )
    opened[player] = seq


def _left(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    _close(b, e, p["player_id"])


def _day_closed(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    for player in list(b.open_of(e.stream_id)):
        _close(b, e, player)


def _bought_in(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.rating(e.stream_id, p["player_id"])
    if row is not None:
        row[_MEDIA.get(p.get("medium"), "promotional")] += p["amount"]


def _cashed_out(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.rating(e.stream_id, p["player_id"])
    if row is not None:
        row["cashed_out"] += p["amount"]


def _settled(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    edge, _ = b.edges_of(e.stream_id)
    for result in p["results"]:
        row = b.rating(e.stream_id, result["player_id"])
        if row is None:
            continue
        row["rounds"] += 1
        row["main_bets"] += 1
        row["main_wagered"] += result["wager"]
        row["result"] += result["net"]
        if edge is not None:
            row["theo_micro"] += round(result["wager"] * edge * MICRO)
    banker = p["banker"]
    row = b.rating(e.stream_id, banker.get("player_id"))
    if row is not None:  # the player banked this round
        row["rounds"] += 1
        row["result"] += banker["net"]


def _side_settled(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.rating(e.stream_id, p["player_id"])
    if row is None:
        return
    row["side_bets"] += 1
    row["side_wagered"] += p["amount"]
    row["result"] += p["payout"]
    edge = edges.side_edge(b.edges_of(e.stream_id)[1], p["bet"])
    if edge is not None:
        row["theo_micro"] += round(p["amount"] * edge * MICRO)


def _envy(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    row = b.rating(e.stream_id, p["player_id"])
    if row is not None:
        row["result"] += p["amount"]


def _corrected(b: RatingsBatch, e: RecordedEvent, p: Payload) -> None:
    """A correction applies to the player's last rating at the table (open or closed)."""
    player = p["player_id"]
    seq = b.seqs_of(e.stream_id)["last"].get(player)
    if seq is None:  # the core refuses a correction without a rating: nothing to correct
        return
    row = b.ratings.get(e.stream_id, player, seq)
    if p.get("average_bet") is not None:
        row["corrected_average_bet"] = p["average_bet"]
    if p.get("minutes") is not None:
        row["corrected_minutes"] = p["minutes"]
    row["correction_reason"] = p["reason"]
    row["corrections"] += 1


_HANDLERS: dict[str, Callable[[RatingsBatch, RecordedEvent, Payload], None]] = {
    "table_opened": _rules,
    "rules_changed": _rules,
    "gaming_day_opened": _day_opened,
    "gaming_day_closed": _day_closed,
    "player_seated": _seated,
    "player_left": _left,
    "chips_bought_in": _bought_in,
    "chips_cashed_out": _cashed_out,
    "round_settled": _settled,
    "side_bet_settled": _side_settled,
    "envy_paid": _envy,
    "rating_corrected": _corrected,
}


#: A rating as ``paigow ratings`` and ``GET /players/{id}/ratings`` give it (money: minor units).
COLUMNS = (
    "table_id", "player_id", "card", "seat", "gaming_day", "status", "started_at", "ended_at",
    "minutes", "rounds", "average_bet", "average_side_bet", "main_wagered", "side_wagered",
    "cash", "markers", "chips_in", "promotional", "cashed_out", "actual_win", "theo_win",
    "edges_version", "corrected_average_bet", "corrected_minutes", "correction_reason",
)  # fmt: skip


def _minutes(start: str, end: str) -> int | None:
    if not end:
        return None
    seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    return int(seconds // 60)


def _average(total: int, count: int) -> int | None:
    return None if count == 0 else (2 * total + count) // (2 * count)  # half up


def rating_of(row: dict[str, Any]) -> dict[str, Any]:
    """A stored rating as it is read: averages, minutes, the theoretical win in minor units."""
    theo = row["theo_micro"]
    return {
        "table_id": row["table_id"],
        "player_id": row["player_id"],
        "card": row["card"],
        "seat": row["seat"],
        "gaming_day": row["gaming_day"] or None,
        "status": row["status"],
        "started_at": row["started_at"],
        "ended_at": row["ended_at"] or None,
        "minutes": _minutes(row["started_at"], row["ended_at"]),
        "rounds": row["rounds"],
        "average_bet": _average(row["main_wagered"], row["main_bets"]),
        "average_side_bet": _average(row["side_wagered"], row["side_bets"]),
        "main_wagered": row["main_wagered"],
        "side_wagered": row["side_wagered"],
        "cash": row["cash"],
        "markers": row["markers"],
        "chips_in": row["chips_in"],
        "promotional": row["promotional"],
        "cashed_out": row["cashed_out"],
        "actual_win": -row["result"],
        "theo_win": (2 * theo + MICRO) // (2 * MICRO),
        "edges_version": row["edges_version"],
        "corrected_average_bet": row["corrected_average_bet"],
        "corrected_minutes": row["corrected_minutes"],
        "correction_reason": row["correction_reason"],
    }


def read_ratings(
    tx: Tx, *, day: date | None = None, player: str | None = None, day_of: Any = None
) -> list[dict[str, Any]]:
    """Ratings by start, optionally of one player and of one gaming day: the table's books day,
    else (a table without books) ``day_of(start)``, the report's gaming day of the start."""
    columns = [c.name for c in ratings.columns]
    clauses, params = [], []
    if player is not None:
        clauses.append("player_id = ?")
        params.append(player)
    if day is not None:  # the day's books, or no books (their day is the start's, below)
        clauses.append("gaming_day IN (?, '')")
        params.append(day.isoformat())
    where = "WHERE " + " AND ".join(clauses) if clauses else ""
    found = tx.all(
        f"SELECT {', '.join(columns)} FROM {ratings.name} {where} "
        "ORDER BY started_at, table_id, player_id, seq",
        params,
    )
    out = []
    for values in found:
        row = rating_of(dict(zip(columns, values, strict=True)))
        if row["gaming_day"] is None and day_of is not None:
            row["gaming_day"] = day_of(datetime.fromisoformat(row["started_at"])).isoformat()
        if day is None or row["gaming_day"] == day.isoformat():
            out.append(row)
    return out
