"""``paigow db``: the event store's schema (Alembic), a quick chain check, and adopting untagged
events.

``paigow db upgrade --db URL`` brings any database to the head revision, from any directory;
``paigow db verify --db URL`` reports the first event or checkpoint that does not hold, and the
unsealed tail: the events after the last checkpoint. Only the events of rounds still in progress
may be unsealed (a running table); anything else there (a round's end, a table fact between
rounds, a system event, the trailing ``service_stopped`` of a log written before every stop was
sealed) was added after the last signature or had its checkpoint removed: exit status 1.
``paigow db adopt --db URL`` lists the events no append tag of the key covers; with ``--through
POSITION --reason TEXT`` an operator holding the signing key vouches for them, as a security API
key (``--key-file FILE`` or ``$PAIGOW_API_KEY``; ``--actor`` is still accepted and must name the
key's actor), or as the bootstrap on a store that has no API key yet (service_layer/adopt.py).

Contract (stable): ``db verify`` prints ``ok: N events, M checkpoints`` (then `` (no public key:
signatures not checked)`` when so) and exit status 0 when all holds; an unsealed tail of rounds in
progress adds ``; unsealed: K events from position P (rounds in progress: …)`` to that line. A
failure is one line on standard error, ``paigow: verification FAILED at …`` or ``paigow:
verification FAILED: unsealed: K events from position P: …``, exit status 1. With the log's own
signing key at hand, an event no append tag of the key covers fails it too (``… FAILED at P
(stream …): untagged: …``, naming ``paigow db adopt --db URL``): the server would refuse commands.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from entrypoints.cli.operator import add_key_options
from entrypoints.cli.options import DB_HELP, takes_db


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("db", help="event store schema and verification")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    upgrade = verbs.add_parser("upgrade", help="migrate the database to the newest schema")
    takes_db(upgrade, run_upgrade)

    check = verbs.add_parser("verify", help="check every hash, link and checkpoint signature")
    takes_db(check, run_verify)

    adopt = verbs.add_parser(
        "adopt", help="list the events no append tag covers; vouch for them with the key"
    )
    adopt.add_argument("--db", metavar="URL", help=DB_HELP)
    adopt.add_argument(
        "--through", type=int, metavar="POSITION", help="adopt the untagged events up to here"
    )
    adopt.add_argument("--reason", help="why they are trusted (recorded)")
    adopt.add_argument(
        "--actor", help="who vouches for them: the API key's actor (a security key, R19)"
    )
    add_key_options(adopt)
    adopt.set_defaults(handler=run_adopt)


def run_upgrade(args: argparse.Namespace) -> int:
    from pathlib import Path

    from alembic.util import CommandError

    from adapters.store import database_url, missing_sqlite, reaching, shown_url
    from adapters.store.migrate import upgrade
    from adapters.store.signing import create_key_files
    from entrypoints.cli.main import db_of, settings_of
    from eventlog.keys import key_paths
    from table_core.ports import StoreError

    settings = settings_of(args)
    url = database_url(db_of(args))
    if url.drivername == "memory":
        raise StoreError("memory:// has no schema to upgrade: give a database URL")
    new_file = url.get_backend_name() == "sqlite" and missing_sqlite(url) is not None
    try:
        with reaching(url):
            revision = upgrade(url.render_as_string(hide_password=False), settings.pg_roles())
    except CommandError as error:  # e.g. a database at a revision this code does not know
        raise StoreError(f"cannot upgrade {shown_url(url)}: {error}") from error
    private_key = key_paths(Path(url.database or ""))[0]
    if new_file and not settings.signing_key and not private_key.exists():
        # A new embedded database comes with its signing key beside it, as `open_store` gives
        # one: a server started on it can close rounds (no 503 for a key nobody made).
        create_key_files(Path(url.database or ""))
    print(f"{shown_url(url)}: schema at {revision}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from adapters.store import open_configured
    from adapters.store.key_advice import key_refusal, store_url
    from entrypoints.cli.main import settings_of
    from entrypoints.cli.unsealed import UnsealedTail

    store = open_configured(settings_of(args), args.db, create=False)
    shown = store_url(store)
    tail = UnsealedTail(shown)
    try:
        report = store.verify(observe=tail.row)
        sealed = store.last_checkpoint() if report.first_bad is None else None
        # With the log's own key at hand, what the server would refuse too: an event no append
        # tag of the key covers (written without the key, or behind the store's back).
        checks_tags = report.first_bad is None and key_refusal(store) is None
        untagged: list[Any] = getattr(store, "untagged_events", list)() if checks_tags else []
    finally:
        store.close()
    if report.first_bad is not None:
        print(f"paigow: verification FAILED at {report.first_bad}", file=sys.stderr)
        return 1
    refused, accepted = tail.judge(sealed.position if sealed else 0, report.checkpoints)
    if refused is not None:
        if untagged and "paigow db adopt" not in refused:
            refused += (
                f"; {len(untagged)} of them no append tag of the key covers (written without the "
                f"signing key, or behind the store's back): `paigow db adopt --db {shown}` lists "
                "them for checking and adoption"
            )
        print(f"paigow: verification FAILED: {refused}", file=sys.stderr)
        return 1
    if untagged:
        first = untagged[0]
        print(
            f"paigow: verification FAILED at {first.position} (stream {first.stream_id!r} "
            f"version {first.version}): untagged: {len(untagged)} events no append tag of the "
            "store's key covers (written without the key, or behind the store's back): the "
            f"server refuses commands until they are checked and adopted: `paigow db adopt --db "
            f"{shown}` lists them",
            file=sys.stderr,
        )
        return 1
    signed = "" if report.signatures_checked else " (no public key: signatures not checked)"
    print(f"ok: {report.events} events, {report.checkpoints} checkpoints{signed}{accepted}")
    return 0


def _adopter(store: Any, args: argparse.Namespace) -> Any:
    """Who vouches (R19): a security key's actor; on a store with no API key yet (a log written
    before keys, whose untagged head would refuse the first key's sealed event), nobody's key:
    ``bootstrap``, as the store's first key is made."""
    import getpass

    from entrypoints.cli.main import settings_of
    from entrypoints.cli.operator import authenticate
    from service_layer.operators.keys import key_store_for, public_key_setting
    from table_core.errors import DomainError
    from table_core.ports import Actor

    # The keys' fold stops at the first untagged event, which is what is being adopted: not
    # reported again (``paigow db adopt`` lists it).
    public = public_key_setting(settings_of(args).public_key)
    keys = key_store_for(store, lambda _untagged: None, public)
    if keys.has_active():
        key = authenticate(store, args, "db adopt", {"--actor": args.actor}, keys)
        return Actor(id=key.actor_id, role=key.role)
    if args.actor is not None:
        raise DomainError(
            "this store has no API key yet: the adoption is recorded as the bootstrap by "
            f"cli:{getpass.getuser()}; leave --actor out"
        )
    return Actor(id=f"cli:{getpass.getuser()}", role="bootstrap")


def run_adopt(args: argparse.Namespace) -> int:
    import json

    from adapters.clock import system_clock
    from adapters.store import open_configured
    from adapters.store.key_advice import require_the_logs_key
    from entrypoints.cli.main import settings_of
    from service_layer.adopt import AdoptionRefused, adopt, untagged

    given = [args.through is not None, args.reason is not None]
    if any(given) and not all(given):
        print("paigow: an adoption needs --through and --reason", file=sys.stderr)
        return 2
    store = open_configured(settings_of(args), args.db, create=False)
    try:
        require_the_logs_key(store)  # no key, or another one: nothing to vouch with
        if args.through is None:
            for finding in untagged(store):
                print(json.dumps({"position": finding.position, "stream": finding.stream_id,
                                  "version": finding.version}))  # fmt: skip
            return 0
        done = adopt(store, args.through, args.reason, _adopter(store, args), system_clock())
    except AdoptionRefused as refused:
        print(f"paigow db adopt: {refused}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(
        json.dumps(
            {
                "adopted": done.events,
                "from": done.first_position,
                "through": done.through_position,
                "record": done.record_position,
                "checkpoint": done.checkpoint_position,
            }
        )
    )
    return 0
