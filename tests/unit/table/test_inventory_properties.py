"""Over random gaming days (hypothesis drives buy-ins by medium, fills, credits and rounds), the
books balance (issue 18, duty R16):

- the inventory equation, to the cent, from the events alone: opener + fills - credits - chips
  sold for cash and markers + game win = closer;
- inventory win (closer + credits + drop - opener - fills) = game win (house result + commission)
  when every buy-in is recorded and the count finds what the table recorded;
- the tray never goes negative, and what the state says it holds is derivable from the events.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_core import commands as c
from table_core.errors import DomainError
from table_core.events import (
    DROP_MEDIA,
    ChipsBoughtIn,
    CommissionTaken,
    DropCounted,
    EnvyPaid,
    GamingDayClosed,
    GamingDayOpened,
    RoundSettled,
    SideBetSettled,
    TrayCredited,
    TrayFilled,
)
from table_core.table import fold

from .books_support import COUNT, DAY, D, credit, fill, finish_round, open_day, play_round
from .support import AT, CAGE, DEALER, FLOOR, Script

NAMES = ("ana", "bruno", "chloe", "dmitri")
MEDIA = ("cash", "marker", "chips", "promotional")


def _game_win(events: list[object]) -> int:
    win = 0
    for e in events:
        if isinstance(e, RoundSettled):
            win += e.banker.house_share + sum(r.net for r in e.results if r.player_id is None)
        elif isinstance(e, CommissionTaken):
            win += e.amount
        elif isinstance(e, SideBetSettled):
            win -= e.payout
        elif isinstance(e, EnvyPaid):
            win -= e.amount
    return win


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    opener=st.integers(0, 40).map(lambda n: n * 2_500),
    steps=st.lists(st.sampled_from(["buy", "round", "fill", "credit"]), min_size=5, max_size=30),
)
def test_the_inventory_equation_holds_and_inventory_win_is_game_win(
    seed: int, opener: int, steps: list[str]
) -> None:
    rng = random.Random(seed)
    script = Script()
    open_day(script, {2_500: opener})
    for seat, name in enumerate(NAMES, start=1):
        script(c.SeatPlayer(seat=seat, player_id=name, **D))
    slips = 0
    for step in steps:
        tray = script.state.tray
        assert tray is not None and tray >= 0
        if step == "buy":
            medium = rng.choice(MEDIA)
            amount = rng.randrange(1, 40) * 500
            marker = f"M-{rng.randrange(10_000)}" if medium == "marker" else None
            buy = c.BuyIn(player_id=rng.choice(NAMES), amount=amount, medium=medium,
                          marker=marker, actor=CAGE, at=AT)  # fmt: skip
            try:
                script(buy)
            except DomainError:  # the tray cannot give the chips: fill first
                assert medium in DROP_MEDIA and amount > tray
        elif step in ("fill", "credit"):
            slips += 1
            amount = rng.randrange(1, 20) * 2_500
            if step == "credit" and amount > tray:
                continue
            script((fill if step == "fill" else credit)(f"S-{slips}", {2_500: amount}))
        else:
            bets = {n: 2_000 for n in NAMES if script.state.balances.get(n, 0) >= 2_000}
            if not bets:
                continue
            play_round(script, bets, rng)
            try:
                finish_round(script)
            except DomainError:  # the tray cannot pay: void, fill, and go on
                script(c.VoidRound(reason="tray short", actor=FLOOR, at=AT))
                slips += 1
                script(fill(f"S-{slips}", {10_000: 100_000}))
    tray = script.state.tray
    assert tray is not None
    closer = {100: tray % 500, 500: tray % 2_500 - tray % 500, 2_500: tray - tray % 2_500}
    script(c.CloseGamingDay(closer=closer, dealer=DEALER, actor=FLOOR, at=AT))
    events = script.events
    bought = [e for e in events if isinstance(e, ChipsBoughtIn)]
    cash = sum(e.amount for e in bought if e.medium in ("cash", None))
    markers = sum(e.amount for e in bought if e.medium == "marker")
    script(c.CountDrop(gaming_day=DAY, cash=cash, markers=markers, actor=COUNT, at=AT))

    (opened,) = [e for e in events if isinstance(e, GamingDayOpened)]
    (closed,) = [e for e in events if isinstance(e, GamingDayClosed)]
    (count,) = [e for e in script.events if isinstance(e, DropCounted)]
    fills = sum(e.total for e in events if isinstance(e, TrayFilled))
    credits = sum(e.total for e in events if isinstance(e, TrayCredited))
    game_win = _game_win(events)
    assert opened.total + fills - credits - (cash + markers) + game_win == closed.total
    assert closed.variance == 0 and closed.expected == closed.total
    inventory_win = closed.total + credits + count.total - opened.total - fills
    assert inventory_win == game_win
    state = script.state
    assert game_win == state.house_result + state.commission
    assert fold(script.events) == state
