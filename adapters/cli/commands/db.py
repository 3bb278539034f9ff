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
    from pathlib import Path

    from alembic.util import CommandError

    from adapters.settings import load_settings
    from adapters.store import database_url, missing_sqlite, reaching, shown_url
    from adapters.store.migrate import upgrade
    from adapters.store.signing import create_key_files
    from eventlog.keys import key_paths
    from table_core.ports import StoreError

    url = database_url(args.db)
    if url.drivername == "memory":
        raise StoreError("memory:// has no schema to upgrade: give a database URL")
    new_file = url.get_backend_name() == "sqlite" and missing_sqlite(url) is not None
    try:
        with reaching(url):
            revision = upgrade(url.render_as_string(hide_password=False))
    except CommandError as error:  # e.g. a database at a revision this code does not know
        raise StoreError(f"cannot upgrade {shown_url(url)}: {error}") from error
    private_key = key_paths(Path(url.database or ""))[0]
    if new_file and not load_settings().signing_key and not private_key.exists():
        # A new embedded database comes with its signing key beside it, as `open_store` gives
        # one: a server started on it can close rounds (no 503 for a key nobody made).
        create_key_files(Path(url.database or ""))
    print(f"{shown_url(url)}: schema at {revision}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from adapters.store import open_store

    store = open_store(args.db, create=False)
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
