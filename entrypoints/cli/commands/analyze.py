"""``paigow analyze edge``: the game's figures by simulation on the pure core, without storage.

Players set by one House Way play a banker set by another (the same by default); every round deals
from a fresh shuffle. The randomness lives here, not in ``table_core``: ``random.Random(seed)``
draws each round's cards, so a seed reproduces a run exactly (a measurement, never a real table's
deal, which uses the secure source). ``table_core.analysis`` sets and settles the hands.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
from typing import Any

from entrypoints.cli.options import bounded
from entrypoints.cli.options import positive as _positive
from entrypoints.cli.progress import Progress
from table_core.analysis import EdgeSettings, RoundPlayer, Tally
from table_core.cards import FULL_DECK
from table_core.house_ways import BUILT_IN
from table_core.rules import VARIANTS

HAND = 7
MAX_PLAYERS = 6  # R-DEAL-1: six player seats


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("analyze", help="measure the game on the pure core")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    edge = verbs.add_parser(
        "edge",
        help="win / push / loss frequencies and the house edge by simulation, with 95%% intervals",
    )
    ways = ", ".join(BUILT_IN)
    edge.add_argument("--house-way", required=True, help=f"the players' House Way ({ways})")
    edge.add_argument(
        "--banker-house-way", help="the banker's (the table's) House Way; default --house-way"
    )
    edge.add_argument("--rounds", type=_positive, required=True)
    edge.add_argument("--seed", type=int, help="reproducible deals (default: fresh, printed)")
    edge.add_argument("--variant", choices=VARIANTS, default="commission", help="R-VAR-1")
    edge.add_argument(
        "--players", type=_players, default=1, help="seated players, 1..6 (default 1)"
    )
    edge.add_argument(
        "--banker",
        choices=("dealer", "player"),
        default="dealer",
        help="dealer (default) or a player banking against the others and the house hand",
    )
    edge.add_argument("--format", choices=("table", "json"), default="table")
    edge.set_defaults(handler=run_edge)


_players = bounded(int, 1, MAX_PLAYERS, f"a table seats 1..{MAX_PLAYERS} players", name="_players")


def measure(
    settings: EdgeSettings,
    rounds: int,
    seed: int,
    players: int,
    label: str = "analyze edge",
    player: RoundPlayer | None = None,
) -> dict[str, Any]:
    """Play ``rounds`` rounds dealt by ``random.Random(seed)`` and sum them.

    Dealer banking: ``players`` hands against the dealer's. Player banking: one of the ``players``
    banks against the other ``players - 1`` and the dealer's house hand (R-BANK-2). Each round
    draws its hands from a fresh 53-card shuffle: ``sample`` is the top of one. ``player``: a
    round player built by the caller (a casino's House Way file, a best response).
    """
    player = player or RoundPlayer(settings)
    tally = Tally(settings.banking)
    opponents = players if settings.banking == "dealer" else players - 1
    house = settings.banking == "player"
    dealt = HAND * (1 + opponents + house)
    bounds = [(HAND * (1 + i), HAND * (2 + i)) for i in range(opponents)]
    rng = random.Random(seed)
    sample = rng.sample
    play = player.play
    add = tally.add
    progress = Progress(rounds, label)
    for done in range(1, rounds + 1):
        cards = sample(FULL_DECK, dealt)
        add(
            play(
                cards[:HAND],
                [cards[a:b] for a, b in bounds],
                cards[dealt - HAND :] if house else None,
            )
        )
        if not done & 1023:
            progress.update(done)
    progress.close()
    figures: dict[str, Any] = {
        "house_way": settings.house_way,
        "banker_house_way": settings.banker_way,
        "banker": settings.banking,
        "variant": settings.variant,
        "players": players,
        "seed": seed,
        "wager": settings.wager,
    }
    figures.update(tally.summary())
    return figures


def run_edge(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    settings = EdgeSettings(
        house_way=args.house_way,
        banker_house_way=args.banker_house_way,
        variant=args.variant,
        banking=args.banker,
    )
    figures = measure(settings, args.rounds, seed, args.players)
    if args.format == "json":
        print(json.dumps(figures))
    else:
        print_table(figures)
    return 0


def _pct(x: float) -> str:
    return f"{x:.2%}"


def _interval(bounds: list[float] | None) -> str:
    return "n/a" if bounds is None else f"[{bounds[0]:.2%}, {bounds[1]:.2%}]"


def print_table(f: dict[str, Any]) -> None:
    banker = (
        "the dealer banks"
        if f["banker"] == "dealer"
        else "a player banks against the other players and the house hand"
    )
    print(
        f"{f['house_way']} players against a {f['banker_house_way']} banker, {f['variant']}, "
        f"{f['players']} player(s), {banker}"
    )
    print(f"{f['rounds']:,} rounds, {f['hands']:,} hands (seed {f['seed']})")
    who = "player" if f["party"] == "player" else "player-banker"
    print(f"{'':<24}{'share':>9}  95% interval")
    for result in ("win", "push", "loss"):
        print(f"{who + ' ' + result:<24}{_pct(f[result]):>9}  {_interval(f[result + '_ci95'])}")
    if f["party"] == "player":
        print(f"{'house edge':<24}{_pct(f['edge']):>9}  {_interval(f['edge_ci95'])}")
        unit = "per unit wagered"
    else:
        unit = "per unit of action banked"
    print(
        f"{who + ' return':<24}{_pct(f['expected_return']):>9}  "
        f"{_interval(f['expected_return_ci95'])}  ({unit})"
    )
    print(f"{'commission':<24}{_pct(f['commission_per_unit']):>9}  ({unit})")
