"""Shared script for the books' tests (issue 18): a gaming day's actors, opener and a round."""

from __future__ import annotations

import random
from datetime import date

from table_core import commands as c
from table_core.cards import FULL_DECK
from table_core.events import Actor

from .support import AT, CAGE, DEALER, FLOOR, TABLE, Script, rules

COUNT = Actor(id="count-team-2", role="count")
DAY = date(2025, 3, 14)
#: 100 x 1.00 + 100 x 5.00 + 100 x 25.00 + 50 x 100.00 = 8,100.00
OPENER = {100: 10_000, 500: 50_000, 2_500: 250_000, 10_000: 500_000}
OPENER_TOTAL = 810_000
F = {"actor": FLOOR, "at": AT}
D = {"actor": DEALER, "at": AT}


def open_day(script: Script, opener: dict[int, int] | None = None, day: date = DAY) -> None:
    first = script.state.table_id is None
    script(
        c.OpenGamingDay(
            gaming_day=day,
            opener=OPENER if opener is None else opener,
            dealer=DEALER,
            table_id=TABLE if first else None,
            rules=rules() if first else None,
            **F,
        )
    )


def fill(slip: str, chips: dict[int, int]) -> c.FillTray:
    return c.FillTray(
        slip=slip, chips=chips, requested_by=FLOOR, issued_by=CAGE, received_by=DEALER, **F
    )


def credit(slip: str, chips: dict[int, int]) -> c.CreditTray:
    return c.CreditTray(
        slip=slip, chips=chips, requested_by=FLOOR, issued_by=DEALER, received_by=CAGE, **F
    )


def play_round(script: Script, bets: dict[str, int], rng: random.Random) -> None:
    """One dealer-banked round: every player asks for the House Way."""
    script(c.StartRound(**D))
    for name, amount in bets.items():
        script(c.PlaceBet(player_id=name, amount=amount, **D))
    script(c.CloseBets(**D))
    script(c.DealCards(deck=rng.sample(FULL_DECK, 53), **D))
    script(c.RollDice(faces=(rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6)), **D))
    for name in bets:
        script(c.SetHand(player_id=name, **D))
    script(c.SetBankerHand(**D))


def finish_round(script: Script) -> None:
    script(c.Settle(**D))
    script(c.CloseRound(**D))
