"""API keys: each bound to one actor and one role, only its SHA-256 stored, and trusted only as
far as the log records it (R5/R19).

A token is 32 random bytes (``secrets``), shown once when the key is created; the database holds
``sha256(token)`` and a short ``key_id`` (the first 12 hex digits of that hash) to list and revoke
keys by. A plain hash, not a slow password hash, is enough: the token is random and long, so
there is nothing to guess from the hash, and every request checks a key.

Every change is a system event, sealed at once, written before the ``api_keys`` row:
``api_key_created`` (with the token's hash, never the token), ``api_key_revoked``,
``api_key_role_changed`` (with its reason). The row is an index for listing; a key authenticates
only as the log says (``ledger.py``): an inserted or edited row changes nothing, and ``list``
shows a row the log does not back as such. A store that cannot sign refuses a key's creation:
an unsealed event cannot be told from an insider's.

Roles and what each may do: ``rights.py``.
"""

from __future__ import annotations

import builtins
import secrets
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Column, MetaData, String, Table, UniqueConstraint, insert, select, update

from eventlog.system_events import ApiKeyCreated, ApiKeyRevoked, ApiKeyRoleChanged

# ``ApiKey`` and ``token_hash`` are the ledger's (the lookup every request runs), named here too.
from service_layer.operators.ledger import ApiKey as ApiKey
from service_layer.operators.ledger import KeyLedger
from service_layer.operators.ledger import token_hash as token_hash
from service_layer.operators.rights import ROLES, Role
from service_layer.system_stream import SystemStream
from table_core.ports import Actor, EventStore, StoreError, UntaggedEvents

TOKEN_PREFIX = "pgw_"

metadata = MetaData()

#: The same columns as ``migrations/versions/0003_api_keys.py`` (a migration keeps its own frozen
#: copy). Not append-only: revoking a key sets ``revoked_at``; a key row is never deleted.
api_keys = Table(
    "api_keys",
    metadata,
    Column("key_hash", String(64), primary_key=True),
    Column("key_id", String(12), nullable=False),
    Column("actor_id", String(200), nullable=False),
    Column("role", String(20), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("revoked_at", String(32), nullable=True),
    UniqueConstraint("key_id", name="uq_api_keys_key_id"),
)


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def presented_key_id(token: str | None) -> str | None:
    """The would-be key id of a token that has a key's form, else ``None``; never the token."""
    if not token or not token.startswith(TOKEN_PREFIX):
        return None
    return token_hash(token)[:12]


def _check_role(role: str) -> Role:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
    return role


def _check(actor_id: str, role: str) -> Role:
    checked = _check_role(role)
    if not actor_id or len(actor_id) > 200 or not actor_id.isprintable():
        raise ValueError("an actor id is 1..200 printable characters")
    return checked


def _stamp(at: datetime) -> str:
    return at.isoformat()


def _by(by: Actor | None) -> dict[str, str]:
    """Who made the change, as the system event records it (default: the service itself)."""
    return {} if by is None else {"actor_id": by.id, "actor_role": by.role}


class KeyStore:
    """The keys beside ``store``: their events on its system stream, their rows here.

    ``on_untagged``: told when the system stream holds an event the store did not append;
    ``public_key``: the casino's, for a store without its signing key (``ledger.py``)."""

    def __init__(
        self,
        store: EventStore,
        on_untagged: Callable[[UntaggedEvents], Any] | None = None,
        public_key: bytes | None = None,
    ) -> None:
        self.store = store
        self.ledger = KeyLedger(store, on_untagged, public_key)
        self._system = SystemStream(store)
        self._write = threading.Lock()

    # --- the log ---------------------------------------------------------------------------

    def create(
        self, actor_id: str, role: str, at: datetime, *, by: Actor | None = None
    ) -> tuple[ApiKey, str]:
        """A new key and its token (shown once). ``by``: who creates it (recorded)."""
        checked = _check(actor_id, role)
        self._need_signer()
        token = new_token()
        digest = token_hash(token)
        key = ApiKey(digest[:12], actor_id, checked, _stamp(at))
        with self._write:
            self._record(
                ApiKeyCreated(
                    at=at,
                    key_id=key.key_id,
                    key_actor=actor_id,
                    role=checked,
                    key_hash=digest,
                    **_by(by),
                )
            )
            self._insert_row(digest, key)
        return key, token

    def lookup(self, token: str) -> ApiKey | None:
        """The active key of ``token`` as the log records it, or ``None`` (``ledger.lookup``)."""
        return self.ledger.lookup(token)

    def unbacked_row(self, token: str) -> bool:
        """Whether ``token`` has a row that says active though the log does not (asked after a
        failed lookup): an INSERTed key, or a revoked one whose row was edited back to life.
        R5/R19: refused all the same; the caller says so and records the failure."""
        return self._active_row(token_hash(token))

    def get(self, key_id: str) -> ApiKey | None:
        """The key ``key_id`` as the log records it (revoked ones too), or ``None``."""
        self.ledger.catch_up()
        logged = self.ledger.by_id(key_id)
        return None if logged is None or logged.key_hash is None else logged.api_key()

    def list(self) -> list[ApiKey]:
        """Every key the log binds to a token, by creation."""
        self.ledger.catch_up()
        return [k.api_key() for k in self.ledger.recorded() if k.key_hash is not None]

    def has_active(self) -> bool:
        """Whether any key may authenticate now (none: the store's first key may be created
        without one, ``paigow keys create``)."""
        self.ledger.catch_up()
        return bool(self.ledger.active())

    def unbacked(self) -> builtins.list[ApiKey]:
        """Rows the log does not back as they stand: inserted or edited behind the store's back,
        or keys recorded before the log bound them to their token. None of them authenticates."""
        self.ledger.catch_up()
        out = []
        for digest, row in self._rows():
            logged = self.ledger.by_id(row.key_id)
            same = (
                logged is not None
                and logged.key_hash == digest
                and (logged.actor_id, logged.role) == (row.actor_id, row.role)
                and (logged.revoked_at is None) == (row.revoked_at is None)
            )
            if not same:
                out.append(row)
        return out

    def revoke(self, key_id: str, at: datetime, *, by: Actor | None = None) -> bool:
        """Revoke the active key ``key_id``; ``False`` when no active key has that id."""
        self._need_signer()
        with self._write:
            self.ledger.catch_up()
            logged = self.ledger.by_id(key_id)
            if logged is None or not logged.active:
                return False
            self._record(ApiKeyRevoked(at=at, key_id=key_id, **_by(by)))
            self._revoke_row(key_id, _stamp(at))
        return True

    def change_role(
        self, key_id: str, role: str, reason: str, at: datetime, *, by: Actor | None = None
    ) -> Role | None:
        """Give the active key ``key_id`` the role ``role``, for ``reason``: returns its former
        role, or ``None`` when no active key has that id. ``ValueError``: an unknown role, the
        key's own, or no reason."""
        checked = _check_role(role)
        if not reason.strip():
            raise ValueError("a change of role states its reason")
        self._need_signer()
        with self._write:
            self.ledger.catch_up()
            logged = self.ledger.by_id(key_id)
            if logged is None or not logged.active:
                return None
            if logged.role == checked:
                raise ValueError(f"key {key_id} already has the role {checked}")
            self._record(
                ApiKeyRoleChanged(
                    at=at,
                    key_id=key_id,
                    old_role=logged.role,
                    new_role=checked,
                    reason=reason.strip(),
                    **_by(by),
                )
            )
            self._role_row(key_id, checked)
        return logged.role

    def _record(self, event: Any) -> None:
        self._system.append([event], checkpoint=True)
        self.ledger.catch_up()

    def _need_signer(self) -> None:
        if getattr(self.store, "signer", None) is None:
            raise StoreError(
                "a key is recorded sealed, and this store cannot sign: set PAIGOW_SIGNING_KEY"
            )

    # --- the rows (an index; a subclass keeps them) ----------------------------------------

    def _insert_row(self, digest: str, key: ApiKey) -> None:
        raise NotImplementedError

    def _revoke_row(self, key_id: str, at: str) -> None:
        raise NotImplementedError

    def _role_row(self, key_id: str, role: Role) -> None:
        raise NotImplementedError

    def _active_row(self, digest: str) -> bool:
        """Whether a row of this token hash says the key is active."""
        raise NotImplementedError

    def _rows(self) -> builtins.list[tuple[str, ApiKey]]:
        raise NotImplementedError


class MemoryKeyStore(KeyStore):
    """Keys of a ``memory://`` store and of tests: the rows in a dict."""

    def __init__(
        self,
        store: EventStore,
        on_untagged: Callable[[UntaggedEvents], Any] | None = None,
        public_key: bytes | None = None,
    ) -> None:
        super().__init__(store, on_untagged, public_key)
        self.rows: dict[str, ApiKey] = {}

    def _insert_row(self, digest: str, key: ApiKey) -> None:
        self.rows[digest] = key

    def _revoke_row(self, key_id: str, at: str) -> None:
        self._replace_rows(key_id, revoked_at=at)

    def _role_row(self, key_id: str, role: Role) -> None:
        self._replace_rows(key_id, role=role, revoked_at=None)

    def _replace_rows(self, key_id: str, **changes: Any) -> None:
        for digest, row in self.rows.items():
            if row.key_id == key_id:
                self.rows[digest] = replace(row, **changes)

    def _active_row(self, digest: str) -> bool:
        row = self.rows.get(digest)
        return row is not None and row.revoked_at is None

    def _rows(self) -> builtins.list[tuple[str, ApiKey]]:
        return list(self.rows.items())


class SqlKeyStore(KeyStore):
    """Keys of a SQL store: the rows in its ``api_keys`` table (migration ``0003_api_keys``)."""

    @property
    def engine(self) -> Any:
        """The SQL store's engine: the rows are in its database."""
        return cast(Any, self.store).engine

    def _insert_row(self, digest: str, key: ApiKey) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(api_keys).values(
                    key_hash=digest,
                    key_id=key.key_id,
                    actor_id=key.actor_id,
                    role=key.role,
                    created_at=key.created_at,
                )
            )

    def _revoke_row(self, key_id: str, at: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(api_keys)
                .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=at)
            )

    def _role_row(self, key_id: str, role: Role) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(api_keys).where(api_keys.c.key_id == key_id).values(role=role))

    def _active_row(self, digest: str) -> bool:
        query = select(api_keys.c.key_id).where(
            api_keys.c.key_hash == digest, api_keys.c.revoked_at.is_(None)
        )
        with self.engine.connect() as conn:
            return conn.execute(query).first() is not None

    def _rows(self) -> builtins.list[tuple[str, ApiKey]]:
        query = select(
            api_keys.c.key_hash,
            api_keys.c.key_id,
            api_keys.c.actor_id,
            api_keys.c.role,
            api_keys.c.created_at,
            api_keys.c.revoked_at,
        ).order_by(api_keys.c.created_at, api_keys.c.key_id)
        with self.engine.connect() as conn:
            return [(row[0], ApiKey(*row[1:])) for row in conn.execute(query)]


def public_key_setting(path: str | None) -> bytes | None:
    """The casino's public key from the ``public_key`` setting (``PAIGOW_PUBLIC_KEY``, a PEM or
    hex file): how a process without the signing key checks which keys the sealed log records."""
    if not path:
        return None
    from pathlib import Path

    from eventlog.keys import load_public_key

    try:
        return load_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as error:
        raise StoreError(f"cannot read the public key {path}: {error}") from None


def key_store_for(
    store: object,
    on_untagged: Callable[[UntaggedEvents], Any] | None = None,
    public_key: bytes | None = None,
) -> KeyStore:
    """The key store beside an event store: its database, or a dict for ``memory://``."""
    if getattr(store, "engine", None) is None:
        return MemoryKeyStore(store, on_untagged, public_key)  # type: ignore[arg-type]
    return SqlKeyStore(store, on_untagged, public_key)  # type: ignore[arg-type]
