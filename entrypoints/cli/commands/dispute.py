"""``paigow dispute``: hold a table's rounds under a dispute, and export them for a regulator (R17).

- ``paigow dispute open --table ID (--round N ... | --from TIME --to TIME) --reason TEXT
  [--player ID] [--surveillance REF ...]``: one JSON line, the dispute's record (its
  ``dispute_id``, the rounds held).
- ``paigow dispute list``: one JSON line per dispute; ``show ID``: one dispute's record.
- ``paigow dispute close ID --outcome TEXT``.

Opening and closing act as the API key of a floor supervisor or an auditor (``--key-file FILE``
or ``$PAIGOW_API_KEY``, ``entrypoints/cli/operator.py``): the key's actor and role are recorded.
``--actor ID`` and ``--role floor|auditor`` are still accepted, and refused when they are not the
key's.
- ``paigow dispute export ID --out FILE [--public-key FILE]``: the regulator's bundle, with the
  dispute's own events and sealed by the signing key (refused without one), which ``paigow audit
  verify --bundle FILE`` checks with no database (docs/audit.md, "Disputes (R17)").

Refusals (no such table or round, an empty reason or outcome, a closed dispute): one line on
standard error, exit status 2, nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from entrypoints.cli.answers import json_record
from entrypoints.cli.options import from_args, takes_db


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("dispute", help="hold disputed rounds and export them (R17)")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    opening = verbs.add_parser("open", help="open a dispute on rounds of one table")
    opening.add_argument("--table", required=True, metavar="ID")
    opening.add_argument(
        "--round",
        type=int,
        action="append",
        default=[],
        metavar="N",
        dest="rounds",
        help="a disputed round (repeat for more)",
    )
    opening.add_argument(
        "--from",
        type=_time,
        dest="from_time",
        metavar="TIME",
        help="the rounds started from this time (ISO 8601, UTC if no zone)",
    )
    opening.add_argument(
        "--to", type=_time, dest="to_time", metavar="TIME", help="... up to this time"
    )
    opening.add_argument("--reason", required=True)
    opening.add_argument("--player", metavar="ID", help="the player concerned")
    opening.add_argument(
        "--surveillance",
        action="append",
        default=[],
        metavar="REF",
        help="a surveillance reference (repeat for more)",
    )
    _who(opening, run_open)

    listing = verbs.add_parser("list", help="every dispute, one JSON line each")
    takes_db(listing, run_list)

    show = verbs.add_parser("show", help="one dispute's record")
    show.add_argument("dispute_id")
    takes_db(show, run_show)

    close = verbs.add_parser("close", help="close a dispute, recording its outcome")
    close.add_argument("dispute_id")
    close.add_argument("--outcome", required=True)
    _who(close, run_close)

    export = verbs.add_parser("export", help="the regulator's bundle of a dispute")
    export.add_argument("dispute_id")
    export.add_argument("--out", required=True, metavar="FILE")
    export.add_argument("--public-key", metavar="FILE", help="the casino's public key to name")
    takes_db(export, run_export)


def _who(parser: argparse.ArgumentParser, handler: Any) -> None:
    parser.add_argument("--actor", metavar="ID", help="who does it (the key's actor)")
    parser.add_argument("--role", choices=("floor", "auditor"), help="the key's role")
    takes_db(parser, handler, keyed=True)


def _operator(store: Any, args: argparse.Namespace, verb: str) -> Any:
    from entrypoints.cli.operator import authenticate
    from table_core.ports import Actor

    key = authenticate(store, args, f"dispute {verb}", {"--actor": args.actor, "--role": args.role})
    return Actor(id=key.actor_id, role=key.role)


def _time(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an ISO 8601 time, not {text!r}") from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _print(record: dict[str, Any]) -> None:
    print(json.dumps(record, sort_keys=True))


def _refused(error: Exception) -> int:
    print(f"paigow dispute: {error}", file=sys.stderr)
    return 2


def _open_store(args: argparse.Namespace) -> Any:
    from adapters.store import database_url, open_configured
    from entrypoints.cli.main import db_of, settings_of

    target = database_url(db_of(args))
    store = open_configured(settings_of(args), target.render_as_string(hide_password=False))
    return store, target


def run_open(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock
    from service_layer.disputes import DisputeError, Request, open_dispute

    def act(store: Any) -> dict[str, Any]:
        actor = _operator(store, args, "open")
        request = from_args(Request, args, table_id=args.table)
        return open_dispute(store, request, actor, system_clock())

    return json_record("dispute", _open_store(args)[0], act, DisputeError)


def run_list(args: argparse.Namespace) -> int:
    from service_layer.disputes import disputes

    store, _ = _open_store(args)
    try:
        for record in disputes(store).values():
            _print(record)
    finally:
        store.close()
    return 0


def run_show(args: argparse.Namespace) -> int:
    from service_layer.disputes import DisputeError, find

    return json_record(
        "dispute", _open_store(args)[0], lambda store: find(store, args.dispute_id), DisputeError
    )


def run_close(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock
    from service_layer.disputes import DisputeError, close_dispute

    def act(store: Any) -> dict[str, Any]:
        actor = _operator(store, args, "close")
        return close_dispute(store, args.dispute_id, args.outcome, actor, system_clock())

    return json_record("dispute", _open_store(args)[0], act, DisputeError)


def run_export(args: argparse.Namespace) -> int:
    from audit.sources import AuditUsageError
    from entrypoints.cli.main import settings_of
    from service_layer.disputes import DisputeError, export_dispute

    store, url = _open_store(args)
    try:
        manifest = export_dispute(
            store,
            url,
            args.dispute_id,
            args.out,
            public_key=args.public_key,
            signing_key=settings_of(args).signing_key,
        )
    except (DisputeError, AuditUsageError) as error:
        return _refused(error)
    finally:
        store.close()
    counts = manifest["counts"]
    print(
        f"dispute {args.dispute_id}: {counts['events']} events, {manifest['checkpoints']} "
        f"checkpoints, rounds {manifest['dispute']['rounds']} -> {args.out}"
    )
    return 0
