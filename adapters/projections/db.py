"""Where the projections live and how they write: the events' own database, one transaction per
batch of events, the driver's SQL through SQLAlchemy's pooled connections (as the store does).

The projections live in the same database as the events so that a batch's rows and the
projection's checkpoint commit together (exactly once). On SQLite a write transaction is
``BEGIN IMMEDIATE``, as the store's appends are: it takes the one write lock before reading
anything, so it never fails "busy" half-way and waits (busy_timeout) behind a dealer's command.
On PostgreSQL the checkpoint rows are read ``FOR UPDATE``, so two runners never apply one batch
twice. An in-memory store gets a private in-memory SQLite database for its projections.

Statements are written with ``?`` and rewritten to the driver's style; ``INSERT ... ON CONFLICT
DO UPDATE`` is the same on both engines.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Engine, Table, create_engine
from sqlalchemy.pool import StaticPool

from adapters.projections.schema import metadata
from adapters.store.sql import driver_connection
from table_core.ports import RecordedEvent

_MEMORY_DATABASES: weakref.WeakKeyDictionary[Any, Engine] = weakref.WeakKeyDictionary()


def engine_of(store: Any) -> Engine:
    """The database a store's projections live in: the store's own (SQLite, PostgreSQL), or a
    private in-memory SQLite one for the in-memory store (created on first use, kept as long as
    the store lives)."""
    engine = getattr(store, "engine", None)
    if isinstance(engine, Engine):
        return engine
    try:
        return _MEMORY_DATABASES[store]
    except KeyError:
        pass
    memory = memory_engine()
    _MEMORY_DATABASES[store] = memory
    return memory


def memory_engine() -> Engine:
    """A private in-memory SQLite database holding the projections' tables, empty."""
    engine = create_engine(
        "sqlite://",
        poolclass=StaticPool,
        isolation_level="AUTOCOMMIT",
        connect_args={"check_same_thread": False},
    )
    metadata.create_all(engine)
    return engine


class Tx:
    """One open connection (inside a transaction when written through ``Database.write``)."""

    def __init__(self, conn: Any, placeholder: str) -> None:
        self.conn = conn
        self.placeholder = placeholder
        self._sql: dict[str, str] = {}

    def sql(self, text: str) -> str:
        cached = self._sql.get(text)
        if cached is None:
            cached = self._sql[text] = text.replace("?", self.placeholder)
        return cached

    def execute(self, text: str, params: Sequence[Any] = ()) -> Any:
        cursor = self.conn.cursor()
        cursor.execute(self.sql(text), tuple(params))
        return cursor

    def executemany(self, text: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if batch:
            self.conn.cursor().executemany(self.sql(text), batch)

    def all(self, text: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.execute(text, params).fetchall()]

    def one(self, text: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        row = self.execute(text, params).fetchone()
        return None if row is None else tuple(row)


class Database:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self.placeholder = "%s" if self.dialect == "postgresql" else "?"
        #: Appended to a SELECT that must lock the rows it reads until the commit.
        self.for_update = " FOR UPDATE" if self.dialect == "postgresql" else ""

    def _connection(self) -> contextlib.AbstractContextManager[Any]:
        return driver_connection(self.engine)

    @contextlib.contextmanager
    def write(self, before_commit: Callable[[], None] | None = None) -> Iterator[Tx]:
        """A write transaction: everything in it commits together, or nothing does."""
        with self._connection() as conn:
            if self.dialect == "postgresql":
                with conn.transaction():
                    yield Tx(conn, self.placeholder)
                    if before_commit is not None:
                        before_commit()
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(conn, self.placeholder)
                if before_commit is not None:
                    before_commit()
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def read(self) -> Iterator[Tx]:
        """A read-only snapshot: every query of a report sees the same committed state."""
        with self._connection() as conn:
            if self.dialect == "postgresql":
                with conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    yield Tx(conn, self.placeholder)
                return
            conn.execute("BEGIN")  # deferred: the snapshot is taken at the first read (WAL)
            try:
                yield Tx(conn, self.placeholder)
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")


def upsert_sql(table: Table) -> str:
    """Insert a whole row, or overwrite the row with the same primary key."""
    columns = [c.name for c in table.columns]
    keys = [c.name for c in table.primary_key.columns]
    updates = ", ".join(f"{name} = excluded.{name}" for name in columns if name not in keys)
    return (
        f"INSERT INTO {table.name} ({', '.join(columns)}) "
        f"VALUES ({', '.join('?' for _ in columns)}) "
        f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
    )


class Rows:
    """The rows of one table a batch touches: each read once, changed in memory, written once
    at the end of the batch (inside its transaction)."""

    def __init__(self, tx: Tx, table: Table, default: Callable[[tuple[Any, ...]], dict[str, Any]]):
        self.tx = tx
        self.table = table
        self.default = default
        self.columns = [c.name for c in table.columns]
        self.keys = [c.name for c in table.primary_key.columns]
        where = " AND ".join(f"{name} = ?" for name in self.keys)
        self._select = f"SELECT {', '.join(self.columns)} FROM {table.name} WHERE {where}"
        self._upsert = upsert_sql(table)
        self._rows: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._bools = {c.name for c in table.columns if c.type.python_type is bool}

    def get(self, *key: Any) -> dict[str, Any]:
        """The row for ``key`` (loaded, or the default for a new one), to be changed in place."""
        row = self._rows.get(key)
        if row is None:
            found = self.tx.one(self._select, key)
            if found is None:
                row = {name: 0 for name in self.columns} | self.default(key)
                row.update(zip(self.keys, key, strict=True))
            else:
                row = dict(zip(self.columns, found, strict=True))
                for name in self._bools:  # SQLite answers 0/1
                    row[name] = bool(row[name])
            self._rows[key] = row
        return row

    def flush(self) -> None:
        self.tx.executemany(
            self._upsert, ([row[name] for name in self.columns] for row in self._rows.values())
        )
        self._rows.clear()


def no_defaults(key: tuple[Any, ...]) -> dict[str, Any]:
    return {}


class HandledBatch:
    """A projection's batch: each event goes to the handler of its type (``handlers``: called
    with the batch, the event and its payload; other types change nothing), and the rows of its
    tables (``parts``) are written at the flush."""

    def __init__(self, handlers: Mapping[str, Callable[..., None]], *parts: Rows) -> None:
        self._handlers = handlers
        self._parts = parts

    def apply(self, event: RecordedEvent) -> None:
        handler = self._handlers.get(event.type)
        if handler is not None:
            handler(self, event, event.payload)

    def flush(self) -> None:
        for rows in self._parts:
            rows.flush()


def given(*conditions: tuple[str, Any]) -> tuple[list[str], list[Any]]:
    """The conditions (``"column = ?"``, value) of a query's optional filters whose value is
    given (not ``None``), in order, and their values (the statement's parameters)."""
    kept = [(clause, value) for clause, value in conditions if value is not None]
    return [clause for clause, _ in kept], [value for _, value in kept]


def table_rows(tx: Tx, table: Table, table_id: str | None, order: str = "") -> list[dict[str, Any]]:
    """A projection table's rows, as dicts by column name (booleans as ``bool``: SQLite answers
    0/1): one table's (``table_id``) or every table's, in ``order`` (an ORDER BY clause)."""
    stored = [c.name for c in table.columns]
    bools = [c.name for c in table.columns if c.type.python_type is bool]
    where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("", ())
    rows = []
    for values in tx.all(f"SELECT {', '.join(stored)} FROM {table.name} {where} {order}", params):
        row = dict(zip(stored, values, strict=True))
        for name in bools:
            row[name] = bool(row[name])
        rows.append(row)
    return rows
