"""The floor's sign-in sessions, kept by the server (table ``floor_sessions``, migration 0013).

A session is a random id (32 bytes) that the signed cookie carries; the database holds its SHA-256,
the API key it signed in with, its expiry and, once signed out, when it ended. Every floor request
reads the row and then the key as the log records it (R19: never the ``api_keys`` row): the actor
and the role are the key's as they are now, and
the session is over as soon as it is signed out, expires, or its key is revoked. Every worker
process of ``paigow serve --workers N`` reads the same rows, so a sign-out in one ends the session
in all. A ``memory://`` server keeps them in a dict beside its keys.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from datetime import datetime
from typing import Protocol

from sqlalchemy import BigInteger, Column, MetaData, String, Table

from adapters.store.failover import pooled_connection
from service_layer.operators.keys import ApiKey, KeyStore, SqlKeyStore

metadata = MetaData()

#: The same columns as ``migrations/versions/0013_floor_sessions.py``.
floor_sessions = Table(
    "floor_sessions",
    metadata,
    Column("session_hash", String(64), primary_key=True),
    Column("key_id", String(12), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("expires_at", BigInteger, nullable=False),
    Column("ended_at", String(32), nullable=True),
)

#: Rows of sessions that expired this long ago are cleared at a sign-in (seconds).
_KEEP_EXPIRED = 86_400


def session_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8")).hexdigest()


class SessionStore(Protocol):
    def open(self, key_id: str, expires: int, at: datetime) -> str:
        """A new session of the key ``key_id`` until ``expires`` (epoch seconds): its id."""
        ...

    def key_of(self, session_id: str, now: int) -> ApiKey | None:
        """The key of a session still open at ``now`` (epoch seconds) whose key is not revoked;
        ``None`` otherwise."""
        ...

    def end(self, session_id: str, at: datetime) -> None: ...


class MemorySessionStore:
    def __init__(self, keys: KeyStore) -> None:
        self._keys = keys
        self._open: dict[str, tuple[str, int]] = {}  # session hash: (key id, expires)
        self._lock = threading.Lock()

    def open(self, key_id: str, expires: int, at: datetime) -> str:
        session_id = secrets.token_urlsafe(32)
        with self._lock:
            self._open[session_hash(session_id)] = (key_id, expires)
        return session_id

    def key_of(self, session_id: str, now: int) -> ApiKey | None:
        found = self._open.get(session_hash(session_id))
        if found is None or found[1] <= now:
            return None
        return _active(self._keys, found[0])

    def end(self, session_id: str, at: datetime) -> None:
        with self._lock:
            self._open.pop(session_hash(session_id), None)


def _active(keys: KeyStore, key_id: str) -> ApiKey | None:
    """The session's key as the log records it now (R19: never the ``api_keys`` row, which an
    insider could edit), or ``None`` once revoked."""
    key = keys.get(key_id)
    return key if key is not None and key.revoked_at is None else None


class SqlSessionStore:
    def __init__(self, keys: SqlKeyStore) -> None:
        self._keys = keys
        self.engine = engine = keys.engine
        mark = "%s" if engine.dialect.paramstyle in ("format", "pyformat") else "?"
        self._key_sql = (
            "SELECT key_id FROM floor_sessions "
            f"WHERE session_hash = {mark} AND ended_at IS NULL AND expires_at > {mark}"
        )
        self._open_sql = (
            "INSERT INTO floor_sessions (session_hash, key_id, created_at, expires_at) "
            f"VALUES ({mark}, {mark}, {mark}, {mark})"
        )
        self._clear_sql = f"DELETE FROM floor_sessions WHERE expires_at < {mark}"
        self._end_sql = (
            f"UPDATE floor_sessions SET ended_at = {mark} "
            f"WHERE session_hash = {mark} AND ended_at IS NULL"
        )

    def open(self, key_id: str, expires: int, at: datetime) -> str:
        session_id = secrets.token_urlsafe(32)
        row = (session_hash(session_id), key_id, at.isoformat(), expires)
        self._run((self._clear_sql, (int(at.timestamp()) - _KEEP_EXPIRED,)), (self._open_sql, row))
        return session_id

    def key_of(self, session_id: str, now: int) -> ApiKey | None:
        with pooled_connection(self.engine) as conn:
            cursor = conn.cursor()
            cursor.execute(self._key_sql, (session_hash(session_id), now))
            row = cursor.fetchone()
            cursor.close()
        return None if row is None else _active(self._keys, row[0])

    def end(self, session_id: str, at: datetime) -> None:
        self._run((self._end_sql, (at.isoformat(), session_hash(session_id))))

    def _run(self, *statements: tuple[str, tuple[object, ...]]) -> None:
        """The statements in one transaction."""
        with pooled_connection(self.engine) as conn:
            cursor = conn.cursor()
            try:
                for sql, parameters in statements:
                    cursor.execute(sql, parameters)
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            finally:
                cursor.close()


def session_store_for(keys: KeyStore) -> SessionStore:
    """The sessions beside a key store: in its database, or in memory for a ``memory://`` one."""
    if isinstance(keys, SqlKeyStore):
        return SqlSessionStore(keys)
    return MemorySessionStore(keys)
