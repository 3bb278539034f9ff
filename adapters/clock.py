"""The time the application service stamps on commands (the core never reads a clock)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


class SteppingClock:
    """A deterministic clock for simulations and tests: each call advances by ``step``."""

    def __init__(self, start: datetime, step: timedelta = timedelta(milliseconds=1)) -> None:
        self._now = start
        self._step = step

    def __call__(self) -> datetime:
        now = self._now
        self._now = now + self._step
        return now
