"""The books' commands read back from their events (issue 18), for the re-derivation of
``audit/command_rebuild.py``: the gaming day opened and closed, fills and credits, the count,
rating corrections."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def _chips_input(chips: Iterable[ChipAmount]) -> dict[int, int]:
    return {each.denomination: each.amount for each in chips}


def command_of_books(events: Sequence[Event]) -> Command | None:
    """The books command that recorded ``events`` (for the audit's re-derivation), else ``None``."""
    first, last = events[0], events[-1]
    actor, at = first.actor, first.at
    if isinstance(last, GamingDayOpened):
        rules = getattr(first, "rules", None)
        return OpenGamingDay(
            gaming_day=last.gaming_day,
            opener=_chips_input(last.opener),
            dealer=last.dealer,
            table_id=first.table_id if rules is not None else None,
            rules=rules,
            actor=actor,
            at=at,
        )
    if isinstance(first, GamingDayClosed):
        return CloseGamingDay(
            closer=_chips_input(first.closer), dealer=first.dealer, actor=actor, at=at
        )
    if isinstance(first, TrayFilled | TrayCredited):
        kind = FillTray if isinstance(first, TrayFilled) else CreditTray
        return kind(
            slip=first.slip,
            chips=_chips_input(first.chips),
            requested_by=first.requested_by,
            issued_by=first.issued_by,
            received_by=first.received_by,
            actor=actor,
            at=at,
        )
    if isinstance(first, DropCounted):
        return CountDrop(
            gaming_day=first.gaming_day, cash=first.cash, markers=first.markers, actor=actor, at=at
        )
    if isinstance(first, RatingCorrected):
        return CorrectRating(
            player_id=first.player_id,
            reason=first.reason,
            average_bet=first.average_bet,
            minutes=first.minutes,
            actor=actor,
            at=at,
        )
    return None
