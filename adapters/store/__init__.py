"""The event store adapters: ``open_store(url)`` for SQLite or PostgreSQL, and the in-memory fake.

URLs: ``sqlite:///path.db`` (default: the ``db`` setting, ``$PAIGOW_DB``, else ``paigow.db`` in the
working directory; adapters/settings.py),
``postgresql+psycopg://postgres@127.0.0.1:5432/test`` (``postgresql://`` means psycopg 3 too),
``memory://`` for the in-memory fake.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError

from adapters.store import migrate
from adapters.store.failover import DEFAULT_RETRY_S
from adapters.store.memory import InMemoryEventStore
from adapters.store.postgres import PostgresEventStore
from adapters.store.signing import Signer, configured_signer, create_key_files, key_beside
from adapters.store.sql import SqlEventStore
from adapters.store.sqlite import SqliteEventStore
from eventlog.keys import key_paths, load_public_key
from table_core.ports import StoreError, Upcasters

if TYPE_CHECKING:
    from adapters.settings import Settings

__all__ = [
    "InMemoryEventStore",
    "PostgresEventStore",
    "SqlEventStore",
    "SqliteEventStore",
    "database_problem",
    "database_url",
    "open_store",
    "reaching",
    "shown_url",
]

SQLITE_BUSY_TIMEOUT_S = 30


#: What to write instead, in every refusal of a database URL.
URL_FORMS = "use sqlite:///FILE, postgresql+psycopg://USER@HOST:PORT/DB or memory://"


def database_url(url: str) -> URL:
    """The URL given (callers pass ``--db``, else the ``db`` setting); PostgreSQL means
    psycopg 3. Text that is no URL is one ``StoreError`` line: a file's path (no ``:``) is
    answered with its own ``sqlite:///`` URL, to run as it is; anything else is never echoed, as
    it may hold a password."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        if ":" not in url:
            raise StoreError(
                f"--db and PAIGOW_DB take a database URL, not a file's path: "
                f"sqlite:///{url} names that file"
            ) from None
        raise StoreError(f"not a database URL (--db or PAIGOW_DB): {URL_FORMS}") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def shown_url(url: URL) -> str:
    """The URL for people, logs and error lines: the password masked."""
    return url.render_as_string(hide_password=True)


def _reason(error: BaseException, url: URL) -> str:
    """The driver's own words on one line (psycopg adds a second line of advice), never the
    password even if a driver echoed it."""
    cause = getattr(error, "orig", None) or error
    text = " ".join(str(cause).split("\n")[0].split()) or type(cause).__name__
    if url.password:
        text = text.replace(str(url.password), "***")
    return text


def database_problem(url: URL, error: BaseException) -> str:
    """One line for a database that cannot be reached or opened: where, why, and what to do."""
    where, reason = shown_url(url), _reason(error, url)
    if url.get_backend_name() == "sqlite":
        return (
            f"cannot open the database at {where}: {reason}; check that the path is a paigow "
            f"database, its folder exists and is writable"
        )
    if "does not exist" in reason and "database" in reason:
        return (
            f"no database at {where}: {reason}; create it (`{_createdb(url)}`), then "
            f"`paigow db upgrade --db {where}`"
        )
    return (
        f"cannot reach the database at {where}: {reason}; check that the server runs there and "
        f"that the URL, user and password are right"
    )


def _createdb(url: URL) -> str:
    """The ``createdb`` line for the URL's server, login and name (a multi-host URL: its first)."""
    import shlex

    words = ["createdb"]
    if url.host:
        words += ["-h", url.host]
    if url.port:
        words += ["-p", str(url.port)]
    if url.username:
        words += ["-U", url.username]
    return shlex.join([*words, url.database or ""])


@contextlib.contextmanager
def reaching(url: URL) -> Iterator[None]:
    """The driver's failure to reach or open the database at ``url`` as one ``StoreError`` line
    (the CLI prints it and exits 2) instead of a SQLAlchemy traceback."""
    try:
        yield
    except DBAPIError as error:
        raise StoreError(database_problem(url, error)) from error


def sqlite_engine(url: URL) -> Engine:
    engine = create_engine(
        url,
        isolation_level="AUTOCOMMIT",  # the store issues BEGIN IMMEDIATE itself
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        # WAL: readers never block the writer. synchronous=FULL: a committed command survives a
        # power cut, not only a crash (no chip is ever lost). busy_timeout: wait for the lock.
        dbapi_connection.execute("PRAGMA journal_mode=WAL")
        dbapi_connection.execute("PRAGMA synchronous=FULL")
        dbapi_connection.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
        dbapi_connection.execute("PRAGMA foreign_keys=ON")

    return engine


#: A pooled PostgreSQL connection idle this long is pinged before use (see ``postgres_engine``).
PING_AFTER_IDLE_S = 2.0


def postgres_engine(url: URL, pool_size: int = 5) -> Engine:
    # AUTOCOMMIT at the driver: reads are single statements, writes open explicit transactions.
    # A host that drops packets would otherwise hold a command for the OS's TCP timeout (minutes).
    connect_args = {} if "connect_timeout" in url.query else {"connect_timeout": 10}
    engine = create_engine(
        url, isolation_level="AUTOCOMMIT", pool_size=pool_size, connect_args=connect_args
    )

    # SQLAlchemy's ``pool_pre_ping`` pings on EVERY checkout: one more round trip for each append
    # and each API key lookup. A connection handed back moments ago is alive (the server would
    # have to restart in between), so only one idle for longer is pinged; a dead one is replaced
    # before use, as pre-ping would (``DisconnectionError`` makes the pool take another).
    @event.listens_for(engine, "checkin")
    def _returned(_dbapi_connection, record):  # type: ignore[no-untyped-def]
        if record is not None:
            record.info["returned_at"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection, record, _proxy):  # type: ignore[no-untyped-def]
        returned = record.info.get("returned_at")
        if returned is not None and time.monotonic() - returned < PING_AFTER_IDLE_S:
            return
        try:
            dbapi_connection.execute("SELECT 1")
            if not dbapi_connection.autocommit:  # leave no transaction open behind the ping
                dbapi_connection.rollback()
        except Exception as error:  # any failure: a broken connection, the pool reconnects
            raise DisconnectionError(str(error)) from error

    return engine


def _check_revision(engine: Engine, url: URL) -> None:
    with engine.connect() as connection:
        current = migrate.current_revision(connection)
        half = current is None and migrate.half_made(connection)
    head = migrate.head_revision()
    shown = url.render_as_string(hide_password=True)
    if half:
        raise StoreError(
            f"{shown} has tables but no schema revision: its creation was killed half-way; "
            "move it away (it was never usable) and start again"
        )
    newer = migrate.newer_than_code(current, url)
    if newer is not None:
        raise newer
    if current != head:
        raise StoreError(
            f"the database schema is at {current or 'nothing'}, this code needs {head}: "
            f"run `paigow db upgrade --db {shown}`"
        )


def open_store(
    url: str,
    *,
    signing_key: Signer | str | Path | None = None,
    upcasters: Upcasters | None = None,
    create: bool = True,
    retry_s: float = DEFAULT_RETRY_S,
) -> SqlEventStore | InMemoryEventStore:
    """The store at ``url``. A new SQLite file is created at the head schema revision, with a
    fresh signing key beside it unless one is configured; any other database must already be
    at the head revision (``paigow db upgrade``). The key comes from ``signing_key`` (callers pass
    the ``signing_key`` setting, ``$PAIGOW_SIGNING_KEY``, a PEM file), else from
    ``<db>.signing-key`` for SQLite. ``retry_s``: PostgreSQL's ``db_retry_s`` setting.

    ``create=False`` (every command but ``simulate``, ``serve`` and ``db upgrade``): a missing
    SQLite file is an error, not a new database, and no key file is made. A database that cannot
    be reached is one ``StoreError`` line naming the URL (password masked) either way."""
    parsed = database_url(url)
    signer = configured_signer(signing_key)
    if parsed.drivername == "memory":
        return InMemoryEventStore(signer or Signer.generate(), upcasters)
    if parsed.get_backend_name() == "sqlite":
        with reaching(parsed):
            return _open_sqlite(parsed, signer, upcasters, create)
    if parsed.get_backend_name() == "postgresql":
        engine = postgres_engine(parsed)
        try:
            with reaching(parsed):
                _check_revision(engine, parsed)
                store = PostgresEventStore(
                    engine, signer=signer, upcasters=upcasters, retry_s=retry_s
                )
                store.sequence()  # position what a writer that died before its pass left behind
        except StoreError:
            engine.dispose()
            raise
        return store
    raise StoreError(f"unsupported database URL {shown_url(parsed)}: {URL_FORMS}")


def open_configured(
    settings: Settings, url: str | None = None, *, create: bool = True
) -> SqlEventStore | InMemoryEventStore:
    """:func:`open_store` as the settings say: the URL given (``--db``), else the ``db`` setting;
    the ``signing_key`` setting's key; PostgreSQL's ``db_retry_s``."""
    return open_store(
        url or settings.db,
        signing_key=settings.signing_key,
        create=create,
        retry_s=settings.db_retry_s,
    )


def missing_sqlite(parsed: URL) -> StoreError | None:
    """The error for a SQLite URL whose file does not exist (a typo must not make a new,
    empty database that reads as a quiet day); None for any other URL."""
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(parsed.database or "")
    if path.is_file() and path.stat().st_size > 0:
        return None
    return StoreError(
        f"no database at {path}; `paigow db upgrade --db {shown_url(parsed)}` creates one"
    )


def _has_checkpoints(engine: Engine) -> bool:
    with engine.connect() as connection:
        return connection.exec_driver_sql("SELECT 1 FROM checkpoints LIMIT 1").first() is not None


def _open_sqlite(
    parsed: URL, signer: Signer | None, upcasters: Upcasters | None, create: bool
) -> SqlEventStore:
    database = parsed.database
    if not database or database == ":memory:":
        raise StoreError("an in-memory SQLite store is not supported: use memory:// instead")
    if not create and (missing := missing_sqlite(parsed)) is not None:
        raise missing
    path = Path(database)
    new = not path.exists() or path.stat().st_size == 0
    if new:  # atomic: a whole database under this name, or none (migrate.create_sqlite)
        migrate.create_sqlite(parsed)
    engine = sqlite_engine(parsed)
    _check_revision(engine, parsed)
    private_path, public_path = key_paths(path)
    public_key = None
    if signer is None:
        signer = key_beside(private_path)
    if (
        signer is None
        and create
        and (new or (not public_path.exists() and not _has_checkpoints(engine)))
    ):
        # A new embedded database, also one that `paigow db upgrade` created before first use:
        # it gets its own key, the public half beside it for verifiers (or the key another
        # process opening it at the same moment made: create_key_files).
        signer = create_key_files(path)
    elif signer is None and public_path.exists():
        # The private half is linked before the public one: read again, in case another
        # process keyed the database since the first look.
        signer = key_beside(private_path)
        if signer is None:
            public_key = load_public_key(public_path.read_bytes())
    return SqliteEventStore(engine, signer=signer, public_key=public_key, upcasters=upcasters)
