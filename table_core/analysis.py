"""Game measurement on the pure core: rounds set by the House Ways and settled, without storage.

The caller deals (the core draws nothing): :meth:`RoundPlayer.play` takes the seven-card hands of
one round, sets every hand by its House Way (players by ``house_way``, the banker and the house hand
by ``banker_house_way``, the table's own way, R-HW-1) and settles every main wager through
``table_core.settlement`` / ``table_core.variants`` (R-PAY-1..2, R-SET-3, R-VAR-1), so the figures
measure exactly the rules the table plays. :class:`Tally` sums rounds into frequencies and the edge
with 95% confidence intervals.

Banking (R-BANK-1..5):

- ``dealer``: every hand is a player's against the dealer's bank; the party measured is the player.
- ``player``: one player banks against the other players' hands and the dealer's house hand
  (R-BANK-2, wager ``house_wager``); players pay commission on their wins, the house hand pays none
  (the house does not pay itself, as ``table_core.table`` settles it) and the player-banker pays
  commission on the round's net win (R-BANK-4). The party measured is the player-banker, per unit
  of action banked. The bank is assumed to cover every wager (no R-BANK-3 returns) and the house
  does not co-bank.

Hands are dealt by a trusted dealer, so the House Way runs directly (``HouseWay.setter``: its
``decide`` on :func:`analyse`, memoised by rank pattern for the built-ins), without
``set_by_house_way``'s re-validation of the cards (R-HW-5 is the House Ways' own tested promise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from table_core._speed import named_tuple_maker
from table_core.banking import banker_commission
from table_core.cards import Card
from table_core.errors import ConfigurationError
from table_core.hands import WheelRank, tables_for
from table_core.house_ways import HouseWay, get_house_way
from table_core.house_ways.memo import SetCards
from table_core.house_ways.shape import Candidate
from table_core.rules import VARIANTS, CommissionRules, QueenHighPaiGow, Variant
from table_core.settlement import (
    MainWagerSettlement,
    settlement_index,
    settlement_table,
)
from table_core.variants import (
    Override,
    no_commission,
    settle_main_wager_variant,
    variant_commission,
    variant_override,
)

Banking = Literal["dealer", "player"]
Party = Literal["player", "player_banker"]

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class EdgeSettings:
    """What a measurement plays: the House Ways, the profile's money rules and who banks.

    ``wager`` is each player's main wager in minor units (default the table minimum of the default
    profile, 10.00, on which 5% commission is exact); ``house_wager`` is the house hand's wager
    against a player-banker (R-BANK-2; ``None``: the same as a player's).
    """

    house_way: str
    banker_house_way: str | None = None
    commission: CommissionRules = field(default_factory=CommissionRules)
    variant: Variant = "commission"
    queen_high_pai_gow: QueenHighPaiGow = "push"
    wheel_rank: WheelRank = "second"
    banking: Banking = "dealer"
    wager: int = 1_000
    house_wager: int | None = None

    @property
    def banker_way(self) -> str:
        return self.banker_house_way or self.house_way


class SeatOutcome(NamedTuple):
    """One hand against the banker: the split the House Way chose, its clause and the settlement."""

    split: Candidate
    rule: str
    settled: MainWagerSettlement
    house: bool = False  # the dealer's house hand against a player-banker (R-BANK-2)


_new_seat = named_tuple_maker(SeatOutcome)


class RoundOutcome(NamedTuple):
    """A settled round. ``bank_result`` is the bank's result against every hand (copies included,
    before its own commission); ``banker_commission`` is R-BANK-4's (0 when the dealer banks)."""

    banker: Candidate
    banker_rule: str
    override: Override | None
    seats: tuple[SeatOutcome, ...]
    bank_result: int
    banker_commission: int

    @property
    def banker_net(self) -> int:
        return self.bank_result - self.banker_commission


class RoundPlayer:
    """Plays rounds under fixed :class:`EdgeSettings`; the House Ways are looked up once."""

    def __init__(
        self,
        settings: EdgeSettings,
        *,
        memo: bool = True,
        ways: Mapping[str, HouseWay] | None = None,
        player_set: SetCards | None = None,
    ) -> None:
        """``memo=False`` sets every hand through the House Way's ``decide`` (the definition the
        rank-pattern memo replays exactly; benchmarks and tests compare the two). ``ways``: House
        Ways by name that are in no registry (a casino's file); ``player_set``: the players'
        own setting instead of ``house_way`` (a best response, ``analysis_best``)."""
        if settings.variant not in VARIANTS:
            raise ConfigurationError(f"unknown variant: {settings.variant}", rule="R-VAR-1")
        if settings.wager <= 0:
            raise ConfigurationError(f"a wager is positive, got {settings.wager}", rule="R-PAY-2")
        self.settings = settings
        tables = tables_for(settings.wheel_rank)
        known = ways or {}

        def way(name: str) -> HouseWay:
            return known.get(name) or get_house_way(name)

        self._player_set = player_set or way(settings.house_way).setter(tables, memo=memo)
        self._banker_set = way(settings.banker_way).setter(tables, memo=memo)
        self._variant: Variant = settings.variant
        self._commission = settings.commission
        # R-BANK-4 under the variant: no commission at all in ez and commission_free (R-VAR-1).
        self._bank_commission = variant_commission(settings.variant, settings.commission)
        wager = settings.wager
        self._house_wager = wager if settings.house_wager is None else settings.house_wager
        self._no_commission = no_commission()  # the house hand's (R-BANK-2), built once
        # The commission game settles a wager by one lookup among its nine possible settlements
        # (settlement_index); a wager that is not positive keeps settle_main_wager's error.
        self._player_table: tuple[MainWagerSettlement, ...] | None = None
        self._house_table: tuple[MainWagerSettlement, ...] | None = None
        if settings.variant == "commission":
            self._player_table = settlement_table(wager, settings.commission)
            if self._house_wager > 0:
                self._house_table = settlement_table(self._house_wager, self._no_commission)

    def play(
        self,
        banker: Sequence[Card],
        players: Sequence[Sequence[Card]],
        house: Sequence[Card] | None = None,
    ) -> RoundOutcome:
        """Set and settle one round: ``banker``'s seven cards against each of ``players``' and,
        when a player banks, the dealer's ``house`` hand (R-BANK-2)."""
        s = self.settings
        banker_split, banker_rule = self._banker_set(banker)
        bb, bf = banker_split.back_strength, banker_split.front_strength
        override = variant_override(self._variant, banker, bf, s.queen_high_pai_gow)
        settle = self._settle  # the commission game's seats take the table below instead
        commission, wager = self._commission, s.wager
        set_cards = self._player_set
        seats: list[SeatOutcome] = []
        paid = 0  # the bank's payouts, copies already the bank's (R-SET-3, R-BANK-5)
        table = self._player_table
        if table is not None:
            new = _new_seat  # SeatOutcome(...) without the named tuple's Python __new__
            for cards in players:
                split, rule = set_cards(cards)
                back, front = split.back_strength, split.front_strength
                # settlement_index, inline: this loop runs millions of times.
                settled = table[3 * ((back <= bb) + (back == bb)) + (front <= bf) + (front == bf)]
                paid += settled.net + settled.commission
                seats.append(new((split, rule, settled, False)))
        else:
            for cards in players:
                split, rule = set_cards(cards)
                settled = settle(split, bb, bf, wager, commission, override)
                paid += settled.net + settled.commission
                seats.append(SeatOutcome(split, rule, settled))
        if house is not None:
            if s.banking != "player":
                raise ConfigurationError("a house hand plays only against a player-banker")
            split, rule = self._banker_set(house)
            if self._house_table is not None:
                settled = self._house_table[
                    settlement_index(split.back_strength, split.front_strength, bb, bf)
                ]
            else:
                settled = settle(split, bb, bf, self._house_wager, self._no_commission, override)
            paid += settled.net + settled.commission
            seats.append(SeatOutcome(split, rule, settled, True))
        fee = banker_commission(-paid, self._bank_commission) if s.banking == "player" else 0
        return RoundOutcome(banker_split, banker_rule, override, tuple(seats), -paid, fee)

    def _settle(
        self,
        split: Candidate,
        bb: int,
        bf: int,
        wager: int,
        commission: CommissionRules,
        override: Override | None,
    ) -> MainWagerSettlement:
        """One wager under the variant; in the commission game (no override) this is exactly
        ``settle_main_wager``, and only a house hand without a lookup table comes here."""
        return settle_main_wager_variant(
            split.back_strength,
            split.front_strength,
            bb,
            bf,
            wager,
            commission,
            variant=self._variant,
            override=override,
        )


# --- summing rounds -------------------------------------------------------------------------------

_AGAINST = {"win": "loss", "push": "push", "loss": "win"}  # a seat's result, seen by the banker


class _Moments:
    """Sum and sum of squares of a per-round integer, for a mean and its normal interval."""

    __slots__ = ("n", "q", "s")

    def __init__(self) -> None:
        self.n = 0
        self.s = 0
        self.q = 0

    def add(self, value: int) -> None:
        self.n += 1
        self.s += value
        self.q += value * value

    def interval(self, scale: float) -> list[float] | None:
        """95% interval of the mean of x / scale, or ``None`` under two rounds."""
        if self.n < 2:
            return None
        mean = self.s / self.n
        # Integer sums keep the numerator exact over millions of rounds; one division at the end.
        variance = (self.n * self.q - self.s * self.s) / (self.n * (self.n - 1))
        half = Z95 * math.sqrt(variance / self.n)
        return [(mean - half) / scale, (mean + half) / scale]


class Tally:
    """Win / push / loss frequencies (fractions of hands) and the edge against the party measured.

    Rounds, not hands, are the independent samples: the hands of one round share the banker's
    hand, so the intervals come from the spread of per-round sums. Every round must stake the same
    amount (the same seats and wagers), which is how a measurement deals.
    """

    def __init__(self, banking: Banking = "dealer") -> None:
        self.party: Party = "player" if banking == "dealer" else "player_banker"
        self.rounds = 0
        self.hands = 0
        self.stake = 0  # minor units staked per round (the party's wagers or the action banked)
        self.counts = {"win": _Moments(), "push": _Moments(), "loss": _Moments()}
        self.net = _Moments()
        self.commission = 0

    def add(self, outcome: RoundOutcome) -> None:
        per = {"win": 0, "push": 0, "loss": 0}
        stake = 0
        if self.party == "player":
            net = 0
            for seat in outcome.seats:
                settled = seat.settled
                per[settled.result] += 1
                stake += settled.wager
                net += settled.net
                self.commission += settled.commission
        else:
            for seat in outcome.seats:
                per[_AGAINST[seat.settled.result]] += 1
                stake += seat.settled.wager
            net = outcome.banker_net
            self.commission += outcome.banker_commission
        if self.rounds and stake != self.stake:
            raise ConfigurationError("every round of a measurement stakes the same amount")
        self.stake = stake
        self.rounds += 1
        self.hands += len(outcome.seats)
        for result, count in per.items():
            self.counts[result].add(count)
        self.net.add(net)

    def summary(self) -> dict[str, Any]:
        """The figures, JSON-ready: frequencies and ``expected_return`` (the party's mean net per
        unit staked) with 95% intervals; ``edge`` is ``-expected_return``, the edge of the side
        across the table (the house when the dealer banks: positive, the house wins)."""
        if not self.rounds:
            raise ConfigurationError("no round played")
        hands_per_round = self.hands / self.rounds
        out: dict[str, Any] = {"party": self.party, "rounds": self.rounds, "hands": self.hands}
        for result, moments in self.counts.items():
            out[result] = moments.s / self.hands
            out[f"{result}_ci95"] = moments.interval(hands_per_round)
        expected = self.net.s / (self.rounds * self.stake)
        interval = self.net.interval(self.stake)
        out["expected_return"] = expected
        out["expected_return_ci95"] = interval
        out["edge"] = -expected
        out["edge_ci95"] = None if interval is None else [-interval[1], -interval[0]]
        out["commission_per_unit"] = self.commission / (self.rounds * self.stake)
        return out
