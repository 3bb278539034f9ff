"""A scripted evening at table PG-7, driven through the application service, and the figures a
floor supervisor works out by hand from it (checked by the projection tests and the CLI tests).

Profile: the ``fr`` House Way, 5% commission to the cent half up (R-PAY-2), a rotating bank
with ``dealer_between`` and co-banking (R-BANK-1..2), Fortune with its Envy bonus (R-VAR-3);
table minimum 10.00, so the house hand wagers 10.00 against a player-banker. Every deck is cut
so each position gets the seven cards named; the dice roll 2 + 3 + 5 = 10, so stack 1 goes to
position 3 (R-DEAL-3). The banker's hand is always a no-pair hand, which ``fr`` sets with the
highest card back and the next two front.

Round 1, the dealer banks (every offer passes: nobody has wagered against the dealer yet):
  dealer  Kd Ts 8h 5c 4d 3s 2h   -> K 5 4 3 2 / T 8
  ana     5,000  Ac Ad 6c 6d 2c / Qs Jh   two pair, Q-J: wins both -> +5,000, 250 commission
  bruno   2,000  9c 9d 9h 9s 3h / Kc Qc   four nines, K-Q: wins both -> +2,000, 100 commission
  chloe   1,000  7s 7c 7d Ah Th / 4h 2s   trips win, 4-2 loses: push; Fortune 500 on three of a
          kind pays 3 to 1 (+1,500) and Envy pays her 500 for bruno's four of a kind.
Round 2: ana declines the bank, bruno accepts with the house co-banking. Positions from seat 2:
  chloe (seat 3) 2, the house hand 6, ana (seat 1) 7.
  bruno   Ks Jd 9h 6c 5s 3d 2c   -> K 6 5 3 2 / J 9
  chloe   2,001  Qh Qd 8s 8d 4s / Ac 7h   wins both -> +2,001, commission 100.05 -> 100
  house   1,000  Qs Td 8h 6d 4c 3h 2s by the House Way -> Q 6 4 3 2 / T 8: loses both
  ana     3,000  Jc 7d 5h 4d 3c / 9c 2d   loses both
  The bank wins 3,000 + 1,000 - 2,001 = 1,999: the house takes 1,000 (the larger half of a
  win), bruno 999, on which he pays 49.95 -> 50 commission (R-BANK-4): net +949.
Round 3, the dealer banks between two player banks (no offer):
  dealer  Ah Qc Ts 9s 7d 5c 2d   -> A 9 7 5 2 / Q T
  chloe   1,000  sets Kd Jd 6s 4c 3h / 8c 8h, a foul; reset by the House Way to
          8c 8h 6s 4c 3h / Kd Jd (R-SET-2): wins both -> +1,000, 50 commission
  ana     1,000  does not set: the House Way sets J 5 4 3 2 / 9 7, loses both
Round 4: chloe and ana decline the bank, bruno cannot take it (he did not wager in round 3); ana
  bets 2,000 and bruno 1,500, then the floor voids the round ("card exposed"). bruno leaves
  (cashing out 32,849).
Round 5 (in progress): chloe declines, ana takes the bank, chloe bets 1,000.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.clock import SteppingClock
from adapters.projections.books import BOOK_COLUMNS
from service_layer.service import TableService
from table_core import commands as c
from table_core.cards import FULL_DECK, card_text, parse_cards
from table_core.events import Actor
from table_core.rules import TableRules
from table_core.side_bets import SideBetRules

TABLE = "PG-7"
START = datetime(2026, 3, 14, 20, 0, tzinfo=UTC)
DEALER = Actor(id="dealer-lucas", role="dealer")
FLOOR = Actor(id="floor-marie", role="floor")
CAGE = Actor(id="cage-1", role="cage")
DICE = (2, 3, 5)
FIRST_POSITION = 3
BUY_INS = {"ana": 50_000, "bruno": 30_000, "chloe": 20_000}

RULES = TableRules(
    banking="rotating",
    co_bank=True,
    side_bets=SideBetRules(offered=frozenset({"fortune"})),
    # The evening is about the figures: each round's deck is cut by hand and dealt live without
    # custody facts, so the rules say custody is not required (R20's own tests require it).
    deck_custody_required=False,
)

ROUND_1 = {
    1: "Kd Ts 8h 5c 4d 3s 2h",
    2: "Ac Ad 6c 6d 2c Qs Jh",
    3: "9c 9d 9h 9s 3h Kc Qc",
    4: "7s 7c 7d Ah Th 4h 2s",
}
ROUND_2 = {
    1: "Ks Jd 9h 6c 5s 3d 2c",
    2: "Qh Qd 8s 8d 4s Ac 7h",
    6: "Qs Td 8h 6d 4c 3h 2s",
    7: "Jc 7d 5h 4d 3c 9c 2d",
}
ROUND_3 = {1: "Ah Qc Ts 9s 7d 5c 2d", 2: "Jc 9d 7h 5d 4h 3c 2s", 4: "Kd Jd 6s 4c 3h 8c 8h"}


def deck_for(hands: Mapping[int, str], first_position: int = FIRST_POSITION) -> list[str]:
    """A 53-card order giving each position the seven cards named (stack s goes to position
    ((first + s - 2) mod 7) + 1, R-DEAL-3); the other stacks and the four unused cards take the
    remaining cards in new-deck order."""
    stacks: list[list[str] | None] = [None] * 7
    for position, text in hands.items():
        stacks[(position - first_position) % 7] = [card_text(x) for x in parse_cards(text, 7)]
    used = {card for stack in stacks if stack for card in stack}
    rest = [card_text(x) for x in FULL_DECK if card_text(x) not in used]
    order: list[str] = []
    for stack in stacks:
        if stack is None:
            stack, rest = rest[:7], rest[7:]
        order += stack
    order += rest
    assert len(order) == len(set(order)) == 53, "a hand named a card twice"
    return order


def stack_cards(hands: Mapping[int, str]) -> dict[int, list[str]]:
    """Position -> the seven cards it was dealt, dead stacks included."""
    deck = deck_for(hands)
    stacks = [deck[start : start + 7] for start in range(0, 49, 7)]
    return {position: stacks[(position - FIRST_POSITION) % 7] for position in range(1, 8)}


class Session:
    """Runs commands through a service; ``after`` is called after every command (a test may
    catch projections up there)."""

    def __init__(
        self,
        store: Any,
        after: Callable[[], None] | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.service = TableService(
            store, clock=clock or SteppingClock(START, timedelta(seconds=1))
        )
        self.after = after or (lambda: None)
        self.count = 0

    def __call__(self, build: Callable[..., c.Command], **fields: Any) -> None:
        svc = self.service
        self.count += 1
        svc.execute(
            TABLE,
            build(actor=fields.pop("actor", DEALER), at=svc.now(), **fields),
            f"{TABLE}:{self.count}",
        )
        self.after()

    def hand(self, name: str, split: str) -> None:
        back, front = split.split("/")
        self(c.SetHand, player_id=name, back=back.split(), front=front.split())

    def deal(self, hands: Mapping[int, str]) -> None:
        self(c.CloseBets)
        self(c.DealCards, deck=deck_for(hands), source="live")
        self(c.RollDice, faces=DICE)

    def finish(self) -> None:
        self(c.SetBankerHand)
        self(c.Settle)
        self(c.CloseRound)


def play_evening(session: Session) -> None:
    s = session
    s(c.OpenTable, table_id=TABLE, rules=RULES, actor=FLOOR)
    for seat, (name, amount) in enumerate(BUY_INS.items(), start=1):
        s(c.SeatPlayer, seat=seat, player_id=name)
        s(c.BuyIn, player_id=name, amount=amount, actor=CAGE)
    # Round 1: dealer-banked.
    s(c.StartRound)
    s(c.PlaceBet, player_id="ana", amount=5_000)
    s(c.PlaceBet, player_id="bruno", amount=2_000)
    s(c.PlaceBet, player_id="chloe", amount=1_000)
    s(c.PlaceSideBet, player_id="chloe", bet="fortune", amount=500)
    s.deal(ROUND_1)
    s.hand("ana", "Ac Ad 6c 6d 2c / Qs Jh")
    s.hand("bruno", "9c 9d 9h 9s 3h / Kc Qc")
    s.hand("chloe", "7s 7c 7d Ah Th / 4h 2s")
    s.finish()
    # Round 2: bruno banks, the house co-banks.
    s(c.StartRound)
    s(c.DeclineBank, player_id="ana")
    s(c.AcceptBank, player_id="bruno", co_bank=True)
    s(c.PlaceBet, player_id="chloe", amount=2_001)
    s(c.PlaceBet, player_id="ana", amount=3_000)
    s.deal(ROUND_2)
    s.hand("chloe", "Qh Qd 8s 8d 4s / Ac 7h")
    s.hand("ana", "Jc 7d 5h 4d 3c / 9c 2d")
    s.finish()
    # Round 3: the dealer banks between two player banks.
    s(c.StartRound)
    s(c.PlaceBet, player_id="ana", amount=1_000)
    s(c.PlaceBet, player_id="chloe", amount=1_000)
    s.deal(ROUND_3)
    s.hand("chloe", "Kd Jd 6s 4c 3h / 8c 8h")  # fouled: reset by the House Way
    s.finish()
    # Round 4: voided by the floor.
    s(c.StartRound)
    s(c.DeclineBank, player_id="chloe")
    s(c.DeclineBank, player_id="ana")
    s(c.PlaceBet, player_id="ana", amount=2_000)
    s(c.PlaceBet, player_id="bruno", amount=1_500)
    s(c.CloseBets)
    s(c.VoidRound, reason="card exposed", actor=FLOOR)
    s(c.LeaveSeat, player_id="bruno")
    # Round 5: in progress.
    s(c.StartRound)
    s(c.DeclineBank, player_id="chloe")
    s(c.AcceptBank, player_id="ana")
    s(c.PlaceBet, player_id="chloe", amount=1_000)


# --- the figures, by hand ------------------------------------------------------------------------

PLAYERS = [
    {
        "table_id": TABLE,
        "player_id": "ana",
        "seat": 1,
        "balance": 50_750,
        "in_play": 0,
        "bought_in": 50_000,
        "cashed_out": 0,
        "main_result": 5_000 - 3_000 - 1_000,
        "side_result": 0,
        "commission_paid": 250,
        "banker_result": 0,
        "banker_commission": 0,
        "net_result": 750,
        "hands_played": 3,
        "rounds_banked": 0,
    },
    {
        "table_id": TABLE,
        "player_id": "chloe",
        "seat": 3,
        "balance": 23_851,
        "in_play": 1_000,
        "bought_in": 20_000,
        "cashed_out": 0,
        "main_result": 0 + 2_001 + 1_000,
        "side_result": 1_500 + 500,
        "commission_paid": 100 + 50,
        "banker_result": 0,
        "banker_commission": 0,
        "net_result": 4_851,
        "hands_played": 3,
        "rounds_banked": 0,
    },
    {
        "table_id": TABLE,
        "player_id": "bruno",
        "seat": None,
        "balance": 0,
        "in_play": 0,
        "bought_in": 30_000,
        "cashed_out": 32_849,
        "main_result": 2_000,
        "side_result": 0,
        "commission_paid": 100,
        "banker_result": 999,
        "banker_commission": 50,
        "net_result": 2_849,
        "hands_played": 1,
        "rounds_banked": 1,
    },
]

HOUSE = {
    "table_id": TABLE,
    "main_result": -7_000 + (1_000 - 1_000) + 0,
    "commission": 250 + 100 + 100 + 50 + 50,
    "side_result": -1_500,
    "envy_paid": 500,
    "total_result": -8_450,
    "meter": 0,
    "meter_seeded": 0,
    "meter_from_players": 0,
    "rounds_settled": 3,
    "house_result": -7_000 - 1_500 - 500,  # before commission: the audit's and the table state's
    "game_win": -8_450,
}

ACCOUNTING = {
    "table_id": TABLE,
    "gaming_day": "2026-03-14",
    "rounds_played": 3,
    "rounds_voided": 1,
    "hands": 3 + 2 + 2,
    "pushes": 1,
    "push_rate_pct": "14.29",  # 1 / 7
    "handle": 8_000 + 5_001 + 2_000,
    # The casino's drop (issue 18): the buy-ins, recorded without a medium, so read as cash.
    "drop": 50_000 + 20_000 + 30_000,
    "main_result": -7_000,
    "commission": 550,
    "win": -6_450,
    "hold_pct": "-8.45",  # no books: the game win -8,450 / drop 100,000
    "side_bets": 1,
    "side_handle": 500,
    "side_result": -1_500,
    "envy_paid": 500,
    "side_win": -2_000,
    "side_hold_pct": "-400.00",
    "total_win": -8_450,
    **dict.fromkeys(BOOK_COLUMNS),
    "books": "none",
    "drop_recorded": 100_000,
    "game_win": -8_450,
    "main_win": -6_450,
    "game_hold_pct": "-8.45",
}

SIDE_BETS = [
    {
        "table_id": TABLE,
        "gaming_day": "2026-03-14",
        "bet": "fortune",
        "bets": 1,
        "handle": 500,
        "result": -1_500,
        "hold_pct": "-300.00",
        "side_result": -1_500,
    },
]

NOT_WAGERED = "did not wager against the dealer in the last dealer-banked round"

#: (round, seat, player, eligible, reason, outcome) of every offer of the bank, in order.
OFFERS = [
    (1, 1, "ana", False, NOT_WAGERED, "passed"),
    (1, 2, "bruno", False, NOT_WAGERED, "passed"),
    (1, 3, "chloe", False, NOT_WAGERED, "passed"),
    (2, 1, "ana", True, None, "declined"),
    (2, 2, "bruno", True, None, "accepted"),
    (4, 3, "chloe", True, None, "declined"),
    (4, 1, "ana", True, None, "declined"),
    (4, 2, "bruno", False, NOT_WAGERED, "passed"),
    (5, 3, "chloe", True, None, "declined"),
    (5, 1, "ana", True, None, "accepted"),
]

ROTATION = {
    "table_id": TABLE,
    "banking": "rotating",
    "dealer_between": True,
    "round": 5,
    "round_status": "open_for_bets",
    "current_banker": "player",
    "current_banker_seat": 1,
    "current_banker_player_id": "ana",
    "co_bank": False,
    "offered_seat": None,
    "next_banker": "dealer",
    "next_banker_seat": None,
    "next_banker_player_id": None,
    "next_reason": "the dealer banks between two player banks (dealer_between)",
    "dealer_banked_rounds": 2,
    "player_banked_rounds": 1,
}

ELIGIBILITY = [
    {
        "table_id": TABLE,
        "seat": 1,
        "player_id": "ana",
        "eligible": True,
        "reason": None,
        "balance": 50_750,
        "required": 1_000 + 1_000,
        "offers_accepted": 1,
        "offers_declined": 2,
        "offers_passed": 1,
        "rounds_banked": 0,
    },
    {
        "table_id": TABLE,
        "seat": 3,
        "player_id": "chloe",
        "eligible": True,
        "reason": None,
        "balance": 23_851,
        "required": 1_000 + 1_000,
        "offers_accepted": 0,
        "offers_declined": 2,
        "offers_passed": 1,
        "rounds_banked": 0,
    },
]
