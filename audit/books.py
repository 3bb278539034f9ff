"""The audit of a table's books (issue 18, duty R16), from its events alone.

Fed every command's events of one table, in order (``TableAudit`` calls :meth:`BooksAudit.apply`
once a command and :meth:`BooksAudit.finish` at the end of the log), it keeps the tray of each
gaming day by itself and checks:

- **the inventory equation**, to the cent: opener + fills − credits − chips sold for cash and
  markers + the house's result from the settlements = the tray the closer is compared with
  (``gaming_day_closed.expected``), and ``variance`` = closer − expected; an opener's variance is
  its total − the last closer; each count of chips (opener, closer, slip) adds up;
- **every fill and credit has its three actors** in their roles (requested by the floor; a fill
  issued by the cage and received by the dealer, a credit the other way round), on an open day,
  its slip number once a day;
- **every count matches its day**: a day of this table that closed and was not counted before,
  cash + markers = total;
- **ratings equal the events**: a correction names the start of the player's last carded seating
  at this table, as the ratings projection keys it.

Each finding is ``money`` / ``books``, at the event that breaks the books.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any

from audit.findings import Finding
from table_core.events import (
    DROP_MEDIA,
    ChipsBoughtIn,
    DropCounted,
    Event,
    GamingDayClosed,
    GamingDayOpened,
    PlayerSeated,
    RatingCorrected,
    TrayCredited,
    TrayFilled,
)
from table_core.table.inventory import tray_change

_ROLES = {TrayFilled: ("floor", "cage", "dealer"), TrayCredited: ("floor", "dealer", "cage")}
_SETTLEMENT = frozenset({"round_settled", "commission_taken", "side_bet_settled", "envy_paid"})


class BooksAudit:
    """One table's books, re-counted from its events."""

    def __init__(self, table_id: str, report: Callable[[Finding], None]) -> None:
        self.table_id = table_id
        self.report = report
        self.tray: int | None = None  # None: no books (a table opened without an opener)
        self.day: date | None = None
        self.open = False
        self.slips: set[str] = set()
        self.last_closer: int | None = None
        self.closed: set[date] = set()
        self.counted: set[date] = set()
        self.carded: dict[str, datetime] = {}
        self.days_checked = 0

    def apply(self, metas: Sequence[Any], events: Sequence[Event]) -> None:
        """One command's events (``metas``: where each sits in the log)."""
        if self.tray is not None and any(e.type in _SETTLEMENT for e in events):
            self.tray += tray_change(events)
        for meta, event in zip(metas, events, strict=False):
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                problem = handler(self, event)
                if problem:
                    self._finding(meta, event, problem)

    def finish(self) -> None:
        """Nothing is left to check at the end: an open day is simply still open."""

    def _finding(self, meta: Any, event: Event, problem: str) -> None:
        self.report(
            Finding(
                kind="money",
                clause="books",
                message=f"table {self.table_id}, {event.type}: {problem} (R16)",
                position=getattr(meta, "position", None),
                stream_id=self.table_id,
                version=getattr(meta, "version", None),
                event_type=event.type,
                round=getattr(event, "round", None),
            )
        )


def _counted(chips: Sequence[Any], total: int, what: str) -> str | None:
    summed = sum(c.amount for c in chips)
    if summed != total:
        return f"the {what}'s chips add up to {summed}, not its total {total}"
    odd = [c.denomination for c in chips if c.amount % c.denomination]
    if odd:
        return f"the {what} counts chips of {odd[0]} that are not whole chips"
    return None


def _opened(b: BooksAudit, e: GamingDayOpened) -> str | None:
    problem = _counted(e.opener, e.total, "opener")
    expected = 0 if b.last_closer is None else e.total - b.last_closer
    if e.last_closer != b.last_closer or e.variance != expected:
        problem = problem or (
            f"the opener {e.total} against the last closer {b.last_closer} is a variance of "
            f"{expected}, the event says {e.variance} (last closer {e.last_closer})"
        )
    b.tray, b.day, b.open, b.slips = e.total, e.gaming_day, True, set()
    return problem


def _closed(b: BooksAudit, e: GamingDayClosed) -> str | None:
    problem = _counted(e.closer, e.total, "closer")
    if b.tray is None or not b.open or e.gaming_day != b.day:
        problem = problem or f"gaming day {e.gaming_day} is not the open day ({b.day})"
    elif e.expected != b.tray or e.variance != e.total - b.tray:
        problem = problem or (
            f"the inventory equation gives a tray of {b.tray} (opener + fills - credits - chips "
            f"sold + the house's result), the event says {e.expected} with a variance of "
            f"{e.variance} for a closer of {e.total}"
        )
    b.days_checked += 1
    b.open, b.last_closer, b.tray = False, e.total, e.total
    b.closed.add(e.gaming_day)
    return problem


def _slip(b: BooksAudit, e: TrayFilled | TrayCredited) -> str | None:
    problem = _counted(e.chips, e.total, "slip")
    roles = (e.requested_by.role, e.issued_by.role, e.received_by.role)
    if roles != _ROLES[type(e)]:
        problem = problem or f"slip {e.slip} is signed by {roles}, not {_ROLES[type(e)]}"
    if not b.open or e.gaming_day != b.day:
        problem = problem or f"slip {e.slip} is on gaming day {e.gaming_day}, not an open day"
    if e.slip in b.slips:
        problem = problem or f"slip {e.slip} is recorded twice on gaming day {b.day}"
    b.slips.add(e.slip)
    if b.tray is not None:
        b.tray += e.total if isinstance(e, TrayFilled) else -e.total
    return problem


def _bought_in(b: BooksAudit, e: ChipsBoughtIn) -> str | None:
    if b.tray is not None and e.medium in DROP_MEDIA:
        b.tray -= e.amount
    return None


def _count(b: BooksAudit, e: DropCounted) -> str | None:
    if e.cash + e.markers != e.total:
        return f"cash {e.cash} + markers {e.markers} is not the total {e.total}"
    if e.gaming_day not in b.closed or e.gaming_day in b.counted:
        return f"gaming day {e.gaming_day} is not a closed, uncounted day of this table"
    b.counted.add(e.gaming_day)
    return None


def _seated(b: BooksAudit, e: PlayerSeated) -> str | None:
    if e.card is not None:
        b.carded[e.player_id] = e.at
    return None


def _corrected(b: BooksAudit, e: RatingCorrected) -> str | None:
    start = b.carded.get(e.player_id)
    if start != e.rating_start:
        return f"the rating of {e.player_id} that started {e.rating_start} is not on the table"
    return None


_HANDLERS: dict[type[Any], Callable[[BooksAudit, Any], str | None]] = {
    GamingDayOpened: _opened,
    GamingDayClosed: _closed,
    TrayFilled: _slip,
    TrayCredited: _slip,
    ChipsBoughtIn: _bought_in,
    DropCounted: _count,
    PlayerSeated: _seated,
    RatingCorrected: _corrected,
}
