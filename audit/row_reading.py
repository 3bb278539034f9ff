"""A log row read with care: an integrity finding about one row, and a failing row's payload
when it still reads (the chain check, the tables and the duties share them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audit.findings import Finding
from eventlog.canonical import NotCanonical, load_payload


def row_finding(row: Sequence[Any], clause: str, message: str) -> Finding:
    """An integrity finding about one row (its payload's schema, its envelope…)."""
    return Finding(
        kind="integrity",
        clause=clause,
        message=message,
        position=value_at(row, 0, int),
        stream_id=value_at(row, 1, str),
        version=value_at(row, 2, int),
        event_type=value_at(row, 3, str),
    )


def value_at(row: Sequence[Any], index: int, kind: type) -> Any:
    try:
        value = row[index]
    except (IndexError, TypeError):
        return None
    return value if type(value) is kind else None


def payload_of(row: Sequence[Any]) -> dict[str, Any] | None:
    """A failing row's payload, when it still reads, so the table can still be followed."""
    try:
        text = row[5]
        return load_payload(text) if isinstance(text, str) else None
    except (NotCanonical, IndexError, TypeError):
        return None
