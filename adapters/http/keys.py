"""API keys: each key is bound to one actor and one role, and only its SHA-256 is stored.

A token is 32 random bytes (``secrets``), shown once when the key is created; the database holds
``sha256(token)`` and a short ``key_id`` (the first 12 hex digits of that hash) to list and revoke
keys by. A plain hash, not a slow password hash, is enough: the token is random and long, so
there is nothing to guess from the hash, and every request checks a key.

Roles (issue 10): ``dealer`` (round commands), ``floor`` (rules changes with a reason, voids, the
bank's rotation, opening a table), ``cage`` (buy-in, cash-out), ``auditor`` (read and verify only),
``count`` (the count team: records a closed gaming day's drop, issue 18).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol, cast, get_args

from sqlalchemy import (
    Column,
    Engine,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    insert,
    select,
    update,
)

from adapters.store.failover import pooled_connection

Role = Literal["dealer", "floor", "cage", "auditor", "count"]
ROLES: tuple[Role, ...] = get_args(Role)
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


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as stored: never the token itself."""

    key_id: str
    actor_id: str
    role: Role
    created_at: str
    revoked_at: str | None = None


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _check_role(role: str) -> Role:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
    return role


def _changes(old: str, new: str, key_id: str) -> None:
    if old == new:
        raise ValueError(f"key {key_id} already has the role {new}")


def _check(actor_id: str, role: str) -> Role:
    checked = _check_role(role)
    if not actor_id or len(actor_id) > 200 or not actor_id.isprintable():
        raise ValueError("an actor id is 1..200 printable characters")
    return checked


def _stamp(at: datetime) -> str:
    return at.isoformat()


class KeyStore(Protocol):
    def create(self, actor_id: str, role: str, at: datetime) -> tuple[ApiKey, str]: ...

    def lookup(self, token: str) -> ApiKey | None: ...

    def list(self) -> list[ApiKey]: ...

    def revoke(self, key_id: str, at: datetime) -> bool: ...

    def change_role(self, key_id: str, role: str) -> Role | None: ...


class MemoryKeyStore:
    """Keys of a ``memory://`` server and of tests: the same rules, held in a dict."""

    def __init__(self) -> None:
        self._keys: dict[str, ApiKey] = {}
        self._lock = threading.Lock()

    def create(self, actor_id: str, role: str, at: datetime) -> tuple[ApiKey, str]:
        checked = _check(actor_id, role)
        token = new_token()
        digest = token_hash(token)
        key = ApiKey(digest[:12], actor_id, checked, _stamp(at))
        with self._lock:
            self._keys[digest] = key
        return key, token

    def lookup(self, token: str) -> ApiKey | None:
        key = self._keys.get(token_hash(token))
        return key if key is not None and key.revoked_at is None else None

    def list(self) -> list[ApiKey]:
        return sorted(self._keys.values(), key=lambda k: (k.created_at, k.key_id))

    def revoke(self, key_id: str, at: datetime) -> bool:
        with self._lock:
            for digest, key in self._keys.items():
                if key.key_id == key_id and key.revoked_at is None:
                    self._keys[digest] = replace(key, revoked_at=_stamp(at))
                    return True
        return False

    def change_role(self, key_id: str, role: str) -> Role | None:
        """Give the active key ``key_id`` the role ``role``: returns its former role, or ``None``
        when no active key has that id. ``ValueError``: an unknown role, or the key's own."""
        checked = _check_role(role)
        with self._lock:
            for digest, key in self._keys.items():
                if key.key_id == key_id and key.revoked_at is None:
                    _changes(key.role, checked, key_id)
                    self._keys[digest] = replace(key, role=checked)
                    return key.role
        return None


class SqlKeyStore:
    """Keys in the store's database (table ``api_keys``, migration ``0003_api_keys``)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        mark = "%s" if engine.dialect.paramstyle in ("format", "pyformat") else "?"
        self._lookup_sql = (
            "SELECT key_id, actor_id, role, created_at FROM api_keys "
            f"WHERE key_hash = {mark} AND revoked_at IS NULL"
        )

    def create(self, actor_id: str, role: str, at: datetime) -> tuple[ApiKey, str]:
        checked = _check(actor_id, role)
        token = new_token()
        digest = token_hash(token)
        key = ApiKey(digest[:12], actor_id, checked, _stamp(at))
        with self.engine.begin() as conn:
            conn.execute(
                insert(api_keys).values(
                    key_hash=digest,
                    key_id=key.key_id,
                    actor_id=actor_id,
                    role=checked,
                    created_at=key.created_at,
                )
            )
        return key, token

    def lookup(self, token: str) -> ApiKey | None:
        # Every request of the API runs this: the driver's own SQL on a pooled connection (as the
        # event store's hot path does), not a Core statement compiled and executed per call.
        # pooled_connection: a lost PostgreSQL connection (a failover) is StoreUnavailable (503).
        with pooled_connection(self.engine) as conn:
            cursor = conn.cursor()
            cursor.execute(self._lookup_sql, (token_hash(token),))
            row = cursor.fetchone()
            cursor.close()
        return None if row is None else ApiKey(row[0], row[1], row[2], row[3])

    def list(self) -> list[ApiKey]:
        query = select(
            api_keys.c.key_id,
            api_keys.c.actor_id,
            api_keys.c.role,
            api_keys.c.created_at,
            api_keys.c.revoked_at,
        ).order_by(api_keys.c.created_at, api_keys.c.key_id)
        with self.engine.connect() as conn:
            return [ApiKey(*row) for row in conn.execute(query)]

    def revoke(self, key_id: str, at: datetime) -> bool:
        with self.engine.begin() as conn:
            done = conn.execute(
                update(api_keys)
                .where(api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=_stamp(at))
            )
        return bool(done.rowcount)

    def change_role(self, key_id: str, role: str) -> Role | None:
        """As ``MemoryKeyStore.change_role``: read and changed in one transaction, the update
        conditioned on the role read (a concurrent change makes this one find no key)."""
        checked = _check_role(role)
        active = (api_keys.c.key_id == key_id, api_keys.c.revoked_at.is_(None))
        with self.engine.begin() as conn:
            old = conn.execute(select(api_keys.c.role).where(*active)).scalar_one_or_none()
            if old is None:
                return None
            _changes(old, checked, key_id)
            done = conn.execute(
                update(api_keys).where(*active, api_keys.c.role == old).values(role=checked)
            )
        return cast(Role, old) if done.rowcount else None


def key_store_for(store: object) -> KeyStore:
    """The key store beside an event store: its database, or a dict for ``memory://``."""
    engine = getattr(store, "engine", None)
    return MemoryKeyStore() if engine is None else SqlKeyStore(engine)
