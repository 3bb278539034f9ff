"""A scripted gaming day at PG-7 with its books (issue 18, R16), and its figures by hand.

The rounds are rounds 1 to 3 of ``session.play_evening`` (its docstring deals them card by card);
around them the table keeps its books:

  opener   200,000 (80 chips of 25.00), signed by the dealer and the floor
  buy-ins  ana 50,000 cash, bruno 30,000 marker M-0001, chloe 20,000 cash: the tray sells
           100,000 of chips and holds 100,000
  fill     F-1, 50,000 in 25.00 chips (floor, cage, dealer): the tray holds 150,000
  rounds   1-3: the house's game win is -7,000 (main wagers) + 550 (commission: 250 + 100 + 100 +
           50 + 50) - 1,500 (chloe's Fortune) - 500 (her Envy) = -8,450: the tray holds 141,550
  credit   C-1, 25,000 (floor, dealer, cage): the tray holds 116,550
  bruno leaves (cash-out 32,849); the floor corrects ana's rating (2,500 average, 30 minutes)
  closer   116,500: the 0.50 of a 5% commission on 2,001 rounded to 100 (R-PAY-2) is no chip
           the tray can count, so the closer's variance is -50, recorded, never hidden
  count    cash 70,000, markers 30,000: drop 100,000, as recorded

The books: inventory win = 116,500 + 25,000 + 100,000 - 200,000 - 50,000 = -8,500; game win
-8,450; variance -50; hold % = -8,500 / 100,000 = -8.50. Handle: 8,000 + 5,001 + 2,000 = 15,001.
"""

from __future__ import annotations

from datetime import date

from table_core import commands as c
from table_core.events import Actor

from . import session as s

DAY = date(2026, 3, 14)
COUNT = Actor(id="count-3", role="count")
CAGE = s.CAGE
MEDIA = {"ana": ("cash", None), "bruno": ("marker", "M-0001"), "chloe": ("cash", None)}


def _slip(kind: type[c.FillTray] | type[c.CreditTray], slip: str, amount: int) -> dict[str, object]:
    issuer, receiver = (CAGE, s.DEALER) if kind is c.FillTray else (s.DEALER, CAGE)
    return {
        "slip": slip,
        "chips": {2_500: amount},
        "requested_by": s.FLOOR,
        "issued_by": issuer,
        "received_by": receiver,
        "actor": s.FLOOR,
    }


def play_books_day(session: s.Session) -> None:
    do = session
    do(c.OpenGamingDay, table_id=s.TABLE, rules=s.RULES, gaming_day=DAY, opener={2_500: 200_000},
       dealer=s.DEALER, actor=s.FLOOR)  # fmt: skip
    for seat, (name, amount) in enumerate(s.BUY_INS.items(), start=1):
        medium, marker = MEDIA[name]
        do(c.SeatPlayer, seat=seat, player_id=name, card=f"CLUB-{name}")
        do(c.BuyIn, player_id=name, amount=amount, medium=medium, marker=marker, actor=CAGE)
    do(c.FillTray, **_slip(c.FillTray, "F-1", 50_000))
    do(c.StartRound)
    do(c.PlaceBet, player_id="ana", amount=5_000)
    do(c.PlaceBet, player_id="bruno", amount=2_000)
    do(c.PlaceBet, player_id="chloe", amount=1_000)
    do(c.PlaceSideBet, player_id="chloe", bet="fortune", amount=500)
    do.deal(s.ROUND_1)
    do.hand("ana", "Ac Ad 6c 6d 2c / Qs Jh")
    do.hand("bruno", "9c 9d 9h 9s 3h / Kc Qc")
    do.hand("chloe", "7s 7c 7d Ah Th / 4h 2s")
    do.finish()
    do(c.StartRound)
    do(c.DeclineBank, player_id="ana")
    do(c.AcceptBank, player_id="bruno", co_bank=True)
    do(c.PlaceBet, player_id="chloe", amount=2_001)
    do(c.PlaceBet, player_id="ana", amount=3_000)
    do.deal(s.ROUND_2)
    do.hand("chloe", "Qh Qd 8s 8d 4s / Ac 7h")
    do.hand("ana", "Jc 7d 5h 4d 3c / 9c 2d")
    do.finish()
    do(c.StartRound)
    do(c.PlaceBet, player_id="ana", amount=1_000)
    do(c.PlaceBet, player_id="chloe", amount=1_000)
    do.deal(s.ROUND_3)
    do.hand("chloe", "Kd Jd 6s 4c 3h / 8c 8h")
    do.finish()
    do(c.CreditTray, **_slip(c.CreditTray, "C-1", 25_000))
    do(c.LeaveSeat, player_id="bruno")
    do(c.CorrectRating, player_id="ana", reason="sat out two hands", average_bet=2_500,
       minutes=30, actor=s.FLOOR)  # fmt: skip
    do(c.CloseGamingDay, closer={2_500: 100_000, 500: 16_500}, dealer=s.DEALER, actor=s.FLOOR)
    do(c.CountDrop, gaming_day=DAY, cash=70_000, markers=30_000, actor=COUNT)


#: The report's accounting row of the day, by hand.
ACCOUNTING = {
    "table_id": s.TABLE,
    "gaming_day": "2026-03-14",
    "rounds_played": 3,
    "rounds_voided": 0,
    "hands": 3 + 2 + 2,  # the house hand's wager against bruno is no player's hand
    "pushes": 1,  # chloe, round 1
    "push_rate_pct": "14.29",
    "handle": 8_000 + 5_001 + 2_000,
    "drop": 100_000,
    "main_result": -7_000,
    "commission": 550,
    "win": -6_450,
    "hold_pct": "-8.50",
    "side_bets": 1,
    "side_handle": 500,
    "side_result": -1_500,
    "envy_paid": 500,
    "side_win": -2_000,
    "side_hold_pct": "-400.00",
    "total_win": -8_450,
    "books": "counted",
    "opener": 200_000,
    "opener_variance": 0,
    "fills": 50_000,
    "credits": 25_000,
    "closer": 116_500,
    "closer_variance": -50,
    "drop_recorded": 100_000,
    "drop_counted": 100_000,
    "drop_variance": 0,
    "cash": 70_000,
    "markers": 30_000,
    "chips_in": 0,
    "promotional": 0,
    "inventory_win": -8_500,
    "game_win": -8_450,
    "win_variance": -50,  # = the closer's variance -50 + the drop's 0
    "main_win": -6_450,
    "game_hold_pct": "-8.45",
}

#: The ratings, by hand (money in minor units; theo = wagers x edge, table_core/edges.py:
#: fr 2.692%, fortune_8000 11,970,096 / 154,143,080).
RATINGS = {
    "ana": {"rounds": 3, "average_bet": 3_000, "average_side_bet": None, "main_wagered": 9_000,
            "cash": 50_000, "markers": 0, "cashed_out": 0, "actual_win": -750,
            "theo_win": 242,  # 9,000 x 0.02692 = 242.28
            "status": "closed", "corrected_average_bet": 2_500, "corrected_minutes": 30,
            "correction_reason": "sat out two hands"},
    "bruno": {"rounds": 2, "average_bet": 2_000, "average_side_bet": None, "main_wagered": 2_000,
              "cash": 0, "markers": 30_000, "cashed_out": 32_849, "actual_win": -2_849,
              "theo_win": 54,  # 2,000 x 0.02692 = 53.84; the round he banked adds none
              "status": "closed", "corrected_average_bet": None, "corrected_minutes": None,
              "correction_reason": None},
    "chloe": {"rounds": 3, "average_bet": 1_334, "average_side_bet": 500, "main_wagered": 4_001,
              "cash": 20_000, "markers": 0, "cashed_out": 0, "actual_win": -4_851,
              "theo_win": 147,  # 4,001 x 0.02692 + 500 x 0.0776559 = 107.707 + 38.828
              "status": "closed", "corrected_average_bet": None, "corrected_minutes": None,
              "correction_reason": None},
}  # fmt: skip
