"""Where an audit reads the log: a database, READ-ONLY, in one consistent snapshot.

SQLite is opened with ``mode=ro`` through the standard library (no pragma, no migration, no key
file is created, a missing file is an error, not a new database); PostgreSQL in a REPEATABLE READ,
READ ONLY transaction with a server-side cursor, so the audit never writes (it does not even give
positions to events a crashed writer left unpositioned: it reports them) and a log of any size
streams in constant memory.

Rows come in ``eventlog.query.ROW_COLUMNS`` order, global position order, as the store's
verifier reads them. Besides the chain, two facts only the database holds are checked: events with
no global position, and the ``commands`` table's record of how far each stream was written (a
stream that ends before it means its last events were removed, even with no checkpoint after
them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL, make_url

from audit.findings import Finding
from eventlog.keys import key_paths, load_public_key, public_half, read_private_key_file
from eventlog.query import (
    CHECKPOINT_QUERY,
    CHECKPOINT_RANGE_QUERY,
    LOG_BOUNDS_QUERY,
    LOG_QUERY,
    LOG_RANGE_QUERY,
)
from table_core.ports import StoreError

COUNT_UNPOSITIONED = (
    "SELECT e.stream_id, e.version FROM events e WHERE NOT EXISTS "
    "(SELECT 1 FROM event_log g WHERE g.event_id = e.id) ORDER BY e.id"
)
COUNT_EVENTS = "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM event_log)"
COMMAND_HEADS = "SELECT stream_id, max(last_version) FROM commands GROUP BY stream_id"
STREAM_QUERY = (
    "SELECT g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, "
    "e.recorded_at, e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash, "
    "g.prev_hash, g.hash FROM event_log g JOIN events e ON e.id = g.event_id "
    "WHERE e.stream_id = {p} ORDER BY e.version"
)
Heads = dict[str, tuple[int, str]]


class AuditUsageError(StoreError):
    """The audit cannot start: no such database or bundle, a bad key file (exit status 2)."""


@dataclass
class LogSource:
    """A log to audit: its rows, its checkpoints, the key that signed them, and closing checks."""

    name: str
    rows: Iterator[Sequence[Any]]
    checkpoints: Iterable[Sequence[Any]]  # in position order; a list is sorted by the audit
    public_key: bytes | None
    total: int | None = None
    anchored: bool = False  # one table's events: global positions have gaps (audit.chain)
    after: Callable[[Heads], list[Finding]] = field(default=lambda heads: [])
    close: Callable[[], None] = field(default=lambda: None)
    manifest: dict[str, Any] | None = None
    #: Where ``public_key`` came from: "given", "setting", "bundle" or "beside_database".
    key_source: str | None = None
    #: A bundle's own parts (``audit.bundle_checks``), checked after the pass with the key the
    #: checkpoints end with.
    sealed: Callable[[bytes | None], list[Finding]] | None = None
    #: What the source carries that nothing covers, for the report to say.
    not_covered: list[str] = field(default_factory=list)
    #: A database's own reader of stretches of positions, for worker processes that read their
    #: rows themselves in the same snapshot (``audit.position_ranges``); None: only ``rows``.
    ranges: LogRanges | None = None


def log_url(url: str | URL) -> URL:
    """The database to audit as a URL; the caller resolves any default (``paigow audit`` reads
    ``$PAIGOW_DB``), so the audit reads no environment."""
    return url if isinstance(url, URL) else make_url(url)


def public_key_for(
    url: URL | None, given: str | Path | None, signing_key: str | Path | None = None
) -> bytes | None:
    """The key checkpoints are checked with (``resolve_key`` without a public-key setting)."""
    return resolve_key(url, given, signing_key)[0]


def resolve_key(
    url: URL | None,
    given: str | Path | None,
    signing_key: str | Path | None = None,
    public_setting: str | Path | None = None,
) -> tuple[bytes | None, str | None]:
    """The key checkpoints are checked with and where it came from. Keys the verifier chose come
    first: the file given (``--public-key``), the public key setting (``$PAIGOW_PUBLIC_KEY``),
    the public half of the signing key setting (``$PAIGOW_SIGNING_KEY``). Only when none is
    given, the key files beside a SQLite database ("beside_database": whoever can write the
    database can replace them, so that is not an independent check). ``(None, None)``: none."""
    try:
        if given is not None:
            return _key_from_file(Path(given)), "given"
        if public_setting:
            return _key_from_file(Path(public_setting)), "setting"
        if signing_key:
            return _key_from_file(Path(signing_key)), "setting"
        if url is not None and url.get_backend_name() == "sqlite" and url.database:
            private, public = key_paths(Path(url.database))
            if public.exists():
                return load_public_key(public.read_bytes()), "beside_database"
            if private.exists():
                return public_half(read_private_key_file(private)), "beside_database"
    except (OSError, ValueError) as error:
        raise AuditUsageError(f"cannot read the public key: {error}") from None
    return None, None


def _key_from_file(path: Path) -> bytes:
    data = path.read_bytes()
    if b"PRIVATE KEY" in data:  # a signing key file: its public half
        return public_half(read_private_key_file(path))
    return load_public_key(data)


def open_database(
    url: str | URL,
    public_key: str | Path | None = None,
    *,
    signing_key: str | Path | None = None,
    public_setting: str | Path | None = None,
) -> LogSource:
    """The whole log of the database at ``url``, read-only (``resolve_key`` finds the key)."""
    url = log_url(url)
    key, key_source = resolve_key(url, public_key, signing_key, public_setting)
    shown = url.render_as_string(hide_password=True)
    source: LogSource | None = None
    if url.get_backend_name() == "sqlite":
        source = _sqlite(url, key, shown)
    elif url.get_backend_name() == "postgresql":
        source = _postgres(url, key, shown)
    if source is not None:
        source.key_source = key_source
        return source
    raise AuditUsageError(f"the audit reads sqlite or postgresql databases, not {shown}")


def connect(url: str | URL) -> tuple[Any, str, str]:
    """A read-only connection in one snapshot, its parameter mark and the URL to show."""
    url = log_url(url)
    shown = url.render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite":
        return _sqlite_connection(url), "?", shown
    if url.get_backend_name() == "postgresql":
        return _postgres_connection(url), "%s", shown
    raise AuditUsageError(f"the audit reads sqlite or postgresql databases, not {shown}")


class LogRanges:
    """A database's stretches of positions, read by a worker process through a connection of
    its own (opened in the worker, after the fork) in the audit's snapshot: SQLite's file
    read-only (its rows are never rewritten by the store: append-only), PostgreSQL's exported
    snapshot of the audit's REPEATABLE READ transaction (``SET TRANSACTION SNAPSHOT``)."""

    def __init__(
        self,
        bounds: Sequence[Any],
        *,
        sqlite_path: str | None = None,
        postgres_url: URL | None = None,
        snapshot: str | None = None,
    ) -> None:
        self.first, self.last, self.row_count, self.checkpoint_count = bounds
        self._path, self._url, self._snapshot = sqlite_path, postgres_url, snapshot
        self._connection: Any = None
        self._mark = "?"

    def _open(self) -> Any:
        if self._connection is None:
            if self._path is not None:
                self._connection = sqlite3.connect(f"file:{self._path}?mode=ro", uri=True)
                self._connection.execute("BEGIN")
            else:
                assert self._url is not None and self._snapshot is not None
                connection = _postgres_connection(self._url, probe=False)
                connection.rollback()  # the snapshot is set first in a transaction
                if not all(part.isalnum() for part in self._snapshot.split("-")):
                    raise AuditUsageError(f"not a snapshot name: {self._snapshot!r}")
                connection.execute(f"SET TRANSACTION SNAPSHOT '{self._snapshot}'")
                self._connection, self._mark = connection, "%s"
        return self._connection

    def rows(self, first: int, last: int) -> Iterable[Sequence[Any]]:
        connection = self._open()
        return connection.execute(LOG_RANGE_QUERY.format(p=self._mark), (first, last))  # type: ignore[no-any-return]

    def checkpoints(self, first: int, last: int) -> list[Sequence[Any]]:
        connection = self._open()
        query = CHECKPOINT_RANGE_QUERY.format(p=self._mark)
        return [tuple(c) for c in connection.execute(query, (first, last)).fetchall()]


# --- SQLite ----------------------------------------------------------------------------------


def _one_line(error: BaseException, url: URL) -> str:
    """The driver's words on one line (psycopg adds a line of advice), the password masked."""
    text = " ".join(str(error).split("\n")[0].split()) or type(error).__name__
    return text.replace(str(url.password), "***") if url.password else text


def _sqlite_connection(url: URL) -> sqlite3.Connection:
    path = Path(url.database or "")
    if not url.database or not path.is_file():
        shown = url.render_as_string(hide_password=True)
        raise AuditUsageError(
            f"no database at {path}; `paigow db upgrade --db {shown}` creates one"
        )
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        connection.execute("BEGIN")  # one read snapshot for the whole audit (WAL)
        connection.execute("SELECT count(*) FROM event_log").fetchone()
    except sqlite3.DatabaseError as error:
        connection.close()
        raise AuditUsageError(f"{path} is not a paigow event store: {error}") from None
    return connection


def _sqlite(url: URL, key: bytes | None, shown: str) -> LogSource:
    connection = _sqlite_connection(url)
    try:
        bounds = connection.execute(LOG_BOUNDS_QUERY).fetchone()  # its row count: ``total``
        # Both streamed (a second cursor in the same snapshot): memory flat in the log's length.
        checkpoints = connection.execute(CHECKPOINT_QUERY)
        rows = connection.execute(LOG_QUERY)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise AuditUsageError(f"cannot read {shown}: {error}") from None
    return LogSource(
        name=shown,
        rows=rows,
        checkpoints=checkpoints,
        public_key=key,
        total=bounds[2],
        after=lambda heads: _database_checks(connection, heads),
        close=connection.close,
        ranges=LogRanges(bounds, sqlite_path=str(Path(url.database or ""))),
    )


# --- PostgreSQL ------------------------------------------------------------------------------


def _servers(url: URL) -> dict[str, Any]:
    """libpq's ``host`` and ``port``: the URL's, or the servers of a multi-host URL
    (``?host=a:5432&host=b:5433``, deploy/ha/README.md) as libpq's comma lists, so that
    ``target_session_attrs`` (``prefer-standby``: audit a standby) picks among them."""
    listed = url.query.get("host")
    if not listed:
        return {"host": url.host, "port": url.port or 5432}
    servers = [listed] if isinstance(listed, str) else list(listed)
    hosts, ports = [], []
    for server in servers:
        host, colon, port = server.rpartition(":")
        hosts.append(host if colon else server)
        ports.append(port if colon else str(url.port or 5432))
    return {"host": ",".join(hosts), "port": ",".join(ports)}


def _postgres_connection(url: URL, probe: bool = True) -> Any:
    """``probe``: check that the URL's search path holds a log (``event_log``)."""
    import psycopg

    params: dict[str, Any] = {k: v if isinstance(v, str) else v[-1] for k, v in url.query.items()}
    params.update(_servers(url), user=url.username, password=url.password, dbname=url.database)
    params.setdefault("connect_timeout", 10)
    try:
        connection = psycopg.connect(**params)
        # Read only, and one snapshot for every query of the audit.
        connection.read_only = True
        connection.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        connection.execute("SELECT count(*) FROM event_log" if probe else "SELECT 1").fetchone()
    except psycopg.Error as error:
        shown = url.render_as_string(hide_password=True)
        reason = _one_line(error, url)
        if "event_log" in reason and "does not exist" in reason:
            hint = f"`paigow db upgrade --db {shown}` creates the schema"
        else:
            hint = "check that the server runs there and that the URL, user and password are right"
        raise AuditUsageError(f"cannot read the database at {shown}: {reason}; {hint}") from None
    return connection


def _postgres(url: URL, key: bytes | None, shown: str) -> LogSource:
    connection = _postgres_connection(url)
    bounds = connection.execute(LOG_BOUNDS_QUERY).fetchone()  # its row count: ``total``
    # Both streamed through server-side cursors of the one REPEATABLE READ snapshot, read side by
    # side (the checkpoints one ahead of the rows): memory flat in the log's length.
    signed = connection.cursor(name="paigow_audit_checkpoints")
    signed.itersize = 10_000
    signed.execute(CHECKPOINT_QUERY)
    checkpoints = (tuple(row) for row in signed)
    cursor = connection.cursor(name="paigow_audit_log")
    cursor.itersize = 10_000
    cursor.execute(LOG_QUERY)

    def close() -> None:
        connection.rollback()
        connection.close()

    return LogSource(
        name=shown,
        rows=iter(cursor),
        checkpoints=checkpoints,
        public_key=key,
        total=bounds[2],
        after=lambda heads: _database_checks(connection, heads),
        close=close,
        ranges=_postgres_ranges(connection, url, bounds),
    )


def _postgres_ranges(connection: Any, url: URL, bounds: Sequence[Any]) -> LogRanges | None:
    """The snapshot exported for the workers (a standby in recovery exports none: the log is then
    read by the main process alone)."""
    if connection.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
        return None
    snapshot = connection.execute("SELECT pg_export_snapshot()").fetchone()[0]
    return LogRanges(bounds, postgres_url=url, snapshot=str(snapshot))


def postgres_session(url: str | URL) -> tuple[Any, str]:
    """A read-only PostgreSQL connection that needs no log on its search path (the archive's
    catalog, ``audit.follow_archive``), and the URL to show."""
    url = log_url(url)
    return _postgres_connection(url, probe=False), url.render_as_string(hide_password=True)


# --- what only the database knows --------------------------------------------------------------


def _database_checks(connection: Any, heads: Heads) -> list[Finding]:
    findings: list[Finding] = []
    events, positioned = connection.execute(COUNT_EVENTS).fetchone()
    if events != positioned:
        missing = connection.execute(COUNT_UNPOSITIONED).fetchall()
        shown = ", ".join(f"{stream} v{version}" for stream, version in missing[:10])
        findings.append(
            Finding(
                kind="integrity",
                clause="chain.sequence",
                message=(
                    f"{len(missing)} recorded events have no global position (a writer stopped "
                    f"before its sequencer pass, or rows were removed from event_log): {shown}"
                ),
            )
        )
    for stream, written in connection.execute(COMMAND_HEADS).fetchall():
        head = heads.get(stream, (0, ""))[0]
        if written != head:
            what = (
                "its last events were removed"
                if written > head
                else "events were added outside any recorded command"
            )
            findings.append(
                Finding(
                    kind="integrity",
                    clause="chain.sequence",
                    message=(
                        f"the commands table records stream {stream} written up to version "
                        f"{written}, the log holds it up to version {head}: {what}"
                    ),
                    stream_id=stream,
                    version=head,
                )
            )
    return findings


def stream_rows(connection: Any, mark: str, stream_id: str) -> Iterator[tuple[Any, ...]]:
    """One stream's rows in version order (for a bundle of one table)."""
    cursor = connection.execute(STREAM_QUERY.format(p=mark), (stream_id,))
    for row in cursor:
        yield tuple(row)


def log_rows(connection: Any) -> Iterator[tuple[Any, ...]]:
    for row in connection.execute(LOG_QUERY):
        yield tuple(row)


def checkpoint_rows(connection: Any) -> list[tuple[Any, ...]]:
    return [tuple(row) for row in connection.execute(CHECKPOINT_QUERY).fetchall()]
