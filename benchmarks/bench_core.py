"""Core-only speed (issue 8): six-seat rounds/s on the pure core, as the edge analysis plays them.

A round is seven hands from one shuffled deck: six players and the dealer-banker, every hand set
by the House Way (``table_core.analysis.RoundPlayer``) and every main wager settled. Peer in the
same run: the same decks through the full aggregate (``table_core.table.execute``: commands,
events, state), so the cost of events is visible. The dice are fixed at a total of 8, which gives
stack 1 to the banker (R-DEAL-3), so both play exactly the same hands; the script checks that both
settle every seat the same (exit 1 if not). Goal: >= 20,000 rounds/s on one core. Rates are the
median of --repeat timed passes, and the core's time is split into the House Way's share (grouping
the cards, then its clauses; then the same through the rank-pattern memo) and settlement's. The
core also runs with the memo off (``RoundPlayer(memo=False)``: every hand through ``decide``, the
definition), checked to give the same outcomes, as the before figure of the same run. The memo
starts empty; its first pass is timed apart ("memo cold"), then --warm-rounds more rounds fill it
as a long analysis would, and every timed repeat of the memo passes plays decks it has not seen
(so rank patterns not met yet still cost their first decision). Last line: one JSON object.

Usage: python benchmarks/bench_core.py [--rounds 20000] [--peer-rounds 2000] [--repeat 5]
       [--warm-rounds 50000] [--seed 8] [--house-way fr] [--profile]
"""

from __future__ import annotations

import cProfile
import io
import json
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import counts_parser
from table_core import commands as c
from table_core.analysis import EdgeSettings, RoundPlayer
from table_core.cards import FULL_DECK, Card
from table_core.events import Actor, RoundSettled
from table_core.hands import tables_for
from table_core.house_ways import get_house_way
from table_core.house_ways.memo import memoised_patterns
from table_core.house_ways.shape import analyse
from table_core.rules import HouseRules, TableRules
from table_core.table import TableState, execute

GOAL = 20_000
SEATS = 6
WAGER = 1_000
DICE = (2, 3, 3)  # total 8: stack 1 to position 1, the banker (R-DEAL-3)
AT = datetime(2025, 1, 1, tzinfo=UTC)
FLOOR = Actor(id="floor", role="floor")
DEALER = Actor(id="dealer", role="system")


def _decks(rounds: int, seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    decks = []
    for _ in range(rounds):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        decks.append(deck)
    return decks


def core_pass(player: RoundPlayer, decks: list[list[Card]]) -> list[int]:
    """Play every deck on the pure core; the players' total net per round."""
    play = player.play
    out = []
    for d in decks:
        outcome = play(d[0:7], (d[7:14], d[14:21], d[21:28], d[28:35], d[35:42], d[42:49]))
        out.append(sum(seat.settled.net for seat in outcome.seats))
    return out


def stage_passes(
    house_way: str, decks: list[list[Card]], fresh: list[list[list[Card]]]
) -> dict[str, Callable[[int], object]]:
    """Where a round's time goes: grouping the seven hands (``analyse``), then the House Way's
    clause logic on top (``decide``), or both through the memo (``setter``); the full round adds
    settlement and the outcome records."""
    tables = tables_for("second")
    way = get_house_way(house_way)
    decide = way.decide
    set_cards = way.setter(tables)

    def _hands(some: list[list[Card]]) -> list[list[Card]]:
        return [d[i : i + 7] for d in some for i in range(0, 49, 7)]

    hands = _hands(decks)
    fresh_hands = [_hands(some) for some in fresh]

    def analyse_only(repeat: int) -> None:
        for cards in hands:
            analyse(cards, tables)

    def set_only(repeat: int) -> None:
        for cards in hands:
            decide(analyse(cards, tables))

    def memoised(repeat: int) -> None:
        for cards in fresh_hands[repeat]:
            set_cards(cards)

    return {"analyse": analyse_only, "analyse + decide": set_only, "memoised set": memoised}


def _opened(house_way: str) -> TableState:
    rules = TableRules(hand=HouseRules(house_way=house_way))
    state = TableState()
    state, _ = execute(state, c.OpenTable(actor=FLOOR, at=AT, table_id="BENCH", rules=rules))
    for seat in range(1, SEATS + 1):
        pid = f"p{seat}"
        state, _ = execute(state, c.SeatPlayer(actor=FLOOR, at=AT, seat=seat, player_id=pid))
        state, _ = execute(state, c.BuyIn(actor=FLOOR, at=AT, player_id=pid, amount=10**12))
    return state


def aggregate_pass(house_way: str, decks: list[list[Card]]) -> list[int]:
    """The same rounds through ``execute``: every command a round takes, events folded."""
    state = _opened(house_way)
    out = []
    bets = [
        c.PlaceBet(actor=FLOOR, at=AT, player_id=f"p{seat}", amount=WAGER)
        for seat in range(1, SEATS + 1)
    ]
    for deck in decks:
        state, _ = execute(state, c.StartRound(actor=DEALER, at=AT))
        for bet in bets:
            state, _ = execute(state, bet)
        state, _ = execute(state, c.CloseBets(actor=DEALER, at=AT))
        state, _ = execute(state, c.DealCards(actor=DEALER, at=AT, deck=deck, source="electronic"))
        state, _ = execute(state, c.RollDice(actor=DEALER, at=AT, faces=DICE))
        state, _ = execute(state, c.SetBankerHand(actor=DEALER, at=AT))
        state, events = execute(state, c.Settle(actor=DEALER, at=AT))
        state, _ = execute(state, c.CloseRound(actor=DEALER, at=AT))
        settled = next(e for e in events if isinstance(e, RoundSettled))
        out.append(sum(r.net for r in settled.results))
    return out


def _interleaved(
    works: dict[str, tuple[int, Callable[[int], object]]], repeat: int
) -> dict[str, list[float]]:
    """Seconds per round of each work, one pass of each in turn per repeat: on a shared machine
    a load change then hits every figure alike, so their ratios stay meaningful."""
    seconds: dict[str, list[float]] = {name: [] for name in works}
    for r in range(repeat):
        for name, (rounds, work) in works.items():
            started = time.perf_counter()
            work(r)
            seconds[name].append((time.perf_counter() - started) / rounds)
    return seconds


def main() -> int:
    parser = counts_parser(
        __doc__, rounds=20_000, peer_rounds=2_000, repeat=5, warm_rounds=50_000, seed=8
    )
    parser.add_argument("--house-way", default="fr")
    parser.add_argument("--profile", action="store_true", help="print where the core's time goes")
    args = parser.parse_args()
    decks = _decks(args.rounds, args.seed)
    peer_decks = decks[: args.peer_rounds]
    # Unseen decks for the memo: one set per timed repeat, and the warm-up's.
    fresh = [_decks(args.rounds, args.seed + 1 + r) for r in range(args.repeat)]
    warm = _decks(args.warm_rounds, args.seed + 1 + args.repeat)
    player = RoundPlayer(EdgeSettings(args.house_way, wager=WAGER))
    plain = RoundPlayer(EdgeSettings(args.house_way, wager=WAGER), memo=False)

    # Same hands, same settlement: the pure core and the aggregate must agree seat by seat.
    if core_pass(player, peer_decks) != aggregate_pass(args.house_way, peer_decks):
        print("the core and the aggregate settle the same rounds differently", file=sys.stderr)
        return 1
    started = time.perf_counter()
    memo_on = core_pass(player, decks)
    cold = args.rounds / (time.perf_counter() - started)
    if memo_on != core_pass(plain, decks):
        print("the memo and the definition settle the same rounds differently", file=sys.stderr)
        return 1
    core_pass(player, warm)
    patterns = memoised_patterns(get_house_way(args.house_way).decide)

    stages = stage_passes(args.house_way, decks, fresh)
    seconds = _interleaved(
        {
            "core": (args.rounds, lambda r: core_pass(player, fresh[r])),
            "core, memo off": (args.rounds, lambda r: core_pass(plain, fresh[r])),
            "aggregate": (args.peer_rounds, lambda r: aggregate_pass(args.house_way, peer_decks)),
            "analyse": (args.rounds, stages["analyse"]),
            "analyse + decide": (args.rounds, stages["analyse + decide"]),
            "memoised set": (args.rounds, stages["memoised set"]),
        },
        args.repeat,
    )
    core = 1 / statistics.median(seconds["core"])
    plain_rate = 1 / statistics.median(seconds["core, memo off"])
    peer = 1 / statistics.median(seconds["aggregate"])
    print(f"six-seat rounds, House Way {args.house_way}, {args.rounds:,} decks (seed {args.seed})")
    print(f"{'pure core (analysis)':>28}: {core:>9,.0f} rounds/s ({core / GOAL:.2f}x the goal)")
    print(f"{'first pass, memo cold':>28}: {cold:>9,.0f} rounds/s")
    print(f"{'rank patterns memoised':>28}: {patterns:>9,} after the warm-up")
    print(f"{'memo off (definition)':>28}: {plain_rate:>9,.0f} rounds/s ({core / plain_rate:.2f}x)")
    print(f"{'aggregate (execute, events)':>28}: {peer:>9,.0f} rounds/s (peer)")
    print(f"{'core / aggregate':>28}: {core / peer:>9.1f}x")
    micros = {
        "full round": 1e6 / core,
        "analyse": 1e6 * statistics.median(seconds["analyse"]),
        "analyse + decide": 1e6 * statistics.median(seconds["analyse + decide"]),
        "memoised set": 1e6 * statistics.median(seconds["memoised set"]),
    }
    # The same repeat's full round less its House Way passes: settlement and outcome records.
    micros["settle + records"] = 1e6 * statistics.median(
        full - set_ for full, set_ in zip(seconds["core"], seconds["memoised set"], strict=True)
    )
    print("time per six-seat round (seven hands), median of repeats:")
    for name, value in micros.items():
        print(f"{name:>28}: {value:>9.1f} us ({value / micros['full round']:.0%})")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(core_pass, player, decks)
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
        print(text.getvalue())
    figures = {
        "house_way": args.house_way,
        "rounds": args.rounds,
        "core_rounds_per_s": round(core),
        "core_cold_rounds_per_s": round(cold),
        "memo_patterns": patterns,
        "core_memo_off_rounds_per_s": round(plain_rate),
        "memo_speedup": round(core / plain_rate, 2),
        "aggregate_rounds_per_s": round(peer),
        "core_vs_aggregate": round(core / peer, 1),
        "goal_rounds_per_s": GOAL,
        "goal_met": core >= GOAL,
        "us_per_round": {name: round(value, 1) for name, value in micros.items()},
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
