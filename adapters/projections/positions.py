"""A round by position (R-DEAL-1), for ``paigow recall``'s table and CSV: one row per position
with the stack dealt (dead ones too), the wager, the hand as set and its result."""

from __future__ import annotations

from typing import Any

Doc = dict[str, Any]


#: One row per position of a round (``paigow recall --format csv``), the stable CSV columns.
POSITION_COLUMNS = (
    "table_id",
    "round",
    "status",
    "started_at",
    "ended_at",
    "dice",
    "first_position",
    "unused",
    "position",
    "stack",
    "seat",
    "player_id",
    "holder",
    "cards",
    "wager",
    "wager_status",
    "back",
    "front",
    "set_by",
    "set_reason",
    "rule",
    "player_back",
    "player_front",
    "forfeited",
    "back_result",
    "front_result",
    "result",
    "payout",
    "commission",
    "net",
    "side_bets",
)


def same_names(source: Doc, *names: str) -> dict[str, Any]:
    """``source``'s fields ``names``, under the same names: where a record's field and a row's
    column are one thing."""
    return {name: source[name] for name in names}


def position_rows(record: Doc) -> list[dict[str, Any]]:
    """The round by position (R-DEAL-1), dead stacks included: the stack dealt, the wager, the
    hand as set, its result. The banker's row (position 1) holds the banker's hand and the bank's
    result: ``payout`` the bank's result, ``commission`` the player-banker's, ``net`` the
    player-banker's chips change (the house's share when the dealer banks). A round not dealt yet
    has rows only for its wagers."""
    rows = _Rows(_common(record))
    seats = _stacks_and_wagers(record, rows)
    _hands(record, rows, seats)
    _settlement(record, rows)
    _side_bets(record, rows, seats)
    return rows.in_order()


class _Rows:
    """A row per position, made on first use with the round's common columns."""

    def __init__(self, common: dict[str, Any]) -> None:
        self.common = common
        self.rows: dict[int, dict[str, Any]] = {}

    def at(self, position: int) -> dict[str, Any]:
        row = self.rows.get(position)
        if row is None:
            row = self.rows[position] = dict.fromkeys(POSITION_COLUMNS) | self.common
            row.update(position=position, side_bets=[], forfeited=False)
        return row

    def in_order(self) -> list[dict[str, Any]]:
        return [self.rows[position] for position in sorted(self.rows)]


def _common(record: Doc) -> dict[str, Any]:
    common = {
        **same_names(record, "table_id", "round", "status", "started_at", "ended_at"),
        "dice": None,
        "first_position": None,
        "unused": None if record["deal"] is None else " ".join(record["deal"]["unused"]),
    }
    if record["dice"] is not None:
        common["dice"] = "-".join(str(f) for f in record["dice"]["faces"])
        common["first_position"] = record["dice"]["first_position"]
    return common


def _stacks_and_wagers(record: Doc, rows: _Rows) -> dict[int | None, int]:
    """The stacks dealt and the wagers; returns each seat's position."""
    for stack in record["stacks"]:
        rows.at(stack["position"]).update(
            same_names(stack, "stack", "seat", "player_id", "holder"),
            cards=" ".join(stack["cards"]),
        )
    seats: dict[int | None, int] = {}
    for wager in record["wagers"]:
        row = rows.at(wager["position"])
        row.update(seat=wager["seat"], player_id=wager["player_id"])
        row.update(wager=wager["amount"], wager_status=wager["status"])
        row["holder"] = row["holder"] or ("house" if wager["seat"] is None else "player")
        seats[wager["seat"]] = wager["position"]
    return seats


def _hands(record: Doc, rows: _Rows, seats: dict[int | None, int]) -> None:
    for hand in record["hands"]:
        rows.at(hand["position"]).update(
            back=" ".join(hand["back"]),
            front=" ".join(hand["front"]),
            set_by=hand["by"],
            set_reason=hand["reason"],
            rule=hand["rule"],
            player_back=None if hand["player_back"] is None else " ".join(hand["player_back"]),
            player_front=None if hand["player_front"] is None else " ".join(hand["player_front"]),
            forfeited=hand["forfeited"],
        )
    banker_hand = record["banker_hand"]
    if banker_hand is not None:
        rows.at(banker_hand["position"]).update(
            back=" ".join(banker_hand["back"]),
            front=" ".join(banker_hand["front"]),
            set_by="house_way",
            set_reason="banker",
            rule=banker_hand["rule"],
        )
        seats.setdefault(banker_hand["seat"], banker_hand["position"])


def _settlement(record: Doc, rows: _Rows) -> None:
    settlement = record["settlement"]
    if settlement is None:
        return
    for result in settlement["results"]:
        rows.at(result["position"]).update(
            same_names(result, "result", "payout", "commission", "net"),
            back_result=result["back"],
            front_result=result["front"],
        )
    banker = settlement["banker"]
    rows.at(1).update(  # the banker is position 1 (R-DEAL-1)
        payout=banker["result"],
        commission=banker["commission"],
        net=banker["net"] if banker["player_id"] is not None else banker["house_share"],
    )


def _side_bets(record: Doc, rows: _Rows, seats: dict[int | None, int]) -> None:
    for bet in record["side_bets"]:
        # A player-banker's own side bets go with the bank's position; others with the wager.
        where = seats.get(bet["seat"])
        if where is None:
            where = next(
                (s["position"] for s in record["stacks"] if s["seat"] == bet["seat"]), None
            )
        if where is not None:
            rows.at(where)["side_bets"].append(bet)


def side_bets_csv(bets: list[dict[str, Any]]) -> str:
    """A position's side bets for CSV: ``bet:amount:status:line:payout`` joined by ``;`` (minor
    units; ``line`` empty when the bet lost, ``line`` and ``payout`` empty until settled)."""
    parts = []
    for bet in bets:
        payout = "" if bet["payout"] is None else str(bet["payout"])
        parts.append(f"{bet['bet']}:{bet['amount']}:{bet['status']}:{bet['line'] or ''}:{payout}")
    return ";".join(parts)
