"""``paigow keys``: the API keys of the casino's operators, each bound to an actor and a role.

``paigow keys create --role ROLE [--actor ID] [--out FILE] [--db URL]`` prints one JSON line with
the key id, actor and role, and the token: shown this once (only its SHA-256 is stored), or written
to ``--out FILE`` (mode 0600, never over an existing file) and then not printed at all.
``paigow keys list`` shows every key (never a token); ``paigow keys revoke KEY_ID`` stops one;
``paigow keys role KEY_ID --role R --reason TEXT`` gives an active key another role. Each change is
a system event, sealed at once (R5/R19): ``api_key_created`` (with the token's hash),
``api_key_revoked``, ``api_key_role_changed``; a key authenticates only as that log says
(``service_layer/operators/ledger.py``).

Who may: a store's first key (no active key yet: a new casino) is created without one, recorded
with the role ``bootstrap``, and must be a ``security`` key; from then on creating, revoking and
re-roling keys needs a ``security`` key (``--key-file FILE`` or ``$PAIGOW_API_KEY``,
``entrypoints/cli/operator.py``), whose actor the event records. The last active security key is
neither revoked nor re-roled (nobody could manage keys any more).

``paigow keys signing create|show|rotate|export-public``: the key that signs checkpoints
(``entrypoints/cli/signing_keys.py``); ``rotate`` needs a security key too.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from entrypoints.cli.options import DB_HELP, takes_db

ROLES = ("dealer", "floor", "cage", "auditor", "count", "security")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "keys", help="API keys of the HTTP server (actor and role); the checkpoints' signing key"
    )
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")

    create = verbs.add_parser("create", help="create a key; its token is shown once")
    create.add_argument("--role", required=True, choices=ROLES)
    create.add_argument("--actor", help="who the key acts as (default: ROLE-KEYID)")
    create.add_argument(
        "--out", metavar="FILE", help="write the token there (mode 0600) instead of printing it"
    )
    takes_db(create, run_create, keyed=True)

    listing = verbs.add_parser("list", help="list the keys (never their tokens)")
    takes_db(listing, run_list)

    revoke = verbs.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    takes_db(revoke, run_revoke, keyed=True)

    role = verbs.add_parser("role", help="change an active key's role, with a reason")
    role.add_argument("key_id")
    role.add_argument("--role", required=True, choices=ROLES)
    role.add_argument("--reason", required=True, help="why (recorded in the system event)")
    takes_db(role, run_role, keyed=True)

    from entrypoints.cli import signing_keys

    signing_keys.register(verbs, DB_HELP)


def _open(args: argparse.Namespace, *, writing: bool = False) -> tuple[Any, Any]:
    from adapters.store import database_url, open_configured
    from entrypoints.cli.main import db_of, settings_of
    from service_layer.operators.keys import SqlKeyStore
    from table_core.ports import StoreError

    url = db_of(args)
    if database_url(url).drivername == "memory":
        raise StoreError("keys of a memory:// store vanish with the process: use a database")
    # Keys go into an existing database: `paigow db upgrade` (or `serve`) makes one.
    store = open_configured(settings_of(args), url, create=False)
    if writing:  # its system event needs the log's key: refuse before the key row is written
        from adapters.store.key_advice import require_the_logs_key

        try:
            require_the_logs_key(store)
        except BaseException:
            store.close()
            raise
    return store, SqlKeyStore(store)


def _security(store: Any, keys: Any, args: argparse.Namespace, verb: str) -> Any:
    """The security key this change acts as, as the actor its event records."""
    from entrypoints.cli.operator import authenticate
    from table_core.ports import Actor

    key = authenticate(store, args, f"keys {verb}", keys=keys)
    return Actor(id=key.actor_id, role=key.role)


def _creator(store: Any, keys: Any, args: argparse.Namespace) -> Any:
    """Who creates the key: a security key; the store's first key, none (``bootstrap``)."""
    import getpass

    from table_core.errors import DomainError
    from table_core.ports import Actor

    if keys.has_active():
        return _security(store, keys, args, "create")
    if args.role != "security":
        from adapters.store.key_advice import store_url

        raise DomainError(
            "this store has no API key yet: its first key is a security key, which then creates "
            f"the others (`paigow keys create --role security --out security.key --db "
            f"{store_url(store)}`)"
        )
    return Actor(id=f"cli:{getpass.getuser()}", role="bootstrap")


def _keep_a_security_key(keys: Any, key_id: str, new_role: str | None = None) -> None:
    from table_core.errors import DomainError

    target = keys.get(key_id)
    if target is None or target.role != "security" or new_role == "security":
        return
    others = [k for k in keys.list() if k.role == "security" and k.revoked_at is None]
    if [k.key_id for k in others] == [key_id]:
        raise DomainError(f"key {key_id} is the last active security key: create another one first")


def _token_file(path: str) -> int:
    """A new file only its owner can read, opened before the key is made, so that a path that
    cannot be written leaves no key in the log whose token nobody holds; never an existing file."""
    import os

    from table_core.errors import DomainError

    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise DomainError(f"{path} exists: a key file is never overwritten") from None
    except OSError as error:
        raise DomainError(f"cannot write {path}: {error.strerror}") from None


def run_create(args: argparse.Namespace) -> int:
    import os
    import secrets

    from adapters.clock import system_clock
    from table_core.errors import DomainError

    if args.out and os.path.lexists(args.out):
        raise DomainError(f"{args.out} exists: a key file is never overwritten")
    store, keys = _open(args, writing=True)
    try:
        by = _creator(store, keys, args)
        out = _token_file(args.out) if args.out else None
        # The default actor names the role and a random suffix, so two keys never share one.
        actor = args.actor or f"{args.role}-{secrets.token_hex(3)}"
        try:
            key, token = keys.create(actor, args.role, system_clock(), by=by)
        except BaseException as error:
            if out is not None:  # no key made: no file left for it
                os.close(out)
                os.unlink(args.out)
            if isinstance(error, ValueError):
                print(f"paigow: {error}", file=sys.stderr)
                return 2
            raise
    finally:
        store.close()
    line = {"key_id": key.key_id, "actor": key.actor_id, "role": key.role}
    if out is not None:
        with os.fdopen(out, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
        print(json.dumps({**line, "key_file": args.out}))
        return 0
    print(json.dumps({**line, "token": token}))
    print("paigow: the token is shown only now; the server stores its hash", file=sys.stderr)
    return 0


def run_list(args: argparse.Namespace) -> int:
    store, keys = _open(args)
    try:
        listed = [(key, True) for key in keys.list()]
        listed += [(row, False) for row in keys.unbacked()]
    finally:
        store.close()
    for key, in_log in listed:
        row = {
            "key_id": key.key_id,
            "actor": key.actor_id,
            "role": key.role,
            "created_at": key.created_at,
            "revoked_at": key.revoked_at,
            # False: a row of the table that the log does not back as it stands (inserted or
            # edited behind the store's back, or older than keys bound to the log): refused.
            "in_log": in_log,
        }
        print(json.dumps(row))
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock

    store, keys = _open(args, writing=True)
    try:
        by = _security(store, keys, args, "revoke")
        _keep_a_security_key(keys, args.key_id)
        done = keys.revoke(args.key_id, system_clock(), by=by)
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
    from adapters.clock import system_clock

    reason = args.reason.strip()
    if not reason:
        print("paigow: a change of role states its reason (--reason)", file=sys.stderr)
        return 2
    store, keys = _open(args, writing=True)
    try:
        by = _security(store, keys, args, "role")
        _keep_a_security_key(keys, args.key_id, args.role)
        try:
            old = keys.change_role(args.key_id, args.role, reason, system_clock(), by=by)
        except ValueError as error:
            print(f"paigow: {error}", file=sys.stderr)
            return 2
    finally:
        store.close()
    if old is None:
        print(f"paigow: no active key {args.key_id}", file=sys.stderr)
        return 1
    print(json.dumps({"key_id": args.key_id, "old_role": old, "role": args.role}))
    return 0
