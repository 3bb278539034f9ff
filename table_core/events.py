"""Every fact a table records: frozen pydantic models with a ``type`` discriminator.

Each event carries ``table_id``, ``round`` (``None`` for table-level facts), the ``actor`` who
caused it and ``at``, the time the caller gave (the core reads no clock). Payloads hold money as
integer minor units and cards as canonical text (``"As"``, ``"JK"``, R-CARD-2) so that a stored
event reads without this code. Their JSON form (no floats, ISO times) is ``eventlog.mapper``'s.

This module is the one schema of the table's events (the ``Event`` union must name every model),
hence longer than 500 lines.

Seats are the six player places, numbered 1..6 counterclockwise from the dealer; ``seat=None``
means the dealer's place (the banker when the dealer banks, the house hand when a player banks).
``position`` is R-DEAL-1's count from the banker (the banker is 1).

Over 500 lines on purpose: the models are the stored contract, read together and changed together
(a split would scatter one schema over files).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    Strict,
    model_serializer,
)

from table_core.cards import FULL_DECK, card_text
from table_core.rules import TableRules, Variant

ActorRole = Literal["dealer", "floor", "player", "system", "cage", "count"]

_CANONICAL = frozenset(card_text(c) for c in FULL_DECK)


def _canonical_card(text: str) -> str:
    # Stored events hold canonical text only, so two auditors never read one card two ways.
    if text not in _CANONICAL:
        raise ValueError(f"not a canonical card text: {text!r}")
    return text


CardText = Annotated[str, AfterValidator(_canonical_card)]
Cards = tuple[CardText, ...]
Back = Annotated[tuple[CardText, ...], Field(min_length=5, max_length=5)]
Front = Annotated[tuple[CardText, ...], Field(min_length=2, max_length=2)]
# Integers are strict: a stored 25.0 is a corrupt payload, not 25 minor units.
Int = Annotated[int, Strict()]
Seat = Annotated[int, Strict(), Field(ge=1, le=6)]
Position = Annotated[int, Strict(), Field(ge=1, le=7)]
Money = Annotated[int, Strict(), Field(ge=0)]
Amount = Annotated[int, Strict(), Field(ge=1)]

HandResult = Literal["win", "loss", "copy"]
WagerResult = Literal["win", "push", "loss"]


class Actor(BaseModel):
    """Who caused an event: an id the casino knows and the role they acted in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    role: ActorRole


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    schema_version: Int = 1
    table_id: str = Field(min_length=1)
    round: Int | None = None
    actor: Actor
    at: AwareDatetime


class _RoundEvent(_Event):
    round: Annotated[int, Strict(), Field(ge=1)]


# --- the table ------------------------------------------------------------------------------------


class TableOpened(_Event):
    """The table opens under a full rules profile (House Way, commission, limits, banking…)."""

    type: Literal["table_opened"] = "table_opened"
    rules: TableRules


class RulesChanged(_Event):
    """A floor supervisor changed the profile; it applies from round ``applies_from_round``."""

    type: Literal["rules_changed"] = "rules_changed"
    rules: TableRules
    reason: str = Field(min_length=1)
    applies_from_round: Amount


def _without_unset(data: dict[str, Any], *names: str) -> dict[str, Any]:
    """Optional fields added after events were stored (issue 18) are written only when given, so an
    event recorded without them keeps the exact bytes (and hash) it always had."""
    for name in names:
        if data.get(name) is None:
            data.pop(name, None)
    return data


class PlayerSeated(_Event):
    """A player sits; ``card`` is the players' club card that opens a rating (issue 18)."""

    type: Literal["player_seated"] = "player_seated"
    seat: Seat
    player_id: str = Field(min_length=1)
    card: str | None = Field(default=None, min_length=1)

    @model_serializer(mode="wrap")
    def _card_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(handler(self), "card")


class PlayerLeft(_Event):
    type: Literal["player_left"] = "player_left"
    seat: Seat
    player_id: str


#: How a player paid for chips (issue 18): ``cash`` and ``marker`` (a credit instrument) go to the
#: drop box and the tray gives the chips; ``chips`` (brought from another table or the cage) and
#: ``promotional`` (the marketing department's chips) take nothing from the tray and are no drop.
BuyInMedium = Literal["cash", "marker", "chips", "promotional"]
#: The media whose money is the table's drop (and whose chips come out of the tray).
DROP_MEDIA: frozenset[str | None] = frozenset({"cash", "marker", None})


class ChipsBoughtIn(_Event):
    """A buy-in; ``medium`` ``None`` is a buy-in recorded before media existed (issue 18), read as
    cash. ``marker`` is the marker's number, given with ``medium="marker"`` only."""

    type: Literal["chips_bought_in"] = "chips_bought_in"
    player_id: str
    amount: Amount
    medium: BuyInMedium | None = None
    marker: str | None = Field(default=None, min_length=1)

    @model_serializer(mode="wrap")
    def _medium_when_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_unset(handler(self), "medium", "marker")


class ChipsCashedOut(_Event):
    type: Literal["chips_cashed_out"] = "chips_cashed_out"
    player_id: str
    amount: Amount


# --- the books: the gaming day, the tray, the drop, ratings (issue 18, table/inventory.py) -----


class ChipAmount(BaseModel):
    """Chips of one denomination, as minor units (``amount`` a multiple of ``denomination``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    denomination: Amount
    amount: Money


Chips = tuple[ChipAmount, ...]


class GamingDayOpened(_Event):
    """The table opens for ``gaming_day`` with its opener (the tray counted by denomination),
    signed by the dealer and the floor supervisor (``actor``). ``last_closer`` is the total the
    table last closed with (``None``: its first opener) and ``variance = opener - last_closer``:
    a difference is recorded, never hidden."""

    type: Literal["gaming_day_opened"] = "gaming_day_opened"
    gaming_day: date
    opener: Chips
    total: Money
    dealer: Actor
    last_closer: Money | None = None
    variance: Int = 0


class GamingDayClosed(_Event):
    """The table closes its gaming day with the closer (counted as the opener is). ``expected``
    is the tray as the events say; ``variance = total - expected`` (R16: never hidden)."""

    type: Literal["gaming_day_closed"] = "gaming_day_closed"
    gaming_day: date
    closer: Chips
    total: Money
    dealer: Actor
    expected: Int
    variance: Int = 0


class _TraySlip(_Event):
    slip: str = Field(min_length=1)
    gaming_day: date
    chips: Chips
    total: Amount
    requested_by: Actor
    issued_by: Actor
    received_by: Actor


class TrayFilled(_TraySlip):
    """A fill: chips from the cage to the tray (requested by the floor, issued by the cage,
    received by the dealer)."""

    type: Literal["tray_filled"] = "tray_filled"


class TrayCredited(_TraySlip):
    """A credit: chips from the tray to the cage (requested by the floor, issued by the dealer
    from the tray, received by the cage)."""

    type: Literal["tray_credited"] = "tray_credited"


class DropCounted(_Event):
    """The count team's count of the table's drop box for a closed gaming day: cash and markers."""

    type: Literal["drop_counted"] = "drop_counted"
    gaming_day: date
    cash: Money
    markers: Money
    total: Money


class RatingCorrected(_Event):
    """A floor supervisor's correction of a player's rating (compensating, never an edit): the
    rating opened at ``rating_start``; ``average_bet`` (main wager, minor units) and ``minutes``
    played replace the projection's figures where given; ``reason`` says why."""

    type: Literal["rating_corrected"] = "rating_corrected"
    player_id: str = Field(min_length=1)
    rating_start: AwareDatetime
    average_bet: Money | None = None
    minutes: Money | None = None
    reason: str = Field(min_length=1)


# --- a round: start and the bank ------------------------------------------------------------------


class RoundStarted(_RoundEvent):
    """A round opens under profile ``rules_version``; ``bank_order`` lists the seats the bank is
    offered to, in turn (R-BANK-1), empty when the dealer banks without an offer."""

    type: Literal["round_started"] = "round_started"
    rules_version: Amount
    bank_order: tuple[Seat, ...] = ()


class BankOffered(_RoundEvent):
    """The bank offered to a seat (R-BANK-1); an ineligible seat passes on at once, ``reason``
    saying why. ``required`` is what the balance had to cover."""

    type: Literal["bank_offered"] = "bank_offered"
    seat: Seat
    player_id: str | None
    eligible: bool
    reason: str | None = None
    balance: Money = 0
    required: Money = 0


class BankAccepted(_RoundEvent):
    type: Literal["bank_accepted"] = "bank_accepted"
    seat: Seat
    player_id: str
    co_bank: bool = False


class BankDeclined(_RoundEvent):
    type: Literal["bank_declined"] = "bank_declined"
    seat: Seat
    player_id: str


# --- wagers ---------------------------------------------------------------------------------------


class BetPlaced(_RoundEvent):
    """A main wager; ``seat=None`` is the house hand's wager against a player-banker (R-BANK-2)."""

    type: Literal["bet_placed"] = "bet_placed"
    seat: Seat | None
    player_id: str | None
    position: Position
    amount: Amount


class SideBetPlaced(_RoundEvent):
    """A side bet (R-VAR-2..6) with the seat's hand: banked by the house whoever banks (R-BANK-5),
    settled in the same round. ``bet``: ``fortune``, ``emperors_treasure``, ``insurance`` or
    ``progressive`` (a fixed wager, locked when bets close)."""

    type: Literal["side_bet_placed"] = "side_bet_placed"
    seat: Seat
    player_id: str
    bet: str
    amount: Amount


class WagerReturned(_RoundEvent):
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


class BetsClosed(_RoundEvent):
    """No more bets. ``banker_seat=None``: the dealer banks; ``in_action``: wagers that play."""

    type: Literal["bets_closed"] = "bets_closed"
    banker_seat: Seat | None
    banker_player_id: str | None
    co_bank: bool = False
    in_action: Money


# --- dealing --------------------------------------------------------------------------------------


class StacksDealt(_RoundEvent):
    """The deal (R-DEAL-2): the whole deck order when known (``None`` when a live table reported
    the seven hands), the seven stacks in cut order and the four unused cards."""

    type: Literal["stacks_dealt"] = "stacks_dealt"
    source: Literal["electronic", "live"]
    deck: Cards | None
    stacks: tuple[Cards, ...] = Field(min_length=7, max_length=7)
    unused: Cards = Field(min_length=4, max_length=4)


class DiceRolled(_RoundEvent):
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


class StacksAssigned(_RoundEvent):
    """Every position gets a stack, seated or not (R-DEAL-3); dead stacks are recorded too."""

    type: Literal["stacks_assigned"] = "stacks_assigned"
    assignments: tuple[StackAssignment, ...] = Field(min_length=7, max_length=7)


# --- setting hands --------------------------------------------------------------------------------


class HandSet(_RoundEvent):
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


class FoulReset(_RoundEvent):
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


class HandForfeited(_RoundEvent):
    """R-SET-2 ``forfeit``: the fouled split is recorded and the main wager loses."""

    type: Literal["hand_forfeited"] = "hand_forfeited"
    seat: Seat
    position: Position
    back: Back
    front: Front
    clause: str = "R-SET-2"


class BankerHandSet(_RoundEvent):
    """The banker's hand, always set by the House Way (R-HW-1); ``seat=None`` is the dealer."""

    type: Literal["banker_hand_set"] = "banker_hand_set"
    seat: Seat | None
    player_id: str | None
    position: Position = 1
    back: Back
    front: Front
    house_way: str
    rule: str


# --- settlement -----------------------------------------------------------------------------------


class SeatResult(BaseModel):
    """One main wager settled against the banker (R-PAY-1, R-SET-3).

    ``payout`` is the even-money result (+wager, 0 or -wager), ``commission`` the house's take
    and ``net = payout - commission`` the change to the player's chips beyond the wager returned.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat | None
    player_id: str | None
    position: Position
    wager: Amount
    back: HandResult
    front: HandResult
    result: WagerResult
    forfeited: bool = False
    payout: Int
    commission: Money
    net: Int


class BankerResult(BaseModel):
    """The banker's side: ``result`` = -(sum of payouts); with co-banking (R-BANK-2) the house
    takes ``house_share`` and the player-banker ``player_share``, who pays ``commission`` on a
    net win (R-BANK-4); ``net`` is the player-banker's change of chips."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat | None
    player_id: str | None
    result: Int
    co_bank: bool = False
    house_share: Int
    player_share: Int
    commission: Money
    net: Int


#: Why the banker's hand decided every main wager of the round (R-VAR-1), as ``round_settled``
#: records it: the variant, the banker hand and what it did.
VariantOverride = Literal[
    "ez_queen_high_push", "ez_queen_high_banker_wins", "commission_free_nine_high_push"
]


class RoundSettled(_RoundEvent):
    """Every main wager settled; ``variant`` is the round's (R-VAR-1) and ``override`` names the
    banker hand that pushed (or took) every main wager, ``None`` when R-PAY-1 decided."""

    type: Literal["round_settled"] = "round_settled"
    results: tuple[SeatResult, ...]
    banker: BankerResult
    variant: Variant = "commission"
    override: VariantOverride | None = None


class CommissionTaken(_RoundEvent):
    """Commission as its own fact (R-PAY-3); ``seat=None`` never pays (the house is not charged).

    ``basis``: ``percent_of_win``/``flat_per_win``/``flat_per_hand`` for a player's wager
    (R-PAY-2), ``banker_net_win`` for a player-banker (R-BANK-4); ``basis_amount`` is the wager
    or the net win it was computed on.
    """

    type: Literal["commission_taken"] = "commission_taken"
    seat: Seat
    player_id: str
    payer: Literal["player", "banker"]
    amount: Amount
    basis: Literal["percent_of_win", "flat_per_win", "flat_per_hand", "banker_net_win"]
    basis_amount: Money
    clause: str


class SideBetSettled(_RoundEvent):
    """A side bet settled on the seven cards (R-VAR-2): the ``line`` hit (``None``: lost), what it
    pays "to 1" (0 when lost, and for the progressive, which pays amounts) and ``payout``, the
    player's chips change beyond the bet returned (``pays x amount``; ``-amount`` on a loss; for
    the progressive the amount won minus the fixed wager). ``from_meter`` is the part of a
    progressive win the meter paid (R-VAR-6).

    R15: ``aggregate_cap`` is the pay table's cap on what the bet pays in one round across all its
    winners (``None``: the table has none; events written before it existed read as ``None``);
    ``reduction`` is how much less than ``pays x amount`` this winner was paid because the
    round's wins exceeded the cap (``payout`` is what was paid)."""

    type: Literal["side_bet_settled"] = "side_bet_settled"
    seat: Seat
    player_id: str
    bet: str
    amount: Amount
    line: str | None
    pays: Money
    payout: Int
    pay_table: str | None = None
    from_meter: Money = 0
    aggregate_cap: Money | None = None
    reduction: Money = 0


class EnvyPaid(_RoundEvent):
    """Fortune's Envy bonus (R-VAR-3): ``player_id`` at ``seat``, whose Fortune bet qualifies, is
    paid ``amount`` by the house for another player's hand at ``from_seat`` holding ``line``."""

    type: Literal["envy_paid"] = "envy_paid"
    seat: Seat
    player_id: str
    from_seat: Seat
    from_player_id: str | None
    line: str
    amount: Amount
    clause: str = "R-VAR-3"


class MeterChanged(_Event):
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


class RoundVoided(_RoundEvent):
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


class RoundClosed(_RoundEvent):
    type: Literal["round_closed"] = "round_closed"


# --- deck chain of custody (R20) ------------------------------------------------------------------
#
# Table facts (``round=None``) but ``deck_dealt``, which names the deck a round was dealt from.
# A table keeps custody from its first ``deck_received``: from then on every deal names a deck in
# use whose last inspection passed (table_core.table.custody).

DeckId = Annotated[str, Field(min_length=1, max_length=100, pattern=r"\S")]
Said = Annotated[str, Field(min_length=1, max_length=500, pattern=r"\S")]


class DeckReceived(_Event):
    """A deck (or a package of decks) reaches the table: its id, package id and seal number."""

    type: Literal["deck_received"] = "deck_received"
    deck_id: DeckId
    seal: Said
    package_id: Said | None = None


class DeckInspected(_Event):
    """The deck counted and checked by ``inspector``: ``passed`` when it holds 53 cards
    (R-CARD-1); a deck that failed cannot be put in use."""

    type: Literal["deck_inspected"] = "deck_inspected"
    deck_id: DeckId
    card_count: Annotated[int, Strict(), Field(ge=0, le=1000)]
    inspector: Said
    passed: bool


class DeckLoaded(_Event):
    """The shuffler's (or the pre-shuffle service's) receipt: its serial and when it took the
    deck; the employee is the event's actor."""

    type: Literal["deck_loaded"] = "deck_loaded"
    deck_id: DeckId
    shuffler_serial: Said
    received_at: AwareDatetime


class DeckInUse(_Event):
    """The deck comes into play: deals may name it from now on."""

    type: Literal["deck_in_use"] = "deck_in_use"
    deck_id: DeckId


class DeckDealt(_RoundEvent):
    """Round ``round`` was dealt from this deck (it follows the round's ``stacks_dealt``)."""

    type: Literal["deck_dealt"] = "deck_dealt"
    deck_id: DeckId


class DeckRetired(_Event):
    """The deck leaves play for good, and why; ``destroyed`` when it was destroyed too."""

    type: Literal["deck_retired"] = "deck_retired"
    deck_id: DeckId
    reason: Said
    destroyed: bool = False


class DeckHeld(_Event):
    """The deck is kept intact (a dispute or an investigation, ``dispute_id`` when one is open):
    a held deck is not dealt from, retired or destroyed until it is released."""

    type: Literal["deck_held"] = "deck_held"
    deck_id: DeckId
    reason: Said
    dispute_id: Said | None = None


class DeckReleased(_Event):
    """The hold on the deck is lifted, and why."""

    type: Literal["deck_released"] = "deck_released"
    deck_id: DeckId
    reason: Said


#: The custody events, as the fold and the audit look them up.
CUSTODY_TYPES = frozenset(
    {
        "deck_received",
        "deck_inspected",
        "deck_loaded",
        "deck_in_use",
        "deck_dealt",
        "deck_retired",
        "deck_held",
        "deck_released",
    }
)


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
    | DeckReceived
    | DeckInspected
    | DeckLoaded
    | DeckInUse
    | DeckDealt
    | DeckRetired
    | DeckHeld
    | DeckReleased,
    Field(discriminator="type"),
]
#: Every event class, in the union's order (read from ``Event``, so the list is written once).
EVENT_TYPES: tuple[type[_Event], ...] = get_args(get_args(Event)[0])
