"""The gaming day: the casino's accounting day, from a cut-off hour (default 06:00) in the
casino's time zone to the same hour the next day.

Events carry aware UTC-convertible times (``at``), never a zone, so the zone is a setting: the
``--tz`` option, else ``$PAIGOW_TZ`` (adapters/settings.py), else UTC. A casino sets ``PAIGOW_TZ``
to its tables' zone (``Europe/Paris``); DST is the zone's (zoneinfo), so a gaming day across a
change lasts 23 or 25 hours. The cut-off is ``--cutoff HH:MM``, else ``$PAIGOW_GAMING_DAY_CUTOFF``,
else 06:00, on a quarter hour (the accounting rows are quarter hours). A moment belongs to the
gaming day of its local date once the cut-off is taken off its local wall-clock time: with 06:00,
05:59 on the 2nd is gaming day the 1st, 06:00 is the 2nd.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from table_core.errors import DomainError


def parse_cutoff(text: str) -> time:
    try:
        hours, _, minutes = text.strip().partition(":")
        cutoff = time(int(hours), int(minutes or 0))
    except ValueError:
        raise DomainError(f"a gaming-day cut-off is HH:MM (00:00..23:45), got {text!r}") from None
    if cutoff.minute % 15:
        raise DomainError(f"a gaming-day cut-off falls on a quarter hour, got {text!r}")
    return cutoff


def parse_zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise DomainError(f"unknown time zone {name!r} (an IANA name: Europe/Paris)") from None


@dataclass(frozen=True)
class GamingDay:
    zone: tzinfo
    cutoff: time
    zone_name: str

    @classmethod
    def of(cls, zone: str, cutoff: str) -> GamingDay:
        """The gaming day of a zone name and an ``HH:MM`` cut-off (``Settings.gaming_day`` fills
        what a command's options leave out)."""
        return cls(parse_zone(zone), parse_cutoff(cutoff), zone)

    @property
    def cutoff_text(self) -> str:
        return self.cutoff.strftime("%H:%M")

    def day_of(self, at: datetime) -> date:
        """The gaming day ``at`` belongs to."""
        local = at.astimezone(self.zone).replace(tzinfo=None)  # wall-clock time
        return (local - timedelta(hours=self.cutoff.hour, minutes=self.cutoff.minute)).date()

    def start(self, day: date) -> datetime:
        """When gaming day ``day`` starts, in UTC."""
        return datetime.combine(day, self.cutoff, tzinfo=self.zone).astimezone(UTC)

    def today(self, now: datetime | None = None) -> date:
        """The gaming day now (the system clock unless ``now`` is given)."""
        return self.day_of(now if now is not None else datetime.now(UTC))
