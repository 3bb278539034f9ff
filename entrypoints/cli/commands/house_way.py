"""``paigow house-way``: how a House Way behaves over many hands, and its clause table; its
certificate, its differences from another, its edge and its install (``house_way_checks``)."""

from __future__ import annotations

import argparse
import json
import random
import secrets
from collections import Counter
from typing import Any

from entrypoints.cli.house_way_checks import register_verbs
from entrypoints.cli.house_way_edge import register_edge
from entrypoints.cli.house_way_install import register_install
from entrypoints.cli.options import positive as _positive
from entrypoints.cli.progress import Progress
from table_core.cards import FULL_DECK, cards_text
from table_core.house_ways import BUILT_IN, get_house_way, set_by_house_way
from table_core.rules import DEFAULT_HOUSE_WAY
from table_core.split import Split


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("house-way", help="House Way statistics and clause tables")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    stats = verbs.add_parser(
        "stats",
        help="deal random hands: how often each clause fires, and where two House Ways differ",
    )
    stats.add_argument(
        "--house-way", default=DEFAULT_HOUSE_WAY, help=f"one of {', '.join(BUILT_IN)}"
    )
    stats.add_argument("--hands", type=_positive, default=100_000)
    stats.add_argument(
        "--seed", type=int, help="reproducible hands (default: a fresh seed, printed)"
    )
    stats.add_argument("--compare", metavar="HOUSE_WAY", help="count the hands set differently")
    stats.add_argument("--examples", type=int, default=5, help="differences to show (--compare)")
    stats.add_argument("--format", choices=("table", "json"), default="table")
    stats.set_defaults(handler=run_stats)

    clauses = verbs.add_parser("clauses", help="every clause id with what it says")
    clauses.add_argument("--house-way", action="append", help="repeat for several (default: all)")
    clauses.add_argument("--format", choices=("markdown", "json"), default="markdown")
    clauses.set_defaults(handler=run_clauses)

    register_verbs(verbs, _positive)
    register_install(verbs, _positive)
    register_edge(verbs, _positive)


def _shown(split: Split) -> str:
    return (
        f"{' '.join(cards_text(split.back))} / {' '.join(cards_text(split.front))} ({split.rule})"
    )


def collect_stats(
    house_way: str, hands: int, seed: int, compare: str | None, examples: int
) -> dict[str, Any]:
    way = get_house_way(house_way)
    if compare:
        get_house_way(compare)
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    different = 0
    shown: list[dict[str, str]] = []
    progress = Progress(hands, f"house-way {house_way}")
    for done in range(1, hands + 1):
        cards = rng.sample(FULL_DECK, 7)
        split = set_by_house_way(cards, house_way)
        counts[split.rule or ""] += 1
        if compare:
            other = set_by_house_way(cards, compare)
            if (set(other.back), set(other.front)) != (set(split.back), set(split.front)):
                different += 1
                if len(shown) < examples:
                    shown.append(
                        {
                            "cards": " ".join(cards_text(cards)),
                            house_way: _shown(split),
                            compare: _shown(other),
                        }
                    )
        if done % 1000 == 0:
            progress.update(done)
    progress.close()
    result: dict[str, Any] = {
        "house_way": house_way,
        "hands": hands,
        "seed": seed,
        "clauses": {clause: counts[clause] for clause in way.clauses},
    }
    if compare:
        result["compare"] = {"house_way": compare, "different": different, "examples": shown}
    return result


def run_stats(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    stats = collect_stats(args.house_way, args.hands, seed, args.compare, args.examples)
    if args.format == "json":
        print(json.dumps(stats))
        return 0
    hands = stats["hands"]
    print(f"House Way {stats['house_way']}: {hands:,} random hands (seed {seed})")
    width = max(len(c) for c in stats["clauses"])
    print(f"{'clause':<{width}}  {'hands':>10}  {'share':>7}")
    for clause, count in stats["clauses"].items():
        print(f"{clause:<{width}}  {count:>10,}  {count / hands:>7.2%}")
    if "compare" in stats:
        cmp = stats["compare"]
        print(
            f"\n{stats['house_way']} and {cmp['house_way']} set {cmp['different']:,} of {hands:,} "
            f"hands differently ({cmp['different'] / hands:.2%})"
        )
        for example in cmp["examples"]:
            print(f"  {example['cards']}")
            print(f"    {stats['house_way']:>12}: {example[stats['house_way']]}")
            print(f"    {cmp['house_way']:>12}: {example[cmp['house_way']]}")
    return 0


def clause_table(names: list[str]) -> str:
    lines = []
    for name in names:
        way = get_house_way(name)
        lines += [f"### `{name}`", "", "| clause id | rule |", "| --- | --- |"]
        lines += [f"| `{clause}` | {text} |" for clause, text in way.clauses.items()]
        lines.append("")
    return "\n".join(lines)


def run_clauses(args: argparse.Namespace) -> int:
    names = args.house_way or list(BUILT_IN)
    if args.format == "json":
        print(json.dumps({name: dict(get_house_way(name).clauses) for name in names}, indent=2))
    else:
        print(clause_table(names), end="")
    return 0
