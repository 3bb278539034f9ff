"""``paigow purge``: remove the head of the log once past retention (R18), a logged maintenance
path.

``paigow purge --through N --archive FILE --reason TEXT [--db URL]``, as a floor supervisor's API
key (``--key-file FILE`` or ``$PAIGOW_API_KEY``, ``entrypoints/cli/operator.py``; the old
``--actor`` is still accepted and must name the key's actor), writes the archive (a bundle that
``paigow audit verify --bundle`` checks alone), records ``range_purged`` on the system stream, then
deletes positions up to N in one transaction (``service_layer/purge.py``). Refused (exit 2, one
line, nothing written): no key or another role's, a category of the range inside its retention
(``PAIGOW_RETENTION_DAYS`` for game events, ``PAIGOW_RETENTION_SYSTEM_DAYS``,
``PAIGOW_RETENTION_DISPUTE_DAYS``, ``PAIGOW_RETENTION_ACCESS_DAYS``) at the log's own time (its last
sealed event; the host's clock only stamps the purge's records), a period below the
jurisdiction's minimum (refused as the setting is read), a table held by an open dispute, a table
cut in two, an empty reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from entrypoints.cli.answers import json_record
from entrypoints.cli.options import takes_db


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("purge", help="purge the log's head past retention (R18)")
    parser.add_argument(
        "--through", type=int, required=True, metavar="N", help="the last global position purged"
    )
    parser.add_argument(
        "--archive",
        required=True,
        metavar="FILE",
        help="the signed archive of the purged range, written first",
    )
    parser.add_argument("--reason", required=True)
    parser.add_argument("--actor", metavar="ID", help="the floor supervisor (the key's actor)")
    parser.add_argument("--public-key", metavar="FILE", help="the casino's public key to name")
    takes_db(parser, run_purge, keyed=True, db_help="database URL (default: $PAIGOW_DB)")


def run_purge(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock
    from adapters.store import database_url, open_configured
    from entrypoints.cli.main import db_of, settings_of
    from entrypoints.cli.operator import authenticate
    from service_layer.purge import PurgeRefused, purge
    from table_core.ports import Actor

    settings = settings_of(args)
    url = database_url(db_of(args))
    if url.drivername == "memory":
        print("paigow purge: a memory store keeps nothing to purge", file=sys.stderr)
        return 2

    def act(store: Any) -> dict[str, Any]:
        key = authenticate(store, args, "purge", {"--actor": args.actor})
        return purge(
            store,
            url,
            through=args.through,
            archive=args.archive,
            actor=Actor(id=key.actor_id, role=key.role),
            reason=args.reason,
            retention=settings.retention(),
            now=system_clock(),
            public_key=args.public_key,
            signing_key=settings.signing_key,
        )

    store = open_configured(settings, url.render_as_string(hide_password=False))
    return json_record("purge", store, act, PurgeRefused)
