"""A store noting every ``read_stream`` call: what a service read to catch a table up."""

from __future__ import annotations

from typing import Any


class CountingStore:
    """The store, with every ``read_stream`` call noted: (stream, after_version, events read)."""

    def __init__(self, store: Any, table: str) -> None:
        self.inner = store
        self.table = table
        self.reads: list[tuple[str, int, int]] = []

    def read_stream(self, stream_id: str, after_version: int = 0) -> Any:
        events = self.inner.read_stream(stream_id, after_version)
        self.reads.append((stream_id, after_version, len(events)))
        return events

    def table_reads(self) -> list[tuple[int, int]]:
        """(after_version, events read) of each read of the table's stream."""
        return [(after, n) for stream, after, n in self.reads if stream == self.table]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
