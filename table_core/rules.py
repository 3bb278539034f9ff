"""The rules profile a table plays under: every house choice RULES.md leaves open, with its default.

Frozen pydantic models, so a profile can be recorded whole in an event and compared on replay.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from table_core.hands import WheelRank

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
    wheel_rank: WheelRank = "second"
    foul_policy: FoulPolicy = "reset"
    commission: CommissionRules = CommissionRules()


# --- the table's full rules profile (R-BANK-1..2, R-VAR-1..2), versioned ------------------------

BankingMode = Literal["dealer", "rotating"]
Variant = Literal["commission", "ez", "commission_free"]
QueenHighPaiGow = Literal["push", "banker_wins"]

#: The variants this version of the core can deal (R-VAR-1); the others are a later issue.
SUPPORTED_VARIANTS: tuple[Variant, ...] = ("commission",)


class TableLimits(BaseModel):
    """Main-wager limits in minor units: a bet must lie within ``min_bet..max_bet``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_bet: int = Field(default=1_000, ge=1)
    max_bet: int = Field(default=100_000, ge=1)

    @model_validator(mode="after")
    def _min_below_max(self) -> TableLimits:
        if self.max_bet < self.min_bet:
            raise ValueError(f"max_bet {self.max_bet} is below min_bet {self.min_bet}")
        return self


class PayLine(BaseModel):
    """One row of a side-bet pay table: the line and what it pays "to 1" (R-VAR-2)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    line: str = Field(min_length=1)
    pays: int = Field(ge=0)


class SideBetPayTable(BaseModel):
    """A side bet's pay table as data in the profile (R-VAR-2); settling it is a later issue."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bet: str = Field(min_length=1)
    lines: tuple[PayLine, ...] = ()


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
    side_bets: tuple[SideBetPayTable, ...] = ()

    @property
    def house_wager_amount(self) -> int:
        """The house hand's wager against a player-banker (R-BANK-2, default the table minimum)."""
        return self.limits.min_bet if self.house_wager is None else self.house_wager
