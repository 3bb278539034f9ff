"""What the projection tests share: a dump of every projection table, the report of a day."""

from __future__ import annotations

from datetime import date
from typing import Any

from adapters.projections import GamingDay, ProjectionRunner
from adapters.projections.reports import build_report
from adapters.projections.schema import metadata


def dump(runner: ProjectionRunner) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every projection table, in primary-key order, booleans as 0/1 (SQLite and
    PostgreSQL answer them differently)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with runner.db.read() as tx:
        for table in metadata.sorted_tables:
            if table.name == "projection_checkpoints":
                continue
            keys = ", ".join(c.name for c in table.primary_key.columns)
            rows = tx.all(f"SELECT * FROM {table.name} ORDER BY {keys}")
            out[table.name] = [
                tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows
            ]
    return out


def report(runner: ProjectionRunner, day: date | None, zone: str = "UTC") -> dict[str, Any]:
    return build_report(runner, GamingDay.of(zone, "06:00"), day=day)
