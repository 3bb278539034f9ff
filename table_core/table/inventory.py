"""The table's books (issue 18, duty R16): the gaming day, the chip tray, fills, credits, the count.

A table opened with an opener (``OpenGamingDay``) keeps its tray in the state: the opener, plus
fills, less credits and the chips sold for cash and markers, plus what the house wins (and less
what it pays). So, for each gaming day, ``opener + fills - credits - chips sold + game win =
closer``, to the cent, derivable from the events alone. A table opened with the plain
``OpenTable`` (every table before issue 18) has no books (``state.books == "untracked"``) and
plays exactly as before, until an opener starts them.

Refusals: a fill or credit on a table not open for a gaming day or during a round; a credit, a
buy-in's chips or a round's payouts the tray cannot cover (a fill must come first); chips in a
denomination the profile does not list, or an amount that is not a whole, non-negative multiple of
its denomination; a count for a day that is not closed (or counted already); a rating correction
without a reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from table_core.commands import (
    ChipInput,
    CloseGamingDay,
    Command,
    CorrectRating,
    CountDrop,
    CreditTray,
    FillTray,
    OpenGamingDay,
    OpenTable,
)
from table_core.errors import DomainError
from table_core.events import (
    DROP_MEDIA,
    Actor,
    ChipAmount,
    ChipsBoughtIn,
    CommissionTaken,
    DropCounted,
    EnvyPaid,
    Event,
    GamingDayClosed,
    GamingDayOpened,
    RatingCorrected,
    RoundSettled,
    SideBetSettled,
    TrayCredited,
    TrayFilled,
)
from table_core.table.guards import WrongState, require, require_tray_covers
from table_core.table.seating import open_table
from table_core.table.state import TableState

FLOOR = frozenset({"floor"})
_RECORDERS = frozenset({"floor", "cage", "dealer"})


# --- checks ---------------------------------------------------------------------------------------


def chips_of(
    given: ChipInput, denominations: Sequence[int], *, positive: bool
) -> tuple[tuple[ChipAmount, ...], int]:
    """Chips as events hold them (by denomination, ascending) and their total, else a refusal:
    a denomination the profile does not list, a fractional, negative or odd amount."""
    chips: list[ChipAmount] = []
    for denomination, amount in sorted(given.items()):
        if denomination not in denominations:
            listed = ", ".join(map(str, denominations))
            raise DomainError(f"denomination {denomination} is not in the profile ({listed})")
        if type(amount) is not int:
            raise DomainError(f"chips of {denomination}: {amount!r} is not a whole minor unit")
        if amount < 0 or amount % denomination:
            raise DomainError(
                f"chips of {denomination}: {amount} is not a non-negative multiple of it"
            )
        if amount:
            chips.append(ChipAmount(denomination=denomination, amount=amount))
    total = sum(each.amount for each in chips)
    if positive and total <= 0:
        raise DomainError("a slip moves chips: give at least one positive amount")
    return tuple(chips), total


def _roles(*pairs: tuple[Actor, str, str]) -> None:
    """Each signer in the role it signs as, and (R19, separation of duties) each another person:
    one person signing twice is no second signature."""
    for actor, role, what in pairs:
        if actor.role != role:
            raise DomainError(f"the {what} signs as {role}, not {actor.role} ({actor.id})")
    seen: dict[str, str] = {}
    for actor, _role, what in pairs:
        if actor.id in seen:
            raise DomainError(
                f"{actor.id} signs as the {seen[actor.id]} and as the {what}: "
                "each signer is another person (R19)"
            )
        seen[actor.id] = what


def _between_rounds(state: TableState, action: str) -> None:
    if state.books != "open":
        raise WrongState(action, "closed" if state.books == "closed" else "no_gaming_day")
    if state.round is not None and state.round.live:
        raise WrongState(action, state.round.phase)


def _env(state: TableState, cmd: Command) -> dict[str, Any]:
    return {"table_id": state.table_id, "actor": cmd.actor, "at": cmd.at, "round": None}


def tray_change(events: Iterable[Event]) -> int:
    """What ``events`` (a round's settlement) add to the tray: the house's result and commission."""
    change = 0
    for event in events:
        if type(event) is RoundSettled:
            change += event.banker.house_share
            change += sum(r.net for r in event.results if r.player_id is None)
        elif type(event) is CommissionTaken:
            change += event.amount
        elif type(event) is SideBetSettled:
            change -= event.payout
        elif type(event) is EnvyPaid:
            change -= event.amount
    return change


# --- deciders -------------------------------------------------------------------------------------


def open_gaming_day(state: TableState, cmd: OpenGamingDay) -> list[Event]:
    """Open for a gaming day; a table never opened is opened first (``table_opened``)."""
    require(cmd.actor, FLOOR, "open a gaming day")
    _roles((cmd.actor, "floor", "floor supervisor"), (cmd.dealer, "dealer", "dealer"))
    events: list[Event] = []
    if state.table_id is None:
        if cmd.table_id is None:
            raise DomainError("a table opened for the first time needs its table_id")
        first = OpenTable(table_id=cmd.table_id, actor=cmd.actor, at=cmd.at)
        if cmd.rules is not None:
            first = OpenTable(table_id=cmd.table_id, rules=cmd.rules, actor=cmd.actor, at=cmd.at)
        events = open_table(state, first)
        rules = events[0].rules  # type: ignore[union-attr]
        table_id = cmd.table_id
    else:
        if state.books == "open":
            raise WrongState("open a gaming day", "open")
        if state.round is not None and state.round.live:
            raise WrongState("open a gaming day", state.round.phase)
        if cmd.rules is not None and cmd.rules != state.rules:
            raise DomainError("an open table changes its rules by a rules change, not an opener")
        assert state.rules is not None
        rules, table_id = state.rules, state.table_id
    if state.gaming_day is not None and cmd.gaming_day <= state.gaming_day:
        raise DomainError(f"gaming day {cmd.gaming_day} is not after {state.gaming_day}")
    opener, total = chips_of(cmd.opener, rules.denominations, positive=False)
    last = state.last_closer
    opened = GamingDayOpened(
        table_id=table_id,
        actor=cmd.actor,
        at=cmd.at,
        gaming_day=cmd.gaming_day,
        opener=opener,
        total=total,
        dealer=cmd.dealer,
        last_closer=last,
        variance=0 if last is None else total - last,
    )
    return [*events, opened]


def close_gaming_day(state: TableState, cmd: CloseGamingDay) -> list[Event]:
    require(cmd.actor, FLOOR, "close a gaming day")
    _roles((cmd.actor, "floor", "floor supervisor"), (cmd.dealer, "dealer", "dealer"))
    _between_rounds(state, "close the gaming day")
    assert state.rules is not None and state.gaming_day is not None and state.tray is not None
    closer, total = chips_of(cmd.closer, state.rules.denominations, positive=False)
    return [
        GamingDayClosed(
            **_env(state, cmd),
            gaming_day=state.gaming_day,
            closer=closer,
            total=total,
            dealer=cmd.dealer,
            expected=state.tray,
            variance=total - state.tray,
        )
    ]


def _slip(
    state: TableState, cmd: FillTray | CreditTray, action: str, issuer: str, receiver: str
) -> dict[str, Any]:
    """A slip's event fields, checked: the floor requests it, ``issuer`` and ``receiver`` are the
    roles the chips leave and reach (the cage and the dealer, one way or the other)."""
    require(cmd.actor, _RECORDERS, action)
    _between_rounds(state, action)
    assert state.rules is not None
    if not cmd.slip.strip():
        raise DomainError("a slip has its number")
    if cmd.slip in state.slips:
        raise DomainError(f"slip {cmd.slip} is recorded already on gaming day {state.gaming_day}")
    chips, total = chips_of(cmd.chips, state.rules.denominations, positive=True)
    _roles(
        (cmd.requested_by, "floor", "requester"),
        (cmd.issued_by, issuer, "issuer"),
        (cmd.received_by, receiver, "receiver"),
    )
    return _env(state, cmd) | {
        "slip": cmd.slip,
        "gaming_day": state.gaming_day,
        "chips": chips,
        "total": total,
        "requested_by": cmd.requested_by,
        "issued_by": cmd.issued_by,
        "received_by": cmd.received_by,
    }


def fill_tray(state: TableState, cmd: FillTray) -> list[Event]:
    return [TrayFilled(**_slip(state, cmd, "fill the tray", "cage", "dealer"))]


def credit_tray(state: TableState, cmd: CreditTray) -> list[Event]:
    fields = _slip(state, cmd, "credit the tray", "dealer", "cage")
    require_tray_covers(state, fields["total"], f"credit {cmd.slip}")
    return [TrayCredited(**fields)]


def count_drop(state: TableState, cmd: CountDrop) -> list[Event]:
    """The count team (role ``count``) records a closed day's drop box: cash and markers."""
    require(cmd.actor, frozenset({"count"}), "record the count")
    if cmd.gaming_day not in state.uncounted:
        raise DomainError(
            f"gaming day {cmd.gaming_day} of table {state.table_id} is not closed and uncounted"
        )
    for name, amount in (("cash", cmd.cash), ("markers", cmd.markers)):
        if type(amount) is not int or amount < 0:
            raise DomainError(f"the count's {name} is whole, non-negative minor units: {amount!r}")
    return [
        DropCounted(
            **_env(state, cmd),
            gaming_day=cmd.gaming_day,
            cash=cmd.cash,
            markers=cmd.markers,
            total=cmd.cash + cmd.markers,
        )
    ]


def correct_rating(state: TableState, cmd: CorrectRating) -> list[Event]:
    require(cmd.actor, FLOOR, "correct a rating")
    if state.table_id is None:
        raise WrongState("correct a rating", state.phase)
    if not cmd.reason.strip():
        raise DomainError("a rating correction states its reason")
    start = state.ratings.get(cmd.player_id)
    if start is None:
        raise DomainError(f"player {cmd.player_id} has no rating at table {state.table_id}")
    if cmd.average_bet is None and cmd.minutes is None:
        raise DomainError("a rating correction gives an average bet or a time played")
    for name, value in (("average_bet", cmd.average_bet), ("minutes", cmd.minutes)):
        if value is not None and (type(value) is not int or value < 0):
            raise DomainError(f"{name} is a whole, non-negative number: {value!r}")
    return [
        RatingCorrected(
            **_env(state, cmd),
            player_id=cmd.player_id,
            rating_start=start,
            average_bet=cmd.average_bet,
            minutes=cmd.minutes,
            reason=cmd.reason,
        )
    ]


# --- fold -----------------------------------------------------------------------------------------
# ``folding.fold`` applies these to its draft (``draft.table``: the state's fields as a dict).


def _opened(draft: Any, event: GamingDayOpened) -> None:
    table = draft.table
    table.update(
        books="open",
        gaming_day=event.gaming_day,
        slips=frozenset(),
        tray_base=event.total - table["house_result"] - table["commission"],
    )


def _closed(draft: Any, event: GamingDayClosed) -> None:
    table = draft.table
    table.update(
        books="closed",
        last_closer=event.total,
        uncounted=(*table["uncounted"], event.gaming_day),
        tray_base=event.total - table["house_result"] - table["commission"],
    )


def _filled(draft: Any, event: TrayFilled) -> None:
    draft.table["tray_base"] += event.total
    draft.table["slips"] = draft.table["slips"] | {event.slip}


def _credited(draft: Any, event: TrayCredited) -> None:
    draft.table["tray_base"] -= event.total
    draft.table["slips"] = draft.table["slips"] | {event.slip}


def _counted(draft: Any, event: DropCounted) -> None:
    draft.table["uncounted"] = tuple(d for d in draft.table["uncounted"] if d != event.gaming_day)


def _rating_corrected(draft: Any, event: RatingCorrected) -> None:
    """A correction changes no chips and no state: the ratings projection reads it."""


def sold_from_tray(draft: Any, event: ChipsBoughtIn) -> None:
    """A buy-in for cash or a marker takes its chips from the tray (``chips_bought_in``)."""
    if event.medium in DROP_MEDIA:
        draft.table["tray_base"] -= event.amount


HANDLERS: dict[type[Any], Callable[[Any, Any], None]] = {
    GamingDayOpened: _opened,
    GamingDayClosed: _closed,
    TrayFilled: _filled,
    TrayCredited: _credited,
    DropCounted: _counted,
    RatingCorrected: _rating_corrected,
}

DECIDERS: dict[type[Command], Callable[[TableState, Any], list[Event]]] = {
    OpenGamingDay: open_gaming_day,
    CloseGamingDay: close_gaming_day,
    FillTray: fill_tray,
    CreditTray: credit_tray,
    CountDrop: count_drop,
    CorrectRating: correct_rating,
}
