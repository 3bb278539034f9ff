"""The money a table's events post (``audit.rederive``'s ledger): each player's chips bought in,
cashed out and won or lost, and the house's result and commission, from which the audit's money
check (chips in hand = bought - cashed + results) is drawn."""

from __future__ import annotations

from typing import Any

from table_core.events import (
    ChipsBoughtIn,
    ChipsCashedOut,
    CommissionTaken,
    EnvyPaid,
    RoundSettled,
    SideBetSettled,
)


class Ledger:
    """Each player's chips in and out and results, and the house's, posted from the events."""

    __slots__ = ("bought", "cashed", "commission", "house", "results")

    def __init__(self) -> None:
        self.bought: dict[str, int] = {}
        self.cashed: dict[str, int] = {}
        self.results: dict[str, int] = {}
        self.house = 0
        self.commission = 0

    def balances(self) -> dict[str, int]:
        names = self.bought.keys() | self.cashed.keys() | self.results.keys()
        return {
            p: self.bought.get(p, 0) - self.cashed.get(p, 0) + self.results.get(p, 0) for p in names
        }

    def _result(self, player: str, amount: int) -> None:
        self.results[player] = self.results.get(player, 0) + amount

    def post(self, event: Any) -> None:
        kind = type(event)
        if kind is ChipsBoughtIn:
            self.bought[event.player_id] = self.bought.get(event.player_id, 0) + event.amount
        elif kind is ChipsCashedOut:
            self.cashed[event.player_id] = self.cashed.get(event.player_id, 0) + event.amount
        elif kind is RoundSettled:
            house = event.banker.house_share
            for result in event.results:
                if result.player_id is None:  # the house hand against a player-banker
                    house += result.net
                else:
                    self._result(result.player_id, result.net)
            if event.banker.player_id is not None:
                self._result(event.banker.player_id, event.banker.net)
            self.house += house
        elif kind is SideBetSettled:
            self._result(event.player_id, event.payout)
            self.house -= event.payout
        elif kind is EnvyPaid:
            self._result(event.player_id, event.amount)
            self.house -= event.amount
        elif kind is CommissionTaken:
            self.commission += event.amount
