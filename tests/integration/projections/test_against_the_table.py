"""Random evenings (a rotating bank with co-banking, coverage returns, fouls, Fortune with Envy,
the progressive, voids, cash-outs) against the table's own fold: every projected balance, chip
on the layout, house result, meter and bank eligibility is what ``table_core`` says, and the
predicted next banker is what the next ``StartRound`` does."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.clock import SteppingClock
from adapters.projections import ProjectionRunner
from adapters.rng import SeededDeckAndDice
from adapters.store import InMemoryEventStore
from adapters.store.signing import Signer
from service_layer.service import TableService
from table_core import commands as c
from table_core.banking import bank_eligibility
from table_core.errors import DomainError
from table_core.events import Actor, BankOffered
from table_core.rules import TableRules
from table_core.side_bets import SideBetRules
from table_core.side_bets.pay_tables import PROGRESSIVE_EXAMPLE
from table_core.table import TableState, decide

from .support import report

TABLE = "PG-9"
DEALER = Actor(id="dealer-x", role="dealer")
FLOOR = Actor(id="floor-x", role="floor")
CAGE = Actor(id="cage-x", role="cage")
PLAYERS = ("ana", "bruno", "chloe", "dmitri", "eva")
RULES = TableRules(
    banking="rotating",
    co_bank=True,
    hand={"foul_policy": "reset"},
    side_bets=SideBetRules(
        offered=frozenset({"fortune", "progressive"}), progressive=PROGRESSIVE_EXAMPLE
    ),
)


class Evening:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.store = InMemoryEventStore(Signer.generate())
        self.svc = TableService(
            self.store,
            clock=SteppingClock(datetime(2026, 5, 1, 22, 0, tzinfo=UTC), timedelta(minutes=1)),
            source=SeededDeckAndDice(seed),
        )
        self.n = 0

    def __call__(self, build: Any, **fields: Any) -> bool:
        self.n += 1
        actor = fields.pop("actor", DEALER)
        try:
            self.svc.execute(TABLE, build(actor=actor, at=self.svc.now(), **fields), f"c{self.n}")
        except DomainError:
            return False  # a refused command (a bet over the balance…): the table goes on
        return True

    @property
    def state(self) -> TableState:
        return self.svc.load(TABLE)

    def play(self, rounds: int) -> None:
        rng, run = self.rng, self
        run(c.OpenTable, table_id=TABLE, rules=RULES, actor=FLOOR)
        for seat, name in enumerate(PLAYERS, start=1):
            run(c.SeatPlayer, seat=seat, player_id=name)
            run(c.BuyIn, player_id=name, amount=rng.choice((3_000, 8_000, 25_000)), actor=CAGE)
        for _ in range(rounds):
            self.round()
            if rng.random() < 0.2:
                name = rng.choice(PLAYERS)
                if rng.random() < 0.5:
                    run(c.BuyIn, player_id=name, amount=5_000, actor=CAGE)
                else:
                    run(c.CashOut, player_id=name, amount=1_000, actor=CAGE)

    def bets(self) -> bool:
        """Start a round, settle who banks and take the bets; False if it could not start."""
        rng, run = self.rng, self
        if not run(c.StartRound):
            return False
        while self.state.phase == "offering_bank":
            offered = self.state.seats[self.state.round.offered_seat]  # type: ignore[union-attr,index]
            if rng.random() < 0.5:
                run(c.AcceptBank, player_id=offered, co_bank=rng.random() < 0.5)
            else:
                run(c.DeclineBank, player_id=offered)
        banker = self.state.round.banker_player  # type: ignore[union-attr]
        for name in PLAYERS:
            if name != banker and rng.random() < 0.85:
                run(c.PlaceBet, player_id=name, amount=rng.choice((1_000, 2_500, 6_000)))
            if rng.random() < 0.4:
                run(c.PlaceSideBet, player_id=name, bet="fortune", amount=500)
            if rng.random() < 0.3:
                run(c.PlaceSideBet, player_id=name, bet="progressive", amount=100)
        return True

    def round(self) -> None:
        rng, run = self.rng, self
        if not self.bets():
            return
        banker = self.state.round.banker_player  # type: ignore[union-attr]
        if not run(c.CloseBets) or self.state.phase == "voided":
            if self.state.phase == "open_for_bets":
                run(c.VoidRound, reason="no bets")
            return
        if rng.random() < 0.08:
            run(c.VoidRound, reason="card exposed", actor=FLOOR)
            return
        self.svc.deal_electronic(TABLE, DEALER, f"deal{self.n}")
        self.svc.roll_dice_electronic(TABLE, DEALER, f"dice{self.n}")
        hands = self.state.round.hands  # type: ignore[union-attr]
        for seat, name in sorted(self.state.seats.items()):
            if seat in hands and name != banker and rng.random() < 0.5:
                seven = list(hands[seat])
                rng.shuffle(seven)  # a random split: legal, or a foul the House Way resets
                run(c.SetHand, player_id=name, back=seven[:5], front=seven[5:])
        run(c.SetBankerHand)
        run(c.Settle)
        run(c.CloseRound)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_projections_agree_with_the_tables_own_fold(seed: int) -> None:
    evening = Evening(seed)
    evening.play(rounds=25)
    runner = ProjectionRunner(evening.store, batch_size=seed * 17)
    state = evening.state
    assert state.round is not None and not state.round.live
    # The next banker predicted between two rounds is who the next StartRound offers it to.
    (rotation,) = report(runner, None)["rotation"]
    offers = [
        e
        for e in decide(state, c.StartRound(actor=DEALER, at=evening.svc.now()))
        if isinstance(e, BankOffered)
    ]
    taker = offers[-1].seat if offers and offers[-1].eligible else None
    assert rotation["next_banker_seat"] == taker
    assert rotation["next_banker"] == ("offer" if taker else "dealer")
    assert rotation["round"] == state.last_round

    evening.bets()  # a round left open: chips on the layout
    state = evening.state
    figures = report(runner, None)
    players = {p["player_id"]: p for p in figures["players"]}
    for name in PLAYERS:
        assert players[name]["balance"] == state.balances.get(name, 0), name
    layout: dict[str, int] = {}
    assert state.round is not None and state.round.live
    for wager in state.round.wagers.values():
        if wager.player_id is not None:
            layout[wager.player_id] = layout.get(wager.player_id, 0) + wager.amount
    for bets in state.round.side_bets.values():
        for bet in bets:
            layout[bet.player_id] = layout.get(bet.player_id, 0) + bet.amount
    assert {p: v["in_play"] for p, v in players.items() if v["in_play"]} == layout != {}
    assert sum(p["bought_in"] for p in players.values()) == state.bought_in
    assert sum(p["cashed_out"] for p in players.values()) == state.cashed_out

    (house,) = figures["house"]
    assert house["total_result"] == state.house_result + state.commission
    assert house["commission"] == state.commission
    assert (house["meter"], house["meter_seeded"]) == (state.meter, state.meter_seeded)

    days = figures["accounting"]
    assert sum(d["total_win"] for d in days) == house["total_result"]
    assert sum(d["commission"] for d in days) == state.commission
    assert sum(d["rounds_played"] for d in days) == house["rounds_settled"]
    # The service mirrors each void into the system stream (same type name): counted once.
    ends = [e.type for e in evening.store.read_all() if e.stream_id == TABLE]
    assert sum(d["rounds_voided"] for d in days) == ends.count("round_voided") > 0
    assert sum(d["rounds_played"] for d in days) == ends.count("round_settled")

    rules = state.rules
    assert rules is not None
    assert [(r["seat"], r["player_id"]) for r in figures["eligibility"]] == sorted(
        state.seats.items()
    )
    for row in figures["eligibility"]:
        others = [p for s, p in state.seats.items() if s != row["seat"]]
        verdict = bank_eligibility(
            row["player_id"],
            state.balances.get(row["player_id"], 0),
            others,
            state.last_dealer_wagers,
            rules,
        )
        assert (row["eligible"], row["reason"], row["required"]) == (
            verdict.eligible,
            verdict.reason,
            verdict.required,
        )
