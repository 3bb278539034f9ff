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
