"""``paigow db``: the event store's schema (Alembic) and a quick chain check.

``paigow db upgrade --db URL`` brings any database to the head revision, from any directory;
``paigow db verify --db URL`` reports the first event or checkpoint that does not hold.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("db", help="event store schema and verification")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    url_help = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"

    upgrade = verbs.add_parser("upgrade", help="migrate the database to the newest schema")
    upgrade.add_argument("--db", metavar="URL", help=url_help)
    upgrade.set_defaults(handler=run_upgrade)

    check = verbs.add_parser("verify", help="check every hash, link and checkpoint signature")
    check.add_argument("--db", metavar="URL", help=url_help)
    check.set_defaults(handler=run_verify)


def run_upgrade(args: argparse.Namespace) -> int:
    from adapters.store import database_url
    from adapters.store.migrate import upgrade

    url = database_url(args.db)
    revision = upgrade(url.render_as_string(hide_password=False))
    print(f"{url.render_as_string(hide_password=True)}: schema at {revision}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from adapters.store import database_url, open_store

    url = database_url(args.db)
    if url.get_backend_name() == "sqlite" and not Path(url.database or "").exists():
        print(f"paigow: no database at {url.database}", file=sys.stderr)
        return 2
    store = open_store(args.db)
    try:
        report = store.verify()
    finally:
        store.close()
    if report.first_bad is not None:
        print(f"paigow: verification FAILED at {report.first_bad}", file=sys.stderr)
        return 1
    signed = "" if report.signatures_checked else " (no public key: signatures not checked)"
    print(f"ok: {report.events} events, {report.checkpoints} checkpoints{signed}")
    return 0
