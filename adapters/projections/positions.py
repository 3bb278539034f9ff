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


def position_rows(record: Doc) -> list[dict[str, Any]]:
    """The round by position (R-DEAL-1), dead stacks included: the stack dealt, the wager, the
    hand as set, its result. The banker's row (position 1) holds the banker's hand and the bank's
    result: ``payout`` the bank's result, ``commission`` the player-banker's, ``net`` the
    player-banker's chips change (the house's share when the dealer banks). A round not dealt yet
    has rows only for its wagers."""
    common = {
        "table_id": record["table_id"],
        "round": record["round"],
        "status": record["status"],
        "started_at": record["started_at"],
        "ended_at": record["ended_at"],
        "dice": None,
        "first_position": None,
        "unused": None if record["deal"] is None else " ".join(record["deal"]["unused"]),
    }
    if record["dice"] is not None:
        common["dice"] = "-".join(str(f) for f in record["dice"]["faces"])
        common["first_position"] = record["dice"]["first_position"]
    rows: dict[int, dict[str, Any]] = {}

    def at(position: int) -> dict[str, Any]:
        row = rows.get(position)
        if row is None:
            row = rows[position] = dict.fromkeys(POSITION_COLUMNS) | common
            row.update(position=position, side_bets=[], forfeited=False)
        return row

    for stack in record["stacks"]:
        at(stack["position"]).update(
            stack=stack["stack"],
            seat=stack["seat"],
            player_id=stack["player_id"],
            holder=stack["holder"],
            cards=" ".join(stack["cards"]),
        )
    seats: dict[int | None, int] = {}
    for wager in record["wagers"]:
        row = at(wager["position"])
        row.update(seat=wager["seat"], player_id=wager["player_id"])
        row.update(wager=wager["amount"], wager_status=wager["status"])
        row["holder"] = row["holder"] or ("house" if wager["seat"] is None else "player")
        seats[wager["seat"]] = wager["position"]
    for hand in record["hands"]:
        at(hand["position"]).update(
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
        row = at(banker_hand["position"])
        row.update(
            back=" ".join(banker_hand["back"]),
            front=" ".join(banker_hand["front"]),
            set_by="house_way",
            set_reason="banker",
            rule=banker_hand["rule"],
        )
        seats.setdefault(banker_hand["seat"], banker_hand["position"])
    settlement = record["settlement"]
    if settlement is not None:
        for result in settlement["results"]:
            at(result["position"]).update(
                back_result=result["back"],
                front_result=result["front"],
                result=result["result"],
                payout=result["payout"],
                commission=result["commission"],
                net=result["net"],
            )
        banker = settlement["banker"]
        at(1).update(  # the banker is position 1 (R-DEAL-1)
            payout=banker["result"],
            commission=banker["commission"],
            net=banker["net"] if banker["player_id"] is not None else banker["house_share"],
        )
    for bet in record["side_bets"]:
        # A player-banker's own side bets go with the bank's position; others with the wager.
        where = seats.get(bet["seat"])
        if where is None:
            where = next(
                (s["position"] for s in record["stacks"] if s["seat"] == bet["seat"]), None
            )
        if where is not None:
            at(where)["side_bets"].append(bet)
    return [rows[p] for p in sorted(rows)]


def side_bets_csv(bets: list[dict[str, Any]]) -> str:
    """A position's side bets for CSV: ``bet:amount:status:line:payout`` joined by ``;`` (minor
    units; ``line`` empty when the bet lost, ``line`` and ``payout`` empty until settled)."""
    parts = []
    for bet in bets:
        payout = "" if bet["payout"] is None else str(bet["payout"])
        parts.append(f"{bet['bet']}:{bet['amount']}:{bet['status']}:{bet['line'] or ''}:{payout}")
    return ";".join(parts)
