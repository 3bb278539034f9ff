"""The session's figures, summed from the events as they are recorded (constant memory).

The figures and their names are ``paigow report``'s (docs/projections.md, issue 18): the same
session gives the same numbers under the same words in both. The house is the casino, whoever
banks a round (R-BANK-5):

- ``handle``: the players' main wagers settled (= ``main_handle``); ``side_handle``: side bets.
- ``main_result``: the house's result on main wagers before commission (its banker share where
  the dealer banks, R-PAY-1; the house hand and any co-bank share where a player banks, R-BANK-2).
- ``commission`` (R-PAY-2, R-BANK-4); ``main_win`` (alias ``win``) = main_result + commission.
- ``side_result`` (−payouts), ``envy_paid``, ``side_win`` = side_result − envy_paid;
  ``game_win`` = main win + side win (aliases ``total_win`` and ``house_win``: the house's whole
  result); ``house_result`` = game win − commission (the table state's and the audit's).
- The books: ``opener``, ``fills``, ``credits``, ``closer``, the ``drop`` (cash + markers: as
  counted once the count is recorded, else as bought in), ``inventory_win`` = closer + credits +
  drop − opener − fills; ``hold_pct`` = inventory win / drop (the game win before the closer);
  ``game_hold_pct`` = game win / drop.
- ``player_wagers``: the results of the players' main wagers; ``player_banks``: player banks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adapters.projections.books import percent
from table_core.ports import RecordedEvent


@dataclass
class Tally:
    rounds: int = 0
    voided: int = 0
    events: int = 0
    main_result: int = 0
    commission: int = 0
    side_result: int = 0
    envy_paid: int = 0
    main_handle: int = 0
    side_handle: int = 0
    side_bets: int = 0
    results: dict[str, int] = field(default_factory=lambda: {"win": 0, "push": 0, "loss": 0})
    player_banks: int = 0
    books: dict[str, int | None] = field(
        default_factory=lambda: {
            "opener": None,
            "fills": 0,
            "credits": 0,
            "closer": None,
            "closer_variance": None,
            "cash": 0,
            "markers": 0,
            "drop_counted": None,
        }
    )

    def add(self, events: Iterable[RecordedEvent]) -> None:
        for event in events:
            self.events += 1
            handler = _HANDLERS.get(event.type)
            if handler is not None:  # every other type moves none of these figures
                handler(self, event.payload)

    @property
    def win(self) -> int:
        return self.main_result + self.commission

    @property
    def total_win(self) -> int:
        return self.win + self.side_result - self.envy_paid

    def book_figures(self) -> dict[str, Any]:
        """The books as ``paigow report`` shows them (adapters/projections/books.py)."""
        b = self.books
        recorded = int(b["cash"] or 0) + int(b["markers"] or 0)
        drop = recorded if b["drop_counted"] is None else int(b["drop_counted"])
        closed = b["closer"] is not None
        inventory = None
        if closed and b["opener"] is not None:
            inventory = int(b["closer"] or 0) + int(b["credits"] or 0) + drop
            inventory -= int(b["opener"]) + int(b["fills"] or 0)
        return {
            "opener": b["opener"],
            "fills": b["fills"],
            "credits": b["credits"],
            "closer": b["closer"],
            "closer_variance": b["closer_variance"],
            "drop": drop,
            "drop_recorded": recorded,
            "drop_counted": b["drop_counted"],
            "cash": b["cash"],
            "markers": b["markers"],
            "inventory_win": inventory,
            "game_win": self.total_win,
            "win_variance": None if inventory is None else inventory - self.total_win,
            "hold_pct": percent(self.total_win if inventory is None else inventory, drop),
            "game_hold_pct": percent(self.total_win, drop),
        }

    def frequencies(self) -> dict[str, float]:
        total = sum(self.results.values())
        return {k: (v / total if total else 0.0) for k, v in self.results.items()}

    def figures(self) -> dict[str, Any]:
        """Every figure, JSON-ready (money in minor units)."""
        hands = sum(self.results.values())
        side_win = self.side_result - self.envy_paid
        return {
            "rounds": self.rounds,
            "voided_rounds": self.voided,
            "events": self.events,
            "hands": hands,
            "pushes": self.results["push"],
            "push_rate_pct": percent(self.results["push"], hands),
            "handle": self.main_handle,
            "main_handle": self.main_handle,
            "main_result": self.main_result,
            "commission": self.commission,
            "win": self.win,
            "main_win": self.win,
            "side_bets": self.side_bets,
            "side_handle": self.side_handle,
            "side_result": self.side_result,
            "envy_paid": self.envy_paid,
            "side_win": side_win,
            "side_hold_pct": percent(side_win, self.side_handle),
            "total_win": self.total_win,
            "house_win": self.total_win,
            "house_result": self.total_win - self.commission,
            **self.book_figures(),
            "player_wagers": dict(self.results),
            "player_frequencies": {k: round(v, 6) for k, v in self.frequencies().items()},
            "player_banks": self.player_banks,
        }


def _settled(t: Tally, p: dict[str, Any]) -> None:
    house = p["banker"]["house_share"]
    for result in p["results"]:
        if result["player_id"] is None:  # the house hand against a player-banker (R-BANK-2)
            house += result["net"]
        else:
            t.results[result["result"]] += 1
            t.main_handle += result["wager"]
    t.main_result += house


def _commission(t: Tally, p: dict[str, Any]) -> None:
    t.commission += p["amount"]


def _side_settled(t: Tally, p: dict[str, Any]) -> None:
    t.side_result -= p["payout"]
    t.side_handle += p["amount"]
    t.side_bets += 1


def _envy(t: Tally, p: dict[str, Any]) -> None:
    t.envy_paid += p["amount"]


def _opened(t: Tally, p: dict[str, Any]) -> None:
    t.books["opener"] = p["total"]


def _closed_day(t: Tally, p: dict[str, Any]) -> None:
    t.books["closer"] = p["total"]
    t.books["closer_variance"] = p["variance"]


def _slip(key: str) -> Any:
    def add(t: Tally, p: dict[str, Any]) -> None:
        t.books[key] = int(t.books[key] or 0) + p["total"]

    return add


def _bought_in(t: Tally, p: dict[str, Any]) -> None:
    key = {"cash": "cash", None: "cash", "marker": "markers"}.get(p.get("medium"))
    if key is not None:
        t.books[key] = int(t.books[key] or 0) + p["amount"]


def _counted(t: Tally, p: dict[str, Any]) -> None:
    t.books["drop_counted"] = p["total"]


def _closed(t: Tally, p: dict[str, Any]) -> None:
    t.rounds += 1


def _voided(t: Tally, p: dict[str, Any]) -> None:
    t.voided += 1


def _bank(t: Tally, p: dict[str, Any]) -> None:
    t.player_banks += 1


_HANDLERS = {
    "round_settled": _settled,
    "commission_taken": _commission,
    "side_bet_settled": _side_settled,
    "envy_paid": _envy,
    "round_closed": _closed,
    "round_voided": _voided,
    "bank_accepted": _bank,
    "gaming_day_opened": _opened,
    "gaming_day_closed": _closed_day,
    "tray_filled": _slip("fills"),
    "tray_credited": _slip("credits"),
    "chips_bought_in": _bought_in,
    "drop_counted": _counted,
}
