"""Whether a server can do its work: a store that cannot sign is not ready (issue 19).

Every round's end signs a checkpoint over the chain head (docs/store.md), so a service over a
store without a signing key, or with a key that is not the log's, would accept rounds it cannot
close. ``paigow serve`` and ``paigow simulate`` therefore refuse to start on such a store
(:func:`require_signing_key`, one line naming the command to run first, exit 2:
adapters/store/key_advice.py);
``paigow serve --read-only`` starts anyway and refuses every command (503 ``read_only``).

``/ready`` asks :func:`readiness` on every call: the store answers, its schema is at the head
revision, the signing key is the one that signs the log (its last checkpoint's, or the key that
one rotated to), and nothing refuses
commands (a failed verification, a read-only server, a log tampered with: ``log_tampered``). The
last checkpoint read here also gives ``/metrics`` its checkpoint age.

:func:`store_role_warning`: a PostgreSQL login that is a superuser, owns the schema or may act
as its owner can change history with plain SQL (drop a trigger, delete rows); the server runs on
it all the same, with one warning line at start and a ``warnings`` entry in ``/ready``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from adapters.store.key_advice import key_refusal, signing_key_id
from eventlog.canonical import parse_time
from table_core.ports import SigningKeyMissing

#: The log's last checkpoint: who signed it and when (one indexed row).
LAST_CHECKPOINT = (
    "SELECT key_id, signed_at FROM checkpoints ORDER BY position DESC, id DESC LIMIT 1"
)
SCHEMA_REVISION = "SELECT version_num FROM alembic_version"


class SigningKeyRefused(SigningKeyMissing):
    """The store has no usable signing key: the server or the simulation does not start."""


@dataclass(frozen=True)
class LastCheckpoint:
    key_id: str
    at: datetime


def last_checkpoint(store: Any) -> LastCheckpoint | None:
    """The log's last checkpoint (``None``: none yet). Raises what the store raises."""
    engine = getattr(store, "engine", None)
    if engine is None:  # the in-memory store
        found = store.checkpoints()
        return LastCheckpoint(found[-1].key_id, found[-1].at) if found else None
    with store._connection() as conn:
        row = conn.execute(LAST_CHECKPOINT).fetchone()
    return LastCheckpoint(str(row[0]), parse_time(str(row[1]))) if row else None


def signing_problem(store: Any) -> str | None:
    """Why the store cannot sign the checkpoints its log needs, or ``None``: no key at all, or a
    key that is not the one signing the log (the last checkpoint's, or the key it rotated to):
    its checkpoints would not verify with the key the regulator holds. A log with no checkpoint
    yet takes any key."""
    signer = getattr(store, "signer", None)
    if signer is None:
        return "no signing key"
    needed = signing_key_id(store)
    if needed is not None and needed != signer.key_id:
        return f"the signing key {signer.key_id} is not the key {needed} that signs the log"
    return None


def require_signing_key(store: Any, shown_url: str, *, read_only_hint: bool) -> None:
    """Raise :class:`SigningKeyRefused` (one line for the CLI, naming the command to run first,
    adapters/store/key_advice.py) when the store cannot sign."""
    refusal = key_refusal(store, shown_url)
    if refusal is None:
        return
    hint = (
        f"; `paigow serve --read-only --db {shown_url}` answers queries without it"
        if read_only_hint
        else ""
    )
    raise SigningKeyRefused(refusal + hint)


@dataclass
class Readiness:
    """What ``/ready`` answers: each check's result (``True`` or the reason it fails)."""

    checks: dict[str, bool | str] = field(default_factory=dict)
    last: LastCheckpoint | None = None
    #: The primary's ``host:port`` and the failover state (a PostgreSQL store; else ``None``).
    primary: str | None = None
    failover: dict[str, Any] | None = None

    @property
    def reason(self) -> str | None:
        """The first failing check as ``name: reason``, or ``None`` when ready."""
        for name, result in self.checks.items():
            if result is not True:
                return f"{name}: {result}"
        return None


def readiness(store: Any, service: Any, head: str) -> Readiness:
    """Every check, in order; a store that does not answer fails the checks that need it."""
    found = Readiness()
    try:
        revision = _schema_revision(store)
        found.checks["store"] = True
    except Exception as error:  # any failure to answer: the store is not reachable
        found.checks["store"] = f"the store does not answer: {_one_line(error)}"
        found.checks["schema"] = found.checks["signing_key"] = "not checked"
    else:
        found.checks["schema"] = (
            True if revision in (None, head) else f"the schema is at {revision}, not {head}"
        )
        found.checks["signing_key"] = _key_check(store, found)
    found.checks["commands"] = _commands_check(service)
    watch = getattr(store, "primary_watch", None)
    if watch is not None:
        why, found.failover = watch.reason_and_state()
        found.primary = None if found.failover["in_progress"] else watch.primary
        if why is not None:
            # A failover (noticed by any of these checks, the first or a later one): the store
            # has no primary, whatever answered, and /ready says so as its field does, since when.
            found.checks["store"] = why
            found.checks["schema"] = found.checks["signing_key"] = "not checked"
    return found


def failover_reason(store: Any) -> str | None:
    """ "no primary: failover in progress since …" while the store knows of one, else ``None``."""
    watch = getattr(store, "primary_watch", None)
    return watch.reason() if watch is not None else None


def _schema_revision(store: Any) -> str | None:
    """The database's revision (``None`` for the in-memory store, which has no schema)."""
    if getattr(store, "engine", None) is None:
        store.stream_version("system")  # answers, or raises
        return None
    with store._connection() as conn:
        row = conn.execute(SCHEMA_REVISION).fetchone()
    return str(row[0]) if row else "nothing"


def _key_check(store: Any, found: Readiness) -> bool | str:
    signer = getattr(store, "signer", None)
    try:
        found.last = last_checkpoint(store)
    except Exception as error:
        return f"the last checkpoint cannot be read: {_one_line(error)}"
    if signer is None:
        return "no signing key"
    needed = signing_key_id(store) if found.last is not None else None
    if found.last is None or needed == signer.key_id:
        return True
    if needed == found.last.key_id:
        return f"the key {signer.key_id} did not sign the last checkpoint ({found.last.key_id})"
    return f"the key {signer.key_id} is not the key {needed} the log rotated signing to"


def _commands_check(service: Any) -> bool | str:
    if service.read_only:
        return f"read-only: {service.read_only}"
    tampered = getattr(service, "tampered", None)
    if tampered:
        return f"log_tampered: commands are refused: {tampered}"
    if service.refusing:
        return f"commands are refused: {service.refusing}"
    return True


#: The login's powers over the schema the store lives in (PostgreSQL).
ROLE_POWERS = (
    "SELECT r.rolname, r.rolsuper, n.nspowner = r.oid, pg_has_role(r.oid, n.nspowner, 'MEMBER'), "
    "pg_get_userbyid(n.nspowner), n.nspname FROM pg_roles r, pg_namespace n "
    "WHERE r.rolname = current_user AND n.nspname = current_schema()"
)


def store_role_warning(store: Any) -> str | None:
    """Why the PostgreSQL login the store uses is more than the service role, or ``None`` (any
    other store, or a login that may only read and append: docs/operations.md)."""
    engine = getattr(store, "engine", None)
    if engine is None or engine.dialect.name != "postgresql":
        return None
    with store._connection() as conn:
        row = conn.execute(ROLE_POWERS).fetchone()
    if row is None:
        return None
    login, superuser, owner, member, schema_owner, schema = row
    if superuser:
        what = "a superuser"
    elif owner:
        what = f"the owner of schema {schema}"
    elif member:
        what = f"a member of {schema_owner}, the owner of schema {schema}"
    else:
        return None
    return (
        f"the store's login {login} is {what}: it can change history with plain SQL (drop a "
        "trigger, delete or rewrite rows); run the server as the service role "
        "(docs/operations.md, PostgreSQL roles)"
    )


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:200]
