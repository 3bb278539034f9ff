"""The simulated table's books (issue 18, R16): the tray kept between a low and a high mark with
fills and credits, buy-ins for cash and markers, the closer counted from the tray, the count.

Levels, from the session's own sizes (``buy_in`` B, a round's cover C = every seat's wager and a
Fortune bet paid 50 to 1 with Envy): the opener and the ``target`` are 2 B + C; a fill comes when
the tray falls below C (or below what a top-up needs) and brings it back to the target; a credit
comes when the tray rises above the target + B / 40 and takes it down to the target. A
rarer round that would pay more than the tray holds is refused by the core (a fill must come
first, between rounds); the session then raises the target to what that round needs, fills to
it and plays the batch again.

Fills and credits move 100.00 chips; the opener and closer are counted greedily by denomination,
and the profile adds a 0.25 chip to the default ones so the commission (5% of a wager) is counted
to the cent. Slip numbers come from the round (``F-17``, ``F-17-ana-SIM-1``, ``C-17``), so a run
and its retries record the same slips.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from table_core import commands as c
from table_core.events import Actor
from table_core.rules import DEFAULT_DENOMINATIONS
from table_core.table import TableState

DEALER = Actor(id="sim-dealer", role="dealer")
FLOOR = Actor(id="sim-floor", role="floor")
CAGE = Actor(id="sim-cage", role="cage")
COUNT = Actor(id="sim-count", role="count")
#: The tray's chips: the default ones and a 0.25 chip for the commission.
DENOMINATIONS: tuple[int, ...] = (25, *DEFAULT_DENOMINATIONS)
#: Fills and credits move chips of this denomination (100.00).
SLIP_CHIP = 10_000


def counted(amount: int, denominations: Sequence[int] = DENOMINATIONS) -> dict[int, int]:
    """``amount`` counted greedily by denomination (largest first); a remainder below the
    smallest chip is not counted (the closer's variance records it)."""
    chips: dict[int, int] = {}
    for denomination in sorted(denominations, reverse=True):
        part = amount - amount % denomination
        if part > 0:
            chips[denomination] = part
            amount -= part
    return chips


def _up(amount: int) -> int:
    return -(-amount // SLIP_CHIP) * SLIP_CHIP


@dataclass(frozen=True)
class TrayLevels:
    low: int
    target: int
    high: int

    @classmethod
    def of(
        cls, players: int, wager: int, side_wager: int, buy_in: int, fortune: bool
    ) -> TrayLevels:
        cover = players * (wager + (side_wager * 50 + 50_000 if fortune else 0))
        target = _up(2 * buy_in + cover)
        return cls(low=cover, target=target, high=target + max(buy_in // 40, SLIP_CHIP))

    def raised(self, needs: int) -> TrayLevels:
        """The levels after a round needed ``needs``: the target at least that (the pit keeps
        more in the tray from then on), the high mark as far above it as before."""
        target = max(self.target, _up(needs))
        return TrayLevels(self.low, target, self.high + target - self.target)

    def opener(self) -> dict[int, int]:
        return counted(self.target)


def _slip(
    kind: type[c.FillTray] | type[c.CreditTray], slip: str, amount: int, at: datetime
) -> c.Command:
    issuer, receiver = (CAGE, DEALER) if kind is c.FillTray else (DEALER, CAGE)
    return kind(
        slip=slip,
        chips={SLIP_CHIP: amount},
        requested_by=FLOOR,
        issued_by=issuer,
        received_by=receiver,
        actor=FLOOR,
        at=at,
    )


def fill(slip: str, amount: int, at: datetime) -> c.Command:
    """A fill of at least ``amount`` (rounded up to whole 100.00 chips)."""
    return _slip(c.FillTray, slip, _up(amount), at)


def keeper(
    levels: TrayLevels,
    round_number: int,
    now: Callable[[], datetime],
    top_ups: Callable[[TableState], int] = lambda state: 0,
) -> Callable[[TableState], c.Command | None]:
    """Between rounds: a fill when the tray is below the low mark (plus the chips the round's
    top-ups, ``top_ups(state)``, will take from it), a credit above the high mark."""

    def build(state: TableState) -> c.Command | None:
        tray = state.tray
        if tray is None:
            return None
        sold = top_ups(state)
        if tray < levels.low + sold:
            return fill(f"F-{round_number}", levels.target + sold - tray, now())
        if tray > levels.high + sold:
            amount = (tray - sold - levels.target) // SLIP_CHIP * SLIP_CHIP
            return _slip(c.CreditTray, f"C-{round_number}", amount, now()) if amount else None
        return None

    return build


def fill_for(
    levels: TrayLevels, slip: str, need: int, amount: int, player: str, now: Callable[[], datetime]
) -> Callable[[TableState], c.Command | None]:
    """Before a buy-in of ``amount`` that ``player`` makes if their balance is below ``need``:
    a fill when the tray could not sell it and still cover a round."""

    def build(state: TableState) -> c.Command | None:
        tray = state.tray
        if tray is None or state.balances.get(player, 0) >= need:
            return None
        if tray >= amount + levels.low:
            return None
        return fill(slip, levels.target + amount - tray, now())

    return build


def buy_in(player: str, amount: int, at: datetime, marker: str | None = None) -> c.Command:
    """A buy-in for cash, or for a marker when its number is given (both are the drop)."""
    if marker is None:
        return c.BuyIn(player_id=player, amount=amount, medium="cash", actor=CAGE, at=at)
    return c.BuyIn(
        player_id=player, amount=amount, medium="marker", marker=marker, actor=CAGE, at=at
    )


def closer(now: Callable[[], datetime]) -> Callable[[TableState], c.Command | None]:
    """The closer: the tray as the events leave it, counted by denomination."""

    def build(state: TableState) -> c.Command | None:
        if state.tray is None:
            return None
        return c.CloseGamingDay(closer=counted(state.tray), dealer=DEALER, actor=FLOOR, at=now())

    return build
