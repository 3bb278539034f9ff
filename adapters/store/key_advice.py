"""Which signing key a store needs, and the one line that says what to run when a command has none
or another one.

A store's log is signed by one key at a time: the key of its last checkpoint, or the key a
``signing_key_rotated`` event of that key handed signing over to (``paigow keys signing rotate``).
A store with no checkpoint yet has no signed history and takes any key. Every writing command
checks this before it writes anything (``paigow serve``, ``simulate``, ``keys``, the operators'
commands): without the key, an append could not be tagged and would read, to the key's holder, as a
row inserted behind the store's back (store/tags.py); with another key, its checkpoints would not
verify with the key the regulator holds. The fix named is a command that works for that store:
``paigow keys signing create --db sqlite:///…`` beside an embedded database (where every command
finds it), ``--out FILE`` and ``PAIGOW_SIGNING_KEY`` for PostgreSQL, the file of the key that signs
the log when there is one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eventlog.keys import key_paths
from eventlog.system_events import SYSTEM_STREAM
from table_core.ports import SigningKeyMissing

LAST_SIGNER = "SELECT key_id, position FROM checkpoints ORDER BY position DESC, id DESC LIMIT 1"
LAST_ROTATION = (
    "SELECT e.payload, g.position FROM events e JOIN event_log g ON g.event_id = e.id "
    "WHERE e.stream_id = ? AND e.type = 'signing_key_rotated' ORDER BY e.version DESC LIMIT 1"
)
#: The file name a PostgreSQL store's first key is suggested under (the operator's choice).
NEW_KEY_FILE = "signing-key.pem"
SHOW = "`paigow keys signing show --key FILE` prints a file's key id"


def signing_key_id(store: Any) -> str | None:
    """The key that signs the store's next checkpoint (``None``: no signed history yet, any key
    will do): the last checkpoint's, or the key a rotation by that key handed signing over to.
    A rotation counts only once a checkpoint of its old key seals it (``paigow keys signing
    rotate`` appends it so): an unsealed one, which anyone who can insert a row could write,
    changes nothing here (and the audit names it)."""
    last, rotation = _last_signer_and_rotation(store)
    if last is None:
        return None
    key_id, sealed_through = last
    if rotation is not None:
        payload, position = rotation
        if payload.get("old_key_id") == key_id and position <= sealed_through:
            return str(payload["new_key_id"])
    return key_id


Signed = tuple[str, int]  # (key id, position) of a checkpoint
Rotation = tuple[dict[str, Any], int]  # (payload, position) of a signing_key_rotated event


def _last_signer_and_rotation(store: Any) -> tuple[Signed | None, Rotation | None]:
    engine = getattr(store, "engine", None)
    if engine is None:  # the in-memory store
        checkpoints = store.checkpoints()
        rotations = [
            (dict(e.payload), int(e.position))
            for e in store.read_stream(SYSTEM_STREAM)
            if e.type == "signing_key_rotated"
        ]
        last = (checkpoints[-1].key_id, checkpoints[-1].position) if checkpoints else None
        return last, (rotations[-1] if rotations else None)
    with store._connection() as conn:
        row = conn.execute(LAST_SIGNER).fetchone()
        if row is None:
            return None, None
        found = conn.execute(store.sql(LAST_ROTATION), (SYSTEM_STREAM,)).fetchone()
    signed = (str(row[0]), int(row[1]))
    if found is None:
        return signed, None
    payload = found[0]
    if isinstance(payload, (bytes, bytearray, memoryview)):
        payload = bytes(payload).decode("utf-8")
    return signed, (
        json.loads(payload) if isinstance(payload, str) else dict(payload),
        int(found[1]),
    )


def store_url(store: Any) -> str:
    """The store's URL as people see it (the password masked)."""
    engine = getattr(store, "engine", None)
    return "memory://" if engine is None else engine.url.render_as_string(hide_password=True)


def key_refusal(store: Any, shown_url: str | None = None) -> str | None:
    """Why a writing command must not run with the store's key, and what to run instead, as one
    line; ``None`` when the key is the one the log needs (or the log has none yet and a key is
    given)."""
    shown_url = shown_url or store_url(store)
    signer = getattr(store, "signer", None)
    needed = signing_key_id(store)
    if signer is not None and needed in (None, signer.key_id):
        return None
    if needed is not None:
        have = (
            f"no signing key for {shown_url}"
            if signer is None
            else f"the signing key {signer.key_id} is not the key of {shown_url}"
        )
        return (
            f"{have}: its log is signed by key {needed}; set PAIGOW_SIGNING_KEY to that key's PEM "
            f"file ({SHOW}); another key takes over only by a rotation that key signs; nothing "
            "was written"
        )
    return f"no signing key for {shown_url}: {first_key_advice(store, shown_url)}"


def first_key_advice(store: Any, shown_url: str) -> str:
    """What to run for a store with no signed history and no key, per kind of store."""
    database = _sqlite_file(store)
    if database is not None:
        private, public = key_paths(database)
        if public.exists() and not private.exists():
            return (
                f"{public} is its public half: set PAIGOW_SIGNING_KEY to the private key's PEM "
                "file; nothing was written"
            )
        return (
            f"create one first with `paigow keys signing create --db {shown_url}` (kept beside "
            "the database, where every command finds it); nothing was written"
        )
    return (
        f"create one first with `paigow keys signing create --out {NEW_KEY_FILE}` and set "
        f"PAIGOW_SIGNING_KEY to that file (e.g. `export PAIGOW_SIGNING_KEY=$PWD/{NEW_KEY_FILE}`); "
        "nothing was written"
    )


def _sqlite_file(store: Any) -> Path | None:
    engine = getattr(store, "engine", None)
    if engine is None or engine.url.get_backend_name() != "sqlite" or not engine.url.database:
        return None
    return Path(engine.url.database)


def require_the_logs_key(store: Any, shown_url: str | None = None) -> None:
    """``SigningKeyMissing`` (one line, the command to run first) unless the store's key is the
    one its log needs: what a writing command checks before it writes anything."""
    refusal = key_refusal(store, shown_url)
    if refusal is not None:
        raise SigningKeyMissing(refusal)
