"""The books' events (issue 18, decided in ``table/inventory.py``): the gaming day opened and
closed with the tray counted, fills and credits, the drop counted, rating corrections."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
)

from table_core.event_base import (
    Amount,
    EventBase,
    Int,
    Money,
    TableActor,
)

# --- the books: the gaming day, the tray, the drop, ratings (issue 18, table/inventory.py) -----


class ChipAmount(BaseModel):
    """Chips of one denomination, as minor units (``amount`` a multiple of ``denomination``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    denomination: Amount
    amount: Money


Chips = tuple[ChipAmount, ...]


class GamingDayOpened(EventBase):
    """The table opens for ``gaming_day`` with its opener (the tray counted by denomination),
    signed by the dealer and the floor supervisor (``actor``). ``last_closer`` is the total the
    table last closed with (``None``: its first opener) and ``variance = opener - last_closer``:
    a difference is recorded, never hidden."""

    type: Literal["gaming_day_opened"] = "gaming_day_opened"
    gaming_day: date
    opener: Chips
    total: Money
    dealer: TableActor
    last_closer: Money | None = None
    variance: Int = 0


class GamingDayClosed(EventBase):
    """The table closes its gaming day with the closer (counted as the opener is). ``expected``
    is the tray as the events say; ``variance = total - expected`` (R16: never hidden)."""

    type: Literal["gaming_day_closed"] = "gaming_day_closed"
    gaming_day: date
    closer: Chips
    total: Money
    dealer: TableActor
    expected: Int
    variance: Int = 0


class _TraySlip(EventBase):
    slip: str = Field(min_length=1)
    gaming_day: date
    chips: Chips
    total: Amount
    requested_by: TableActor
    issued_by: TableActor
    received_by: TableActor


class TrayFilled(_TraySlip):
    """A fill: chips from the cage to the tray (requested by the floor, issued by the cage,
    received by the dealer)."""

    type: Literal["tray_filled"] = "tray_filled"


class TrayCredited(_TraySlip):
    """A credit: chips from the tray to the cage (requested by the floor, issued by the dealer
    from the tray, received by the cage)."""

    type: Literal["tray_credited"] = "tray_credited"


class DropCounted(EventBase):
    """The count team's count of the table's drop box for a closed gaming day: cash and markers."""

    type: Literal["drop_counted"] = "drop_counted"
    gaming_day: date
    cash: Money
    markers: Money
    total: Money


class RatingCorrected(EventBase):
    """A floor supervisor's correction of a player's rating (compensating, never an edit): the
    rating opened at ``rating_start``; ``average_bet`` (main wager, minor units) and ``minutes``
    played replace the projection's figures where given; ``reason`` says why."""

    type: Literal["rating_corrected"] = "rating_corrected"
    player_id: str = Field(min_length=1)
    rating_start: AwareDatetime
    average_bet: Money | None = None
    minutes: Money | None = None
    reason: str = Field(min_length=1)
