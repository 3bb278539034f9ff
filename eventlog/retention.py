"""R18: how long each category of the log is kept, and the decision whether a purge respects it.

Pure (no store, no clock): ``service_layer/purge.py`` decides with it before it writes anything, and
the audit (``audit/retention.py``) checks every recorded ``range_purged`` with the same rule.

**Categories** (docs/regulatory.md, R17-R19), each with the jurisdiction's minimum, in days:

- ``game``: every event of a table's stream (rounds, wagers, settlement, chips, the books, deck
  custody, rules): 1826 days, five years;
- ``system``: the system stream's records of the service and its configuration (starts and stops,
  verification, clock steps, software versions, keys and their roles, rules and void notes,
  purges and retention changes): 1826 days;
- ``disputes``: the dispute history (``dispute_opened``, ``dispute_closed``): 365 days;
- ``access``: access and authentication logs (``authentication_failed``): 90 days.

The minimums are part of the code, not of its settings: an operator sets a longer period
(``PAIGOW_RETENTION_*``), never a shorter one; a jurisdiction with longer minimums sets its
periods to them. The defaults are the minimums.

**The log's time.** A period runs to the log's own time (the recorded time of its last sealed
event), never to the clock of the host that runs the purge. The purge's own records
(``range_purged``, ``retention_set``) carry the purging process's clock, so they are never the
log's time.

**The decision.** A purge removes a prefix of the log, so every category present in the range
must be past its period: for each, its newest event in the range plus the period must not be
later than the log's time. The longest period among the categories in the range is the one that
binds; the shorter ones are minimums (nothing of the category is deleted inside them), not
deadlines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

#: ``eventlog.system_events.SYSTEM_STREAM``, not imported from there: the settings read this
#: module, and every command reads the settings (the event models cost their import time).
SYSTEM_STREAM = "system"
GAME, SYSTEM, DISPUTES, ACCESS = "game", "system", "disputes", "access"
CATEGORIES = (GAME, SYSTEM, DISPUTES, ACCESS)
#: The jurisdiction's minimum of each category, in days (R18); the defaults are these.
MINIMUM_DAYS: Mapping[str, int] = MappingProxyType(
    {GAME: 1826, SYSTEM: 1826, DISPUTES: 365, ACCESS: 90}
)
DESCRIPTION: Mapping[str, str] = MappingProxyType(
    {
        GAME: "game events",
        SYSTEM: "system events",
        DISPUTES: "dispute history",
        ACCESS: "access and authentication logs",
    }
)
_DISPUTE_TYPES = frozenset({"dispute_opened", "dispute_closed"})
_ACCESS_TYPES = frozenset({"authentication_failed"})
#: The purge's own records: stamped by the purging process's clock, never the log's time.
MAINTENANCE_TYPES = frozenset({"range_purged", "retention_set"})


def category_of(stream_id: str, event_type: str) -> str:
    """The category of an event of ``stream_id`` and ``event_type``."""
    if stream_id != SYSTEM_STREAM:
        return GAME
    if event_type in _DISPUTE_TYPES:
        return DISPUTES
    if event_type in _ACCESS_TYPES:
        return ACCESS
    return SYSTEM


def below_minimum(periods: Mapping[str, Any]) -> list[str]:
    """What is wrong with ``periods`` (category -> days): a category missing, unknown or below its
    minimum; empty when they may be in force."""
    problems = [f"unknown category {name!r}" for name in periods if name not in MINIMUM_DAYS]
    for name in CATEGORIES:
        days, least = periods.get(name), MINIMUM_DAYS[name]
        if type(days) is not int:
            problems.append(f"{DESCRIPTION[name]}: no period in days")
        elif days < least:
            problems.append(
                f"{DESCRIPTION[name]}: {days} days, below the jurisdiction's minimum of {least}"
            )
    return problems


@dataclass(frozen=True, slots=True)
class Newest:
    """The newest event of a category in a range: its global position and recorded time."""

    position: int
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "at": self.at.isoformat()}


def newest_by_category(rows: Iterable[tuple[int, str, str, datetime]]) -> dict[str, Newest]:
    """The newest event (latest recorded time; on a tie, the later position) of each category
    among ``rows`` (position, stream id, type, recorded time)."""
    newest: dict[str, Newest] = {}
    for position, stream_id, event_type, at in rows:
        category = category_of(stream_id, event_type)
        held = newest.get(category)
        if held is None or (at, position) >= (held.at, held.position):
            newest[category] = Newest(position, at)
    return newest


@dataclass(frozen=True, slots=True)
class Violation:
    """A category whose newest event in the range is still inside its period at the log's time."""

    category: str
    newest: Newest
    days: int
    log_time: datetime

    @property
    def kept_until(self) -> datetime:
        return self.newest.at + timedelta(days=self.days)

    def message(self, log_time_from: str = "") -> str:
        """What is still kept; ``log_time_from`` says where the log's time was read."""
        what = DESCRIPTION[self.category]
        return (
            f"position {self.newest.position} ({what}) was recorded at "
            f"{self.newest.at.isoformat()}, inside the retention of {self.days} days for {what} "
            f"(kept until {self.kept_until.isoformat()}; the log's time is "
            f"{self.log_time.isoformat()}{log_time_from})"
        )


def inside_retention(
    newest: Mapping[str, Newest], periods: Mapping[str, int], log_time: datetime
) -> list[Violation]:
    """THE decision: every category of the range whose newest event is still inside its period
    at ``log_time`` (empty: the range may be purged). A category without a period is kept the
    longest period there is (given or minimum), never none."""
    longest = max([*periods.values(), *MINIMUM_DAYS.values()])
    found = []
    for name in sorted(newest, key=_order):
        days = periods.get(name, longest)
        if newest[name].at + timedelta(days=days) > log_time:
            found.append(Violation(name, newest[name], days, log_time))
    return found


def _order(name: str) -> tuple[int, str]:
    return (CATEGORIES.index(name) if name in CATEGORIES else len(CATEGORIES), name)


def recorded_periods(event_type: str, payload: Mapping[str, Any]) -> dict[str, int] | None:
    """The periods a system event records as in force from it: a ``retention_set``'s, or those a
    ``range_purged`` applied (a purge restates them, so that a log whose ``retention_set`` was
    itself purged still names what was in force); ``None`` for any other event (and for a
    ``range_purged`` recorded before it named them)."""
    if event_type == "retention_set":
        periods = payload.get("periods")
    elif event_type == "range_purged":
        periods = payload.get("retention")
    else:
        return None
    if not isinstance(periods, Mapping):
        return None
    return {str(name): days for name, days in periods.items() if type(days) is int}
