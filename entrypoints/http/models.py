"""Request bodies and responses, validated by pydantic and published in the OpenAPI document.

Money is integer minor units everywhere, and integers are strict: ``25.0`` or ``"25"`` is refused,
never read as 25. Cards are text (R-CARD-2: ``"As"``, ``"Td"``, ``"JK"``). Limits on sizes keep a
request small; the rules themselves (a seat's range, the dice, the deal) are the core's to judge,
so a wrong value there comes back as a 422 naming the clause.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StrictInt

from table_core.rules import TableRules

#: 10^12 minor units: ten billion in a two-decimal currency; a larger chip amount is a typo.
MAX_AMOUNT = 10**12

TABLE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}$"

PlayerId = Annotated[str, Field(pattern=ID_PATTERN, examples=["ana"])]
Amount = Annotated[StrictInt, Field(ge=1, le=MAX_AMOUNT, description="minor units")]
Version = Annotated[StrictInt, Field(ge=0, le=2**62)]
CardText = Annotated[str, Field(min_length=1, max_length=3, examples=["As"])]
Reason = Annotated[str, Field(min_length=1, max_length=500, pattern=r"\S")]
DeckId = Annotated[str, Field(pattern=ID_PATTERN, examples=["D-0417"])]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expected_version: Version | None = Field(
        default=None,
        description="The table version the caller decided on: a stale one is refused with 409 "
        "and the current version. Leave it out to apply the command to the table as it is.",
    )


class CommandBody(_Body):
    """A command with nothing to say but, optionally, the version it expects."""


class OpenTableBody(_Body):
    rules: TableRules = Field(default_factory=TableRules)


class ChangeRulesBody(_Body):
    rules: TableRules
    reason: Reason


class SeatBody(_Body):
    seat: Annotated[StrictInt, Field(ge=1, le=6)]
    player_id: PlayerId
    card: Annotated[str, Field(pattern=ID_PATTERN)] | None = Field(
        default=None, description="the players' club card: it opens a rating"
    )


class PlayerBody(_Body):
    player_id: PlayerId


class ChipsBody(_Body):
    player_id: PlayerId
    amount: Amount


class BuyInBody(ChipsBody):
    """``medium``: ``cash`` and ``marker`` (with its number) are the drop, the tray gives the chips;
    ``chips`` (from elsewhere) and ``promotional`` are no drop. Left out: recorded without a medium
    (read as cash), as buy-ins were recorded before the books kept a medium."""

    medium: Literal["cash", "marker", "chips", "promotional"] | None = None
    marker: Annotated[str, Field(pattern=ID_PATTERN)] | None = None


class AcceptBankBody(_Body):
    player_id: PlayerId
    co_bank: bool = False


class BetBody(_Body):
    player_id: PlayerId
    amount: Amount


class SideBetBody(_Body):
    player_id: PlayerId
    bet: Annotated[str, Field(pattern=r"^[a-z][a-z_]{0,39}$", examples=["fortune"])]
    amount: Amount


class ReportDealBody(_Body):
    """Exactly one of ``deck`` (53 cards in shuffled order) or ``hands`` (the seven stacks in cut
    order). A card the deck cannot hold is a misdeal: the round is voided (R-DEAL-2)."""

    deck: Annotated[list[CardText], Field(max_length=60)] | None = None
    hands: (
        Annotated[list[Annotated[list[CardText], Field(max_length=10)]], Field(max_length=10)]
        | None
    ) = None
    deck_id: DeckId | None = Field(
        default=None,
        description="The deck dealt from (R20); left out: the one deck in use, when the table "
        "keeps deck custody.",
    )


class ReportDiceBody(_Body):
    faces: Annotated[list[StrictInt], Field(max_length=6, examples=[[3, 5, 6]])]


class SetHandBody(_Body):
    """The player's split; leave ``back`` and ``front`` out to ask for the House Way."""

    player_id: PlayerId
    back: Annotated[list[CardText], Field(max_length=7)] | None = None
    front: Annotated[list[CardText], Field(max_length=7)] | None = None


class VoidBody(_Body):
    reason: Reason


# --- the books (issue 18): the gaming day, fills and credits, the count, ratings ----------------

ActorId = Annotated[str, Field(pattern=ID_PATTERN, examples=["dealer-7"])]
#: A whole, non-negative amount of minor units (an opener or closer may hold none of a chip).
Money = Annotated[StrictInt, Field(ge=0, le=MAX_AMOUNT, description="minor units")]


class ChipsOut(BaseModel):
    """Chips of one denomination (both in minor units): the profile's ``denominations`` only."""

    model_config = ConfigDict(extra="forbid")

    denomination: Amount
    amount: Money


ChipList = Annotated[list[ChipsOut], Field(max_length=20)]


class Signature(BaseModel):
    """A co-signer's API key: its token, read to authenticate the signer and never recorded,
    logged or answered back (only the key's id, actor and role are)."""

    model_config = ConfigDict(extra="forbid")

    token: Annotated[str, Field(pattern=r"^pgw_[A-Za-z0-9_-]{1,200}$")]


Signatures = Annotated[
    list[Signature],
    Field(
        default_factory=list,
        max_length=3,
        description="The other signers' API keys, one each (R19): the request's key is one "
        "signer, each of these another; a key's role says which signer it is.",
    ),
]
#: A signer named the old way: if given, it must be the actor of that signer's key.
SignerName = Annotated[
    str | None,
    Field(
        default=None,
        pattern=ID_PATTERN,
        description="Optional: the signer's actor, which must be that signer's key's.",
    ),
]


class OpenGamingDayBody(_Body):
    """The opener, counted by the floor supervisor (the key's actor) with the dealer (signed by
    the dealer's key in ``signatures``); a table never opened is opened under ``rules`` (default
    profile)."""

    gaming_day: date
    opener: ChipList
    dealer: SignerName
    signatures: Signatures
    rules: TableRules | None = None


class CloseGamingDayBody(_Body):
    closer: ChipList
    dealer: SignerName
    signatures: Signatures


class SlipBody(_Body):
    """A fill or credit slip, signed by three keys: the floor (requests it), the cage (issues a
    fill, receives a credit) and the dealer (receives a fill, issues a credit). The request's key
    is one of them, ``signatures`` the other two."""

    slip: Annotated[str, Field(pattern=ID_PATTERN, examples=["F-1001"])]
    chips: ChipList
    requested_by: SignerName
    issued_by: SignerName
    received_by: SignerName
    signatures: Signatures


class CountBody(_Body):
    gaming_day: date
    cash: Money
    markers: Money


class CorrectRatingBody(_Body):
    player_id: PlayerId
    reason: Reason
    average_bet: Money | None = None
    minutes: Annotated[StrictInt, Field(ge=0, le=10**6)] | None = None


# --- deck chain of custody (R20) ---------------------------------------------------------------


class DeckBody(_Body):
    deck_id: DeckId


class ReceiveDeckBody(DeckBody):
    seal: Reason
    package_id: Reason | None = None


class InspectDeckBody(DeckBody):
    card_count: Annotated[StrictInt, Field(ge=0, le=1000, examples=[53])]
    inspector: Reason


class LoadShufflerBody(DeckBody):
    shuffler_serial: Reason
    received_at: AwareDatetime | None = Field(
        default=None, description="When the shuffler took the deck; left out: now."
    )


class RetireDeckBody(DeckBody):
    reason: Reason
    destroyed: bool = False


class HoldDeckBody(DeckBody):
    reason: Reason
    dispute_id: Reason | None = None


class ReleaseDeckBody(DeckBody):
    reason: Reason


# --- responses -----------------------------------------------------------------------------------


class ActorOut(BaseModel):
    id: str
    role: str


class EventOut(BaseModel):
    """A recorded event: its place in the global log and in its table's stream, and its hash."""

    position: int
    stream_id: str
    version: int
    type: str
    schema_version: int
    payload: dict[str, Any]
    actor: ActorOut
    at: str
    command_id: str
    hash: str


class TableEventOut(EventOut):
    """A table's recorded event as ``GET /tables/{id}/events`` shows it: the deck order and the
    stacks of a round still open are withheld (``null``), as the live table's view and the event
    feed withhold them, and ``redacted`` names the fields withheld (the hash is the stored one;
    the round recall and ``paigow audit verify`` show the whole event once the round is over)."""

    redacted: list[str] = []


class CommandResponse(BaseModel):
    """What a command recorded. A retry with the same ``Idempotency-Key`` answers this same body
    (and the header ``Idempotent-Replayed: true``), writing nothing."""

    table_id: str
    command_id: str
    version: int = Field(description="the table's version after these events")
    events: list[EventOut]


class WagerOut(BaseModel):
    seat: int | None = Field(description="None: the house hand's wager against a player-banker")
    player_id: str | None
    position: int
    amount: int


class SideBetOut(BaseModel):
    seat: int
    player_id: str
    bet: str
    amount: int


class HandOut(BaseModel):
    seat: int | None = Field(description="None: the dealer's place")
    cards: list[str]


class PlayedOut(BaseModel):
    seat: int | None
    back: list[str]
    front: list[str]
    forfeited: bool = False


class RoundOut(BaseModel):
    number: int
    phase: str
    rules_version: int
    banker_seat: int | None = Field(description="None: the dealer banks")
    banker_player_id: str | None
    co_bank: bool
    bank_order: list[int]
    offered_seat: int | None
    wagers: list[WagerOut]
    returned: list[WagerOut]
    side_bets: list[SideBetOut]
    dice: list[int] | None
    first_position: int | None
    hands: list[HandOut]
    played: list[PlayedOut]
    banker_hand: PlayedOut | None


class SeatOut(BaseModel):
    seat: int
    player_id: str
    balance: int


class TableOut(BaseModel):
    """The table as its events fold: seats and balances, the money totals, the live round."""

    table_id: str
    version: int
    phase: str
    rules: dict[str, Any]
    seats: list[SeatOut]
    balances: dict[str, int]
    last_round: int
    bought_in: int
    cashed_out: int
    house_result: int
    commission: int
    meter: int = Field(description="the progressive meter (R-VAR-6), house money set aside")
    meter_seeded: int = Field(description="what the house itself put in the meter")
    books: str = Field(description="untracked (no opener), open or closed")
    gaming_day: str | None = Field(description="the gaming day its last opener named")
    tray: int | None = Field(description="the chips in the tray now, as the events say")
    round: RoundOut | None


class HealthOut(BaseModel):
    status: str
    refusing: str | None


class FailoverOut(BaseModel):
    """The PostgreSQL primary's failovers as this server saw them (deploy/ha/README.md): one in
    progress (``since``, ``last_primary``) or the last one (``since``: the primary lost,
    ``recovered_at``: connected to ``primary``, the new one); ``count`` this process has seen."""

    in_progress: bool
    since: str | None
    recovered_at: str | None
    last_primary: str | None
    primary: str | None
    count: int


class ReadyOut(BaseModel):
    """``/ready``'s 200: every check ``true`` (a 503 ``not_ready`` names the failing one).
    ``primary`` (``host:port``) and ``failover``: a PostgreSQL store only. ``warnings``: what is
    wrong without stopping the server (a PostgreSQL login with more rights than the service
    role's); absent when none."""

    status: str
    checks: dict[str, bool | str]
    primary: str | None = None
    failover: FailoverOut | None = None
    warnings: list[str] | None = None
