"""Projections checked, not trusted (issue 17): the floor's figures rebuilt from the events in
memory and compared with the rows stored in the database.

The projections' tables are derived data that anyone with write access may change without
touching the event log (``proj_accounting``'s commission edited: ``paigow report`` would print
it). ``paigow audit verify`` and ``paigow report --verify`` run each projection's own code
(``ProjectionRunner``) over the log's events into a private in-memory SQLite database, up to the
position the stored projection says it applied, and compare every row: a row changed, added or
removed is a finding naming the table, the day (or the row's key) and the figure.

The database is only read (the audit's read-only connection, ``audit.sources.connect``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, create_engine
from sqlalchemy.pool import StaticPool

from adapters.projections.gaming_day import GamingDay
from adapters.projections.projection_runner import Projection, ProjectionRunner, all_projections
from adapters.projections.schema import metadata
from adapters.store.core import EventReader
from audit.findings import Finding
from audit.sources import connect
from table_core.ports import RecordedEvent

_PAGE = (
    "SELECT g.position, e.stream_id, e.version, e.type, e.schema_version, e.payload, "
    "e.recorded_at, e.actor_id, e.actor_role, e.command_id, e.prev_hash, e.hash, "
    "g.prev_hash, g.hash FROM event_log g JOIN events e ON e.id = g.event_id "
    "WHERE g.position > {p} ORDER BY g.position LIMIT {p}"
)
_MAX_FINDINGS = 50  # per table: an edited table is named, not listed whole


class _LogFeed:
    """What the runner needs of a store: ``read_all`` from the database read-only, and an
    in-memory engine where the projections are rebuilt."""

    def __init__(self, connection: Any, mark: str) -> None:
        self.connection = connection
        self.query = _PAGE.format(p=mark)
        self.reader = EventReader(None)
        self.engine: Engine = create_engine(
            "sqlite://",
            poolclass=StaticPool,
            isolation_level="AUTOCOMMIT",
            connect_args={"check_same_thread": False},
        )
        metadata.create_all(self.engine)

    def read_all(self, after_position: int = 0, limit: int | None = None) -> list[RecordedEvent]:
        rows = self.connection.execute(self.query, (after_position, limit or 2**31)).fetchall()
        return self.reader.events(rows)


def check_projections(
    url: Any,
    day: GamingDay,
    stage: Callable[[str, int], Callable[[int], None]] | None = None,
) -> list[Finding]:
    """Every stored projection row that the events do not give, as findings (none stored: no
    finding). ``day``: the settings' gaming day (the caller's). ``stage(label, total)``: called
    once with the events to replay, it returns the callback that follows them (``paigow audit
    verify``'s progress bar)."""
    connection, mark, _shown = connect(url)
    try:
        stored = _stored_positions(connection)
        if not stored:
            return []
        # Projections that applied the same position are rebuilt together: one read of the log.
        groups: dict[int, list[Projection]] = {}
        for projection in all_projections():
            until = stored.get(projection.name, 0)
            if until > 0:
                groups.setdefault(until, []).append(projection)
        findings: list[Finding] = []
        progress = None if stage is None else stage("checking projections", sum(groups))
        done = 0
        for until, projections in sorted(groups.items()):
            feed = _LogFeed(connection, mark)
            try:
                follow = None if progress is None else _offset(progress, done)
                ProjectionRunner(feed, projections).catch_up(follow, until=until)
                done += until
                for projection in projections:
                    findings += _compare(projection, connection, feed.engine, day)
            finally:
                feed.engine.dispose()
        return findings
    finally:
        connection.close()


def _offset(progress: Callable[[int], None], base: int) -> Callable[[int], None]:
    """``progress`` of positions replayed after ``base`` already were (one replay a group)."""
    return lambda position: progress(base + position)


def _stored_positions(connection: Any) -> dict[str, int]:
    try:
        rows = connection.execute("SELECT name, position FROM projection_checkpoints").fetchall()
    except Exception:  # no projections in this database (a bundle's, an old one): none stored
        if hasattr(connection, "rollback"):
            connection.rollback()
        return {}
    return {str(name): int(position) for name, position in rows}


def _rows(execute: Any, table: Any) -> dict[tuple[Any, ...], dict[str, Any]]:
    columns = [c.name for c in table.columns]
    keys = [c.name for c in table.primary_key.columns]
    out = {}
    for row in execute(f"SELECT {', '.join(columns)} FROM {table.name}"):
        values = {
            c: (int(v) if isinstance(v, bool) else v) for c, v in zip(columns, row, strict=True)
        }
        out[tuple(values[k] for k in keys)] = values
    return out


def _compare(
    projection: Projection, connection: Any, engine: Engine, day: GamingDay
) -> list[Finding]:
    findings: list[Finding] = []
    with engine.connect() as rebuilt_connection:
        for table in projection.tables:
            keys = [c.name for c in table.primary_key.columns]
            stored = _rows(lambda sql: connection.execute(sql).fetchall(), table)
            given = _rows(lambda sql: rebuilt_connection.exec_driver_sql(sql).fetchall(), table)
            found: list[Finding] = []
            for key in sorted(set(stored) | set(given), key=repr):
                where = _where(table.name, keys, key, day)
                if key not in given:
                    found.append(
                        _finding(table.name, f"{where}: a stored row the events do not give")
                    )
                elif key not in stored:
                    found.append(_finding(table.name, f"{where}: a row the events give is missing"))
                else:
                    for column, value in stored[key].items():
                        if value != given[key][column]:
                            found.append(
                                _finding(
                                    table.name,
                                    f"{where}, {column}: stored {value}, the events give "
                                    f"{given[key][column]}",
                                )
                            )
            if len(found) > _MAX_FINDINGS:
                found = [
                    *found[:_MAX_FINDINGS],
                    _finding(table.name, f"and {len(found) - _MAX_FINDINGS} more differences"),
                ]
            findings += found
    return findings


def _where(name: str, keys: Sequence[str], key: tuple[Any, ...], day: GamingDay) -> str:
    values = dict(zip(keys, key, strict=True))
    parts = [f"table {values.pop('table_id')}"] if "table_id" in values else []
    bucket = values.pop("bucket", None)
    if isinstance(bucket, int):
        moment = datetime.fromtimestamp(bucket, UTC)
        parts.append(
            f"gaming day {day.day_of(moment).isoformat()} (quarter hour from "
            f"{moment.strftime('%Y-%m-%d %H:%M')} UTC)"
        )
    parts += [f"{k} {v}" for k, v in values.items()]
    return f"{name}: " + ", ".join(parts)


def _finding(table: str, message: str) -> Finding:
    return Finding(
        kind="integrity",
        clause=f"projection.{table}",
        message=f"a projection does not match the events: {message}",
    )
