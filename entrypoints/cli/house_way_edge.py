"""``paigow house-way edge FILE``: the house edge of a House Way file, by simulation.

Two measures, each as ``paigow analyze edge`` makes it (``analyze.measure``: fresh 53-card
shuffles from ``random.Random(seed)``, 95% intervals from the spread of per-round results): the
players set their hands by the casino's way, then by the best response to the banker's way
(``table_core.analysis_best``: of the legal splits, the one worth most against a sample of the
banker's hands set by the file, card removal aside). The banker always plays the file.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
from typing import Any

from entrypoints.cli.commands.analyze import HAND, measure, print_table
from table_core.analysis import EdgeSettings, RoundPlayer
from table_core.analysis_best import BestResponse
from table_core.cards import FULL_DECK
from table_core.hands import tables_for
from table_core.house_ways import HouseWay
from table_core.rules import VARIANTS, CommissionRules

#: Banker hands sampled for the best response's distribution.
BANKER_SAMPLE = 200_000


def register_edge(verbs: Any, positive: Any) -> None:
    edge = verbs.add_parser(
        "edge",
        help="house edge of a House Way file against its own way and against optimal play",
    )
    edge.add_argument("file", metavar="FILE", help="a House Way file, or a built-in's name")
    edge.add_argument("--rounds", type=positive, default=100_000)
    edge.add_argument("--seed", type=int, help="reproducible deals (default: fresh, printed)")
    edge.add_argument("--variant", choices=VARIANTS, default="commission", help="R-VAR-1")
    edge.add_argument(
        "--banker-sample", type=positive, default=BANKER_SAMPLE, help="banker hands for optimal"
    )
    edge.add_argument("--format", choices=("table", "json"), default="table")
    edge.set_defaults(handler=run_edge)


def best_response(
    way: HouseWay, seed: int, hands: int, commission: CommissionRules
) -> BestResponse:
    """The best response to ``way``'s banker, from ``hands`` banker hands of a seeded shuffle."""
    banker = way.setter(tables_for("second"))
    rng = random.Random(seed)
    sample = []
    for _ in range(hands):
        split, _rule = banker(rng.sample(FULL_DECK, HAND))
        sample.append((split.back_strength, split.front_strength))
    rate = commission.rate_bp / 10_000 if commission.mode == "percent" else 0.0
    return BestResponse(sample, rate)


def edge_figures(
    way: HouseWay, digest: str | None, rounds: int, seed: int, variant: str, sample: int
) -> dict[str, Any]:
    settings = EdgeSettings(house_way=way.name, variant=variant)  # type: ignore[arg-type]
    ways = {way.name: way}
    casino = measure(
        settings, rounds, seed, 1, f"edge {way.name}", RoundPlayer(settings, ways=ways)
    )
    optimal_player = best_response(way, seed + 1, sample, settings.commission)
    optimal = measure(
        settings,
        rounds,
        seed,
        1,
        f"edge {way.name} (optimal)",
        RoundPlayer(settings, ways=ways, player_set=optimal_player),
    )
    return {
        "house_way": way.name,
        "file_sha256": digest,
        "variant": variant,
        "rounds": rounds,
        "seed": seed,
        "banker_sample": sample,
        "casino_way": casino,
        "optimal": {**optimal, "house_way": "optimal"},
    }


def run_edge(args: argparse.Namespace) -> int:
    from entrypoints.cli.house_way_checks import source_for

    source = source_for(args.file)
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    figures = edge_figures(
        source.way(), source.digest, args.rounds, seed, args.variant, args.banker_sample
    )
    if args.format == "json":
        print(json.dumps(figures))
        return 0
    print(f"House Way {figures['house_way']} (file SHA-256 {figures['file_sha256']})")
    print("\nplayers setting their hands by the casino's way:")
    print_table(figures["casino_way"])
    print(f"\nplayers setting each hand for the most against the banker ({args.banker_sample:,} "
          "banker hands, card removal aside):")  # fmt: skip
    print_table(figures["optimal"])
    return 0
