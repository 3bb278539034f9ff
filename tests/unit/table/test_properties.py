"""Properties over random sessions of play (hypothesis drives every choice).

- money is conserved after every command: players' chips + cashed out + chips on the layout (main
  wagers and side bets) + the house's result (main wagers, side bets, Envy and the progressive
  alike) + commission = buy-ins, and no balance goes negative;
- the progressive meter is house money set aside: it moves only by ``meter_changed`` events, never
  goes negative, and what the house did not seed itself is the contributions less the hits;
- folding the emitted events from scratch, also after a JSON round trip, gives exactly the live
  state;
- in every state reached, every command the state does not accept is refused with the state's
  name and emits nothing.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventlog.mapper import event_to_dict, parse_event
from table_core import commands as c
from table_core.cards import FULL_DECK
from table_core.commands import Command
from table_core.errors import DomainError
from table_core.events import EVENT_TYPES, Event, MeterChanged
from table_core.rules import TableRules
from table_core.side_bets import SideBetRules
from table_core.table import TableState, decide, fold

from .side_bet_support import CASINO_INSURANCE, CASINO_PROGRESSIVE
from .support import AT, CAGE, DEALER, FLOOR, TABLE, TEST_WAY, player
from .test_state_machine import check_refusals

NAMES = ("ana", "bruno", "chloe", "dmitri", "elif", "farid", "gita", "hugo")
SIDE_BETS = ("fortune", "emperors_treasure", "insurance", "progressive")
D = {"actor": DEALER, "at": AT}
D_FLOOR = {"actor": FLOOR, "at": AT}


@st.composite
def profiles(draw: st.DrawFn) -> TableRules:
    mode = draw(st.sampled_from(["percent", "flat", "flat_always"]))
    commission = {
        "mode": mode,
        "rate_bp": draw(st.sampled_from([0, 250, 500, 1_000])),
        "fee": draw(st.integers(1, 300)) if mode != "percent" else 0,
        "rounding_unit": draw(st.sampled_from([1, 5, 25])),
        "rounding": draw(st.sampled_from(["half_up", "up", "down"])),
    }
    return TableRules.model_validate(
        {
            "hand": {
                "house_way": TEST_WAY,
                "foul_policy": draw(st.sampled_from(["reset", "forfeit"])),
                "wheel_rank": draw(st.sampled_from(["second", "lowest"])),
                "commission": commission,
            },
            "banking": draw(st.sampled_from(["dealer", "rotating", "rotating"])),
            "dealer_between": draw(st.booleans()),
            "co_bank": draw(st.booleans()),
            "house_wager": draw(st.sampled_from([None, 0, 2_500])),
            "limits": {"min_bet": 500, "max_bet": draw(st.sampled_from([5_000, 50_000]))},
            "variant": draw(st.sampled_from(["commission", "ez", "commission_free"])),
            "queen_high_pai_gow": draw(st.sampled_from(["push", "banker_wins"])),
            "side_bets": side_bet_rules(draw(st.sets(st.sampled_from(SIDE_BETS)))),
            "side_bet_limits": {"min_bet": 100, "max_bet": draw(st.sampled_from([500, 5_000]))},
            # R20: required, a live deal without a deck in use is refused (nothing emitted)
            "deck_custody_required": draw(st.booleans()),
        }
    )


def side_bet_rules(offered: set[str]) -> SideBetRules:
    return SideBetRules.model_validate(
        {"offered": offered, "insurance": CASINO_INSURANCE, "progressive": CASINO_PROGRESSIVE}
    )


class Session:
    """Plays random commands, checking every property after each one."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.state = TableState()
        self.events: list[Event] = []
        self.refused = 0
        self.meter = 0  # the sum of every meter_changed
        self.meter_by_players = 0  # contributions, their returns and the hits

    def __call__(self, command: Command) -> bool:
        before = self.state
        try:
            new = decide(before, command)
        except DomainError:
            self.refused += 1
            assert self.state is before
            return False
        self.state = fold(new, before)
        self.events.extend(new)
        for event in new:
            if isinstance(event, MeterChanged):
                assert event.meter >= 0
                self.meter += event.amount
                if event.reason not in ("seed", "reset"):
                    self.meter_by_players += event.amount
        self.check()
        return True

    def check(self) -> None:
        s = self.state
        assert all(balance >= 0 for balance in s.balances.values()), s.balances
        held = sum(s.balances.values()) + s.cashed_out + s.chips_in_play()
        assert held + s.house_result + s.commission == s.bought_in
        # The meter: house money set aside, moved only by its own events.
        assert s.meter == self.meter >= 0
        assert s.meter - s.meter_seeded == self.meter_by_players
        assert s.version == len(self.events)
        seated = next(iter(s.seats.values()), "ana")
        check_refusals(s, seated)

    # --- what people do ---------------------------------------------------------------------

    def seated(self) -> list[str]:
        return list(self.state.seats.values())

    def noise(self) -> None:
        """Things that happen between the dealer's steps: seats, chips, a rules change, a void."""
        rng, s = self.rng, self.state
        roll = rng.random()
        free = [seat for seat in range(1, 7) if seat not in s.seats]
        away = [name for name in NAMES if name not in s.seats.values()]
        if roll < 0.25 and free and away:
            name = rng.choice(away)
            self(c.SeatPlayer(seat=rng.choice(free), player_id=name, actor=player(name), at=AT))
        elif roll < 0.5 and self.seated():
            name = rng.choice(self.seated())
            self(c.BuyIn(player_id=name, amount=rng.randint(1, 40_000), actor=CAGE, at=AT))
        elif roll < 0.7 and self.seated():
            name = rng.choice(self.seated())
            self(c.CashOut(player_id=name, amount=rng.randint(1, 20_000), actor=CAGE, at=AT))
        elif roll < 0.8 and self.seated():
            self(c.LeaveSeat(player_id=rng.choice(self.seated()), **D))
        elif roll < 0.9 and s.rules is not None:
            new = s.rules.model_copy(
                update={
                    "version": s.rules.version + 1,
                    "banking": rng.choice(["dealer", "rotating"]),
                    "co_bank": rng.random() < 0.5,
                }
            )
            self(c.ChangeRules(rules=new, reason="floor decision", actor=FLOOR, at=AT))
        else:
            self(c.VoidRound(reason="floor call", actor=FLOOR, at=AT))

    def custody(self) -> None:
        """A deck's custody (R20), mostly its next step, some refused (unknown, held, not
        inspected, already retired)."""
        rng = self.rng
        deck = rng.choice(("D1", "D2", "D3"))
        why = {"reason": "floor decision", "deck_id": deck, "actor": FLOOR, "at": AT}
        known = self.state.decks.get(deck)
        if rng.random() < 0.6:  # the deck's next step
            if known is None:
                self(c.ReceiveDeck(deck_id=deck, seal=f"S-{deck}", package_id="P-1", **D_FLOOR))
            elif known.held:
                self(c.ReleaseDeck(**why))
            elif not known.inspected:
                count = rng.choice((53, 53, 53, 52))
                self(c.InspectDeck(deck_id=deck, card_count=count, inspector="i-1", **D_FLOOR))
            elif known.status == "received":
                self(c.PutDeckInUse(deck_id=deck, actor=FLOOR, at=AT))
            else:
                self(c.HoldDeck(dispute_id="disp-1", **why))
            return
        self(
            rng.choice(
                [
                    c.ReceiveDeck(deck_id=deck, seal=f"S-{deck}", actor=FLOOR, at=AT),
                    c.InspectDeck(
                        deck_id=deck,
                        card_count=rng.choice((53, 53, 52)),
                        inspector="floor-9",
                        actor=FLOOR,
                        at=AT,
                    ),
                    c.LoadShuffler(
                        deck_id=deck, shuffler_serial="SH-1", received_at=AT, actor=FLOOR, at=AT
                    ),
                    c.PutDeckInUse(deck_id=deck, actor=FLOOR, at=AT),
                    c.RetireDeck(destroyed=rng.random() < 0.3, **why),
                    c.HoldDeck(**why),
                    c.ReleaseDeck(**why),
                ]
            )
        )

    def deal(self) -> Command:
        rng = self.rng
        deck = rng.sample(FULL_DECK, len(FULL_DECK))
        roll = rng.random()
        if roll < 0.08:  # a misdeal: a card missing or seen twice
            deck[rng.randrange(53)] = deck[rng.randrange(53)] if roll < 0.04 else deck[0]
            return c.DealCards(deck=deck[: 52 if roll < 0.02 else 53], **D)
        if roll < 0.2:  # a live table reports the seven hands
            return c.DealCards(hands=[deck[i : i + 7] for i in range(0, 49, 7)], **D)
        return c.DealCards(deck=deck, source="electronic", **D)

    def set_hands(self) -> None:
        r = self.state.round
        assert r is not None
        for place in r.player_places():
            name = r.wagers[place].player_id
            assert name is not None
            roll = self.rng.random()
            if roll < 0.3:
                self(c.SetHand(player_id=name, actor=player(name), at=AT))
            elif roll < 0.8:  # any two cards in front: some are fouls
                seven = list(r.hands[place])
                self.rng.shuffle(seven)
                self(c.SetHand(player_id=name, back=seven[:5], front=seven[5:], **D))
        self(c.SetBankerHand(**D))

    def side_bets(self, name: str) -> None:
        """Some side bets, mostly offered ones, some refused (no main wager, too much…)."""
        for bet in SIDE_BETS:
            if self.rng.random() < 0.3:
                amount = self.rng.choice([100, 100, 500, 2_500, 6_000])
                self(c.PlaceSideBet(player_id=name, bet=bet, amount=amount, **D))

    def step(self) -> None:
        rng, phase = self.rng, self.state.phase
        if rng.random() < 0.1:
            self.noise()
            return
        if rng.random() < 0.06:
            self.custody()
            return
        r = self.state.round
        if phase in ("no_round", "closed", "voided"):
            if not self.state.seats:
                self.noise()
            self(c.StartRound(**D))
        elif phase == "offering_bank":
            assert r is not None and r.offered_seat is not None
            name = self.state.seats[r.offered_seat]
            if rng.random() < 0.5:
                co_bank = r.rules.co_bank and rng.random() < 0.5
                self(c.AcceptBank(player_id=name, co_bank=co_bank, actor=player(name), at=AT))
            else:
                self(c.DeclineBank(player_id=name, actor=player(name), at=AT))
        elif phase == "open_for_bets":
            assert r is not None
            for name in self.seated():
                if rng.random() < 0.8:
                    amount = rng.choice([500, 1_000, 2_500, 5_000, 20_000])
                    self(c.PlaceBet(player_id=name, amount=amount, actor=player(name), at=AT))
                self.side_bets(name)
            if not self(c.CloseBets(**D)):
                self(c.VoidRound(reason="no bets", **D))
        elif phase == "bets_closed":
            self(self.deal())
        elif phase == "dealt":
            self(c.RollDice(faces=[rng.randint(1, 6) for _ in range(3)], **D))
        elif phase in ("dice_rolled", "hands_set"):
            self.set_hands()
        elif phase == "banker_hand_set":
            self(c.Settle(**D))
        elif phase == "settled":
            self(c.CloseRound(**D))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), profile=profiles(), players=st.integers(1, 6))
def test_random_sessions_conserve_money_replay_exactly_and_refuse_wrong_states(
    seed: int, profile: TableRules, players: int
) -> None:
    # One seed drives the whole session: hypothesis's own random data would be too large to shrink.
    rng = random.Random(seed)
    session = Session(rng)
    session(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    for seat, name in enumerate(NAMES[:players], start=1):
        session(c.SeatPlayer(seat=seat, player_id=name, **D))
        session(c.BuyIn(player_id=name, amount=rng.randint(2_000, 60_000), actor=CAGE, at=AT))
    rounds = 0
    for _ in range(400):
        session.step()
        rounds = session.state.last_round
        if rounds >= 8 and session.state.phase in ("closed", "voided"):
            break

    assert fold(session.events) == session.state
    stored = [json.loads(json.dumps(event_to_dict(e))) for e in session.events]
    assert fold(parse_event(data) for data in stored) == session.state
    assert rounds >= 1


def test_sessions_reach_every_kind_of_fact() -> None:
    """The random driver is not idle: across a few fixed sessions every event type occurs."""
    seen: set[str] = set()
    for seed in range(12):
        rng = random.Random(seed)
        rules = TableRules.model_validate(
            {
                "hand": {"house_way": TEST_WAY, "foul_policy": ("reset", "forfeit")[seed % 2]},
                "banking": "rotating",
                "co_bank": True,
                "limits": {"min_bet": 500, "max_bet": 50_000},
                "side_bets": side_bet_rules(set(SIDE_BETS)),
            }
        )
        session = Session(rng)
        session(c.OpenTable(table_id=TABLE, rules=rules, actor=FLOOR, at=AT))
        for seat, name in enumerate(NAMES[:5], start=1):
            session(c.SeatPlayer(seat=seat, player_id=name, **D))
            session(c.BuyIn(player_id=name, amount=30_000, actor=CAGE, at=AT))
        for _ in range(300):
            session.step()
        seen |= {e.type for e in session.events}
    # Envy needs four of a kind or better beside a qualifying Fortune bet: too rare for a few
    # random sessions; test_side_bets_at_the_table plays it.
    rare = {"envy_paid"}
    # The books' facts (issue 18) come from their own random sessions: test_inventory_properties.
    rare |= {"gaming_day_opened", "gaming_day_closed", "tray_filled", "tray_credited"}
    rare |= {"drop_counted", "rating_corrected"}
    # A House Way file installed (issue 32) is the floor's, once a file certifies: an e2e test.
    rare |= {"house_way_installed"}
    expected = {cls.model_fields["type"].default for cls in EVENT_TYPES} - rare
    assert expected - seen == set()
