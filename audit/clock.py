"""R4 in the audit: a table's events never go back in recorded time without a ``clock_adjusted``
between them.

Rows come in global position order. For each table the last event's position and time are kept,
and the position of the last ``clock_adjusted`` of the system stream. An event recorded earlier
than the one before it in its table is explained only by a ``clock_adjusted`` at a position
between the two; otherwise it is a finding that names both events. A bundle of one table holds no
system stream, so it is not checked there (the whole log's bundle or the database is).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from audit.findings import Finding


class ClockRule:
    """Watches rows, in global position order, for a table's time going back unrecorded."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._adjusted = 0  # position of the last clock_adjusted
        self._last: dict[str, tuple[int, str, datetime]] = {}
        self._times: tuple[str, datetime | None] = ("", None)

    def system_row(self, row: Sequence[Any]) -> None:
        if row[3] == "clock_adjusted" and type(row[0]) is int:
            self._adjusted = row[0]

    def table_row(self, row: Sequence[Any]) -> None:
        position, stream, text = row[0], row[1], row[6]
        if type(position) is not int or type(text) is not str:
            return  # an unreadable row: the chain's findings say so
        at = self._time(text)
        if at is None:
            return
        last = self._last.get(stream)
        self._last[stream] = (position, text, at)
        if last is None or at >= last[2] or self._adjusted > last[0]:
            return
        self.findings.append(
            Finding(
                kind="procedure",
                clause="R4",
                message=(
                    f"recorded at {text}, earlier than the table's event before it (position "
                    f"{last[0]}, at {last[1]}), and no clock_adjusted event lies between them: "
                    "a step of the clock that was not recorded"
                ),
                position=position,
                stream_id=stream,
                version=row[2] if type(row[2]) is int else None,
                event_type=row[3] if type(row[3]) is str else None,
            )
        )

    def latest(self) -> datetime | None:
        """The latest time among the tables' last events read so far (R18: the log's time the
        audit judges a purge by, ``audit/retention.py``)."""
        return max((at for _, _, at in self._last.values()), default=None)

    def _time(self, text: str) -> datetime | None:
        if text == self._times[0]:  # consecutive events mostly share one time
            return self._times[1]
        try:
            at: datetime | None = datetime.fromisoformat(text)
        except ValueError:
            at = None
        if at is not None and at.tzinfo is None:
            at = None  # the envelope check reports it
        self._times = (text, at)
        return at
