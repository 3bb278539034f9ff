"""``paigow set-hand``: set seven cards a line by a House Way (R-HW-1..6)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from entrypoints.cli.lines import run_lines
from table_core.cards import cards_text, parse_cards
from table_core.hands import WHEEL_RANKS, WheelRank, tables_for
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way
from table_core.rules import DEFAULT_HOUSE_WAY


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "set-hand",
        help="set seven cards a line by a House Way",
        description="Reads seven cards a line and writes the House Way's back, front and the id "
        "of the clause that decided, one JSON object a line.",
    )
    parser.add_argument(
        "--house-way", default=DEFAULT_HOUSE_WAY, help=f"one of {', '.join(BUILT_IN)}"
    )
    parser.add_argument("--wheel", choices=WHEEL_RANKS, default="second")
    parser.set_defaults(handler=run)


def set_hand_line(text: str, house_way: str, wheel: WheelRank) -> dict[str, Any]:
    cards = parse_cards(text, 7)
    split = set_by_house_way(cards, house_way, tables_for(wheel))
    return {
        "cards": cards_text(cards),
        "back": cards_text(split.back),
        "front": cards_text(split.front),
        "rule": split.rule,
        "house_way": house_way,
    }


def run(args: argparse.Namespace) -> int:
    get_house_way(args.house_way)  # an unknown House Way is a usage error, not a bad line
    return run_lines(
        sys.stdin, sys.stdout, lambda text: set_hand_line(text, args.house_way, args.wheel)
    )
