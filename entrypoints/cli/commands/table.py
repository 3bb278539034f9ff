"""``paigow table``: the table's books from the terminal (issue 18, duty R16).

```
paigow table open-day  --table ID --day YYYY-MM-DD --opener DENOM=AMOUNT ... --sign DEALER.key
paigow table close-day --table ID --closer DENOM=AMOUNT ... --sign DEALER.key
paigow table fill      --table ID --slip NO --chips DENOM=AMOUNT ... --sign KEYFILE --sign KEYFILE
paigow table credit    (as fill)
paigow table count     --table ID --day YYYY-MM-DD --cash AMOUNT --markers AMOUNT
paigow table correct-rating --table ID --player ID --reason TEXT [--average-bet N] [--minutes N]
paigow table list      [--format table|json]
```

Every writing verb acts as the operator's API key (``--key-file FILE`` or ``$PAIGOW_API_KEY``,
``entrypoints/cli/operator.py``), of the role the matrix gives it
(``service_layer/operators/rights.py``): the floor opens and closes a day and corrects a rating, the
count team counts, and any of a slip's three signers submits it. A slip carries one key per signer:
the submitter's and a ``--sign KEYFILE`` for each other one (a fill or a credit: floor, cage and
dealer; a day's opening or closing: floor and dealer), three different people. The old flags
``--floor``, ``--cage``, ``--dealer`` and ``--counter`` are still accepted, and refused when they
name someone other than the key's actor.

Every amount is whole minor units (``2500=50000``: fifty 25.00 chips). A refusal (no key, a key
of the wrong role, a signer missing, a fill on a closed table, a credit the tray cannot cover, a
count for a day not closed, a denomination not in the profile, a negative or fractional amount, a
correction without a reason) is one line on standard error, exit status 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
from datetime import date
from typing import Any

from entrypoints.cli.operator import add_key_options, command_answer
from table_core.errors import DomainError

_DB_HELP = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "table", help="the books: open/close a gaming day, fills, credits, the count, ratings"
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    def verb(name: str, text: str, handler: Any) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = verbs.add_parser(name, help=text)
        sub.add_argument("--db", metavar="URL", help=_DB_HELP)
        if name != "list":
            sub.add_argument("--table", metavar="ID", required=True)
            sub.add_argument("--command-id", metavar="ID", help="default: a new random id")
        sub.set_defaults(handler=handler)
        return sub

    opening = verb("open-day", "open a gaming day with the opener (floor and dealer)", run_open)
    opening.add_argument("--day", required=True, metavar="YYYY-MM-DD")
    _chips_option(opening, "--opener")
    _signers(opening, "floor", "dealer")
    closing = verb("close-day", "close the gaming day with the closer", run_close)
    _chips_option(closing, "--closer")
    _signers(closing, "floor", "dealer")
    for name, text in (("fill", "chips from the cage to the tray"), ("credit", "tray to cage")):
        slip = verb(name, f"a {name} slip: {text}", run_slip)
        slip.add_argument("--slip", required=True, metavar="NO")
        _chips_option(slip, "--chips")
        _signers(slip, "floor", "cage", "dealer")
    count = verb("count", "the count team's count of a closed day's drop box", run_count)
    count.add_argument("--day", required=True, metavar="YYYY-MM-DD")
    count.add_argument("--cash", required=True, metavar="AMOUNT", help="minor units")
    count.add_argument("--markers", default="0", metavar="AMOUNT", help="minor units")
    count.add_argument("--counter", metavar="ID", help="the count team member (the key's actor)")
    add_key_options(count)
    correct = verb("correct-rating", "correct a player's rating, with a reason", run_correct)
    correct.add_argument("--player", required=True, metavar="ID")
    correct.add_argument("--reason", required=True)
    correct.add_argument("--average-bet", metavar="AMOUNT", help="main wager, minor units")
    correct.add_argument("--minutes", metavar="N", help="time played")
    _signers(correct, "floor")
    listing = verb("list", "every table with its gaming day, House Way and status", run_list)
    listing.add_argument("--format", choices=("table", "json"), default="table")


def _chips_option(parser: argparse.ArgumentParser, flag: str) -> None:
    parser.add_argument(
        flag,
        dest="chips",
        action="append",
        default=[],
        metavar="DENOM=AMOUNT",
        help="chips of one denomination, both in minor units (repeat per denomination)",
    )


def _signers(parser: argparse.ArgumentParser, *roles: str) -> None:
    """The operator's key options (with ``--sign`` for a slip of several signers) and the old
    self-declared flags, each now the key's actor or refused."""
    add_key_options(parser, cosigned=len(roles) > 1)
    for role in roles:
        parser.add_argument(f"--{role}", metavar="ID", help=f"the {role}'s id (the key's actor)")


# --- input ---------------------------------------------------------------------------------------

_WHOLE = re.compile(r"-?[0-9]+")


def whole(text: str, what: str) -> int:
    """A whole number of minor units (or minutes), else a refusal: ``12.5`` is no amount."""
    if not _WHOLE.fullmatch(text.strip()):
        raise DomainError(f"{what} {text!r} is not a whole number of minor units")
    return int(text)


def chips(given: list[str]) -> dict[int, int]:
    """``["2500=50000", ...]`` as ``{2500: 50000}``; the core judges denominations and amounts."""
    out: dict[int, int] = {}
    for each in given:
        denomination, sep, amount = each.partition("=")
        if not sep:
            raise DomainError(f"chips are DENOM=AMOUNT, not {each!r}")
        key = whole(denomination, "denomination")
        if key in out:
            raise DomainError(f"denomination {key} is given twice")
        out[key] = whole(amount, f"the amount of {key}")
    return out


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise DomainError(f"gaming day {text!r} is not YYYY-MM-DD") from None


# --- running a command ---------------------------------------------------------------------------


def _execute(args: argparse.Namespace, verb: str, build: Any, named: dict[str, Any]) -> int:
    """Authenticate the operator (and a slip's signers) on the store, then build the command
    with the time, the operator's actor and the signers' actors by role, and run it."""
    from adapters.logging import configure_logging
    from entrypoints.bootstrap import wire
    from entrypoints.cli.main import settings_of
    from entrypoints.cli.operator import authenticate, signed
    from service_layer.operators.rights import CLI_COMMANDS, SIGNERS

    settings = settings_of(args)
    # The service's log lines go to standard error, never into the JSON.
    configure_logging(settings.log_level, settings.log_format)
    wired = wire(settings, args.db)
    command_name = f"table {verb}"
    try:
        if CLI_COMMANDS[command_name] in SIGNERS:
            key, actors = signed(wired.store, args, command_name, named)
        else:
            key = authenticate(wired.store, args, command_name, named)
            actors = {}
        actor = _actor(key.actor_id, key.role)
        command = build(wired.service.now(), actor, actors)
        command_id = args.command_id or f"cli-{secrets.token_hex(8)}"
        result = wired.service.execute(args.table, command, command_id)
    finally:
        wired.store.close()
    print(json.dumps(command_answer(args.table, command_id, result)))
    return 0


def _actor(id_: str, role: str) -> Any:
    from table_core.events import Actor

    return Actor(id=id_, role=role)


def run_open(args: argparse.Namespace) -> int:
    from table_core.commands import OpenGamingDay

    day, opener = _day(args.day), chips(args.chips)
    return _execute(
        args,
        "open-day",
        lambda at, actor, signers: OpenGamingDay(
            gaming_day=day,
            opener=opener,
            dealer=signers["dealer"],
            table_id=args.table,
            actor=actor,
            at=at,
        ),
        {"floor": args.floor, "dealer": args.dealer},
    )


def run_close(args: argparse.Namespace) -> int:
    from table_core.commands import CloseGamingDay

    closer = chips(args.chips)
    return _execute(
        args,
        "close-day",
        lambda at, actor, signers: CloseGamingDay(
            closer=closer, dealer=signers["dealer"], actor=actor, at=at
        ),
        {"floor": args.floor, "dealer": args.dealer},
    )


def run_slip(args: argparse.Namespace) -> int:
    from table_core.commands import CreditTray, FillTray

    kind = FillTray if args.verb == "fill" else CreditTray
    issuer, receiver = ("cage", "dealer") if kind is FillTray else ("dealer", "cage")
    moved = chips(args.chips)
    return _execute(
        args,
        args.verb,
        lambda at, actor, signers: kind(
            slip=args.slip,
            chips=moved,
            requested_by=signers["floor"],
            issued_by=signers[issuer],
            received_by=signers[receiver],
            actor=actor,
            at=at,
        ),
        {"floor": args.floor, "cage": args.cage, "dealer": args.dealer},
    )


def run_count(args: argparse.Namespace) -> int:
    from table_core.commands import CountDrop

    day = _day(args.day)
    cash, markers = whole(args.cash, "cash"), whole(args.markers, "markers")
    return _execute(
        args,
        "count",
        lambda at, actor, _signers: CountDrop(
            gaming_day=day, cash=cash, markers=markers, actor=actor, at=at
        ),
        {"--counter": args.counter},
    )


def run_correct(args: argparse.Namespace) -> int:
    from table_core.commands import CorrectRating

    average = None if args.average_bet is None else whole(args.average_bet, "average bet")
    minutes = None if args.minutes is None else whole(args.minutes, "minutes")
    return _execute(
        args,
        "correct-rating",
        lambda at, actor, _signers: CorrectRating(
            player_id=args.player,
            reason=args.reason,
            average_bet=average,
            minutes=minutes,
            actor=actor,
            at=at,
        ),
        {"--floor": args.floor},
    )


def run_list(args: argparse.Namespace) -> int:
    from adapters.projections import opened
    from adapters.projections.books import read_tables
    from adapters.projections.standby import reader
    from entrypoints.cli.commands.report import _url

    with opened(_url(args), create=False) as store:
        runner = reader(store)  # a standby: nothing written
        runner.catch_up()
        with runner.db.read() as tx:
            found = read_tables(tx)
    if args.format == "json":
        print(json.dumps(found))
        return 0
    print(f"{'table':<16} {'gaming day':<10}  {'status':<7} {'books':<8} House Way")
    for row in found:
        day = row["gaming_day"] or "-"
        print(
            f"{row['table_id']:<16} {day:<10}  {row['status']:<7} {row['books']:<8} "
            f"{row['house_way']}"
        )
    return 0
