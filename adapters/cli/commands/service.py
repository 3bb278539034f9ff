"""``paigow service``: the service's change control (R5/R19).

- ``paigow service authorise-version VERSION --reason TEXT [--db URL]``: a floor supervisor
  (the API key of ``--key-file FILE`` or ``$PAIGOW_API_KEY``, ``adapters/cli/operator.py``; the
  old ``--floor ID`` is still accepted and must name the key's actor) authorises software
  ``VERSION`` to run, before it runs: one JSON line, the authorisation (``position``,
  ``version``, ``reason``, ``authorised_by``, ``at``). ``paigow serve`` and ``paigow simulate``
  refuse to start under a version other than the log's last start until one is recorded (the
  first start of a new database needs none).
- ``paigow service versions [--db URL]``: one JSON line per authorisation and per version change,
  in log order (``event``: ``software_version_authorised`` or ``software_version_changed``).

Refusals (an empty version or reason, the version the log already runs): one line on standard
error, exit status 2, nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from adapters.cli.operator import add_key_options

URL_HELP = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"
_KINDS = ("software_version_authorised", "software_version_changed")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("service", help="the service's change control (R5/R19)")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    authorise = verbs.add_parser(
        "authorise-version", help="authorise a software version to run, with a reason"
    )
    authorise.add_argument("version", metavar="VERSION")
    authorise.add_argument("--reason", required=True, help="why (recorded in the system event)")
    authorise.add_argument(
        "--floor", metavar="ID", help="the floor supervisor who authorises it (the key's actor)"
    )
    authorise.add_argument("--db", metavar="URL", help=URL_HELP)
    add_key_options(authorise)
    authorise.set_defaults(handler=run_authorise)

    versions = verbs.add_parser("versions", help="authorisations and version changes, in order")
    versions.add_argument("--db", metavar="URL", help=URL_HELP)
    versions.set_defaults(handler=run_versions)


def _open_store(url: str | None) -> Any:
    from adapters.settings import load_settings
    from adapters.store import database_url, open_store

    settings = load_settings()
    target = database_url(url or settings.db)
    return open_store(
        target.render_as_string(hide_password=False), signing_key=settings.signing_key
    )


def run_authorise(args: argparse.Namespace) -> int:
    from adapters.cli.operator import authenticate
    from adapters.clock import system_clock
    from adapters.software_versions import VersionAuthorisationError, authorise
    from table_core.ports import Actor

    store = _open_store(args.db)
    try:
        key = authenticate(store, args, "service authorise-version", {"--floor": args.floor})
        actor = Actor(key.actor_id, key.role)
        record = authorise(store, args.version, args.reason, actor, system_clock())
    except VersionAuthorisationError as error:
        print(f"paigow service: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(json.dumps(record, sort_keys=True))
    return 0


def run_versions(args: argparse.Namespace) -> int:
    from eventlog.system_events import SYSTEM_STREAM

    store = _open_store(args.db)
    try:
        for event in store.read_stream(SYSTEM_STREAM):
            if event.type in _KINDS:
                line = {"event": event.type, "position": event.position, **event.payload}
                line.pop("type", None)
                print(json.dumps(line, sort_keys=True))
    finally:
        store.close()
    return 0
