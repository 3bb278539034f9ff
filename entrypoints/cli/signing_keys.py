"""``paigow keys signing create|show|rotate|export-public``: the Ed25519 key that signs
checkpoints (issue 17).

- ``create --out FILE``: a new key, ``FILE`` (PKCS#8 PEM, mode 0600) and ``FILE.pub`` (its public
  half, what the casino publishes and a verifier pins); neither is ever written over: when either
  exists the command refuses with one line naming it, and writes nothing. ``create
  --db sqlite:///casino.db`` with no ``--out`` writes it where the store looks for it,
  ``casino.db.signing-key`` (a PostgreSQL database keeps no key beside it: give ``--out``).
- ``show [--key FILE]``: a key file's id and public key (default ``$PAIGOW_SIGNING_KEY``).
- ``export-public [--key FILE] [--out FILE]``: the public half as PEM.
- ``rotate --db URL [--key OLD] --out NEW``: a new key whose public half the OLD key signs into a
  ``signing_key_rotated`` event of the system stream, sealed by a checkpoint of the old key; every
  later checkpoint must be signed by the new key (set ``PAIGOW_SIGNING_KEY`` to it and restart).
  A verifier holding the first key follows each rotation (``audit.chain``). It acts as a
  ``security`` API key (``--key-file FILE`` or ``$PAIGOW_API_KEY``,
  ``entrypoints/cli/operator.py``), whose actor the event records.

A private key file its group or others can read is refused with one line (``eventlog.keys``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(verbs: Any, url_help: str) -> None:
    signing = verbs.add_parser("signing", help="the Ed25519 key that signs checkpoints")
    actions = signing.add_subparsers(dest="signing_verb", required=True, metavar="ACTION")
    key_help = "the private key file (default: $PAIGOW_SIGNING_KEY)"

    create = actions.add_parser("create", help="a new signing key (mode 0600) and its .pub")
    create.add_argument("--out", metavar="FILE", help="the private key to write")
    create.add_argument(
        "--db", metavar="URL", help="a SQLite database: write the key beside it (no --out needed)"
    )
    create.set_defaults(handler=run_create)

    show = actions.add_parser("show", help="a key file's id and public key")
    show.add_argument("--key", metavar="FILE", help=key_help + "; a public key file works too")
    show.set_defaults(handler=run_show)

    export = actions.add_parser("export-public", help="the public half, as PEM")
    export.add_argument("--key", metavar="FILE", help=key_help)
    export.add_argument("--out", metavar="FILE", help="write it there (default: standard output)")
    export.set_defaults(handler=run_export_public)

    rotate = actions.add_parser(
        "rotate", help="hand signing over to a new key, signed by the old one, in the log"
    )
    rotate.add_argument("--db", metavar="URL", help=url_help)
    rotate.add_argument("--key", metavar="FILE", help="the OLD key (default: $PAIGOW_SIGNING_KEY)")
    rotate.add_argument("--out", metavar="FILE", required=True, help="the NEW key to write")
    from entrypoints.cli.operator import add_key_options

    add_key_options(rotate)
    rotate.set_defaults(handler=run_rotate)


def _key_file(args: argparse.Namespace) -> Path:
    from entrypoints.cli.main import settings_of
    from table_core.ports import StoreError

    chosen = args.key or settings_of(args).signing_key
    if not chosen:
        raise StoreError("no key file: give --key FILE or set PAIGOW_SIGNING_KEY")
    return Path(chosen)


def _signer(path: Path) -> Any:
    from adapters.store.signing import read_signer

    return read_signer(path)


def _new_key(out: str) -> tuple[Any, Path]:
    from adapters.store.signing import Signer
    from table_core.ports import StoreError

    signer = Signer.generate()
    try:
        public = signer.write(out)
    except FileExistsError as error:
        raise StoreError(
            f"{error.filename} exists: a signing key and its public key are never overwritten "
            "(nothing was written)"
        ) from None
    except OSError as error:
        raise StoreError(f"cannot write {out}: {error.strerror}") from None
    return signer, public


def _create_path(args: argparse.Namespace) -> str:
    from adapters.store import database_url
    from eventlog.keys import key_paths
    from table_core.ports import StoreError

    if args.out:
        return str(args.out)
    if args.db is None:
        raise StoreError("give --out FILE (or --db URL of a SQLite database to key)")
    url = database_url(args.db)
    if url.get_backend_name() != "sqlite" or not url.database:
        raise StoreError(
            "a PostgreSQL database keeps no key beside it: give --out FILE, then set "
            "PAIGOW_SIGNING_KEY to it"
        )
    return str(key_paths(url.database)[0])


def run_create(args: argparse.Namespace) -> int:
    args.out = _create_path(args)
    signer, public = _new_key(args.out)
    print(
        json.dumps(
            {
                "key_id": signer.key_id,
                "public_key": signer.public_raw.hex(),
                "private_key_file": args.out,
                "public_key_file": str(public),
            }
        )
    )
    return 0


def run_show(args: argparse.Namespace) -> int:
    from eventlog.keys import key_id, load_public_key

    path = _key_file(args)
    try:
        data = path.read_bytes()
    except OSError as error:
        from table_core.ports import StoreError

        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    raw = _signer(path).public_raw if b"PRIVATE KEY" in data else load_public_key(data)
    print(json.dumps({"key_id": key_id(raw), "public_key": raw.hex(), "file": str(path)}))
    return 0


def run_export_public(args: argparse.Namespace) -> int:
    pem = _signer(_key_file(args)).public_pem()
    if args.out:
        from adapters.store.signing import write_public_key

        write_public_key(args.out, pem)
    else:
        sys.stdout.write(pem.decode())
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    from adapters.clock import system_clock
    from adapters.store import open_store
    from entrypoints.cli.main import db_of, settings_of
    from entrypoints.cli.operator import authenticate
    from eventlog.canonical import format_time
    from eventlog.system_events import SigningKeyRotated
    from service_layer.system_stream import SystemStream
    from table_core.ports import StoreError

    old = _signer(_key_file(args))
    retry_s = settings_of(args).db_retry_s
    store = open_store(db_of(args), signing_key=old, create=False, retry_s=retry_s)  # no new db
    try:
        operator = authenticate(store, args, "keys signing rotate")
        new, public = _new_key(args.out)
    except BaseException:
        store.close()
        raise
    now = system_clock()
    signed_at = format_time(now)
    from eventlog.canonical import key_rotation_message

    signature = old.private_key.sign(
        key_rotation_message(old.key_id, new.public_raw.hex(), signed_at)
    ).hex()
    event = SigningKeyRotated(
        at=now,
        old_key_id=old.key_id,
        new_key_id=new.key_id,
        new_public_key=new.public_raw.hex(),
        signed_at=signed_at,
        signature=signature,
        actor_id=operator.actor_id,
        actor_role=operator.role,
    )
    try:
        try:
            if not store.may_record_anchors():  # before anything is written (docs/operations.md)
                raise StoreError(
                    "a rotation writes an anchor for the new key, which this login may not: run "
                    "it as the owner role (docs/operations.md, PostgreSQL roles)"
                )
            recorded = SystemStream(store).append([event], checkpoint=True)
            # The new key cannot check the old key's tags (issue 17): it requires its own from
            # the rotation on, which the old key's checkpoint seals.
            store.record_tag_anchor(new, recorded[-1].position)
        finally:
            store.close()
    except BaseException:
        Path(args.out).unlink(missing_ok=True)  # the log does not name it: never used
        public.unlink(missing_ok=True)
        raise
    print(
        json.dumps(
            {
                "old_key_id": old.key_id,
                "new_key_id": new.key_id,
                "private_key_file": args.out,
                "public_key_file": str(public),
            }
        )
    )
    print(
        f"paigow: set PAIGOW_SIGNING_KEY={args.out} and restart the service: checkpoints signed "
        f"by {old.key_id} after the rotation are refused by the audit",
        file=sys.stderr,
    )
    return 0
