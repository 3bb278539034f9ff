"""The rules profile a table plays under: every house choice docs/rules.md leaves open, with its
default.

Frozen pydantic models, so a profile can be recorded whole in an event and compared on replay.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_serializer,
    model_validator,
)

from table_core.hands import WheelRank
from table_core.side_bets.pay_tables import SideBetRules

#: R-VAR-1: the main-wager game a table deals (variants.py settles each).
Variant = Literal["commission", "ez", "commission_free"]
VARIANTS: tuple[Variant, ...] = ("commission", "ez", "commission_free")
#: R-VAR-1 (ez): what a banker's queen-high pai gow does to every main wager.
QueenHighPaiGow = Literal["push", "banker_wins"]

CommissionMode = Literal["percent", "flat", "flat_always"]
RoundingDirection = Literal["half_up", "up", "down"]
FoulPolicy = Literal["reset", "forfeit"]

DEFAULT_HOUSE_WAY = "fr"


class CommissionRules(BaseModel):
    """R-PAY-2: how commission is charged and rounded."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: CommissionMode = "percent"
    rate_bp: int = Field(default=500, ge=0, le=10_000, description="percent mode, basis points")
    fee: int = Field(default=0, ge=0, description="flat modes, minor units per hand")
    rounding_unit: int = Field(default=1, ge=1, description="smallest chip, minor units")
    rounding: RoundingDirection = "half_up"

    @model_validator(mode="after")
    def _fee_for_flat_modes(self) -> CommissionRules:
        if self.mode != "percent" and self.fee <= 0:
            raise ValueError(f"commission mode {self.mode} needs a fee above 0")
        return self


class HouseRules(BaseModel):
    """The hand-level rules of a table (R-HI-2, R-SET-2, R-PAY-2, R-HW-1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    house_way: str = DEFAULT_HOUSE_WAY
    #: A casino's own House Way (issue 32): the SHA-256 of the file installed on the table
    #: (``house_way_installed``) whose text sets the hands; ``None``: the built-in ``house_way``.
    house_way_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    wheel_rank: WheelRank = "second"
    foul_policy: FoulPolicy = "reset"
    commission: CommissionRules = CommissionRules()

    @model_serializer(mode="wrap")
    def _built_in_digest_unwritten(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A built-in House Way writes exactly the bytes profiles wrote before the field existed,
        # so stored profiles and their hashes never change.
        data: dict[str, Any] = handler(self)
        if self.house_way_digest is None:
            data.pop("house_way_digest", None)
        return data


# --- the table's full rules profile (R-BANK-1..2, R-VAR-1..6), versioned ------------------------

BankingMode = Literal["dealer", "rotating"]

#: The variants this core deals (R-VAR-1): all three.
SUPPORTED_VARIANTS: tuple[Variant, ...] = VARIANTS


class TableLimits(BaseModel):
    """Wager limits in minor units: a bet must lie within ``min_bet..max_bet``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_bet: int = Field(default=1_000, ge=1, description="minor units")
    max_bet: int = Field(default=100_000, ge=1, description="minor units")

    @model_validator(mode="after")
    def _min_below_max(self) -> TableLimits:
        if self.max_bet < self.min_bet:
            raise ValueError(f"max_bet {self.max_bet} is below min_bet {self.min_bet}")
        return self


#: Limits of the "to 1" side bets (Fortune, Emperor's Treasure, Insurance); the rulebook names
#: none, so these are a house choice: 1.00 .. 100.00 (the progressive's wager is fixed instead).
DEFAULT_SIDE_BET_LIMITS = TableLimits(min_bet=100, max_bet=10_000)

#: The chip denominations a tray holds, in minor units (1.00, 5.00, 25.00, 100.00): a house choice
#: (the rulebook names none). Openers, closers, fills and credits count chips in these only.
DEFAULT_DENOMINATIONS: tuple[int, ...] = (100, 500, 2_500, 10_000)


class TableRules(BaseModel):
    """Everything a table plays under, versioned as a whole.

    A round records the ``version`` it was played under (``round_started``), so a replay applies
    the rules in force at the time; a change applies from the next round.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(default=1, ge=1)
    hand: HouseRules = HouseRules()
    banking: BankingMode = "dealer"
    dealer_between: bool = True
    co_bank: bool = Field(default=False, description="R-BANK-2: the house may co-bank 50/50")
    house_wager: int | None = Field(
        default=None, ge=0, description="R-BANK-2 house hand's wager; None: the table minimum"
    )
    limits: TableLimits = TableLimits()
    variant: Variant = "commission"
    queen_high_pai_gow: QueenHighPaiGow = "push"
    side_bets: SideBetRules = SideBetRules()
    side_bet_limits: TableLimits = DEFAULT_SIDE_BET_LIMITS
    denominations: tuple[int, ...] = Field(
        default=DEFAULT_DENOMINATIONS, min_length=1, description="the tray's chips, minor units"
    )
    #: R20: a physical deal (``source`` ``live``: a shuffler or card reader reports the order)
    #: needs a deck received, inspected and in use, not held. On for a new profile; a profile
    #: recorded before the setting existed reads ``False`` (the upcaster of ``table_opened`` and
    #: ``rules_changed`` schema 1, ``table_core/seating_events.py``).
    deck_custody_required: bool = Field(
        default=True, strict=True, description="R20: a physical deal needs a deck in custody"
    )

    @field_validator("denominations")
    @classmethod
    def _denominations_positive_and_distinct(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if any(each <= 0 for each in value) or len(set(value)) != len(value):
            raise ValueError(f"denominations are distinct positive minor units, got {value}")
        return tuple(sorted(value))

    @model_serializer(mode="wrap")
    def _default_denominations_unwritten(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # A profile with the default denominations writes exactly the bytes profiles wrote before
        # the field existed (issue 18), so stored profiles and their hashes never change.
        data: dict[str, Any] = handler(self)
        if self.denominations == DEFAULT_DENOMINATIONS:
            data.pop("denominations", None)
        return data

    @field_validator("side_bets", mode="before")
    @classmethod
    def _no_side_bets_of_old(cls, value: Any) -> Any:
        # The first profiles held a placeholder list of pay tables that nothing ever offered or
        # settled; the empty list they all stored reads as "no side bets offered".
        if isinstance(value, list | tuple):
            if value:
                raise ValueError("a list of side-bet pay tables is the retired placeholder form")
            return SideBetRules()
        return value

    @field_serializer("side_bets", when_used="json")
    def _side_bets_in_order(self, value: SideBetRules) -> dict[str, Any]:
        # ``offered`` is a frozenset: sorted here so one profile always gives the same JSON (the
        # store hashes payloads; a set's order changes from one process to the next).
        data: dict[str, Any] = value.model_dump(mode="json")
        data["offered"] = sorted(value.offered)
        return data

    @property
    def house_wager_amount(self) -> int:
        """The house hand's wager against a player-banker (R-BANK-2, default the table minimum)."""
        return self.limits.min_bet if self.house_wager is None else self.house_wager
