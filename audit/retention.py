"""R18 in the audit: every ``range_purged`` respected the retention in force, at the log's time.

Rows come in global position order (``audit/system_duties.py`` hands over the system stream's).
The retention in force at a point of the log is the last one recorded before it: a
``retention_set``'s periods, or those a ``range_purged`` restated (a log whose ``retention_set``
was itself purged still has them). At each ``range_purged`` (``eventlog/retention.py`` decides, as
the purge did):

- the periods it applied are those in force (when one is recorded before it in this log) and none
  is below the jurisdiction's minimum;
- the log's time it was judged against is not later than the latest event the audit has read
  before it (the tables' times from the clock rule, ``audit/clock.py``, and the system stream's,
  the purge's own records left out): a purge judged by a clock ahead of its log is named;
- no category of the purged range was inside its period at that time: each category's newest event
  in the range, as the purge recorded it, plus the period is not later than the log's time.

Otherwise one ``procedure`` finding, clause ``R18``, names the ``range_purged``'s position. A
``retention_set`` below a minimum is a finding at its own position. A ``range_purged`` recorded
before purges named their log's time holds nothing to judge and is passed by. The purged range
itself is not in the log any more: its newest events are the purge's word, signed with the rest;
the archive (``paigow audit verify --bundle``) holds the events themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from audit.clock import ClockRule
from audit.findings import Finding
from eventlog.canonical import parse_time
from eventlog.retention import (
    MAINTENANCE_TYPES,
    Newest,
    below_minimum,
    inside_retention,
    recorded_periods,
)


class RetentionDuty:
    """Watches the system stream's rows for R18; findings go to ``findings``."""

    def __init__(self, findings: list[Finding], clock: ClockRule | None = None) -> None:
        self.findings = findings
        self._clock = clock
        self._in_force: dict[str, int] | None = None
        self._in_force_at: int | None = None
        self._system_latest: datetime | None = None
        self._times: tuple[str, datetime | None] = ("", None)

    def system_row(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        kind = row[3]
        if kind not in MAINTENANCE_TYPES:
            at = self._time(row[6])
            if at is not None and (self._system_latest is None or at > self._system_latest):
                self._system_latest = at
            return
        if kind == "range_purged":
            self._range_purged(row, payload)
        elif kind == "retention_set":
            problems = below_minimum(payload.get("periods") or {})
            if problems:
                self._note(row, f"retention set below what may be in force: {'; '.join(problems)}")
        periods = recorded_periods(kind, payload)
        if periods is not None:
            self._in_force, self._in_force_at = periods, row[0]

    def _range_purged(self, row: Sequence[Any], payload: Mapping[str, Any]) -> None:
        applied, recorded_time = payload.get("retention"), payload.get("log_time")
        if applied is None or recorded_time is None:
            return  # recorded before purges named their log's time: nothing to judge
        what = f"purge of positions {payload.get('first_position')}..{payload.get('last_position')}"
        try:
            log_time = parse_time(str(recorded_time))
            newest = {
                str(name): Newest(int(item["position"]), parse_time(str(item["at"])))
                for name, item in (payload.get("newest") or {}).items()
            }
        except (KeyError, TypeError, ValueError) as error:
            self._note(row, f"{what}: its log time or newest events do not read ({error})")
            return
        problems = below_minimum(applied)
        if problems:
            self._note(row, f"{what} applied a retention below its minimums: {'; '.join(problems)}")
        in_force = self._in_force
        if in_force is not None and dict(applied) != in_force:
            self._note(
                row,
                f"{what} applied {_periods(applied)}, but the retention in force (recorded at "
                f"position {self._in_force_at}) is {_periods(in_force)}",
            )
        seen = self._latest()
        judged = log_time
        if seen is not None and log_time > seen:
            self._note(
                row,
                f"{what} was judged at {log_time.isoformat()}, later than the log's time "
                f"{seen.isoformat()} (its latest event before the purge)",
            )
            judged = seen
        for violation in inside_retention(newest, in_force or dict(applied), judged):
            self._note(row, f"{what} removed {violation.message()}")

    def _latest(self) -> datetime | None:
        """The latest recorded time read so far, the purge's own records left out."""
        times = [t for t in (self._system_latest,) if t is not None]
        if self._clock is not None:
            latest = self._clock.latest()
            if latest is not None:
                times.append(latest)
        return max(times, default=None)

    def _time(self, text: Any) -> datetime | None:
        if text == self._times[0]:
            return self._times[1]
        try:
            at: datetime | None = parse_time(str(text))
        except ValueError:
            at = None
        if at is not None and at.tzinfo is None:
            at = None  # the envelope check reports it
        self._times = (str(text), at)
        return at

    def _note(self, row: Sequence[Any], message: str) -> None:
        self.findings.append(
            Finding(
                kind="procedure",
                clause="R18",
                message=message,
                position=row[0] if type(row[0]) is int else None,
                stream_id=row[1] if type(row[1]) is str else None,
                version=row[2] if type(row[2]) is int else None,
                event_type=row[3] if type(row[3]) is str else None,
            )
        )


def _periods(periods: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {days} days" for name, days in sorted(periods.items()))
