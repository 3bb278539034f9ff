"""``paigow settle``: settle main wagers read as JSON lines (R-PAY-1..3, R-SET-1..3)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pydantic import ValidationError

from entrypoints.cli.lines import LineError, parse_json_object, run_lines
from entrypoints.cli.options import from_args
from table_core.cards import Card, cards_text, check_distinct, parse_cards
from table_core.errors import ConfigurationError, FoulError
from table_core.hands import WHEEL_RANKS, tables_for
from table_core.house_ways import get_house_way, set_by_house_way
from table_core.rules import DEFAULT_HOUSE_WAY, CommissionRules, HouseRules
from table_core.settlement import settle_main_wager
from table_core.split import Split, make_split, value_split


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "settle",
        help="settle main wagers read as JSON lines",
        description='Reads {"player": {"back": "...", "front": "..."}, "banker": {...}, '
        '"wager": MINOR} a line and writes the result, the hand results, the net change to the '
        "player's balance and the commission, in minor units.",
    )
    parser.add_argument(
        "--commission", choices=("percent", "flat", "flat_always"), default="percent"
    )
    parser.add_argument("--rate-bp", type=int, default=500, help="percent mode, basis points")
    parser.add_argument("--fee", type=int, default=0, help="flat modes, minor units")
    parser.add_argument("--rounding-unit", type=int, default=1, help="smallest chip, minor units")
    parser.add_argument("--rounding", choices=("half_up", "up", "down"), default="half_up")
    parser.add_argument("--foul-policy", choices=("reset", "forfeit"), default="reset")
    parser.add_argument(
        "--house-way",
        default=None,
        help="re-sets fouled hands: a player's under --foul-policy reset (default House Way: "
        f"{DEFAULT_HOUSE_WAY}); a banker's only when given (R11), else a fouled banker line fails",
    )
    parser.add_argument("--wheel", choices=WHEEL_RANKS, default="second")
    parser.set_defaults(handler=run)


def rules_from_args(args: argparse.Namespace) -> HouseRules:
    try:
        commission = from_args(CommissionRules, args, mode=args.commission)
        return HouseRules(
            house_way=args.house_way or DEFAULT_HOUSE_WAY,
            wheel_rank=args.wheel,
            foul_policy=args.foul_policy,
            commission=commission,
        )
    except ValidationError as error:
        problems = "; ".join(e["msg"].removeprefix("Value error, ") for e in error.errors())
        raise ConfigurationError(f"bad rules: {problems}") from None


def _read_split(request: dict[str, Any], who: str) -> Split:
    hands = request.get(who)
    if (
        not isinstance(hands, dict)
        or not isinstance(hands.get("back"), str)
        or not isinstance(hands.get("front"), str)
    ):
        raise LineError(f'"{who}" needs "back" (5 cards) and "front" (2 cards) as text')
    return make_split(parse_cards(hands["back"], 5), parse_cards(hands["front"], 2))


def _reset_text(reset: Split) -> dict[str, Any]:
    return {"back": cards_text(reset.back), "front": cards_text(reset.front), "rule": reset.rule}


def settle_request(
    request: dict[str, Any], rules: HouseRules, *, banker_house_way: str | None = None
) -> dict[str, Any]:
    """One line settled. A fouled banker hand is re-set by ``banker_house_way`` (R11: a casino
    always resets a fouled banker hand by its House Way) and written as ``banker_reset``; with no
    House Way named the line fails with a clear error, as it always did."""
    wager = request.get("wager")
    if type(wager) is not int or wager <= 0:
        raise LineError('"wager" must be a positive whole number of minor units')
    player, banker = _read_split(request, "player"), _read_split(request, "banker")
    dealt: list[Card] = [*player.cards, *banker.cards]
    check_distinct(dealt)
    tables = tables_for(rules.wheel_rank)
    banker_value = value_split(banker, tables)
    out: dict[str, Any] = {}
    if not banker_value.legal:  # R-HW-5: a banker's hand is set by the House Way and never fouls
        if banker_house_way is None:
            back, front = banker.text()
            raise FoulError(
                f"banker hand is fouled: front {' '.join(front)} outranks back {' '.join(back)}"
                " (--house-way NAME re-sets it, R11)"
            )
        banker_reset = set_by_house_way(banker.cards, banker_house_way, tables)  # R11
        banker_value = value_split(banker_reset, tables)
        out["banker_reset"] = _reset_text(banker_reset)
    player_value = value_split(player, tables)
    fouled = not player_value.legal
    if fouled and rules.foul_policy == "reset":  # R-SET-2: the House Way re-sets it
        reset = set_by_house_way(player.cards, rules.house_way, tables)
        player_value = value_split(reset, tables)
        out["reset"] = _reset_text(reset)
    settlement = settle_main_wager(
        player_value.back_strength,
        player_value.front_strength,
        banker_value.back_strength,
        banker_value.front_strength,
        wager,
        rules.commission,
        forfeited=fouled and rules.foul_policy == "forfeit",
    )
    return {
        "result": settlement.result,
        "back": settlement.back,
        "front": settlement.front,
        "player_fouled": fouled,
        "net": settlement.net,
        "commission": settlement.commission,
        **out,
    }


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if rules.foul_policy == "reset" or args.house_way is not None:
        get_house_way(rules.house_way)  # an unknown House Way is a usage error, not a bad line
    banker_house_way = args.house_way  # R11: given, it re-sets a fouled banker hand

    def settle_line(text: str) -> dict[str, Any]:
        return settle_request(parse_json_object(text), rules, banker_house_way=banker_house_way)

    return run_lines(sys.stdin, sys.stdout, settle_line)
