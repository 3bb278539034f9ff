"""Every fact a table records: frozen pydantic models with a ``type`` discriminator.

Each event carries ``table_id``, ``round`` (``None`` for table-level facts), the ``actor`` who
caused it and ``at``, the time the caller gave (the core reads no clock). Payloads hold money as
integer minor units and cards as canonical text (``"As"``, ``"JK"``, R-CARD-2) so that a stored
event reads without this code. Their JSON form (no floats, ISO times) is ``eventlog.mapper``'s.

Seats are the six player places, numbered 1..6 counterclockwise from the dealer; ``seat=None``
means the dealer's place (the banker when the dealer banks, the house hand when a player banks).
``position`` is R-DEAL-1's count from the banker (the banker is 1).

The table's and the round's events are here, with the ``Event`` union of every event; what they
all share is ``event_base.py``, the books' events ``book_events.py``, the settlement's
``settlement_events.py`` and the custody events ``custody_events.py``.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
)

from table_core.book_events import (
    ChipAmount,
    Chips,
    DropCounted,
    GamingDayClosed,
    GamingDayOpened,
    RatingCorrected,
    TrayCredited,
    TrayFilled,
)
from table_core.custody_events import (
    CUSTODY_TYPES,
    CustodyEvent,
    DeckDealt,
    DeckHeld,
    DeckId,
    DeckInspected,
    DeckInUse,
    DeckLoaded,
    DeckReceived,
    DeckReleased,
    DeckRetired,
    Said,
)
from table_core.event_base import (
    ActorRole,
    Amount,
    Back,
    Cards,
    CardText,
    EventBase,
    Front,
    HandResult,
    Int,
    Money,
    Position,
    RoundEventBase,
    Seat,
    WagerResult,
)
from table_core.house_way_events import HouseWayInstalled
from table_core.ports import Actor
from table_core.seating_events import (
    DROP_MEDIA,
    BuyInMedium,
    ChipsBoughtIn,
    ChipsCashedOut,
    PlayerLeft,
    PlayerSeated,
    RulesChanged,
    TableOpened,
)
from table_core.settlement_events import (
    BankerResult,
    CommissionTaken,
    EnvyPaid,
    RoundSettled,
    SeatResult,
    SideBetSettled,
    VariantOverride,
)

# --- a round: start and the bank ------------------------------------------------------------------


class RoundStarted(RoundEventBase):
    """A round opens under profile ``rules_version``; ``bank_order`` lists the seats the bank is
    offered to, in turn (R-BANK-1), empty when the dealer banks without an offer."""

    type: Literal["round_started"] = "round_started"
    rules_version: Amount
    bank_order: tuple[Seat, ...] = ()


class BankOffered(RoundEventBase):
    """The bank offered to a seat (R-BANK-1); an ineligible seat passes on at once, ``reason``
    saying why. ``required`` is what the balance had to cover."""

    type: Literal["bank_offered"] = "bank_offered"
    seat: Seat
    player_id: str | None
    eligible: bool
    reason: str | None = None
    balance: Money = 0
    required: Money = 0


class BankAccepted(RoundEventBase):
    type: Literal["bank_accepted"] = "bank_accepted"
    seat: Seat
    player_id: str
    co_bank: bool = False


class BankDeclined(RoundEventBase):
    type: Literal["bank_declined"] = "bank_declined"
    seat: Seat
    player_id: str


# --- wagers ---------------------------------------------------------------------------------------


class BetPlaced(RoundEventBase):
    """A main wager; ``seat=None`` is the house hand's wager against a player-banker (R-BANK-2)."""

    type: Literal["bet_placed"] = "bet_placed"
    seat: Seat | None
    player_id: str | None
    position: Position
    amount: Amount


class SideBetPlaced(RoundEventBase):
    """A side bet (R-VAR-2..6) with the seat's hand: banked by the house whoever banks (R-BANK-5),
    settled in the same round. ``bet``: ``fortune``, ``emperors_treasure``, ``insurance`` or
    ``progressive`` (a fixed wager, locked when bets close)."""

    type: Literal["side_bet_placed"] = "side_bet_placed"
    seat: Seat
    player_id: str
    bet: str
    amount: Amount


class WagerReturned(RoundEventBase):
    """A wager a player-banker cannot cover, returned before the deal ("no action", R-BANK-3);
    ``kind="side"``: a side bet ``bet`` of that seat, returned with its main wager."""

    type: Literal["wager_returned"] = "wager_returned"
    seat: Seat | None
    player_id: str | None
    position: Position
    amount: Amount
    reason: Literal["no_action"] = "no_action"
    clause: str = "R-BANK-3"
    kind: Literal["main", "side"] = "main"
    bet: str | None = None


class BetsClosed(RoundEventBase):
    """No more bets. ``banker_seat=None``: the dealer banks; ``in_action``: wagers that play."""

    type: Literal["bets_closed"] = "bets_closed"
    banker_seat: Seat | None
    banker_player_id: str | None
    co_bank: bool = False
    in_action: Money


# --- dealing --------------------------------------------------------------------------------------


class StacksDealt(RoundEventBase):
    """The deal (R-DEAL-2): the whole deck order when known (``None`` when a live table reported
    the seven hands), the seven stacks in cut order and the four unused cards."""

    type: Literal["stacks_dealt"] = "stacks_dealt"
    source: Literal["electronic", "live"]
    deck: Cards | None
    stacks: tuple[Cards, ...] = Field(min_length=7, max_length=7)
    unused: Cards = Field(min_length=4, max_length=4)


class DiceRolled(RoundEventBase):
    """Three dice; the total gives stack 1 to ``first_position`` = ((total - 1) mod 7) + 1."""

    type: Literal["dice_rolled"] = "dice_rolled"
    faces: tuple[Int, Int, Int]
    total: Annotated[int, Strict(), Field(ge=3, le=18)]
    first_position: Position


class StackAssignment(BaseModel):
    """One position's stack; ``holder="dead"`` for a position with no hand in action."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    position: Position
    stack: Position
    seat: Seat | None
    player_id: str | None
    holder: Literal["banker", "player", "house", "dead"]
    cards: Cards


class StacksAssigned(RoundEventBase):
    """Every position gets a stack, seated or not (R-DEAL-3); dead stacks are recorded too."""

    type: Literal["stacks_assigned"] = "stacks_assigned"
    assignments: tuple[StackAssignment, ...] = Field(min_length=7, max_length=7)


# --- setting hands --------------------------------------------------------------------------------


class HandSet(RoundEventBase):
    """A hand set by its player or by the House Way (``rule`` is then the deciding clause id).

    ``reason``: ``player_set``, ``player_asked`` (the player asked for the House Way),
    ``not_set`` (R-SET-2: the player did not set it), ``house_hand`` (R-BANK-2).
    """

    type: Literal["hand_set"] = "hand_set"
    seat: Seat | None
    position: Position
    back: Back
    front: Front
    by: Literal["player", "house_way"]
    reason: Literal["player_set", "player_asked", "not_set", "house_hand"]
    rule: str | None = None


class FoulReset(RoundEventBase):
    """R-SET-2 ``reset``: the player's fouled split and the House Way split that replaces it."""

    type: Literal["foul_reset"] = "foul_reset"
    seat: Seat
    position: Position
    player_back: Back
    player_front: Front
    back: Back
    front: Front
    rule: str
    clause: str = "R-SET-2"


class HandForfeited(RoundEventBase):
    """R-SET-2 ``forfeit``: the fouled split is recorded and the main wager loses."""

    type: Literal["hand_forfeited"] = "hand_forfeited"
    seat: Seat
    position: Position
    back: Back
    front: Front
    clause: str = "R-SET-2"


class BankerHandSet(RoundEventBase):
    """The banker's hand, always set by the House Way (R-HW-1); ``seat=None`` is the dealer."""

    type: Literal["banker_hand_set"] = "banker_hand_set"
    seat: Seat | None
    player_id: str | None
    position: Position = 1
    back: Back
    front: Front
    house_way: str
    rule: str


class MeterChanged(EventBase):
    """The progressive meter moved (R-VAR-6: every meter change is an event).

    ``amount`` is the change (signed) and ``meter`` the value after it. ``reason``: ``seed`` (the
    house funds the meter up to the table's reset value, a table fact), ``contribution`` (a locked
    wager's share), ``hit`` (a share paid to ``seat`` for ``line``), ``reset`` (the house re-seeds
    a meter a hit took below its reset value), ``return`` (a voided round's contribution back out).
    """

    type: Literal["meter_changed"] = "meter_changed"
    reason: Literal["seed", "contribution", "hit", "reset", "return"]
    amount: Int
    meter: Money
    seat: Seat | None = None
    player_id: str | None = None
    line: str | None = None
    clause: str = "R-VAR-6"


class ReturnedWager(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat | None
    player_id: str | None
    amount: Amount
    kind: Literal["main", "side"] = "main"
    bet: str | None = None


class RoundVoided(RoundEventBase):
    """A misdeal or a floor decision: no settlement, every wager listed is returned.

    A misdeal records what was reported (``reported_deck`` or ``reported_hands``) and the clause
    it breaks, so an auditor can check the deal really was refused for cause. A reported card is
    its canonical text; a token that is no card is kept as given (the shuffler's or reader's own
    words), hence plain ``str`` and not ``CardText``. All three default to ``None`` so that voids
    stored before them (and every floor void) still load under schema version 1.
    """

    type: Literal["round_voided"] = "round_voided"
    reason: str = Field(min_length=1)
    returned: tuple[ReturnedWager, ...] = ()
    reported_deck: tuple[str, ...] | None = None
    reported_hands: tuple[tuple[str, ...], ...] | None = None
    rule: str | None = None


class RoundClosed(RoundEventBase):
    type: Literal["round_closed"] = "round_closed"


Event = Annotated[
    TableOpened
    | RulesChanged
    | PlayerSeated
    | PlayerLeft
    | ChipsBoughtIn
    | ChipsCashedOut
    | GamingDayOpened
    | GamingDayClosed
    | TrayFilled
    | TrayCredited
    | DropCounted
    | RatingCorrected
    | RoundStarted
    | BankOffered
    | BankAccepted
    | BankDeclined
    | BetPlaced
    | SideBetPlaced
    | WagerReturned
    | BetsClosed
    | StacksDealt
    | DiceRolled
    | StacksAssigned
    | HandSet
    | FoulReset
    | HandForfeited
    | BankerHandSet
    | RoundSettled
    | CommissionTaken
    | SideBetSettled
    | EnvyPaid
    | MeterChanged
    | RoundVoided
    | RoundClosed
    | CustodyEvent  # DeckReceived .. DeckReleased, in its order
    | HouseWayInstalled,
    Field(discriminator="type"),
]
#: Every event class, in the union's order (read from ``Event``, so the list is written once).
EVENT_TYPES: tuple[type[EventBase], ...] = get_args(get_args(Event)[0])
#: Every table event's stored ``type`` name.
EVENT_TYPE_NAMES: frozenset[str] = frozenset(c.model_fields["type"].default for c in EVENT_TYPES)

#: What the core, the mapper and the audit take from here: every event, its parts and field types.
__all__ = [
    "CUSTODY_TYPES",
    "DROP_MEDIA",
    "EVENT_TYPES",
    "EVENT_TYPE_NAMES",
    "Actor",
    "ActorRole",
    "Amount",
    "Back",
    "BankAccepted",
    "BankDeclined",
    "BankOffered",
    "BankerHandSet",
    "BankerResult",
    "BetPlaced",
    "BetsClosed",
    "BuyInMedium",
    "CardText",
    "Cards",
    "ChipAmount",
    "Chips",
    "ChipsBoughtIn",
    "ChipsCashedOut",
    "CommissionTaken",
    "DeckDealt",
    "DeckHeld",
    "DeckId",
    "DeckInUse",
    "DeckInspected",
    "DeckLoaded",
    "DeckReceived",
    "DeckReleased",
    "DeckRetired",
    "DiceRolled",
    "DropCounted",
    "EnvyPaid",
    "Event",
    "EventBase",
    "FoulReset",
    "Front",
    "GamingDayClosed",
    "GamingDayOpened",
    "HandForfeited",
    "HandResult",
    "HandSet",
    "HouseWayInstalled",
    "Int",
    "MeterChanged",
    "Money",
    "PlayerLeft",
    "PlayerSeated",
    "Position",
    "RatingCorrected",
    "ReturnedWager",
    "RoundClosed",
    "RoundEventBase",
    "RoundSettled",
    "RoundStarted",
    "RoundVoided",
    "RulesChanged",
    "Said",
    "Seat",
    "SeatResult",
    "SideBetPlaced",
    "SideBetSettled",
    "StackAssignment",
    "StacksAssigned",
    "StacksDealt",
    "TableOpened",
    "TrayCredited",
    "TrayFilled",
    "VariantOverride",
    "WagerResult",
    "WagerReturned",
]
