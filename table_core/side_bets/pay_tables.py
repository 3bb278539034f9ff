"""Side-bet pay tables as data (R-VAR-2..6): frozen pydantic models, recorded whole in the rules.

A :class:`PayTable` pays "to 1" per line. A hand pays its best-paying line among the lines it
holds (:data:`table_core.side_bets.lines.KINDS`); ties go to the higher line. A table must never
pay a poker line more than a line above it in Fortune's order (R-VAR-3): the classifier names one
class per hand, and this rule is what makes "the best-paying line" of that class the right one for
every table (a flush that also holds trips is paid as a flush, which then pays at least as much).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from table_core.errors import ConfigurationError
from table_core.side_bets.lines import (
    ENVY_LINES,
    KINDS,
    LINES,
    NOTHING,
    PAI_GOW_LINES,
    POKER_AND_NAMED_LINES,
    POKER_LINES,
    Kind,
    Line,
)

SideBet = Literal["fortune", "emperors_treasure", "insurance", "progressive"]
#: The bets paid "to 1" by a :class:`PayTable` (the progressive pays amounts, see below).
ODDS_BETS: tuple[SideBet, ...] = ("fortune", "emperors_treasure", "insurance")

_MODEL = ConfigDict(frozen=True, extra="forbid")


def _in_line_order(lines: dict[Line, Any]) -> dict[Line, Any]:
    """Lines in rulebook order whatever order a casino's file lists them in."""
    if not lines:
        raise ValueError("a pay table needs at least one line")
    return {line: lines[line] for line in LINES if line in lines}


def _best_held(kind: Kind, values: dict[Line, int]) -> tuple[str, int] | None:
    """The held line with the highest value (ties: the higher line), or None if none is listed."""
    best: tuple[str, int] | None = None
    for line in KINDS[kind][2]:
        if line in values and (best is None or values[line] > best[1]):
            best = (line, values[line])
    return best


class PayTable(BaseModel):
    """A side bet's posted table: line -> pays "to 1" (R-VAR-2).

    ``aggregate_cap`` (R15; ``None``, the default: no cap) is the most this bet pays in one round
    across all its winners, in minor units: when the round's wins on it would exceed the cap,
    each winner is paid a pro-rata share of the cap (:func:`table_core.side_bets.settlement.
    capped_payouts`: largest remainder, ties in settlement order), so the sum paid is the cap.
    """

    model_config = _MODEL

    name: str = Field(min_length=1)
    bet: Literal["fortune", "emperors_treasure", "insurance"]
    pays: dict[Line, int]
    aggregate_cap: int | None = None
    _by_kind: tuple[tuple[str, int], ...] = PrivateAttr(default=())

    @field_validator("aggregate_cap", mode="before")
    @classmethod
    def _whole_positive_cap(cls, value: Any) -> Any:
        # R15: a whole, positive number of minor units; 40000.0 or "40000" are refused too.
        if value is not None and (type(value) is not int or value < 1):
            raise ValueError(
                f"the aggregate cap is a whole number of minor units above 0, got {value!r}"
            )
        return value

    @field_validator("pays")
    @classmethod
    def _pays(cls, pays: dict[Line, int]) -> dict[Line, int]:
        ordered = _in_line_order(pays)
        for line, value in ordered.items():
            if value < 1:
                raise ValueError(f"line {line} pays {value} to 1; a paying line pays 1 or more")
        poker = [(line, ordered[line]) for line in POKER_LINES if line in ordered]
        for (upper, high), (lower, low) in pairwise(poker):
            if low > high:
                raise ValueError(f"{lower} pays {low}, more than {upper} above it ({high})")
        named, royal = ordered.get("royal_flush_ace_king_suited"), ordered.get("royal_flush")
        if named is not None and royal is not None and named < royal:  # it holds the royal
            raise ValueError(
                f"royal_flush_ace_king_suited pays {named}, less than the royal_flush it holds"
                f" ({royal})"
            )
        return ordered

    @model_validator(mode="after")
    def _insurance_pays_pai_gow(self) -> PayTable:
        if self.bet == "insurance":
            other = [line for line in self.pays if line not in PAI_GOW_LINES]
            if other:  # R-VAR-5: insurance wins on a pai gow, paid by highest card
                raise ValueError(f"insurance pays pai gow lines only, not {', '.join(other)}")
        return self

    def model_post_init(self, context: Any, /) -> None:
        resolved = []
        for kind in range(len(KINDS)):
            best = _best_held(kind, self.pays)
            resolved.append(best if best is not None else (NOTHING, -1))
        self._by_kind = tuple(resolved)

    def resolve(self, kind: Kind) -> tuple[str, int]:
        """``(line, pays)`` of a hand class; ``("nothing", -1)`` when it loses."""
        return self._by_kind[kind]

    def line_of(self, kind: Kind) -> str:
        return self._by_kind[kind][0]

    def pays_of(self, kind: Kind) -> int:
        return self._by_kind[kind][1]


#: R-VAR-3's Envy defaults in currency units, held in minor units (a 2-decimal currency).
_ENVY_DEFAULTS: dict[Line, int] = {
    "natural_seven_card_straight_flush": 500_000,
    "royal_flush_royal_match": 100_000,
    "seven_card_straight_flush_with_joker": 50_000,
    "five_aces": 25_000,
    "royal_flush": 5_000,
    "straight_flush": 2_000,
    "four_of_a_kind": 500,
}


class EnvyTable(BaseModel):
    """Fortune's Envy bonus (R-VAR-3): fixed amounts, in minor units, for another's hand."""

    model_config = _MODEL

    qualifying_bet: int = Field(default=500, ge=1, description="least Fortune bet, minor units")
    amounts: dict[Line, int] = Field(default_factory=lambda: dict(_ENVY_DEFAULTS))
    _by_kind: tuple[tuple[str, int] | None, ...] = PrivateAttr(default=())

    @field_validator("amounts")
    @classmethod
    def _amounts(cls, amounts: dict[Line, int]) -> dict[Line, int]:
        ordered = _in_line_order(amounts)
        for line, value in ordered.items():
            if line not in ENVY_LINES:
                raise ValueError(f"Envy pays four of a kind or better, not {line}")
            if value < 1:
                raise ValueError(f"Envy amount for {line} must be above 0, got {value}")
        return ordered

    def model_post_init(self, context: Any, /) -> None:
        self._by_kind = tuple(_best_held(kind, self.amounts) for kind in range(len(KINDS)))

    def award_of(self, kind: Kind) -> tuple[str, int] | None:
        """``(line, amount)`` another player's hand of this class earns, or None."""
        return self._by_kind[kind]


class ProgressiveLine(BaseModel):
    """One progressive line: a share of the meter, or a fixed amount paid by the house."""

    model_config = _MODEL

    meter_share_bp: int | None = Field(default=None, ge=1, le=10_000)
    amount: int | None = Field(default=None, ge=1, description="minor units")

    @model_validator(mode="after")
    def _one_of(self) -> ProgressiveLine:
        if (self.meter_share_bp is None) == (self.amount is None):
            raise ValueError("a progressive line is either a meter share or a fixed amount")
        return self


class ProgressiveTable(BaseModel):
    """The progressive jackpot (R-VAR-6): a fixed-amount wager, a meter, its lines."""

    model_config = _MODEL

    name: str = Field(min_length=1)
    wager: int = Field(ge=1, description="the fixed wager, minor units")
    contribution_bp: int = Field(ge=0, le=10_000, description="share of each wager to the meter")
    reset: int = Field(ge=0, description="the meter's floor after a hit (re-seed), minor units")
    lines: dict[Line, ProgressiveLine]
    _by_kind: tuple[tuple[str, ProgressiveLine] | None, ...] = PrivateAttr(default=())

    @field_validator("lines")
    @classmethod
    def _lines(cls, lines: dict[Line, ProgressiveLine]) -> dict[Line, ProgressiveLine]:
        ordered = _in_line_order(lines)
        other = [line for line in ordered if line not in POKER_AND_NAMED_LINES]
        if other:
            raise ValueError(f"the progressive pays poker lines only, not {', '.join(other)}")
        return ordered

    def model_post_init(self, context: Any, /) -> None:
        # A share and an amount do not compare without the meter: the highest line held wins.
        by_kind: list[tuple[str, ProgressiveLine] | None] = []
        for _name, _category, held in KINDS:
            line = next((line for line in held if line in self.lines), None)
            by_kind.append(None if line is None else (line, self.lines[line]))
        self._by_kind = tuple(by_kind)

    def line_of(self, kind: Kind) -> tuple[str, ProgressiveLine] | None:
        return self._by_kind[kind]


def _table(name: str, bet: Literal["fortune", "emperors_treasure"], *pays: int) -> PayTable:
    lines = POKER_LINES if bet == "fortune" else _EMPERORS_LINES
    return PayTable(name=name, bet=bet, pays=dict(zip(lines, pays, strict=True)))


_EMPERORS_LINES: tuple[Line, ...] = (
    *(line for line in POKER_LINES if line != "royal_flush_royal_match"),
    *PAI_GOW_LINES[:3],
)

#: R-VAR-3's default Fortune table, and the other common one.
FORTUNE_8000 = _table("fortune_8000", "fortune", 8000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2)
FORTUNE_5000 = _table("fortune_5000", "fortune", 5000, 2000, 1000, 400, 150, 50, 25, 5, 4, 3, 2)
#: R-VAR-4 (seed 002): no royal match line; pai gow 9-, 10- and jack-high pay.
EMPERORS_TREASURE = _table(
    "emperors_treasure", "emperors_treasure", 5000, 1000, 500, 150, 50, 25, 5, 4, 3, 2, 40, 5, 2
)
#: An example progressive (R-VAR-6 names its shape only): a casino posts its own.
PROGRESSIVE_EXAMPLE = ProgressiveTable(
    name="progressive_example",
    wager=100,
    contribution_bp=7_000,
    reset=1_000_000,
    lines={
        "natural_seven_card_straight_flush": ProgressiveLine(meter_share_bp=10_000),
        "five_aces": ProgressiveLine(meter_share_bp=1_000),
        "royal_flush": ProgressiveLine(amount=50_000),
        "straight_flush": ProgressiveLine(amount=10_000),
        "four_of_a_kind": ProgressiveLine(amount=7_500),
    },
)

PAY_TABLES: dict[str, PayTable] = {
    table.name: table for table in (FORTUNE_8000, FORTUNE_5000, EMPERORS_TREASURE)
}
DEFAULT_PAY_TABLE: dict[str, str] = {
    "fortune": FORTUNE_8000.name,
    "emperors_treasure": EMPERORS_TREASURE.name,
}


def get_pay_table(bet: str, name: str | None = None) -> PayTable:
    """A posted table by name (the bet's default without one). Insurance has none (R-VAR-5)."""
    if bet == "insurance":
        raise ConfigurationError(
            "Pai Gow Insurance has no standard pay table: the casino supplies one", rule="R-VAR-5"
        )
    chosen = name or DEFAULT_PAY_TABLE.get(bet)
    table = PAY_TABLES.get(chosen or "")
    if table is None or table.bet != bet:
        known = ", ".join(n for n, t in PAY_TABLES.items() if t.bet == bet)
        raise ConfigurationError(
            f"unknown {bet} pay table: {chosen!r} (known: {known})", rule="R-VAR-2"
        )
    return table


class SideBetRules(BaseModel):
    """Which side bets a table takes and their tables (R-VAR-2..6), for the rules profile."""

    model_config = _MODEL

    offered: frozenset[SideBet] = frozenset()
    fortune: PayTable = FORTUNE_8000
    envy: EnvyTable | None = EnvyTable()  # None: this table pays no Envy bonus
    emperors_treasure: PayTable = EMPERORS_TREASURE
    insurance: PayTable | None = None  # the casino's own table (R-VAR-5)
    progressive: ProgressiveTable | None = None

    @model_validator(mode="after")
    def _playable(self) -> SideBetRules:
        problem = side_bet_problem(self)
        if problem:
            raise ValueError(problem)
        return self

    def pay_table(self, bet: str) -> PayTable:
        """The posted table of an offered "to 1" bet."""
        if bet not in self.offered or bet not in ODDS_BETS:
            raise ConfigurationError(f"this table does not take the {bet} bet", rule="R-VAR-2")
        table = getattr(self, bet)
        assert isinstance(table, PayTable)  # guaranteed by the validator
        return table


def side_bet_problem(rules: SideBetRules) -> str | None:
    """Why a table cannot open with these side bets, or None (R-VAR-3..6)."""
    for bet in ("fortune", "emperors_treasure", "insurance"):
        table = getattr(rules, bet)
        if table is not None and table.bet != bet:
            return f"the {bet} slot holds a {table.bet} pay table ({table.name})"
    if "insurance" in rules.offered and rules.insurance is None:
        return "Pai Gow Insurance is offered but the casino has posted no pay table (R-VAR-5)"
    if "progressive" in rules.offered and rules.progressive is None:
        return "the progressive jackpot is offered but has no table (R-VAR-6)"
    return None


def require_side_bets_playable(rules: SideBetRules) -> None:
    """Refuse to open a table whose side bets cannot be paid (R-VAR-5), as a domain error."""
    problem = side_bet_problem(rules)
    if problem:
        raise ConfigurationError(problem, rule="R-VAR-5")
