"""``paigow service``: the service's change control (R5/R19) over the code's identity.

Contract (stable):

- ``paigow service authorise-version DIGEST --reason TEXT [--db URL]``: a floor supervisor (the
  API key of ``--key-file FILE`` or ``$PAIGOW_API_KEY``, ``entrypoints/cli/operator.py``; the old
  ``--floor ID`` is still accepted and must name the key's actor) authorises the code of
  ``DIGEST`` (64 hex digits, ``eventlog/code_identity.py``) to run, before it runs: one JSON line,
  the authorisation (``position``, ``version``, ``digest``, ``reason``, ``authorised_by``, ``at``;
  ``version`` repeats the digest). ``paigow serve`` and
  ``paigow simulate`` refuse to start under code whose digest differs from the log's last start's
  until one is recorded (the first start on a log needs none).
- ``paigow service versions [--db URL]``: one JSON line per authorisation and per change, in log
  order (``event``: ``software_version_authorised`` or ``software_version_changed``; the digest
  fields ``digest``, ``old_digest``, ``new_digest`` are ``null`` in events recorded before change
  control compared digests).
- ``paigow service identity [--from DIR]``: one JSON line, the code's identity: ``digest``,
  ``recipe``, ``parts`` (each package's and the lock file's SHA-256), ``files`` (how many),
  ``root`` (the checkout read). Without ``--from``: the code this command runs, checked as a
  start checks it, with ``software_version`` and ``rng`` (the deck-and-dice source ``paigow
  serve`` deals from). With ``--from DIR``: the release checked out at ``DIR``, read as files,
  nothing of it imported (a regulator compares it with the digest a log records).

Refusals (not a digest, an empty reason, the digest the log already runs, a tree that cannot be
identified): one line on standard error, exit status 2, nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from entrypoints.cli.answers import json_record
from entrypoints.cli.options import takes_db

_KINDS = ("software_version_authorised", "software_version_changed")
#: The digest fields each kind shows (``null`` in events recorded before digests).
_DIGESTS = {
    "software_version_authorised": ("digest",),
    "software_version_changed": ("old_digest", "new_digest"),
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("service", help="the service's change control (R5/R19)")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    authorise = verbs.add_parser(
        "authorise-version", help="authorise a release's code (its digest) to run, with a reason"
    )
    authorise.add_argument(
        "version", metavar="DIGEST", help="the code's digest (`paigow service identity`)"
    )
    authorise.add_argument("--reason", required=True, help="why (recorded in the system event)")
    authorise.add_argument(
        "--floor", metavar="ID", help="the floor supervisor who authorises it (the key's actor)"
    )
    takes_db(authorise, run_authorise, keyed=True)

    versions = verbs.add_parser("versions", help="authorisations and version changes, in order")
    takes_db(versions, run_versions)

    identity = verbs.add_parser("identity", help="the code's digest and its parts (JSON)")
    identity.add_argument(
        "--from",
        dest="source",
        metavar="DIR",
        help="a release's checkout: its digest, read as files, nothing imported",
    )
    identity.set_defaults(handler=run_identity)


def _open_store(args: argparse.Namespace) -> Any:
    from adapters.store import open_configured
    from entrypoints.cli.main import settings_of

    return open_configured(settings_of(args), args.db)


def run_authorise(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock
    from entrypoints.cli.operator import authenticate
    from service_layer.change_control import authorise
    from service_layer.software_versions import VersionAuthorisationError, checked_digest
    from table_core.ports import Actor

    try:
        checked_digest(args.version)  # a version label is refused before the store is opened
    except VersionAuthorisationError as error:
        print(f"paigow service: {error}", file=sys.stderr)
        return 2

    def act(store: Any) -> dict[str, Any]:
        key = authenticate(store, args, "service authorise-version", {"--floor": args.floor})
        actor = Actor(key.actor_id, key.role)
        return authorise(store, args.version, args.reason, actor, system_clock())

    return json_record("service", _open_store(args), act, VersionAuthorisationError)


def run_versions(args: argparse.Namespace) -> int:
    from eventlog.system_events import SYSTEM_STREAM

    store = _open_store(args)
    try:
        for event in store.read_stream(SYSTEM_STREAM):
            if event.type in _KINDS:
                line = {"event": event.type, "position": event.position, **event.payload}
                line.pop("type", None)
                for key in _DIGESTS[event.type]:
                    line.setdefault(key, None)
                print(json.dumps(line, sort_keys=True))
    finally:
        store.close()
    return 0


def run_identity(args: argparse.Namespace) -> int:
    from pathlib import Path

    if args.source is not None:
        from eventlog.code_identity import CodeIdentityError, compute

        root = Path(args.source).resolve()
        try:
            summary: dict[str, Any] = compute(root).summary()
        except CodeIdentityError as error:
            print(f"paigow service: {error}", file=sys.stderr)
            return 2
    else:
        from adapters.code_identity import rng_identity, running_code
        from adapters.rng import SecureDeckAndDice

        running = running_code()  # refused: one line, exit 2 (entrypoints/cli/main.py)
        root = running.root
        summary = {**running.summary(), "rng": rng_identity(SecureDeckAndDice(), running)}
    print(json.dumps({**summary, "root": str(root)}, sort_keys=True))
    return 0
