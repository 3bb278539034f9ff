"""Benchmark (issue 9): the exhaustive side-bet count, timed, checked against docs/rules.md R-VAR-7.

Usage: python benchmarks/bench_side_bet_exhaustive.py
(CI asserts the same figures in tests/unit/side_bets/test_exhaustive.py.)
Classifies every suit class of the 53-card deck with the table's own classifier (154,143,080
hands) and exits 1 unless every figure of R-VAR-7 matches: the eleven best-five-card categories,
the twelve Fortune lines, the pai gow hands by highest card, and the default Fortune table's edge
of exactly 11,970,096 / 154,143,080. Ends with one JSON line of the figures and the run time.
"""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction

from table_core.side_bets import FORTUNE_8000
from table_core.side_bets.exhaustive import TOTAL_HANDS, exhaustive
from table_core.side_bets.reference import CATEGORIES, EDGE, FORTUNE_LINES, PAI_GOW


def differences(name: str, found: dict[str, int], expected: dict[str, int]) -> list[str]:
    keys = list(expected) + [k for k in found if k not in expected]
    return [
        f"{name} {key}: counted {found.get(key)}, R-VAR-7 says {expected.get(key)}"
        for key in keys
        if found.get(key) != expected.get(key)
    ]


def main() -> int:
    started = time.perf_counter()
    counted = exhaustive()
    seconds = time.perf_counter() - started
    categories = counted.categories()
    lines = counted.lines(FORTUNE_8000)
    pai_gow = counted.pai_gow_by_highest_card()
    house_win = counted.house_win(FORTUNE_8000)
    problems = [
        *differences("category", categories, CATEGORIES),
        *differences("fortune", lines, FORTUNE_LINES),
        *differences("pai gow", pai_gow, PAI_GOW),
    ]
    if counted.total != TOTAL_HANDS:
        problems.append(f"hands: counted {counted.total}, C(53,7) is {TOTAL_HANDS}")
    if (house_win, counted.total) != EDGE or counted.house_edge(FORTUNE_8000) != Fraction(*EDGE):
        problems.append(f"fortune edge: {house_win} / {counted.total}, R-VAR-7 says 11970096 / ...")
    for problem in problems:
        print(f"FAIL {problem}", file=sys.stderr)
    if not problems:
        print(
            f"all {counted.total:,} hands: every R-VAR-7 figure matches; Fortune edge "
            f"{house_win:,} / {counted.total:,} ({seconds:.1f} s)"
        )
    print(
        json.dumps(
            {
                "ok": not problems,
                "hands": counted.total,
                "suit_classes": list(counted.suit_classes),
                "categories": categories,
                "fortune_lines": lines,
                "pai_gow_by_highest_card": pai_gow,
                "fortune_edge": [house_win, counted.total],
                "seconds": round(seconds, 1),
            }
        )
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
