"""``paigow evaluate``: value five- or two-card hands, one a line (R-HI-1..5, R-LO-1)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from entrypoints.cli.lines import run_lines
from table_core.cards import cards_text, parse_cards
from table_core.hands import WHEEL_RANKS, WheelRank, evaluate_hand


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="value hands read from standard input (5 or 2 cards a line)",
        description="Reads hands, one a line (5 or 2 cards separated by spaces), and writes one "
        "JSON object a line: cards, category, strength (compare as lists), name.",
    )
    parser.add_argument("--wheel", choices=WHEEL_RANKS, default="second", help="R-HI-2")
    parser.set_defaults(handler=run)


def evaluate_line(text: str, wheel: WheelRank) -> dict[str, Any]:
    cards = parse_cards(text, (5, 2))
    value = evaluate_hand(cards, wheel)
    return {
        "cards": cards_text(cards),
        "category": value.category,
        "strength": list(value.strength_list),
        "name": value.name,
    }


def run(args: argparse.Namespace) -> int:
    return run_lines(sys.stdin, sys.stdout, lambda text: evaluate_line(text, args.wheel))
