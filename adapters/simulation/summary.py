"""The session's figures, summed from the events as they are recorded (constant memory).

Definitions (the house is the casino, whoever banks a round, R-BANK-5):

- ``house_win``: what the house won on wagers, before commission: the house's share of each main
  wager result where the dealer banks (R-PAY-1), the house hand's result and any co-bank share
  where a player banks (R-BANK-2), less every side bet and Envy payout (R-VAR-2..3).
- ``commission``: every ``commission_taken`` (R-PAY-2, R-BANK-4).
- ``handle``: every main wager and side bet settled (wagers returned unplayed, R-BANK-3, and a
  voided round's are not handle).
- ``hold_pct``: (house_win + commission) / handle, in percent.
- ``win`` / ``push`` / ``loss``: the results of the players' main wagers (not the house hand's).
- ``player_banks``: rounds a player banked (``bank_accepted``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from table_core.ports import RecordedEvent


@dataclass
class Tally:
    rounds: int = 0
    voided: int = 0
    events: int = 0
    house_win: int = 0
    commission: int = 0
    handle: int = 0
    main_handle: int = 0
    side_handle: int = 0
    results: dict[str, int] = field(default_factory=lambda: {"win": 0, "push": 0, "loss": 0})
    player_banks: int = 0

    def add(self, events: Iterable[RecordedEvent]) -> None:
        for event in events:
            self.events += 1
            handler = _HANDLERS.get(event.type)
            if handler is not None:  # every other type moves none of these figures
                handler(self, event.payload)

    @property
    def hold_pct(self) -> float:
        return 100 * (self.house_win + self.commission) / self.handle if self.handle else 0.0

    def frequencies(self) -> dict[str, float]:
        total = sum(self.results.values())
        return {k: (v / total if total else 0.0) for k, v in self.results.items()}

    def figures(self) -> dict[str, Any]:
        """Every figure, JSON-ready (money in minor units)."""
        return {
            "rounds": self.rounds,
            "voided_rounds": self.voided,
            "events": self.events,
            "house_win": self.house_win,
            "commission": self.commission,
            "handle": self.handle,
            "main_handle": self.main_handle,
            "side_handle": self.side_handle,
            "hold_pct": round(self.hold_pct, 4),
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
            t.handle += result["wager"]
    t.house_win += house


def _commission(t: Tally, p: dict[str, Any]) -> None:
    t.commission += p["amount"]


def _side_settled(t: Tally, p: dict[str, Any]) -> None:
    t.house_win -= p["payout"]
    t.side_handle += p["amount"]
    t.handle += p["amount"]


def _envy(t: Tally, p: dict[str, Any]) -> None:
    t.house_win -= p["amount"]


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
}
