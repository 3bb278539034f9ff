"""``paigow deck``: the deck chain of custody of a table (R20), recorded by a floor supervisor.

Contract (stable)::

    paigow deck receive --table ID --deck D --seal S [--package P]  [--actor FLOOR] [--db URL]
    paigow deck inspect --table ID --deck D --count 53 --inspector NAME  [--actor FLOOR]
    paigow deck load    --table ID --deck D --shuffler SERIAL [--received-at ISO-TIME]
    paigow deck use     --table ID --deck D
    paigow deck retire  --table ID --deck D --reason TEXT [--destroyed]
    paigow deck hold    --table ID --deck D --reason TEXT [--dispute ID]
    paigow deck release --table ID --deck D --reason TEXT
    paigow deck list    --table ID          (one JSON line per deck: its custody record)
    paigow deck show    --table ID --deck D (its timeline: one JSON line per custody event)

A recording subcommand acts as the floor supervisor's API key (``--key-file FILE`` or
``$PAIGOW_API_KEY``, ``entrypoints/cli/operator.py``) and writes one JSON line, ``{"table",
"deck_id", "event", "version", "position"}``; the key's actor is recorded in the role ``floor``.
``--actor`` is still accepted, and refused when it is not the key's actor. ``--command-id`` makes
a retry safe (the same id answers the first result and writes nothing). A refusal (no key or
another role's, an unknown deck, a held deck, an empty reason, a table not open) is one line on
standard error, exit status 2, nothing written. The service's own log lines go to standard error,
at warning and above.
"""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from entrypoints.cli.operator import add_key_options, authenticate
from service_layer.deck_custody import deck_record, timeline_entry
from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import CUSTODY_TYPES, Actor

#: A recording's own fields (beyond the deck, the actor and the time), from its options and
#: the time.
Fields = Callable[[argparse.Namespace, datetime], dict[str, Any]]


def _said(value: str | None, what: str) -> str:
    """A value the command needs, not blank: else one line, exit status 2."""
    if value is None or not value.strip():
        raise DomainError(f"{what} must not be empty")
    return value


def _count(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise DomainError(f"--count is a whole number of cards, not {value!r}") from None


def _time(value: str | None, now: datetime) -> datetime:
    if value is None:
        return now
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        at = None
    if at is None or at.tzinfo is None:
        raise DomainError(f"--received-at is an ISO 8601 time with its offset, not {value!r}")
    return at


#: Each recording: its help, the core's command and the command's own fields.
_RECORDING: dict[str, tuple[str, Callable[..., c.Command], Fields]] = {
    "receive": (
        "a deck (or package) reaches the table: its id and seal",
        c.ReceiveDeck,
        lambda a, at: {"seal": a.seal, "package_id": a.package},
    ),
    "inspect": (
        "the deck counted (53 to pass) and who inspected it",
        c.InspectDeck,
        lambda a, at: {"card_count": _count(a.count), "inspector": a.inspector},
    ),
    "load": (
        "the shuffler's receipt: its serial and when it took the deck",
        c.LoadShuffler,
        lambda a, at: {"shuffler_serial": a.shuffler, "received_at": _time(a.received_at, at)},
    ),
    "use": ("put an inspected deck in use", c.PutDeckInUse, lambda a, at: {}),
    "retire": (
        "retire the deck, and why (--destroyed: destroyed too)",
        c.RetireDeck,
        lambda a, at: {"reason": a.reason, "destroyed": a.destroyed},
    ),
    "hold": (
        "keep the deck intact (a dispute or an investigation)",
        c.HoldDeck,
        lambda a, at: {"reason": a.reason, "dispute_id": a.dispute},
    ),
    "release": (
        "lift the hold on the deck, and why",
        c.ReleaseDeck,
        lambda a, at: {"reason": a.reason},
    ),
}


def _command(args: argparse.Namespace, actor: Actor, at: datetime) -> c.Command:
    """The recording's command: its deck, actor and time, and its own fields."""
    _, kind, fields = _RECORDING[args.action]
    return kind(deck_id=args.deck, actor=actor, at=at, **fields(args, at))


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "deck",
        help="the deck chain of custody of a table (R20): record it, list it, show a deck",
        description="Record a deck's custody at a table (the floor's), or read it back.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, (summary, _, _) in _RECORDING.items():
        sub = actions.add_parser(name, help=summary, description=summary)
        _common(sub, deck=True)
        sub.add_argument("--actor", help="the floor supervisor's id (the key's actor)")
        add_key_options(sub)
        sub.add_argument("--command-id", help="retry-safe id")
        _options(name, sub)
        sub.set_defaults(handler=run_recording)
    listing = actions.add_parser("list", help="every deck of the table, its custody record")
    _common(listing, deck=False)
    listing.set_defaults(handler=run_list)
    show = actions.add_parser("show", help="one deck's custody timeline")
    _common(show, deck=True)
    show.set_defaults(handler=run_show)


def _common(parser: argparse.ArgumentParser, *, deck: bool) -> None:
    parser.add_argument("--db", metavar="URL", help="database URL (default: $PAIGOW_DB)")
    parser.add_argument("--table", metavar="ID", required=True)
    if deck:
        parser.add_argument("--deck", metavar="ID", required=True)


def _options(name: str, sub: argparse.ArgumentParser) -> None:
    if name == "receive":
        sub.add_argument("--seal", required=True)
        sub.add_argument("--package", help="the package's id")
    elif name == "inspect":
        sub.add_argument("--count", required=True, help="cards counted (53)")
        sub.add_argument("--inspector", required=True)
    elif name == "load":
        sub.add_argument("--shuffler", required=True, help="serial")
        sub.add_argument("--received-at", help="ISO time (default: now)")
    elif name in ("retire", "hold", "release"):
        sub.add_argument("--reason", required=True)
        if name == "retire":
            sub.add_argument("--destroyed", action="store_true")
        if name == "hold":
            sub.add_argument("--dispute", help="the dispute's id")


def _wired(args: argparse.Namespace) -> Any:
    from adapters.logging import configure_logging
    from entrypoints.bootstrap import wire
    from entrypoints.cli.main import settings_of

    settings = settings_of(args)
    # The service's log lines at warning, on standard error (as ``paigow simulate`` does): a
    # refusal is then the one line the CLI writes, and standard output only the JSON answer.
    configure_logging("warning", settings.log_format)
    return wire(settings, args.db)


def run_recording(args: argparse.Namespace) -> int:
    wired = _wired(args)
    try:
        service = wired.service
        if args.actor is not None:
            _said(args.actor, "--actor")
        key = authenticate(wired.store, args, f"deck {args.action}", {"--actor": args.actor})
        actor = Actor(id=key.actor_id, role=key.role)
        _said(args.deck, "--deck")
        if service.load(args.table).table_id is None:
            service.forget(args.table)
            raise DomainError(f"no table {args.table} in {wired.shown}")
        command = _command(args, actor, service.now())
        command_id = args.command_id or f"deck-{uuid.uuid4()}"
        result = service.execute(args.table, command, command_id)
    finally:
        wired.store.close()
    last = result.events[-1]
    print(
        json.dumps(
            {
                "table": args.table,
                "deck_id": args.deck,
                "event": last.type,
                "version": last.version,
                "position": last.position,
            }
        )
    )
    return 0


def _decks(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    wired = _wired(args)
    try:
        state = wired.service.load(args.table)
        if state.table_id is None:
            raise DomainError(f"no table {args.table} in {wired.shown}")
        events = [e for e in wired.store.read_stream(args.table) if e.type in CUSTODY_TYPES]
    finally:
        wired.store.close()
    return state, events


def run_list(args: argparse.Namespace) -> int:
    state, _ = _decks(args)
    for deck in state.decks.values():
        print(json.dumps(deck_record(deck)))
    return 0


def run_show(args: argparse.Namespace) -> int:
    state, events = _decks(args)
    if args.deck not in state.decks:
        raise DomainError(f"unknown deck {args.deck!r} at table {args.table}")
    for event in events:
        if event.payload.get("deck_id") == args.deck:
            print(json.dumps(timeline_entry(event), default=str))
    return 0
