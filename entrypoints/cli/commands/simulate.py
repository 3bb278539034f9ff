"""``paigow simulate``: a whole table session, persisted, through the real application service.

Opens a NEW table on the store (``SIM-1``, ``SIM-2``…: the first id whose stream is empty, so a
second run on the same database continues the casino's log at a fresh table), seats the players,
buys them in and plays the rounds, ``--commit-rounds`` rounds a batch (one transaction, a signed
checkpoint at each round's end); then prints the summary. docs/simulate.md has the figures'
definitions and what a crash loses.

Its players, dealer, floor and cage are simulated people with no API key, so it plays only into a
store that has no operator key (a new file, a test database): on a store with an active key, a
casino's, it refuses (exit status 2, one line, nothing written) rather than record people no key
vouches for (R19).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from entrypoints.cli.options import bounded, from_args
from table_core.house_ways import BUILT_IN

if TYPE_CHECKING:
    from entrypoints.simulation import SessionSettings

# The simulator (the service, the store) is imported when a session is played: `paigow --help`
# and every other command list this one without loading it.
#: ``entrypoints.simulation.STRATEGIES``, which the session checks again.
STRATEGIES = ("house_way", "dealer", *BUILT_IN)

#: Rounds a transaction by default (group commit; docs/simulate.md, "Durability").
COMMIT_ROUNDS = 10
#: Simulated time under ``--seed``: the same instants every run, so two runs write the same bytes.
SEEDED_START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play a table session through the service and the store, then summarise it",
        description=__doc__,
    )
    parser.add_argument("--db", metavar="URL", help="database (default $PAIGOW_DB or paigow.db)")
    parser.add_argument("--rounds", type=_count, default=100, help="rounds to play (100)")
    parser.add_argument("--players", type=int, default=6, choices=range(1, 7), metavar="1..6")
    parser.add_argument("--house-way", default="fr", help="the table's House Way (fr)")
    parser.add_argument("--banking", choices=("dealer", "rotating"), default="dealer")
    parser.add_argument("--fortune", action="store_true", help="Fortune bets with Envy")
    parser.add_argument(
        "--seed", type=int, help="reproducible deck, dice and players (no seed: secure)"
    )
    parser.add_argument(
        "--wager", type=_positive, default=1_000, help="main wager, minor units (1000)"
    )
    parser.add_argument(
        "--side-wager", type=_positive, default=500, help="Fortune wager, minor units (500)"
    )
    parser.add_argument(
        "--player-strategy",
        choices=STRATEGIES,
        default="house_way",
        help="house_way: ask for the House Way; dealer: leave it to the dealer; a House Way "
        "name: split by that House Way",
    )
    parser.add_argument(
        "--commit-rounds",
        type=_positive,
        default=COMMIT_ROUNDS,
        metavar="K",
        help="rounds per transaction (10): a crash loses the uncommitted batch's rounds whole; "
        "every round keeps its signed checkpoint; see docs/simulate.md",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--verbose", action="store_true", help="log every batch (info level)")
    parser.add_argument(
        "--fast-sync",
        action="store_true",
        help="SQLite synchronous=NORMAL for this run: a power cut may lose the last rounds "
        "(never corrupts); see docs/simulate.md",
    )
    parser.set_defaults(handler=run)


_count = bounded(int, 0, math.inf, "{value} is below 0", name="_count")
_positive = bounded(int, 1, math.inf, "{value} is below 1", name="_positive")


def run(args: argparse.Namespace) -> int:
    from adapters.logging import configure_logging
    from entrypoints.cli.main import settings_of
    from entrypoints.cli.progress import Progress
    from entrypoints.simulation import Session, Tally, quiet_collector

    configured = settings_of(args)
    configure_logging("info" if args.verbose else "warning", configured.log_format)
    try:
        settings = _session_settings(args)
    except ValueError as error:
        print(f"paigow: {error}", file=sys.stderr)
        return 2
    wired = _wire(args, configured)
    store, service, url = wired.store, wired.service, wired.url
    _no_operator_keys(store, wired.shown)
    if args.fast_sync:
        _fast_sync(store)
    try:
        service.start()
        table_id = _new_table_id(store)
        session = Session(service, table_id, settings, gaming_day=_gaming_day(service, configured))
        tally = Tally()
        quiet_collector()  # before the clock starts: its one full collection is not a round's
        started = time.perf_counter()
        state, opening = session.open_recorded()
        tally.add(opening)
        progress = Progress(args.rounds, f"simulate {table_id}")
        if args.quiet:
            progress.enabled = False
        done = 0
        while done < args.rounds:
            batch = min(args.commit_rounds, args.rounds - done)
            state, events = session.play_rounds(state, batch)
            tally.add(events)
            done += batch
            progress.update(done)
        progress.close()
        state, closing = session.close_day(state)
        tally.add(closing)
        elapsed = time.perf_counter() - started
        service.stop()
    finally:
        store.close()
    figures = {
        "table_id": table_id,
        "database": url.render_as_string(hide_password=True),
        "house_way": settings.house_way,
        "banking": settings.banking,
        "players": settings.players,
        "fortune": settings.fortune,
        "seed": settings.seed,
        "gaming_day": session.gaming_day.isoformat() if session.gaming_day else None,
        **tally.figures(),
        "seconds": round(elapsed, 3),
        "rounds_per_s": round(args.rounds / elapsed, 1) if elapsed else 0.0,
    }
    if args.format == "json":
        print(json.dumps(figures))
    else:
        print(_table(figures))
    return 0


def _session_settings(args: argparse.Namespace) -> SessionSettings:
    from entrypoints.simulation import SessionSettings

    # Every field with an option of its name (``bankroll`` and ``bank_accept`` have none).
    return from_args(SessionSettings, args)


def _wire(args: argparse.Namespace, configured: Any) -> Any:
    """The store at ``--db`` and the service over it: under ``--seed``, the seeded deck and dice
    and a clock stepping from ``SEEDED_START``; otherwise the secure source and the system clock."""
    from adapters.clock import SteppingClock, system_clock
    from adapters.rng import SecureDeckAndDice, SeededDeckAndDice
    from entrypoints.bootstrap import wire

    seeded = args.seed is not None
    return wire(
        configured,
        args.db,
        clock=SteppingClock(SEEDED_START, timedelta(milliseconds=1)) if seeded else system_clock,
        source=SeededDeckAndDice(args.seed) if seeded else SecureDeckAndDice(),
        # Every round's end signs a checkpoint: a store without its key is refused before any
        # round is played (a new SQLite file gets its key beside it; adapters/store).
        require_signing=True,
    )


def _gaming_day(service: Any, configured: Any) -> Any:
    """The gaming day the run's opener names: the one ``paigow report`` files its rounds under
    (the ``tz`` and ``gaming_day_cutoff`` settings, at the service's clock)."""
    return configured.gaming_day().day_of(service.now())


def _no_operator_keys(store: Any, shown: str) -> None:
    """R19: simulated people only where no operator key exists (the module's docstring)."""
    from service_layer.operators.keys import key_store_for
    from table_core.errors import DomainError

    try:
        keyed = key_store_for(store).has_active()
    except BaseException:
        store.close()
        raise
    if keyed:
        store.close()
        raise DomainError(
            f"{shown} has operator keys: paigow simulate plays simulated people, who hold none; "
            "simulate into a database of its own"
        )


def _new_table_id(store: Any) -> str:
    """The first ``SIM-n`` with no events: each run is a new table in the same casino log."""
    number = 1
    while store.stream_version(f"SIM-{number}"):
        number += 1
    return f"SIM-{number}"


def _fast_sync(store: Any) -> None:
    """``--fast-sync``: SQLite only; every connection of this run syncs at WAL checkpoints only."""
    engine = getattr(store, "engine", None)
    if engine is None or engine.dialect.name != "sqlite":
        raise SystemExit("paigow: --fast-sync applies to SQLite only")
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _normal(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    engine.dispose()  # connections opened before take the setting on reconnect


def _money(minor: int | None) -> str:
    if minor is None:
        return "-"
    sign = "-" if minor < 0 else ""
    return f"{sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def _pct(value: str | None) -> str:
    return "-" if value is None else f"{value} %"


def _inventory_why(f: dict[str, Any]) -> str:
    """How the inventory win is reckoned, and why it differs from the game win when it does."""
    how = "closer + credits + drop − opener − fills"
    variance = f["win_variance"]
    if f["inventory_win"] is None:
        return "no closer: hold % is the game win's"
    if not variance:
        return f"{how} = game win"
    closer = f["closer_variance"] or 0
    drop = (f["drop_counted"] - f["drop_recorded"]) if f["drop_counted"] is not None else 0
    return (
        f"{how}; − game win = {_money(variance)}: the closer's variance {_money(closer)} + the "
        f"drop's {_money(drop)}"
    )


def _table(f: dict[str, Any]) -> str:
    """The summary in ``paigow report``'s words (its accounting view's headers, docs/projections.md
    "The words for money"), each win with how it is made, then the run's own figures."""
    freq = f["player_frequencies"]
    counts = f["player_wagers"]
    rounds = f"{f['rounds']:,}" + (f" (+{f['voided_rounds']} voided)" if f["voided_rounds"] else "")
    rows = [
        ("table", f"{f['table_id']} on {f['database']}"),
        ("gaming day", str(f["gaming_day"])),
        (
            "rules",
            f"House Way {f['house_way']}, {f['banking']} banking, {f['players']} players"
            + (", Fortune + Envy" if f["fortune"] else ""),
        ),
        ("rounds", rounds),
        ("hands", f"{f['hands']:,}"),
        ("push %", _pct(f["push_rate_pct"])),
        ("handle", _money(f["handle"])),
        ("drop", f"{_money(f['drop'])} (cash {_money(f['cash'])}, markers "
                 f"{_money(f['markers'])})"),
        ("commission", _money(f["commission"])),
        ("main win", f"{_money(f['main_win'])} (main result {_money(f['main_result'])} "
                     "+ commission)"),
        ("side handle", _money(f["side_handle"])),
        ("side win", f"{_money(f['side_win'])} (side result {_money(f['side_result'])} "
                     f"− Envy paid {_money(f['envy_paid'])})"),
        ("game win", f"{_money(f['game_win'])} (main win + side win)"),
        ("game hold %", f"{_pct(f['game_hold_pct'])} (game win / drop)"),
        ("opener", _money(f["opener"])),
        ("fills", _money(f["fills"])),
        ("credits", _money(f["credits"])),
        ("closer", _money(f["closer"])),
        ("inventory win", f"{_money(f['inventory_win'])} ({_inventory_why(f)})"),
        ("hold %", f"{_pct(f['hold_pct'])} (inventory win / drop)"),
        ("players win", f"{freq['win']:.2%} ({counts['win']:,} wagers)"),
        ("players push", f"{freq['push']:.2%} ({counts['push']:,})"),
        ("players lose", f"{freq['loss']:.2%} ({counts['loss']:,})"),
        ("player-banker rounds", f"{f['player_banks']:,}"),
        ("events written", f"{f['events']:,}"),
        ("time", f"{f['seconds']:.2f} s"),
        ("rounds/s", f"{f['rounds_per_s']:,.0f}"),
    ]  # fmt: skip
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
