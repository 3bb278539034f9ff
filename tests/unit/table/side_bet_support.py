"""What the side-bet and variant rounds share: a table that offers side bets, and a deck cut so
each place gets the seven cards a test names.

Every round here is dealer-banked and rolls 2 + 3 + 5 = 10, so position 3 (seat 2) gets stack 1
(R-DEAL-3): seat ``s`` is position ``s + 1`` and holds stack ``((s + 1 - 3) mod 7) + 1``; the
dealer (position 1) holds stack 6.
"""

from __future__ import annotations

from collections.abc import Mapping

from table_core import commands as c
from table_core.cards import FULL_DECK, card_text, parse_cards
from table_core.commands import Command
from table_core.rules import TableRules
from table_core.side_bets import PayTable, ProgressiveLine, ProgressiveTable, SideBetRules

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, player, rules

D = {"actor": DEALER, "at": AT}
DICE = (2, 3, 5)
DEALER_PLACE = 0

#: A casino's own Insurance table (R-VAR-5 names none): pai gow by highest card.
CASINO_INSURANCE = PayTable(
    name="casino_insurance",
    bet="insurance",
    pays={
        "pai_gow_nine_high": 100,
        "pai_gow_ten_high": 25,
        "pai_gow_jack_high": 10,
        "pai_gow_queen_high": 4,
        "pai_gow_king_high": 2,
        "pai_gow_ace_high": 1,
    },
)

#: A small progressive (R-VAR-6): 1.00 fixed wager, half of it to the meter, re-seeded at 100.00;
#: 10% of the meter for five aces, 75.00 from the house for four of a kind.
CASINO_PROGRESSIVE = ProgressiveTable(
    name="casino_progressive",
    wager=100,
    contribution_bp=5_000,
    reset=10_000,
    lines={
        "natural_seven_card_straight_flush": ProgressiveLine(meter_share_bp=10_000),
        "five_aces": ProgressiveLine(meter_share_bp=1_000),
        "four_of_a_kind": ProgressiveLine(amount=7_500),
    },
)

EVERY_SIDE_BET = SideBetRules(
    offered=frozenset({"fortune", "emperors_treasure", "insurance", "progressive"}),
    insurance=CASINO_INSURANCE,
    progressive=CASINO_PROGRESSIVE,
)


def side_bet_rules(**changes: object) -> TableRules:
    """The test profile (``test_way``, limits 10.00..1,000.00) taking every side bet."""
    return rules(**{"side_bets": EVERY_SIDE_BET, **changes})


def deck(hands: Mapping[int, str]) -> list[str]:
    """A 53-card order giving each place (0: the dealer, 1..6: seats) the seven cards named, with
    the dice of :data:`DICE` and the dealer banking; other stacks get the remaining cards."""
    stacks: list[list[str] | None] = [None] * 7
    for place, text in hands.items():
        position = place + 1
        stacks[(position - 3) % 7] = [card_text(x) for x in parse_cards(text, 7)]
    used = {text for stack in stacks if stack for text in stack}
    rest = [card_text(x) for x in FULL_DECK if card_text(x) not in used]
    order: list[str] = []
    for stack in stacks:
        if stack is None:
            stack, rest = rest[:7], rest[7:]
        order += stack
    order += rest
    assert len(order) == len(set(order)) == 53, "a test named a card twice"
    return order


def open_table(profile: TableRules, players: Mapping[str, int]) -> Script:
    """A table under ``profile`` with ``players`` (name -> buy-in) in seats 1, 2, … in order."""
    table = Script()
    table(c.OpenTable(table_id=TABLE, rules=profile, actor=FLOOR, at=AT))
    for seat, (name, amount) in enumerate(players.items(), start=1):
        table(c.SeatPlayer(seat=seat, player_id=name, **D))
        table(c.BuyIn(player_id=name, amount=amount, actor=CAGE, at=AT))
    return table


def bet(name: str, amount: int) -> c.PlaceBet:
    return c.PlaceBet(player_id=name, amount=amount, actor=player(name), at=AT)


def side_bet(name: str, kind: str, amount: int) -> c.PlaceSideBet:
    return c.PlaceSideBet(player_id=name, bet=kind, amount=amount, actor=player(name), at=AT)


def to_the_hands(table: Script, bets: list[Command], hands: Mapping[int, str]) -> None:
    """Start a round, take ``bets``, close, deal ``hands`` and roll :data:`DICE`."""
    table(c.StartRound(**D))
    table.run(bets)
    table.run([c.CloseBets(**D), c.DealCards(deck=deck(hands), **D), c.RollDice(faces=DICE, **D)])
