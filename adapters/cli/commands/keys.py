"""``paigow keys``: the HTTP API's keys, each bound to an actor and a role.

``paigow keys create --role dealer [--actor dealer-7] [--db URL]`` prints one JSON line with the
key id, actor, role and the token: the token is shown this once, only its SHA-256 is stored.
``paigow keys list`` shows every key (never a token); ``paigow keys revoke KEY_ID`` stops one;
``paigow keys role KEY_ID --role R --reason TEXT`` gives an active key another role. Each change is
a system event (R5/R19): ``api_key_created``, ``api_key_revoked``, ``api_key_role_changed``.
``paigow keys signing create|show|rotate|export-public``: the key that signs checkpoints
(``adapters/cli/signing_keys.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

ROLES = ("dealer", "floor", "cage", "auditor", "count")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keys", help="API keys of the HTTP server (actor and role); the checkpoints' signing key"
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    url_help = "database URL (default: $PAIGOW_DB, else sqlite:///paigow.db)"

    create = verbs.add_parser("create", help="create a key; its token is shown once")
    create.add_argument("--role", required=True, choices=ROLES)
    create.add_argument("--actor", help="who the key acts as (default: ROLE-KEYID)")
    create.add_argument("--db", metavar="URL", help=url_help)
    create.set_defaults(handler=run_create)

    listing = verbs.add_parser("list", help="list the keys (never their tokens)")
    listing.add_argument("--db", metavar="URL", help=url_help)
    listing.set_defaults(handler=run_list)

    revoke = verbs.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    revoke.add_argument("--db", metavar="URL", help=url_help)
    revoke.set_defaults(handler=run_revoke)

    role = verbs.add_parser("role", help="change an active key's role, with a reason")
    role.add_argument("key_id")
    role.add_argument("--role", required=True, choices=ROLES)
    role.add_argument("--reason", required=True, help="why (recorded in the system event)")
    role.add_argument("--db", metavar="URL", help=url_help)
    role.set_defaults(handler=run_role)

    from adapters.cli import signing_keys

    signing_keys.register(verbs, url_help)


def _open(url: str | None, *, writing: bool = False) -> tuple[Any, Any]:
    from adapters.http.keys import SqlKeyStore
    from adapters.store import database_url, open_store
    from table_core.ports import StoreError

    if database_url(url).drivername == "memory":
        raise StoreError("keys of a memory:// store vanish with the process: use a database")
    from adapters.settings import load_settings

    # Keys go into an existing database: `paigow db upgrade` (or `serve`) makes one.
    store = open_store(url, create=False, signing_key=load_settings().signing_key)
    if writing:  # its system event needs the key: refuse before the key row is written
        try:
            store.need_key_to_append()
        except BaseException:
            store.close()
            raise
    return store, SqlKeyStore(store.engine)  # type: ignore[union-attr]


def _record(store: Any, event_type: str, **fields: Any) -> None:
    """R5/R19: the key's creation, revocation or change of role on the system stream, by
    whoever ran the command (the operating system's user: the CLI holds no API key); never the
    token."""
    import getpass

    from adapters.clock import system_clock
    from adapters.system_stream import SystemStream
    from eventlog.system_events import ApiKeyCreated, ApiKeyRevoked, ApiKeyRoleChanged

    model = {
        "api_key_created": ApiKeyCreated,
        "api_key_revoked": ApiKeyRevoked,
        "api_key_role_changed": ApiKeyRoleChanged,
    }[event_type]
    actor = f"cli:{getpass.getuser()}"
    SystemStream(store).append([model(at=system_clock(), actor_id=actor, **fields)])


def run_create(args: argparse.Namespace) -> int:
    import secrets

    from adapters.clock import system_clock

    store, keys = _open(args.db, writing=True)
    try:
        # The default actor names the role and a random suffix, so two keys never share one.
        actor = args.actor or f"{args.role}-{secrets.token_hex(3)}"
        try:
            key, token = keys.create(actor, args.role, system_clock())
        except ValueError as error:
            print(f"paigow: {error}", file=sys.stderr)
            return 2
        _record(store, "api_key_created", key_id=key.key_id, key_actor=actor, role=args.role)
    finally:
        store.close()
    print(
        json.dumps({"key_id": key.key_id, "actor": key.actor_id, "role": key.role, "token": token})
    )
    print("paigow: the token is shown only now; the server stores its hash", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    store, keys = _open(args.db)
    try:
        for key in keys.list():
            row = {
                "key_id": key.key_id,
                "actor": key.actor_id,
                "role": key.role,
                "created_at": key.created_at,
                "revoked_at": key.revoked_at,
            }
            print(json.dumps(row))
    finally:
        store.close()
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock

    store, keys = _open(args.db, writing=True)
    try:
        done = keys.revoke(args.key_id, system_clock())
        if done:
            _record(store, "api_key_revoked", key_id=args.key_id)
    finally:
        store.close()
    if not done:
        print(f"paigow: no active key {args.key_id}", file=sys.stderr)
        return 1
    print(f"revoked {args.key_id}")
    return 0


def run_role(args: argparse.Namespace) -> int:
    """R5/R19: the key's new role, recorded with its old one and the reason; refused (exit 2,
    nothing written) for an empty reason or the role the key already has."""
    reason = args.reason.strip()
    if not reason:
        print("paigow: a change of role states its reason (--reason)", file=sys.stderr)
        return 2
    store, keys = _open(args.db, writing=True)
    try:
        try:
            old = keys.change_role(args.key_id, args.role)
        except ValueError as error:
            print(f"paigow: {error}", file=sys.stderr)
            return 2
        if old is not None:
            _record(
                store,
                "api_key_role_changed",
                key_id=args.key_id,
                old_role=old,
                new_role=args.role,
                reason=reason,
            )
    finally:
        store.close()
    if old is None:
        print(f"paigow: no active key {args.key_id}", file=sys.stderr)
        return 1
    print(json.dumps({"key_id": args.key_id, "old_role": old, "role": args.role}))
    return 0
