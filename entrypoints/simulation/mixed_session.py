"""A seeded session at simulated tables, driven through the application service.

Tests, the audit benchmark and demonstrations need a realistic event log: several tables under
different rules profiles (House Ways, commission modes, variants, side bets, a rotating bank),
players who set their own hands (fouls included), ask for the House Way or leave it unset, rules
changes between rounds, floor voids, misdeals, buy-ins, cash-outs and players leaving. Every
choice comes from ``random.Random(seed)`` and every deal from ``SeededDeckAndDice``, so a seed
reproduces a session exactly. This is a simulation: a real table deals from the secure source.

Every command goes through :class:`service_layer.service.TableService`, so the log is exactly what a
table writes (one command id per command, a signed checkpoint at each round end).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from service_layer.service import TableService
from table_core import commands as c
from table_core.cards import FULL_DECK, card_text
from table_core.errors import DomainError
from table_core.events import Actor
from table_core.rules import CommissionRules, HouseRules, TableLimits, TableRules
from table_core.side_bets import ProgressiveLine, ProgressiveTable, SideBetRules
from table_core.table import TableState

FLOOR = Actor(id="floor-marie", role="floor")
DEALER = Actor(id="dealer-lucas", role="dealer")
CAGE = Actor(id="cage-1", role="cage")

#: A small progressive (R-VAR-6): 1.00 fixed, half to the meter, re-seeded at 100.00.
PROGRESSIVE = ProgressiveTable(
    name="casino_progressive",
    wager=100,
    contribution_bp=5_000,
    reset=10_000,
    lines={
        "natural_seven_card_straight_flush": ProgressiveLine(meter_share_bp=10_000),
        "five_aces": ProgressiveLine(meter_share_bp=1_000),
        "four_of_a_kind": ProgressiveLine(amount=7_500),
        "full_house": ProgressiveLine(amount=300),
    },
)
SIDE_BETS = SideBetRules(
    offered=frozenset({"fortune", "emperors_treasure", "progressive"}),
    progressive=PROGRESSIVE,
)

#: One profile per simulated table, in turn: what the audit must re-derive round by round.
PROFILES: tuple[TableRules, ...] = (
    TableRules(side_bets=SIDE_BETS),
    TableRules(
        hand=HouseRules(
            house_way="trump_plaza",
            foul_policy="forfeit",
            commission=CommissionRules(rate_bp=500, rounding_unit=25, rounding="up"),
        ),
        banking="rotating",
        co_bank=True,
    ),
    TableRules(
        hand=HouseRules(house_way="es", commission=CommissionRules(mode="flat", fee=50)),
        variant="ez",
        side_bets=SideBetRules(offered=frozenset({"fortune"})),
    ),
    TableRules(
        hand=HouseRules(house_way="foxwoods", wheel_rank="lowest"),
        variant="commission_free",
        banking="rotating",
    ),
)


@dataclass
class SessionStats:
    """What a simulated session did, to compare with what an audit finds in its log."""

    commands: int = 0
    rounds: int = 0
    settled: int = 0
    voided: int = 0
    refused: list[str] = field(default_factory=list)


@dataclass
class _Table:
    table_id: str
    rules: TableRules
    next_player: int = 1
    step: int = 0


class Session:
    """Drives ``tables`` tables through the service, round by round, interleaved."""

    def __init__(
        self,
        service: TableService,
        *,
        seed: int = 7,
        tables: int = 1,
        prefix: str = "PG-",
        profiles: Sequence[TableRules] = PROFILES,
        rich: bool = True,
    ) -> None:
        self.service = service
        self.random = random.Random(seed)
        self.rich = rich
        self.stats = SessionStats()
        self.tables = [
            _Table(f"{prefix}{n + 1}", profiles[n % len(profiles)]) for n in range(tables)
        ]
        for table in self.tables:
            self._open(table)

    # --- plumbing ------------------------------------------------------------------------------

    def _run(self, table: _Table, build: Callable[..., c.Command], **fields: object) -> bool:
        """One command at the table; a refusal is noted (a simulation bug) and play goes on."""
        table.step += 1
        command = build(at=self.service.now(), **fields)
        try:
            self.service.execute(table.table_id, command, f"{table.table_id}:{table.step}")
        except DomainError as error:
            self.stats.refused.append(f"{table.table_id} {type(command).__name__}: {error}")
            return False
        self.stats.commands += 1
        return True

    def _state(self, table: _Table) -> TableState:
        return self.service.load(table.table_id)

    def _open(self, table: _Table) -> None:
        self._run(table, c.OpenTable, table_id=table.table_id, rules=table.rules, actor=FLOOR)
        for seat in range(1, self.random.randint(3, 6) + 1):
            self._seat(table, seat)

    def _seat(self, table: _Table, seat: int) -> None:
        name = f"{table.table_id.lower()}-p{table.next_player}"
        table.next_player += 1
        self._run(table, c.SeatPlayer, seat=seat, player_id=name, actor=DEALER)
        amount = self.random.choice((50_000, 100_000, 250_000))
        self._run(table, c.BuyIn, player_id=name, amount=amount, actor=CAGE)

    # --- a round -------------------------------------------------------------------------------

    def play(self, rounds: int) -> SessionStats:
        """``rounds`` rounds at every table, the tables taking turns round by round."""
        for _ in range(rounds):
            for table in self.tables:
                self.round(table)
        return self.stats

    def round(self, table: _Table) -> None:
        rng = self.random
        if self.rich:
            self._between_rounds(table)
        if not self._run(table, c.StartRound, actor=DEALER):
            return
        self.stats.rounds += 1
        self._offers(table)
        state = self._state(table)
        r = state.round
        assert r is not None
        limits = r.rules.limits
        for seat, player in sorted(state.seats.items()):
            balance = state.balances.get(player, 0)
            if seat == r.banker_place or balance < limits.min_bet * 2 or rng.random() < 0.1:
                continue
            amount = min(rng.randrange(limits.min_bet, limits.min_bet * 6, 500), balance // 2)
            if self._run(table, c.PlaceBet, player_id=player, amount=amount, actor=DEALER):
                self._side_bets(table, player)
        if r.player_banked:  # the player-banker plays side bets too (R-BANK-5)
            self._side_bets(table, r.banker_player or "")
        if not self._state(table).round.wagers:  # type: ignore[union-attr]
            self._void(table, "no bets this round")
            return
        self._run(table, c.CloseBets, actor=DEALER)
        if self._state(table).phase == "voided":  # coverage returned every wager
            self.stats.voided += 1
            return
        if self.rich and rng.random() < 0.02:  # a live shuffler reports a deck with a duplicate
            deck = [card_text(x) for x in FULL_DECK]
            deck[7] = deck[8]
            self._run(table, c.DealCards, deck=deck, source="live", actor=DEALER)
            self.stats.voided += 1
            return
        table.step += 1
        self.service.deal_electronic(table.table_id, DEALER, f"{table.table_id}:{table.step}")
        table.step += 1
        self.service.roll_dice_electronic(table.table_id, DEALER, f"{table.table_id}:{table.step}")
        if self.rich and rng.random() < 0.01:
            self._void(table, "card exposed by the dealer")
            return
        self._set_hands(table)
        self._run(table, c.SetBankerHand, actor=DEALER)
        self._run(table, c.Settle, actor=DEALER)
        self._run(table, c.CloseRound, actor=DEALER)
        self.stats.settled += 1

    def _void(self, table: _Table, reason: str) -> None:
        if self._run(table, c.VoidRound, reason=reason, actor=FLOOR):
            self.stats.voided += 1

    def _offers(self, table: _Table) -> None:
        """R-BANK-1: an offered player accepts about half the time (co-banking when allowed)."""
        while True:
            state = self._state(table)
            r = state.round
            if r is None or r.phase != "offering_bank" or r.offered_seat is None:
                return
            player = state.seats[r.offered_seat]
            if self.random.random() < 0.5:
                co_bank = r.rules.co_bank and self.random.random() < 0.5
                self._run(table, c.AcceptBank, player_id=player, co_bank=co_bank, actor=DEALER)
            else:
                self._run(table, c.DeclineBank, player_id=player, actor=DEALER)

    def _side_bets(self, table: _Table, player: str) -> None:
        state = self._state(table)
        r = state.round
        assert r is not None
        side = r.rules.side_bets
        for bet in sorted(side.offered):
            if self.random.random() < 0.5:
                continue
            if bet == "progressive":
                assert side.progressive is not None
                amount = side.progressive.wager
            else:
                limits = r.rules.side_bet_limits
                amount = self.random.choice((limits.min_bet, 500, 1_000))
            if state.balances.get(player, 0) > amount + r.rules.limits.min_bet:
                self._run(
                    table, c.PlaceSideBet, player_id=player, bet=bet, amount=amount, actor=DEALER
                )
                state = self._state(table)

    def _set_hands(self, table: _Table) -> None:
        """Half the players ask for the House Way, a third split their own (some foul), the rest
        leave it to the dealer (R-SET-2 ``not_set``)."""
        state = self._state(table)
        r = state.round
        assert r is not None
        for place in r.player_places():
            player = state.seats[place]
            choice = self.random.random()
            if choice < 0.5:
                self._run(table, c.SetHand, player_id=player, actor=DEALER)
            elif choice < 0.85:
                seven = [card_text(x) for x in r.hands[place]]
                self.random.shuffle(seven)
                self._run(
                    table,
                    c.SetHand,
                    player_id=player,
                    back=seven[:5],
                    front=seven[5:],
                    actor=DEALER,
                )

    def _between_rounds(self, table: _Table) -> None:
        """Table facts between rounds: top-ups, a player leaving and another sitting down, and
        now and then a floor supervisor's change of the commission (a new profile version)."""
        rng = self.random
        state = self._state(table)
        for seat, player in sorted(state.seats.items()):
            balance = state.balances.get(player, 0)
            if balance < 20_000:
                self._run(table, c.BuyIn, player_id=player, amount=100_000, actor=CAGE)
            elif rng.random() < 0.02:
                self._run(table, c.CashOut, player_id=player, amount=balance // 3, actor=CAGE)
            elif rng.random() < 0.02:
                self._run(table, c.LeaveSeat, player_id=player, actor=DEALER)
                self._seat(table, seat)
        if rng.random() < 0.02:
            rules = self._state(table).rules
            assert rules is not None
            commission = rules.hand.commission
            if commission.mode == "percent":
                rate = 400 if commission.rate_bp == 500 else 500
                commission = commission.model_copy(update={"rate_bp": rate})
            new = rules.model_copy(
                update={
                    "version": rules.version + 1,
                    "hand": rules.hand.model_copy(update={"commission": commission}),
                    "limits": TableLimits(min_bet=rng.choice((1_000, 2_500)), max_bet=100_000),
                }
            )
            self._run(table, c.ChangeRules, rules=new, reason="new sign posted", actor=FLOOR)
