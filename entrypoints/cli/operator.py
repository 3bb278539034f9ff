"""The operator behind a writing command of the CLI (R19): an API key, checked as over HTTP.

Every command that appends to the log on behalf of a person (``rights.CLI_COMMANDS``) acts as the
key given by ``--key-file FILE`` (a file holding the token, readable by its owner only, as the
signing key's file is), else ``$PAIGOW_API_KEY``; never on the command line itself, where any
user of the machine could read it. The key is looked up in the store as the server looks it up
(the sealed log decides, ``service_layer/operators/ledger.py``), its role checked against the one
matrix (``service_layer/operators/rights.py``), and the events record its actor. The self-declared
flags of old (``--actor``, ``--floor``, ``--role``, …) are still accepted; they no longer choose
who acts: one that differs from the key is refused. A slip's other signers come with
``--sign KEYFILE``, one file per signer (``service_layer/operators/signers.py``).

Each refusal is one line, exit status 2, nothing written (an unknown or revoked key is also
recorded as ``authentication_failed`` on the system stream, as over HTTP); the token is never
printed or logged.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from table_core.errors import DomainError

ENV = "PAIGOW_API_KEY"


def add_key_options(parser: argparse.ArgumentParser, *, cosigned: bool = False) -> None:
    parser.add_argument(
        "--key-file",
        metavar="FILE",
        help=f"the operator's API key: a file holding its token, mode 0600 (default: ${ENV})",
    )
    if cosigned:
        parser.add_argument(
            "--sign",
            action="append",
            default=[],
            metavar="KEYFILE",
            help="another signer's API key file (repeat, one per signer: its role says which)",
        )


def read_token(path: str | Path) -> str:
    """The token in a key file; refused when the file is readable by group or others."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise DomainError(
                f"the key file {file} is readable by its group or others: `chmod 600 {file}`"
            )
        text = file.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise DomainError(f"cannot read the key file {file}: {error.strerror}") from None
    except UnicodeDecodeError:
        text = ""
    if not text or any(c.isspace() for c in text):
        raise DomainError(f"the key file {file} holds no API key token")
    return text


def given_token(args: argparse.Namespace) -> str | None:
    path = getattr(args, "key_file", None)
    if path:
        return read_token(path)
    token = os.environ.get(ENV, "").strip()
    return token or None


def key_store(store: Any, args: argparse.Namespace) -> Any:
    """The store's API keys, checked with the ``public_key`` setting (``$PAIGOW_PUBLIC_KEY``)."""
    from entrypoints.cli.main import settings_of
    from service_layer.operators.keys import key_store_for, public_key_setting

    return key_store_for(store, public_key=public_key_setting(settings_of(args).public_key))


def _failed(store: Any, command: str, token: str) -> None:
    """R5/R19: the failed authentication on the system stream, as the server records one."""
    from adapters.clock import system_clock
    from service_layer.operators.keys import presented_key_id
    from service_layer.system_stream import SystemStream

    if getattr(store, "signer", None) is None:
        return  # unsealed, it could not be told from an insider's: the refusal says it all
    with contextlib.suppress(Exception):  # a store that cannot take it: the refusal stands
        SystemStream(store).authentication_failed(
            system_clock(),
            f"paigow {command}",
            f"cli:{getpass.getuser()}",
            presented_key_id(token),
            1,
        )


def _unknown(keys: Any, token: str, what: str) -> str:
    """The refusal of a key the log does not know; one whose row exists says so (R5/R19)."""
    if keys.ledger.public_key is None and getattr(keys.store, "signer", None) is None:
        return (
            f"{what} cannot be checked: the keys are what the sealed log says, and neither the "
            "signing key (PAIGOW_SIGNING_KEY) nor the public key (PAIGOW_PUBLIC_KEY) is given"
        )
    if keys.unbacked_row(token):
        return (
            f"{what} is not one the log records (its api_keys row was written behind the "
            "store's back): refused, and recorded"
        )
    return f"{what} is unknown or revoked"


def _code_authorised(store: Any) -> None:
    """R5/R19: a writing command runs only code the log runs or a floor supervisor authorised,
    as a start of the service does (``VersionNotAuthorised``: one line, nothing written)."""
    from adapters.code_identity import running_code
    from service_layer.software_versions import require_authorised

    require_authorised(store, running_code().code.digest)


def _how_to_make(store: Any, role: str, keys: Any, args: argparse.Namespace) -> str:
    """The command that makes a key of ``role`` on this store: the key officer's (a security
    key), or the store's first key, a security key made without one."""
    from adapters.store.key_advice import store_url

    url = store_url(store)
    with contextlib.suppress(Exception):  # a store whose keys cannot be read: the usual case
        if not (keys if keys is not None else key_store(store, args)).has_active():
            return (
                "this store has no API key yet: its first, a security key, is made by "
                f"`paigow keys create --role security --out security.key --db {url}`"
            )
    if role == "security":  # the key officer's own: made by another security key, or known
        return f"the key officer's key: `paigow keys list --db {url}` lists the store's keys"
    return (
        f"the key officer makes one: `paigow keys create --role {role} --out {role}.key "
        f"--key-file security.key --db {url}`"
    )


def authenticate(
    store: Any,
    args: argparse.Namespace,
    command: str,
    declared: Mapping[str, str | None] | None = None,
    keys: Any = None,
) -> Any:
    """The operator's key (``service_layer.operators.keys.ApiKey``) for ``paigow COMMAND``, or a
    one-line refusal. ``declared``: the self-declared flags given (``{"--floor": "ana"}``, a
    ``--role`` too), each to equal the key's actor (or role)."""
    from adapters.store.key_advice import require_the_logs_key
    from service_layer.operators.rights import CLI_COMMANDS, RIGHTS, refusal

    # The log's own signing key first: without it nothing can be written (nor a key checked).
    require_the_logs_key(store)
    if command != "service authorise-version":  # that one authorises the code it may run
        _code_authorised(store)
    operation = CLI_COMMANDS[command]
    token = given_token(args)
    if token is None:
        roles = sorted(RIGHTS[operation])
        raise DomainError(
            f"paigow {command} acts as an operator: give --key-file FILE or set {ENV} to an API "
            f"key of the {' or '.join(roles)} role ({_how_to_make(store, roles[0], keys, args)})"
        )
    keys = keys if keys is not None else key_store(store, args)
    key = keys.lookup(token)
    if key is None:
        _failed(store, command, token)
        raise DomainError(_unknown(keys, token, "this API key"))
    why = refusal(operation, key.role, f"run paigow {command}")
    if why is not None:
        raise DomainError(why)
    for flag, value in (declared or {}).items():
        if value is None:
            continue
        own = key.role if flag == "--role" else key.actor_id
        if value != own:
            what = "role" if flag == "--role" else "actor"
            raise DomainError(
                f"{flag} {value} is not this key's {what} ({own}): the API key says who acts"
            )
    return key


def cosigners(store: Any, command: str, files: Sequence[str], keys: Any) -> list[Any]:
    """The keys of ``--sign KEYFILE ...``, each looked up as the operator's."""
    found = []
    for path in files:
        token = read_token(path)
        key = keys.lookup(token)
        if key is None:
            _failed(store, command, token)
            raise DomainError(_unknown(keys, token, f"the key in {path}"))
        found.append(key)
    return found


def signed(
    store: Any,
    args: argparse.Namespace,
    command: str,
    named: Mapping[str, str | None],
) -> tuple[Any, dict[str, Any]]:
    """The submitter's key and each signer's actor by role, for a slip: the operator's key and
    ``--sign`` keys together sign as ``rights.SIGNERS`` says; ``named``: the old flags by role."""
    from service_layer.operators.rights import CLI_COMMANDS
    from service_layer.operators.signers import SignersRefused, signers

    keys = key_store(store, args)
    key = authenticate(store, args, command, keys=keys)
    others = cosigners(store, command, args.sign, keys)
    what = f"paigow {command}"
    try:
        actors = signers(
            CLI_COMMANDS[command], what, [key, *others], named, {r: f"--{r}" for r in named}
        )
    except SignersRefused as refused:
        raise DomainError(str(refused)) from None
    return key, dict(actors)


def command_answer(table_id: str, command_id: str, result: Any) -> dict[str, Any]:
    """What a writing command prints: the table, the command id, the table's version after it,
    whether it was a replay, and the types of the events recorded."""
    return {
        "table_id": table_id,
        "command_id": command_id,
        "version": result.state.version,
        "replayed": result.replayed,
        "events": [r.type for r in result.events],
    }
