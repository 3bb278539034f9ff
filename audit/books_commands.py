"""The books' commands read back from their events (issue 18), for the re-derivation of
``audit/command_rebuild.py``: the gaming day opened and closed, fills and credits, the count,
rating corrections."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from audit.field_copy import copied
from table_core.commands import (
    CloseGamingDay,
    Command,
    CorrectRating,
    CountDrop,
    CreditTray,
    FillTray,
    OpenGamingDay,
)
from table_core.events import (
    ChipAmount,
    DropCounted,
    Event,
    GamingDayClosed,
    GamingDayOpened,
    RatingCorrected,
    TrayCredited,
    TrayFilled,
)

#: The books' commands whose first event records every field under the command's names: the
#: re-derivation copies them (``audit.field_copy``); ``command_of_books`` reads the others.
BOOKS_COPIED: dict[type[Event], type[Command]] = {
    DropCounted: CountDrop,
    RatingCorrected: CorrectRating,
}


def _chips_input(chips: Iterable[ChipAmount]) -> dict[int, int]:
    return {each.denomination: each.amount for each in chips}


def command_of_books(events: Sequence[Event]) -> Command | None:
    """The books command that recorded ``events`` (for the audit's re-derivation) when it is more
    than a copy of its first event (``BOOKS_COPIED``), else ``None``."""
    first, last = events[0], events[-1]
    if isinstance(last, GamingDayOpened):
        rules = getattr(first, "rules", None)
        return OpenGamingDay(
            gaming_day=last.gaming_day,
            opener=_chips_input(last.opener),
            dealer=last.dealer,
            table_id=first.table_id if rules is not None else None,
            rules=rules,
            actor=first.actor,
            at=first.at,
        )
    if isinstance(first, GamingDayClosed):
        return copied(CloseGamingDay, first, closer=_chips_input(first.closer))
    if isinstance(first, TrayFilled | TrayCredited):
        kind = FillTray if isinstance(first, TrayFilled) else CreditTray
        return copied(kind, first, chips=_chips_input(first.chips))
    return None
