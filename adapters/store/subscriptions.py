"""The feed's named subscriptions: each consumer's filter and acknowledged position, kept by the
server (table ``feed_subscriptions``, migration 0014; docs/feed.md "Durable subscriptions").

Not part of the audit trail: a subscription records where a consumer stopped, nothing about the
tables. An acknowledgement only moves a position forward (an older one, from a consumer that got
an event twice, changes nothing), so a consumer may acknowledge at least once, in any order. A
``memory://`` store keeps them in a dict beside it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, replace
from typing import Any, Protocol

from sqlalchemy import BigInteger, Column, MetaData, String, Table, Text

from adapters.store.failover import pooled_connection

metadata = MetaData()

#: The same columns as ``migrations/versions/0014_event_feed.py``.
feed_subscriptions = Table(
    "feed_subscriptions",
    metadata,
    Column("name", String(100), primary_key=True),
    Column("types", Text, nullable=True),
    Column("table_ids", Text, nullable=True),
    Column("position", BigInteger, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("created_by", String(200), nullable=False),
    Column("acked_at", String(32), nullable=True),
)


@dataclass(frozen=True, slots=True)
class Subscription:
    """A named subscription: its filter (``None``: every type, every stream) and the last
    position its consumer acknowledged (0: none yet)."""

    name: str
    types: tuple[str, ...] | None
    table_ids: tuple[str, ...] | None
    position: int
    created_at: str
    created_by: str
    acked_at: str | None = None


class Subscriptions(Protocol):
    def create(self, subscription: Subscription) -> bool:
        """Record a new subscription; ``False`` (and nothing changed) when the name is taken."""
        ...

    def get(self, name: str) -> Subscription | None: ...

    def all(self) -> list[Subscription]:
        """Every subscription, by name."""
        ...

    def ack(self, name: str, position: int, at: str) -> Subscription | None:
        """Move the acknowledged position forward to ``position`` (never back); the subscription
        as it is after, ``None`` when there is none of that name."""
        ...

    def delete(self, name: str) -> bool: ...


class MemorySubscriptions:
    def __init__(self) -> None:
        self._rows: dict[str, Subscription] = {}
        self._lock = threading.Lock()

    def create(self, subscription: Subscription) -> bool:
        with self._lock:
            if subscription.name in self._rows:
                return False
            self._rows[subscription.name] = subscription
            return True

    def get(self, name: str) -> Subscription | None:
        return self._rows.get(name)

    def all(self) -> list[Subscription]:
        with self._lock:
            return [self._rows[name] for name in sorted(self._rows)]

    def ack(self, name: str, position: int, at: str) -> Subscription | None:
        with self._lock:
            found = self._rows.get(name)
            if found is None:
                return None
            if position > found.position:
                found = self._rows[name] = replace(found, position=position, acked_at=at)
            return found

    def delete(self, name: str) -> bool:
        with self._lock:
            return self._rows.pop(name, None) is not None


def _texts(value: str | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(json.loads(value))


def _text(values: tuple[str, ...] | None) -> str | None:
    return None if values is None else json.dumps(list(values))


_COLUMNS = "name, types, table_ids, position, created_at, created_by, acked_at"


def _subscription(row: Any) -> Subscription:
    name, types, table_ids, position, created_at, created_by, acked_at = row
    return Subscription(
        name, _texts(types), _texts(table_ids), int(position), created_at, created_by, acked_at
    )


class SqlSubscriptions:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        mark = "%s" if engine.dialect.paramstyle in ("format", "pyformat") else "?"
        self._insert = (
            f"INSERT INTO feed_subscriptions ({_COLUMNS}) "
            f"VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, {mark}, {mark})"
        )
        self._exists = f"SELECT 1 FROM feed_subscriptions WHERE name = {mark}"
        self._get = f"SELECT {_COLUMNS} FROM feed_subscriptions WHERE name = {mark}"
        self._all = f"SELECT {_COLUMNS} FROM feed_subscriptions ORDER BY name"
        self._ack = (
            f"UPDATE feed_subscriptions SET position = {mark}, acked_at = {mark} "
            f"WHERE name = {mark} AND position < {mark}"
        )
        self._delete = f"DELETE FROM feed_subscriptions WHERE name = {mark}"

    def _run(self, sql: str, parameters: tuple[Any, ...], fetch: bool = False) -> list[Any]:
        """One statement in its own transaction; its rows when ``fetch``."""
        with pooled_connection(self.engine) as conn:
            cursor = conn.cursor()
            try:
                cursor.execute(sql, parameters)
                rows = cursor.fetchall() if fetch else [cursor.rowcount]
                conn.commit()
                return list(rows)
            except BaseException:
                conn.rollback()
                raise
            finally:
                cursor.close()

    def create(self, subscription: Subscription) -> bool:
        s = subscription
        if self._run(self._exists, (s.name,), fetch=True):
            return False
        row = (s.name, _text(s.types), _text(s.table_ids), s.position, s.created_at,
               s.created_by, s.acked_at)  # fmt: skip
        try:
            self._run(self._insert, row)
        except Exception:
            if self._run(self._exists, (s.name,), fetch=True):  # created meanwhile: taken
                return False
            raise
        return True

    def get(self, name: str) -> Subscription | None:
        rows = self._run(self._get, (name,), fetch=True)
        return _subscription(rows[0]) if rows else None

    def all(self) -> list[Subscription]:
        return [_subscription(row) for row in self._run(self._all, (), fetch=True)]

    def ack(self, name: str, position: int, at: str) -> Subscription | None:
        self._run(self._ack, (position, at, name, position))
        return self.get(name)

    def delete(self, name: str) -> bool:
        return bool(self._run(self._delete, (name,))[0])


def subscriptions_for(store: Any) -> Subscriptions:
    """The subscriptions beside ``store``: its database's table, or a dict for ``memory://``."""
    engine = getattr(store, "engine", None)
    if engine is None:
        return MemorySubscriptions()
    return SqlSubscriptions(engine)
